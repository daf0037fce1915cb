package traceview

import (
	"sort"
	"strconv"
	"strings"
	"time"
)

// The compact form of a trace. A summary needs every task span (the
// critical path walks back through them, and a span's self time depends on
// the spans nested in it), but not the events' JSON: a span is kept in 24
// bytes (start, duration and a packed name) plus 4 for its parent once the
// lanes are sorted, about a third of its JSON text. Steals are kept for
// the path (16 bytes each); the other instants (failed steals, parks,
// wake-ups, spawns) and the wait spans are only counted, unless the
// timeline is to be drawn.

// nameRef is a task name packed into 8 bytes: the id of its text in a
// nameTable, or, for a name that ends in a decimal number (the runtime's
// "T1.2345", the simulator's "T17"), the id of the text before the number
// and the number plus one.
type nameRef uint64

// nameTable interns the texts of names.
type nameTable struct {
	ids  map[string]uint32
	strs []string
}

// maxSuffix bounds the numbers a nameRef holds apart from their prefix.
const maxSuffix = 1<<32 - 2

func (t *nameTable) id(s string) uint32 {
	if id, ok := t.ids[s]; ok {
		return id
	}
	if t.ids == nil {
		t.ids = map[string]uint32{}
	}
	id := uint32(len(t.strs))
	s = strings.Clone(s) // not a view into a larger string
	t.strs = append(t.strs, s)
	t.ids[s] = id
	return id
}

// ref packs name.
func (t *nameTable) ref(name string) nameRef {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	digits := name[i:]
	// Only a canonical number (no leading zero, fits) is split off, so
	// that name(ref(s)) == s.
	if digits != "" && len(digits) <= 10 && (digits == "0" || digits[0] != '0') {
		if n, err := strconv.ParseUint(digits, 10, 64); err == nil && n <= maxSuffix {
			return nameRef(uint64(t.id(name[:i]))<<32 | (n + 1))
		}
	}
	return nameRef(uint64(t.id(name)) << 32)
}

// name unpacks r.
func (t *nameTable) name(r nameRef) string {
	prefix := t.strs[r>>32]
	if n := uint64(r & (1<<32 - 1)); n > 0 {
		return prefix + strconv.FormatUint(n-1, 10)
	}
	return prefix
}

// rec is one task span.
type rec struct {
	start, dur time.Duration
	name       nameRef
}

func (r *rec) end() time.Duration { return r.start + r.dur }

// spanStore holds a lane's spans in chunks of chunkLen (the first grows
// by doubling up to that), so a lane of millions of spans never needs a
// second copy of itself to grow, and a lane of a few wastes little.
type spanStore struct {
	chunks [][]rec
	n      int
}

const (
	chunkBits = 12
	chunkLen  = 1 << chunkBits
)

func (s *spanStore) add(r rec) {
	c := s.n >> chunkBits
	if c == len(s.chunks) {
		capacity := chunkLen
		if c == 0 {
			capacity = 8
		}
		s.chunks = append(s.chunks, make([]rec, 0, capacity))
	}
	s.chunks[c] = append(s.chunks[c], r) // chunk 0 doubles until chunkLen
	s.n++
}

func (s *spanStore) len() int      { return s.n }
func (s *spanStore) at(i int) *rec { return &s.chunks[i>>chunkBits][i&(chunkLen-1)] }
func (s *spanStore) Len() int      { return s.n }
func (s *spanStore) Swap(i, j int) { a, b := s.at(i), s.at(j); *a, *b = *b, *a }
func (s *spanStore) Less(i, j int) bool {
	// Outer spans first at equal starts, so a parent precedes its children.
	a, b := s.at(i), s.at(j)
	if a.start != b.start {
		return a.start < b.start
	}
	return a.dur > b.dur
}

// mark is an instant kept for the path (a steal) or for the timeline;
// arg is a steal's victim (its thread id, -1 if unknown).
type mark struct {
	at   time.Duration
	arg  int
	kind int // instSteal, instFailed, …
}

// lane is one thread's (worker's) part of the trace.
type lane struct {
	tid    int
	spans  spanStore // sorted by start (outer first) once the trace is read
	parent []int32   // of each span: the index of the span it is nested in, or -1
	steals []mark    // sorted by time; arg: the victim's thread id
	marks  []mark    // steals, failed steals, parks and wake-ups, in time order (for the timeline only)

	tasks                               int // spans, wait spans excluded
	nSteals, nFailed, nPark, nWake, nSp int
	stolenFrom                          int
	waits                               int // wait spans: idle stretches inside a task (a join or scope waiting)
	waitTotal, waitLongest, waitLongAt  time.Duration
}

// finish sorts the lane and works out nesting.
func (l *lane) finish() {
	sort.Stable(&l.spans) // stable: equal spans keep file order, as before
	sort.SliceStable(l.steals, func(i, j int) bool { return l.steals[i].at < l.steals[j].at })
	sort.SliceStable(l.marks, func(i, j int) bool { return l.marks[i].at < l.marks[j].at })
	n := l.spans.len()
	l.parent = make([]int32, n)
	var stack []int32
	for i := 0; i < n; i++ {
		sp := l.spans.at(i)
		for len(stack) > 0 && l.spans.at(int(stack[len(stack)-1])).end() <= sp.start {
			stack = stack[:len(stack)-1]
		}
		l.parent[i] = -1
		if len(stack) > 0 {
			l.parent[i] = stack[len(stack)-1]
		}
		stack = append(stack, int32(i))
	}
}

// hasChildren says span i has a span nested in it (they follow it).
func (l *lane) hasChildren(i int) bool { return i+1 < len(l.parent) && l.parent[i+1] == int32(i) }

// depth is the number of spans span i is nested in.
func (l *lane) depth(i int) int {
	d := 0
	for p := l.parent[i]; p >= 0; p = l.parent[p] {
		d++
	}
	return d
}

// self is span i's duration less the time of the spans nested directly in
// it (a child that overhangs its parent, from rounded timestamps, only
// takes the overlap); its descendants are the spans after it that start
// before it ends.
func (l *lane) self(i int) time.Duration {
	sp := l.spans.at(i)
	self := sp.dur
	for j := i + 1; j < l.spans.len(); j++ {
		c := l.spans.at(j)
		if c.start >= sp.end() {
			break
		}
		if l.parent[j] == int32(i) {
			self -= min(c.end(), sp.end()) - c.start
		}
	}
	return max(self, 0)
}
