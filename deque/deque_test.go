package deque_test

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/worksteal/worksteal/deque"
)

// A step of a single-goroutine script: the operation and its expected outcome.
type step struct {
	op   string // "push", "pop", "steal", "cap"
	v    int    // push: value pushed; pop/steal: value expected (when ok/Success); cap: expected Cap
	ok   bool   // pop: expected ok
	want deque.Result
}

func push(v int) step            { return step{op: "push", v: v} }
func pop(v int) step             { return step{op: "pop", v: v, ok: true} }
func popEmpty() step             { return step{op: "pop"} }
func steal(v int) step           { return step{op: "steal", v: v, want: deque.Success} }
func stealEmpty() step           { return step{op: "steal", want: deque.Empty} }
func capIs(c int) step           { return step{op: "cap", v: c} }
func pushN(from, to int) []step  { return seq(from, to, push) }
func stealN(from, to int) []step { return seq(from, to, steal) }
func popN(from, down int) []step { return seqDown(from, down, pop) }
func cat(parts ...[]step) []step {
	var s []step
	for _, p := range parts {
		s = append(s, p...)
	}
	return s
}
func one(s ...step) []step { return s }
func seq(from, to int, f func(int) step) []step {
	var s []step
	for i := from; i <= to; i++ {
		s = append(s, f(i))
	}
	return s
}
func seqDown(from, down int, f func(int) step) []step {
	var s []step
	for i := from; i >= down; i-- {
		s = append(s, f(i))
	}
	return s
}

func TestDequePopIsLIFOAndStealIsFIFO(t *testing.T) {
	tests := []struct {
		name  string
		cap   int
		steps []step
	}{
		{"empty pop", 2, one(popEmpty(), popEmpty())},
		{"empty steal", 2, one(stealEmpty(), stealEmpty())},
		{"pop is LIFO", 4, cat(pushN(1, 3), popN(3, 1), one(popEmpty()))},
		{"steal is FIFO", 4, cat(pushN(1, 3), stealN(1, 3), one(stealEmpty()))},
		{"both ends", 4, one(push(1), push(2), push(3), steal(1), pop(3), pop(2), popEmpty(), stealEmpty())},
		{"last item to pop", 2, one(push(1), pop(1), stealEmpty(), popEmpty())},
		{"last item to steal", 2, one(push(1), steal(1), popEmpty(), stealEmpty())},
		{"reuse after empty", 2, one(push(1), pop(1), push(2), steal(2), push(3), push(4), pop(4), steal(3), popEmpty())},
		{"interleaved", 2, one(push(1), push(2), steal(1), push(3), pop(3), push(4), steal(2), steal(4), stealEmpty(), popEmpty())},
		{"capacity rounds up", 3, one(capIs(4), push(1), capIs(4))},
		{"capacity minimum", 0, one(capIs(2))},
		{"negative capacity", -5, one(capIs(2))},
		{"power of two kept", 64, one(capIs(64))},
		{"grows when full", 2, cat(pushN(1, 2), one(capIs(2), push(3), capIs(4)), pushN(4, 5), one(capIs(8)), stealN(1, 2), popN(5, 3), one(popEmpty(), capIs(8)))},
		// Steal and push in turn: indices wrap round a 2-slot buffer many times
		// without growth, because at most two items are ever live.
		{"wrap without growth", 2, cat(one(push(1)), func() []step {
			var s []step
			for i := 2; i <= 50; i++ {
				s = append(s, push(i), steal(i-1), capIs(2))
			}
			return s
		}(), one(pop(50), popEmpty(), capIs(2)))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runScript(t, tc.cap, tc.steps)
		})
	}
}

// runScript runs steps against a new deque, keeping a slice model to check
// Len on both handles after every step.
func runScript(t *testing.T, capacity int, steps []step) {
	t.Helper()
	w, s := deque.New[int](capacity)
	var model []int
	for i, st := range steps {
		switch st.op {
		case "push":
			v := st.v
			w.Push(&v)
			model = append(model, v)
		case "pop":
			v, ok := w.Pop()
			if ok != st.ok || (ok && *v != st.v) || (!ok && v != nil) {
				t.Fatalf("step %d: Pop() = %s, %v; want %d, %v", i, show(v), ok, st.v, st.ok)
			}
			if ok {
				model = model[:len(model)-1]
			}
		case "steal":
			v, r := s.Steal()
			if r != st.want || (r == deque.Success && *v != st.v) || (r != deque.Success && v != nil) {
				t.Fatalf("step %d: Steal() = %s, %v; want %d, %v", i, show(v), r, st.v, st.want)
			}
			if r == deque.Success {
				model = model[1:]
			}
		case "cap":
			if got := w.Cap(); got != st.v {
				t.Fatalf("step %d: Cap() = %d, want %d", i, got, st.v)
			}
		default:
			t.Fatalf("bad op %q", st.op)
		}
		if got := w.Len(); got != len(model) {
			t.Fatalf("step %d (%s): Worker.Len() = %d, want %d", i, st.op, got, len(model))
		}
		if got := s.Len(); got != len(model) {
			t.Fatalf("step %d (%s): Stealer.Len() = %d, want %d", i, st.op, got, len(model))
		}
		if c := w.Cap(); c < len(model) || c&(c-1) != 0 {
			t.Fatalf("step %d: Cap() = %d with %d items: not a power of two holding them", i, c, len(model))
		}
	}
}

func show(v *int) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprint(*v)
}

func TestResultString(t *testing.T) {
	for _, tc := range []struct {
		r    deque.Result
		want string
	}{
		{deque.Empty, "Empty"},
		{deque.Success, "Success"},
		{deque.Retry, "Retry"},
		{deque.Result(3), "Result(?)"},
		{deque.Result(255), "Result(?)"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("Result(%d).String() = %q, want %q", uint8(tc.r), got, tc.want)
		}
	}
	if deque.Empty != 0 {
		t.Errorf("Empty = %d, want the zero value", deque.Empty)
	}
}

func TestGrowthKeepsOrder(t *testing.T) {
	const n = 1000
	w, s := deque.New[int](2)
	// Take a few first so that top is not at 0 and the live range wraps the
	// buffer when it grows.
	for i := 0; i < 3; i++ {
		v := -1
		w.Push(&v)
		if _, r := s.Steal(); r != deque.Success {
			t.Fatalf("warm-up steal: %v", r)
		}
	}
	for i := 0; i < n; i++ {
		v := i
		w.Push(&v)
		if w.Len() != i+1 {
			t.Fatalf("after %d pushes Len() = %d", i+1, w.Len())
		}
	}
	if c := w.Cap(); c != 1024 {
		t.Fatalf("Cap() = %d after %d pushes from 2, want 1024", c, n)
	}
	for i := 0; i < n/2; i++ {
		v, r := s.Steal()
		if r != deque.Success || *v != i {
			t.Fatalf("Steal #%d = %s, %v; want %d", i, show(v), r, i)
		}
	}
	for i := n - 1; i >= n/2; i-- {
		v, ok := w.Pop()
		if !ok || *v != i {
			t.Fatalf("Pop = %s, %v; want %d", show(v), ok, i)
		}
	}
	if w.Len() != 0 || s.Len() != 0 {
		t.Fatalf("Len = %d/%d after draining", w.Len(), s.Len())
	}
}

func TestPushNilPanics(t *testing.T) {
	w, _ := deque.New[int](2)
	defer func() {
		r := recover()
		msg, ok := r.(string)
		if !ok || !strings.HasPrefix(msg, "deque:") {
			t.Fatalf("Push(nil) panicked with %#v, want a string starting with \"deque:\"", r)
		}
		if w.Len() != 0 {
			t.Fatalf("Len() = %d after a rejected push", w.Len())
		}
	}()
	w.Push(nil)
	t.Fatal("Push(nil) did not panic")
}

func TestLenBothHandles(t *testing.T) {
	w, s := deque.New[string](2)
	s2 := w.Stealer() // a second thief handle to the same deque
	check := func(want int) {
		t.Helper()
		if w.Len() != want || s.Len() != want || s2.Len() != want {
			t.Fatalf("Len: worker %d, stealer %d, w.Stealer() %d; want %d", w.Len(), s.Len(), s2.Len(), want)
		}
	}
	check(0)
	a, b, c := "a", "b", "c"
	w.Push(&a)
	check(1)
	w.Push(&b)
	w.Push(&c)
	check(3)
	if v, r := s2.Steal(); r != deque.Success || *v != "a" {
		t.Fatalf("w.Stealer().Steal() = %v, %v", v, r)
	}
	check(2)
	w.Pop()
	check(1)
	s.Steal()
	check(0)
	w.Pop() // empty pop must leave Len at 0, not -1
	check(0)
	s.Steal()
	check(0)
}

func TestStealHalf(t *testing.T) {
	tests := []struct {
		have      int // items 0..have-1 in the victim
		wantMoved int
	}{
		{0, 0},
		{1, 1},
		{2, 1},
		{3, 2},
		{4, 2},
		{5, 3},
		{10, 5},
		{63, 32},
		{64, 32},
		{100, 32}, // capped at 32 per call
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.have), func(t *testing.T) {
			w, s := deque.New[int](2)
			for i := 0; i < tc.have; i++ {
				v := i
				w.Push(&v)
			}
			dst, dsts := deque.New[int](2)
			first, moved, r := s.StealHalf(dst)
			if tc.have == 0 {
				if first != nil || moved != 0 || r != deque.Empty {
					t.Fatalf("StealHalf on empty = %s, %d, %v; want nil, 0, Empty", show(first), moved, r)
				}
				return
			}
			if r != deque.Success || moved != tc.wantMoved || first == nil || *first != 0 {
				t.Fatalf("StealHalf = %s, %d, %v; want 0, %d, Success", show(first), moved, r, tc.wantMoved)
			}
			if dst.Len() != moved-1 || w.Len() != tc.have-moved {
				t.Fatalf("after StealHalf: dst.Len %d, victim Len %d; want %d, %d", dst.Len(), w.Len(), moved-1, tc.have-moved)
			}
			// dst holds items 1..moved-1 in order: oldest at its top.
			for i := 1; i < moved; i++ {
				v, r := dsts.Steal()
				if r != deque.Success || *v != i {
					t.Fatalf("dst steal = %s, %v; want %d", show(v), r, i)
				}
			}
			// The victim keeps the newest items.
			for i := tc.have - 1; i >= moved; i-- {
				v, ok := w.Pop()
				if !ok || *v != i {
					t.Fatalf("victim Pop = %s, %v; want %d", show(v), ok, i)
				}
			}
		})
	}
}

// TestPoppedItemsCollectable checks the package doc's promise that the owner
// clears a slot when it pops an item, so the deque does not keep popped items
// alive. It covers both the plain pop and the contended last-item pop.
func TestPoppedItemsCollectable(t *testing.T) {
	type big struct{ _ [1 << 10]byte }
	w, _ := deque.New[big](4)
	var refs []weak.Pointer[big]
	for i := 0; i < 3; i++ {
		p := new(big)
		refs = append(refs, weak.Make(p))
		w.Push(p)
	}
	for i := 0; i < 3; i++ { // the last of these takes the CAS path
		if _, ok := w.Pop(); !ok {
			t.Fatal("Pop failed")
		}
	}
	runtime.GC()
	runtime.GC()
	for i, r := range refs {
		if r.Value() != nil {
			t.Errorf("item %d still reachable after Pop and GC: the deque kept a popped item alive", i)
		}
	}
	runtime.KeepAlive(w)
}

// New refuses a capacity above MaxCapacity with a message naming the limit
// (it used to loop forever above 2⁶², and fail in makeslice below that).
func TestNewCapacityLimit(t *testing.T) {
	caps := []int{deque.MaxCapacity + 1, math.MaxInt}
	if big := uint64(1) << 61; uint64(math.MaxInt) > big { // 64-bit int
		caps = append(caps, int(big), int(big<<1)+1)
	}
	for _, c := range caps {
		msg := func() (msg any) {
			defer func() { msg = recover() }()
			deque.New[int](c)
			return nil
		}()
		if s, _ := msg.(string); !strings.Contains(s, "above MaxCapacity") {
			t.Errorf("New(%d): panic %v; want one naming MaxCapacity", c, msg)
		}
	}
	for _, c := range []int{-5, 0, 1, 3} {
		if w, _ := deque.New[int](c); w.Cap() != 2 && w.Cap() != 4 {
			t.Errorf("New(%d).Cap() = %d", c, w.Cap())
		}
	}
}

// TestStealHalfUnless: an oldest item that alone reports is taken by itself;
// otherwise the steal is StealHalf's, alone never being asked again.
func TestStealHalfUnless(t *testing.T) {
	for _, tc := range []struct {
		name      string
		alone     func(*int) bool
		wantMoved int
	}{
		{"nil", nil, 5},
		{"oldest alone", func(v *int) bool { return *v == 0 }, 1},
		{"another alone", func(v *int) bool { return *v == 1 }, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := deque.New[int](16)
			s := w.Stealer()
			for i := range 10 {
				w.Push(&i)
			}
			asked := 0
			alone := tc.alone
			if alone != nil {
				alone = func(v *int) bool { asked++; return tc.alone(v) }
			}
			dst, _ := deque.New[int](16)
			first, moved, r := s.StealHalfUnless(dst, alone)
			if r != deque.Success || *first != 0 || moved != tc.wantMoved {
				t.Fatalf("StealHalfUnless = %s, %d, %v; want 0, %d, Success", show(first), moved, r, tc.wantMoved)
			}
			if dst.Len() != moved-1 || w.Len() != 10-moved {
				t.Fatalf("dst holds %d, victim %d; want %d, %d", dst.Len(), w.Len(), moved-1, 10-moved)
			}
			if tc.alone != nil && asked != 1 {
				t.Fatalf("alone asked %d times, want once (the oldest item)", asked)
			}
		})
	}
}
