package gnuinput

// --pipepart --group-by: where GNU parallel 20221122 cuts a file so that
// no run of lines of one value is split (its split_positions_for_group_by,
// a search from each block's end, reading only the lines it looks at).

import (
	"bufio"
	"io"
)

// GroupParts returns pj set to cut its --pipepart files at the changes of
// value of column c (GNU parallel's --pipepart --group-by), near each
// block's end.
func (pj PipeJobs) GroupParts(c Column) (PipeJobs, error) {
	k, err := c.compile()
	if err != nil {
		return pj, err
	}
	pj.group = &k
	return pj, nil
}

// groupPositions are the cut positions of a file of size bytes, from
// start (past the header): GNU's algorithm, step for step. From a cut a,
// it looks one block on (b) and two (c): when a and b hold one value, the
// cut is that value's end past b (moving on by blocks while c holds it
// too); when b and c hold one value (not a's), the cut is where it starts;
// otherwise where b's ends. The searches halve their step, as GNU's.
func groupPositions(f io.ReaderAt, size, block, start int64, k columnKey) []int64 {
	// line reads the line at off (with its newline), and where the next
	// starts; "" at the end.
	line := func(off int64) (string, int64) {
		if off >= size {
			return "", off
		}
		br := bufio.NewReader(io.NewSectionReader(f, off, size-off))
		l, _ := br.ReadString('\n')
		return l, off + int64(len(l))
	}
	// valueAt is the value of the first line that starts at or after pos,
	// where that line starts, and whether it is the file's last.
	valueAt := func(pos int64) (v string, at int64, eof bool) {
		at = pos
		if pos != 0 {
			_, at = line(pos - 1)
		}
		l, next := line(at)
		if l == "" {
			return "", at, true
		}
		return k.of(l), at, next >= size
	}
	searchEnd := func(s string, spos, epos int64) (string, int64) {
		v, vpos, _ := valueAt(epos)
		for d := epos - spos; d > 0; d /= 2 {
			v, vpos, _ = valueAt(spos + d)
			if v == s {
				spos, d = vpos, epos-vpos
			} else {
				epos = vpos
			}
		}
		return v, vpos
	}
	searchStart := func(s string, spos, epos int64) (string, int64) {
		v, vpos, _ := valueAt(epos)
		for d := epos - spos; d > 0; d /= 2 {
			v, vpos, _ = valueAt(spos + d)
			if v == s {
				epos = vpos
			} else {
				spos, d = vpos, epos-vpos
			}
		}
		return v, vpos
	}
	var pos []int64
	a, apos, _ := valueAt(start)
	for apos < size {
		pos = append(pos, apos)
		b, bpos, eof := valueAt(apos + block)
		if eof {
			pos = append(pos, size)
			break
		}
		c, cpos, _ := valueAt(bpos + block)
		switch {
		case a == b:
			for b == c {
				bpos = cpos
				cpos += block
				c, cpos, _ = valueAt(cpos)
				if cpos >= size {
					cpos = size
					break
				}
			}
			b, bpos = searchEnd(b, bpos, cpos)
		case b == c:
			b, bpos = searchStart(b, apos, bpos)
		default:
			b, bpos = searchEnd(b, bpos, cpos)
		}
		if bpos <= apos {
			break // never in GNU's cases; a cut must move on
		}
		a, apos = b, bpos
	}
	if len(pos) == 0 || pos[len(pos)-1] != size {
		pos = append(pos, size)
	}
	return pos
}
