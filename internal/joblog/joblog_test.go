package joblog

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestJoblogRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.tsv")
	l, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	recs := []Record{
		{Seq: 1, Host: ":", Start: time.UnixMilli(1700000000123), Runtime: 1500 * time.Millisecond, Exit: 0, Command: "echo a\tb"},
		{Seq: 2, Host: ":", Start: time.UnixMilli(1700000001000), Runtime: 0, Exit: -1, Signal: 15, Command: "sleep 9"},
	}
	for _, r := range recs {
		if err := l.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), Header+"\n1\t:\t1700000000.123\t     1.500\t0\t0\t0\t0\techo a\tb\n") {
		t.Errorf("joblog:\n%s", data)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Errorf("ReadFile = %+v; want %+v", got, recs)
	}
}

func TestJoblogTornLastRow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.tsv")
	os.WriteFile(path, []byte(Header+"\n1\t:\t1.000\t0.5\t0\t0\t0\t0\techo a\n2\t:\t1.0"), 0o644)
	recs, err := ReadFile(path)
	if err != nil || len(recs) != 1 {
		t.Fatalf("ReadFile = %v, %v; want the one whole row", recs, err)
	}
	l, err := Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	l.Write(Record{Seq: 3, Host: ":", Command: "echo c"})
	l.Close()
	recs, err = ReadFile(path)
	if err != nil || len(recs) != 2 || recs[1].Seq != 3 {
		t.Fatalf("after append: %v, %v; want rows 1 and 3", recs, err)
	}
}

func TestJoblogMalformedRow(t *testing.T) {
	_, err := Read(strings.NewReader(Header + "\n1\t:\tx\t0\t0\t0\t0\t0\techo\n2\t:\t1\t0\t0\t0\t0\t0\techo\n"))
	if !errors.Is(err, ErrBad) || !strings.Contains(err.Error(), `line 2: Starttime "x"`) {
		t.Errorf("error %v; want ErrBad naming line 2 and Starttime", err)
	}
}

// job is a batch's job as Resume sees it: a number and a command.
type job struct {
	Seq     int
	Command string
}

func seqOf(j job) int { return j.Seq }

func TestResume(t *testing.T) {
	jobs := []job{{Seq: 1, Command: "a"}, {Seq: 2, Command: "b"}, {Seq: 3, Command: "a"}, {Seq: 4, Command: "c"}, {Seq: 5, Command: "x\ny"}}
	recs := []Record{
		{Seq: 1, Command: "a"},          // success
		{Seq: 2, Command: "b", Exit: 1}, // failure: runs again
		{Seq: 4, Command: "c", Exit: -1, Signal: 9},
		{Seq: 5, Command: `x\ny`},
	}
	// --resume-failed: the jobs that succeeded are skipped, by number.
	todo, skipped := Resume(jobs, seqOf, recs, true)
	if skipped != 2 || !reflect.DeepEqual(commands(todo), []string{"b", "a", "c"}) {
		t.Errorf("Resume(failed too) = %q, %d skipped; want [b a c], 2", commands(todo), skipped)
	}
	// --resume: every job in the joblog is skipped.
	todo, skipped = Resume(jobs, seqOf, recs, false)
	if skipped != 4 || !reflect.DeepEqual(commands(todo), []string{"a"}) {
		t.Errorf("Resume = %q, %d skipped; want [a], 4", commands(todo), skipped)
	}
}

// FuzzReadJoblog: any bytes parse or fail with ErrBad naming a line;
// what parses writes back to rows that read as the same records (after
// one round, which rounds the times to the millisecond).
func FuzzReadJoblog(f *testing.F) {
	f.Add([]byte(Header + "\n1\t:\t1700000000.123\t     1.500\t0\t2\t0\t0\techo a\n"))
	f.Add([]byte(Header + "\n1\t:\t1.000\t0.5\t0\t0\t0\t0\techo a\n2\t:\t1.0"))
	f.Add([]byte("1\t:\tx\t0\t0\t0\t0\t0\techo\n2\t:\t1\t0\t0\t0\t0\t0\techo\n"))
	f.Add([]byte("1\t:\t1e300\t1e300\t0\t0\t-1\t15\tsleep 9\r\n"))
	f.Add(bytes.Repeat([]byte{0}, 100))
	f.Add([]byte("x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := Read(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrBad) || !strings.Contains(err.Error(), "line ") {
				t.Fatalf("error %v: want ErrBad naming a line", err)
			}
			return
		}
		write := func(recs []Record) []byte {
			var b bytes.Buffer
			l, _ := New(&b)
			for _, r := range recs {
				l.Write(r)
			}
			return b.Bytes()
		}
		once, err := Read(bytes.NewReader(write(recs)))
		if err != nil || len(once) != len(recs) {
			t.Fatalf("rewritten joblog: %d records, %v; want %d", len(once), err, len(recs))
		}
		twice, err := Read(bytes.NewReader(write(once)))
		if err != nil || !reflect.DeepEqual(twice, once) {
			t.Fatalf("joblog round trip:\n%+v\n%+v (%v)", once, twice, err)
		}
		for _, r := range once {
			if r.Runtime < 0 || r.Start.Before(time.Unix(0, 0)) {
				t.Fatalf("record %+v: negative time", r)
			}
		}
	})
}

func commands(jobs []job) []string {
	var c []string
	for _, j := range jobs {
		c = append(c, j.Command)
	}
	return c
}
