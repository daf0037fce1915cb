package sim

import (
	"fmt"
	"strconv"
	"time"
)

func (e *engine) logf(format string, args ...any) {
	e.log.WriteByte('[')
	e.log.WriteString(fmtTime(e.now))
	e.log.WriteString("] ")
	fmt.Fprintf(e.log, format, args...)
	e.log.WriteByte('\n')
}

// fmtTime prints a virtual time as seconds, shortest exact form.
func fmtTime(t time.Duration) string {
	b := make([]byte, 0, 24)
	if t < 0 {
		b = append(b, '-')
		t = -t
	}
	b = strconv.AppendInt(b, int64(t/time.Second), 10)
	if ns := int64(t % time.Second); ns != 0 {
		var f [9]byte
		for i := 8; i >= 0; i-- {
			f[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 9
		for n > 0 && f[n-1] == '0' {
			n--
		}
		b = append(b, '.')
		b = append(b, f[:n]...)
	}
	return string(b)
}

func taskList(ids []int32) string {
	b := make([]byte, 0, 8*len(ids))
	for i, id := range ids {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, 'T')
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return string(b)
}
