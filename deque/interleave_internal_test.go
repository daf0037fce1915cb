package deque

import (
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/testdeadline"
)

// The tests in this file put other operations at exact points inside Steal
// and Pop (the test hooks), so the races that the CAS on top and the order
// of Steal's loads decide are played deterministically, in -short runs and
// on a loaded machine, instead of waiting for a stress test to hit them.
// Each checks the deque's promise: every pushed item is taken exactly once.

// takes records which items were taken, and fails on a nil or a repeat.
type takes struct {
	t    *testing.T
	seen map[*int]string
}

func (tk *takes) take(who string, v *int, ok bool) {
	tk.t.Helper()
	if !ok {
		return
	}
	if v == nil {
		tk.t.Fatalf("%s succeeded with a nil item", who)
	}
	if prev, dup := tk.seen[v]; dup {
		tk.t.Fatalf("item %d taken twice: by %s and by %s", *v, prev, who)
	}
	tk.seen[v] = who
}

// oneShot returns a hook that runs f the first time it is called at point
// at, and clears testHookSteal first (f may steal again).
func oneShot(at stealPoint, f func()) func(stealPoint) {
	return func(p stealPoint) {
		if p == at {
			testHookSteal = nil
			f()
		}
	}
}

// Between a thief's loads of top and bottom, the owner pops the newer item
// (without a CAS: another item is left) and a second thief steals the older
// one. Loading top first, the thief sees the deque empty or loses its CAS;
// loading bottom first, it paired the old bottom with the new top and stole
// the item the owner had popped.
func TestStealLoadsTopBeforeBottom(t *testing.T) {
	defer func() { testHookSteal = nil }()
	for _, retain := range []bool{false, true} {
		tk := &takes{t: t, seen: map[*int]string{}}
		w, s := New[int](8)
		w.retain = retain
		x0, x1 := 0, 1
		w.Push(&x0)
		w.Push(&x1)
		testHookSteal = oneShot(stealBetweenLoads, func() {
			v, ok := w.Pop()
			tk.take("the owner's Pop", v, ok)
			v, r := s.Steal()
			tk.take("the second thief", v, r == Success)
		})
		v, r := s.Steal()
		tk.take("the first thief", v, r == Success)
		if len(tk.seen) != 2 {
			t.Fatalf("retain=%v: %d items taken in all; want 2", retain, len(tk.seen))
		}
	}
}

// A thief has read the last item and is about to CAS top; the owner pops
// that item meanwhile. The owner must race for it with the same CAS: taking
// it as it takes the others (no CAS) let the thief's CAS succeed too.
func TestPopRacesThiefForLastItem(t *testing.T) {
	defer func() { testHookSteal = nil }()
	tk := &takes{t: t, seen: map[*int]string{}}
	w, s := New[int](8)
	x := 7
	w.Push(&x)
	testHookSteal = oneShot(stealBeforeCAS, func() {
		v, ok := w.Pop()
		tk.take("the owner's Pop", v, ok)
	})
	v, r := s.Steal()
	tk.take("the thief", v, r == Success)
	if len(tk.seen) != 1 {
		t.Fatalf("%d takes of the one item; want 1", len(tk.seen))
	}
	if w.Len() != 0 || s.Len() != 0 {
		t.Fatalf("after both took their turn the deque holds %d (owner) / %d (thief) items; want 0", w.Len(), s.Len())
	}
}

// The other order of the same race: the owner has read top for the last
// item and is about to CAS; a thief that had loaded top and bottom before
// the owner announced its claim commits first. The owner must lose: taking
// the item with a plain store of top (no CAS) handed it out twice. Two
// goroutines, ordered by channels: the thief waits before its CAS, the
// owner's hook lets it finish, then the owner goes on.
func TestPopLosesLastItemToThiefThatCommittedFirst(t *testing.T) {
	defer func() { testHookSteal, testHookPopLast = nil, nil }()
	tk := &takes{t: t, seen: map[*int]string{}}
	w, s := New[int](8)
	x := 7
	w.Push(&x)
	loaded, resume := make(chan struct{}), make(chan struct{})
	type stolen struct {
		v *int
		r Result
	}
	thief := make(chan stolen, 1)
	testHookSteal = func(p stealPoint) {
		if p == stealBeforeCAS {
			close(loaded)
			<-resume
		}
	}
	testHookPopLast = func() {
		close(resume)
		got := <-thief
		tk.take("the thief", got.v, got.r == Success)
	}
	go func() {
		v, r := s.Steal()
		thief <- stolen{v, r}
	}()
	select {
	case <-loaded:
	case <-time.After(testdeadline.Left(t)):
		t.Fatal("the thief never reached its CAS")
	}
	v, ok := w.Pop()
	tk.take("the owner's Pop", v, ok)
	if len(tk.seen) != 1 {
		t.Fatalf("%d takes of the one item; want 1", len(tk.seen))
	}
}
