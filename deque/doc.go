// Package deque implements the Chase–Lev work-stealing deque: a growable,
// lock-free circular array with one owner and any number of thieves.
//
// The owner holds a [*Worker] and pushes and pops at the bottom (LIFO), without
// contention in the common case. Any goroutine holding the matching [*Stealer]
// takes from the top (FIFO): the oldest items, which in divide-and-conquer work
// are usually the biggest pieces. Only the last remaining item is contended;
// one compare-and-swap on top decides who gets it.
//
//	w, s := deque.New[Task](64)
//	w.Push(t)                 // owner only
//	t, ok := w.Pop()          // owner only
//	t, r := s.Steal()         // any goroutine; r is Success, Empty or Retry
//
// # Items are pointers
//
// The deque stores *T. A value is published by one atomic pointer store and
// read by one atomic pointer load, so a value of any size (an interface, a
// two-word struct) is never observed torn, and the race detector sees every
// slot access as synchronised. The deque never copies or frees the pointee.
//
// # Results of a steal
//
// [Stealer.Steal] returns [Retry] when it lost a race (with the owner or
// another thief) and the deque may still hold items; [Empty] only when it saw
// the deque empty. So Empty is a fact about one moment and Retry is not: a
// caller must not conclude from Retry that the deque is empty. Whether it
// tries the same deque again at once is its choice. The worksteal runtime
// counts a Retry as a failed attempt and moves on to its next victim: the
// race was lost to someone who took an item, and an idle worker re-checks
// every deque's length before it parks (PROTOCOL.md "Parking"), so no item
// is stranded by moving on.
//
// [Stealer.Len] is a snapshot, bounded by what the deque held when Len read
// its bottom end; see its documentation.
//
// # Protocol and invariants
//
// The algorithm is Chase and Lev, "Dynamic Circular Work-Stealing Deque"
// (SPAA 2005), with the memory-ordering analysis of Lê, Pop, Cohen and
// Zappa Nardelli, "Correct and Efficient Work-Stealing for Weak Memory
// Models" (PPoPP 2013). Go's sync/atomic operations are sequentially
// consistent, which subsumes every fence that paper places.
//
// Ownership:
//
//	bottom: written only by the owner (Push, Pop). Read by thieves.
//	top:    advanced only by CAS, by thieves (Steal) or by the owner when it
//	        pops the last item. It never decreases.
//	buf:    replaced only by the owner (grow). Thieves may read a stale buf.
//
// Invariant: top <= bottom, except inside Pop, where bottom is briefly
// top-1 when the deque was empty; Pop restores it before returning.
//
// Happens-before edges:
//
//	[HB1] Push stores the slot, then bottom.Store(b+1). A thief that loads
//	      bottom > b (after loading top <= b) then loads the slot and sees it.
//	[HB2] A successful CAS of top from t to t+1 is the single commit point for
//	      item t: exactly one of {Pop of the last item, Steal, Steal} wins.
//	      A thief reads the slot before its CAS; if the slot was overwritten
//	      (wrap-around after top moved past t) the CAS fails, because top
//	      never returns to t.
//	[HB3] grow copies live items into the new buffer and publishes it with
//	      buf.Store before bottom moves past the old capacity, so a thief that
//	      sees the new bottom also sees the new buffer; a thief still holding
//	      the old buffer reads the items that were there, which the owner no
//	      longer writes.
//	[HB4] Pop stores bottom-1 before loading top (a store-load pair that SC
//	      atomics keep in order). So a thief and the owner racing for the same
//	      item cannot both see it as theirs without going through the CAS.
//
// Slots are cleared by the owner when it pops an item (so popped items can be
// collected), never by thieves: by the time a thief could clear slot t, the
// owner may already have reused the physical slot for item t+capacity.
// A stolen item's pointer therefore stays in its slot until the slot is
// reused; the deque retains at most its capacity in stale pointers.
package deque
