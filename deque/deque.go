package deque

import (
	"fmt"
	"sync/atomic"

	"github.com/worksteal/worksteal/internal/pad"
)

// Result says what a steal found.
type Result uint8

const (
	// Empty: the thief saw no items.
	Empty Result = iota
	// Success: the thief took an item.
	Success
	// Retry: the thief lost a race (with the owner or another thief) and the
	// deque may still hold items. Look again before concluding there is no work.
	Retry
)

// String returns "Empty", "Success" or "Retry".
func (r Result) String() string {
	switch r {
	case Empty:
		return "Empty"
	case Success:
		return "Success"
	case Retry:
		return "Retry"
	}
	return "Result(?)"
}

// minCap is the smallest buffer; New rounds smaller requests up to it.
const minCap = 2

// MaxCapacity is the most items a deque holds: 2³⁰ (a buffer of 8 GiB of
// pointers on a 64-bit machine). New panics for a larger capacity, and
// Push panics on a deque that already holds MaxCapacity items, each with a
// message naming the limit. On a 32-bit machine the allocation of a buffer
// that large fails first (Go's own out-of-memory error).
const MaxCapacity = 1 << 30

// maxBatch bounds how many items one StealHalf moves, so a thief does not
// hold up its own work copying a huge half (crossbeam uses the same bound).
const maxBatch = 32

// buffer is a circular array whose length is a power of two.
type buffer[T any] struct {
	mask  int64 // len(slots)-1; len(slots) is always a power of two
	slots []atomic.Pointer[T]
}

// slotPad is how many unused slots (a cache line's worth and more) surround
// the slots in their allocation, so the owner's writes to its slots never
// share a cache line with another goroutine's data (false sharing).
const slotPad = pad.CacheLine / 8

func newBuffer[T any](capacity int64) *buffer[T] {
	if capacity&(capacity-1) != 0 {
		panic("deque: capacity not a power of two")
	}
	all := make([]atomic.Pointer[T], capacity+2*slotPad)
	return &buffer[T]{mask: capacity - 1, slots: all[slotPad : slotPad+capacity : slotPad+capacity]}
}

// deque is the state shared by the owner and the thieves. top and bottom sit on
// separate cache lines: thieves write top, the owner writes bottom.
type deque[T any] struct {
	_      pad.Line
	top    atomic.Int64 // advanced only by CAS ([HB2]); never decreases
	_      pad.Line
	bottom atomic.Int64 // written only by the owner ([HB1], [HB4])
	buf    atomic.Pointer[buffer[T]]
	_      pad.Line
}

// noCopy makes go vet's copylocks check flag copies of a Worker.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// Worker is the owner's handle: Push and Pop at the bottom. Exactly one
// goroutine may use a Worker at a time; keep it inside the owning structure and
// never hand it out.
type Worker[T any] struct {
	_ noCopy
	_ pad.Line // the owner writes bottom on every Push and Pop: keep the
	// handle off cache lines that other goroutines write
	d *deque[T]
	// buf and bottom mirror d.buf and d.bottom. Only the owner writes those,
	// so the owner can read its own copies without synchronisation.
	buf    *buffer[T]
	bottom int64
	retain bool // see NewRetaining
	_      pad.Line
}

// Stealer is the thieves' handle: Steal and StealHalf from the top. It may be
// copied and used by any number of goroutines at once.
type Stealer[T any] struct {
	d *deque[T]
}

// New returns the owner and thief handles of an empty deque whose buffer
// starts with room for capacity items (rounded up to a power of two, at least
// 2). The buffer doubles whenever a push finds it full, up to MaxCapacity; it
// never shrinks. New panics if capacity is above MaxCapacity.
func New[T any](capacity int) (*Worker[T], Stealer[T]) {
	if capacity > MaxCapacity {
		panic(fmt.Sprintf("deque: New with capacity %d, above MaxCapacity (%d)", capacity, MaxCapacity))
	}
	c := int64(minCap)
	for c < int64(capacity) {
		c <<= 1
	}
	d := &deque[T]{}
	buf := newBuffer[T](c)
	d.buf.Store(buf)
	return &Worker[T]{d: d, buf: buf}, Stealer[T]{d: d}
}

// NewRetaining is New for owners that recycle their items (the worksteal
// runtime reuses its Join frames): Pop does not clear the popped item's
// slot, which saves an atomic store per Pop, and a popped item stays
// referenced by the deque until its slot is reused (at most the buffer's
// capacity of items).
func NewRetaining[T any](capacity int) (*Worker[T], Stealer[T]) {
	w, s := New[T](capacity)
	w.retain = true
	return w, s
}

// Stealer returns a thief handle for this deque.
func (w *Worker[T]) Stealer() Stealer[T] { return Stealer[T]{d: w.d} }

// Push adds v at the bottom. v must not be nil (nil is how a slot reads
// before it is written, so a nil item could not be told from a bug).
func (w *Worker[T]) Push(v *T) {
	if v == nil {
		panic("deque: Push of a nil item")
	}
	b := w.bottom
	t := w.d.top.Load()
	buf := w.buf
	if b-t > buf.mask { // full: len(slots) items already live
		buf = w.grow(t, b)
	}
	buf.slots[b&buf.mask].Store(v)
	w.bottom = b + 1
	w.d.bottom.Store(b + 1) // [HB1] publishes the slot to thieves
}

// grow doubles the buffer, copying the live items [t, b). Thieves that still
// hold the old buffer read the same items from it: the owner never writes the
// old buffer again ([HB3]).
func (w *Worker[T]) grow(t, b int64) *buffer[T] {
	old := w.buf
	if old.mask+1 >= MaxCapacity {
		panic(fmt.Sprintf("deque: Push onto a deque holding MaxCapacity (%d) items", MaxCapacity))
	}
	nb := newBuffer[T]((old.mask + 1) * 2)
	for i := t; i < b; i++ {
		nb.slots[i&nb.mask].Store(old.slots[i&old.mask].Load())
	}
	w.buf = nb
	w.d.buf.Store(nb) // [HB3] published before bottom moves past the old capacity
	return nb
}

// Pop removes and returns the item at the bottom (the most recently pushed
// one that is still there), or nil, false when the deque is empty.
func (w *Worker[T]) Pop() (*T, bool) {
	b := w.bottom - 1
	w.d.bottom.Store(b) // [HB4] announce the claim before looking at top
	t := w.d.top.Load()
	if t > b { // empty: restore bottom
		w.d.bottom.Store(b + 1)
		return nil, false
	}
	slot := &w.buf.slots[b&w.buf.mask]
	v := slot.Load()
	if t < b { // more than one item: thieves cannot reach slot b ([HB4])
		// Clear the slot so the deque does not keep the popped item alive.
		// A thief that still reads this slot (one holding a top that is
		// already stale) loses its CAS, so it never returns what it read.
		if !w.retain {
			slot.Store(nil)
		}
		w.bottom = b
		return v, true
	}
	// Last item: race the thieves for it with the same CAS they use ([HB2]).
	if testHookPopLast != nil {
		testHookPopLast()
	}
	won := w.d.top.CompareAndSwap(t, t+1)
	w.d.bottom.Store(b + 1) // the deque is empty either way: top == bottom == t+1
	w.bottom = b + 1
	if !won {
		return nil, false
	}
	if !w.retain {
		slot.Store(nil) // top is past t now: no thief can win this slot any more
	}
	return v, true
}

// Len returns the number of items in the deque. The owner gets an exact answer.
func (w *Worker[T]) Len() int {
	n := w.bottom - w.d.top.Load()
	if n < 0 {
		return 0
	}
	return int(n)
}

// Cap returns the current buffer capacity (it grows, never shrinks).
func (w *Worker[T]) Cap() int { return len(w.buf.slots) }

// Len returns a snapshot of the number of items: never more than the deque
// held at the moment Len read its bottom end, so never more than it ever
// held, though fewer when thieves took items meanwhile. It may be stale by
// the time the caller acts on it.
//
// Bottom is loaded before top: top only grows, so the top Len reads is at
// least the top of that moment, and b − t at most that moment's count.
// (Loading top first could pair an old top with a much later bottom and
// report items pushed and stolen in between as if all were there at once.)
func (s Stealer[T]) Len() int {
	b := s.d.bottom.Load()
	if testHookLen != nil {
		testHookLen()
	}
	t := s.d.top.Load()
	if b <= t {
		return 0
	}
	return int(b - t)
}

// testHookLen, if set (by tests only), runs between Stealer.Len's two
// loads, so a test can put other operations exactly there.
var testHookLen func()

// testHookSteal and testHookPopLast, if set (by tests only), run inside
// Steal (between its loads of top and bottom, and before its CAS) and
// inside Pop (before the CAS on the last item), so that a test can put
// other operations exactly there (interleave_internal_test.go). Unset,
// each costs a load and a predicted branch.
var (
	testHookSteal   func(at stealPoint)
	testHookPopLast func()
)

type stealPoint int

const (
	stealBetweenLoads stealPoint = iota
	stealBeforeCAS
)

// Steal takes the item at the top (the oldest one). It returns Success with
// the item, Empty when it saw no items, or Retry when it lost a race for an
// item and the deque may still hold more.
func (s Stealer[T]) Steal() (*T, Result) {
	d := s.d
	t := d.top.Load()
	if testHookSteal != nil {
		testHookSteal(stealBetweenLoads)
	}
	b := d.bottom.Load() // [HB1], [HB4]: loaded after top
	if t >= b {
		return nil, Empty
	}
	buf := d.buf.Load() // [HB3]: loaded after bottom
	v := buf.slots[t&buf.mask].Load()
	if testHookSteal != nil {
		testHookSteal(stealBeforeCAS)
	}
	if !d.top.CompareAndSwap(t, t+1) { // [HB2] the commit point
		return nil, Retry
	}
	return v, Success
}

// StealHalf takes about half of the items (at most 32), oldest first. The
// oldest is returned for the caller to run now; the others are pushed, in
// order, onto dst, which must be a deque the caller owns. moved counts every
// item taken, the returned one included.
//
// Because the owner pops its non-last items without a CAS, a batch cannot be
// claimed with one CAS on top (the owner might pop an item inside the batch
// meanwhile). StealHalf therefore claims items one at a time, each with its
// own check of bottom and its own CAS, and stops at the first Empty or Retry.
func (s Stealer[T]) StealHalf(dst *Worker[T]) (first *T, moved int, r Result) {
	return s.StealHalfUnless(dst, nil)
}

// StealHalfUnless is StealHalf, except that an oldest item for which alone
// reports true is taken alone (moved 1), as Steal would take it. It is for
// deques whose oldest item can hold more work than all the younger ones
// together, as the second halves of nested fork-join calls do: there half
// of the items by count would be nearly all of the work. alone (nil:
// never) is called once, on the oldest item, after it has been claimed.
func (s Stealer[T]) StealHalfUnless(dst *Worker[T], alone func(first *T) bool) (first *T, moved int, r Result) {
	n := (s.Len() + 1) / 2
	if n > maxBatch {
		n = maxBatch
	}
	if n < 1 {
		n = 1
	}
	first, r = s.Steal()
	if r != Success {
		return nil, 0, r
	}
	moved = 1
	if alone != nil && alone(first) {
		return first, moved, Success
	}
	for moved < n {
		v, r2 := s.Steal()
		if r2 != Success {
			break
		}
		dst.Push(v)
		moved++
	}
	return first, moved, Success
}
