package deque_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/deque"
)

// takenSet records which items were taken, one bit per item, and catches an
// item taken twice the moment it happens.
type takenSet struct {
	bits []atomic.Uint64
	dups atomic.Int64
	dup  atomic.Int64 // first duplicate id + 1
	nils atomic.Int64 // nil items returned as taken
}

func newTakenSet(n int) *takenSet {
	return &takenSet{bits: make([]atomic.Uint64, (n+63)/64)}
}

// take marks the item v points to as taken and returns its id.
func (s *takenSet) take(t *testing.T, v *int32) int32 {
	if v == nil {
		if s.nils.Add(1) == 1 {
			t.Errorf("a successful Pop, Steal or StealHalf returned a nil item")
		}
		return -1
	}
	id := *v
	bit := uint64(1) << (id & 63)
	if s.bits[id>>6].Or(bit)&bit != 0 {
		s.dups.Add(1)
		s.dup.CompareAndSwap(0, int64(id)+1)
	}
	return id
}

// verify fails the test unless every item 0..n-1 was taken exactly once.
func (s *takenSet) verify(t *testing.T, n int, taken int64) {
	t.Helper()
	if d := s.dups.Load(); d > 0 {
		t.Errorf("%d items taken more than once (first: %d)", d, s.dup.Load()-1)
	}
	missing, first := 0, -1
	for i := 0; i < n; i++ {
		if s.bits[i>>6].Load()&(1<<(i&63)) == 0 {
			if first < 0 {
				first = i
			}
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d items never taken (first: %d)", missing, n, first)
	}
	if taken != int64(n) {
		t.Errorf("takes counted: %d, want %d", taken, n)
	}
}

// thiefStats is what one thief did.
type thiefStats struct {
	steals, halves, halfItems, retries, empties int64
}

// thief steals from s until done is set and it then sees the deque empty.
// With useHalf it uses StealHalf into its own deque and drains that with Pop.
// It checks that the items it takes from s come in increasing push order: a
// steal takes the oldest item, and every item still there or pushed later is
// newer (items are pushed in increasing id order).
func thief(t *testing.T, s deque.Stealer[int32], useHalf bool, done *atomic.Bool, set *takenSet, seed uint64) thiefStats {
	var st thiefStats
	rng := rand.New(rand.NewPCG(seed, 1))
	dst, _ := deque.New[int32](2)
	last, reported := int32(-1), false
	ordered := func(id int32) {
		if id <= last && !reported {
			reported = true // once per thief: a broken deque would flood the log
			t.Errorf("thief took item %d after item %d: steals not in push order", id, last)
		}
		last = id
	}
	var batch []int32
	for {
		fin := done.Load() // read before the steal: Empty after that is final
		if useHalf && rng.IntN(4) != 0 {
			first, moved, r := s.StealHalf(dst)
			switch r {
			case deque.Success:
				st.halves++
				st.halfItems += int64(moved)
				ordered(set.take(t, first))
				if dst.Len() != moved-1 {
					t.Errorf("StealHalf moved %d but dst holds %d", moved, dst.Len())
				}
				batch = batch[:0]
				for {
					v, ok := dst.Pop()
					if !ok {
						break
					}
					batch = append(batch, set.take(t, v))
				}
				for i := len(batch) - 1; i >= 0; i-- { // Pop gave them newest first
					ordered(batch[i])
				}
				continue
			case deque.Retry:
				st.retries++
				continue
			}
		} else {
			v, r := s.Steal()
			switch r {
			case deque.Success:
				st.steals++
				ordered(set.take(t, v))
				continue
			case deque.Retry:
				st.retries++
				continue
			}
		}
		// Empty.
		st.empties++
		if fin {
			return st
		}
		if st.empties&15 == 0 {
			runtime.Gosched() // 9 goroutines on 2 cores: let the owner run
		}
	}
}

// stressExactlyOnce pushes n items through one owner (which also pops some)
// and nThieves thieves, and checks every item is taken exactly once.
func stressExactlyOnce(t *testing.T, n, nThieves int, seed uint64) {
	items := make([]int32, n)
	for i := range items {
		items[i] = int32(i)
	}
	set := newTakenSet(n)
	w, s := deque.New[int32](2)
	var (
		done    atomic.Bool
		wg      sync.WaitGroup
		stats   = make([]thiefStats, nThieves)
		ownerBy int64
	)
	for i := range nThieves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stats[i] = thief(t, s, i%2 == 1, &done, set, seed+uint64(i))
		}()
	}

	rng := rand.New(rand.NewPCG(seed, 0))
	// The owner works its own items down to limit/2 when the deque gets
	// deeper than limit. limit changes every phase: shallow phases keep the
	// thieves fighting the owner for the last items, deep ones let StealHalf
	// take big batches and the buffer grow.
	limits := []int{8, 256, 8192}
	limit := limits[0]
	pop := func() bool {
		v, ok := w.Pop()
		if ok {
			set.take(t, v)
			ownerBy++
		}
		return ok
	}
	maxCap := 0
	for i := range items {
		w.Push(&items[i])
		if i&(1<<16-1) == 0 {
			limit = limits[rng.IntN(len(limits))]
		}
		if i&4095 == 0 {
			runtime.Gosched() // on 2 cores, let the thieves sharing this P run
		}
		switch {
		case rng.IntN(8) == 0:
			pop()
		case w.Len() > limit:
			for w.Len() > limit/2 {
				pop()
			}
		}
		maxCap = max(maxCap, w.Cap())
	}
	done.Store(true)
	for pop() {
	}
	wg.Wait()

	taken := ownerBy
	var tot thiefStats
	for _, st := range stats {
		taken += st.steals + st.halfItems
		tot.steals += st.steals
		tot.halves += st.halves
		tot.halfItems += st.halfItems
		tot.retries += st.retries
		tot.empties += st.empties
	}
	set.verify(t, n, taken)
	if w.Len() != 0 || s.Len() != 0 {
		t.Errorf("Len after the run: worker %d, stealer %d", w.Len(), s.Len())
	}
	t.Logf("%d items: owner popped %d, thieves stole %d singly and %d in %d StealHalf calls; %d Retry, %d Empty; max Cap %d",
		n, ownerBy, tot.steals, tot.halfItems, tot.halves, tot.retries, tot.empties, maxCap)
}

func stressSeed(t *testing.T) uint64 {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	return seed
}

// TestStressExactlyOnce: 10^7 items (10^5 with -short, 3*10^6 with -race), one owner
// and 8 thieves, half of them using StealHalf.
func TestStressExactlyOnce(t *testing.T) {
	n := 10_000_000
	switch {
	case testing.Short():
		n = 100_000
	case raceEnabled:
		n = 3_000_000 // 10^7 takes ~15 s under -race on 2 cores; CI runs -race
	}
	stressExactlyOnce(t, n, 8, stressSeed(t))
}

// TestStressWrapAndGrow keeps the deque small so that its indices wrap round
// the buffer many times, with bursts that make it grow while thieves are
// stealing (a thief may hold the old buffer as the owner switches to the new
// one). Checks exactly-once, that Cap stays a power of two, and that it grows
// only when the deque was really full: Cap never exceeds twice the largest
// Len the owner saw before a push.
func TestStressWrapAndGrow(t *testing.T) {
	rounds := 200_000
	switch {
	case testing.Short():
		rounds = 2_000
	case raceEnabled:
		rounds = 25_000
	}
	seed := stressSeed(t)
	const nThieves = 4
	const maxBurst = 64
	items := make([]int32, rounds*maxBurst)
	for i := range items {
		items[i] = int32(i)
	}
	set := newTakenSet(len(items))
	w, s := deque.New[int32](2)
	var (
		done  atomic.Bool
		wg    sync.WaitGroup
		stats = make([]thiefStats, nThieves)
	)
	for i := range nThieves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stats[i] = thief(t, s, i%2 == 0, &done, set, seed+uint64(i))
		}()
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	next, popped, grows, maxLen := 0, int64(0), 0, 0
	pop := func() bool {
		v, ok := w.Pop()
		if ok {
			set.take(t, v)
			popped++
		}
		return ok
	}
	for range rounds {
		for range 1 + rng.IntN(maxBurst) {
			before, c := w.Len(), w.Cap()
			maxLen = max(maxLen, before+1)
			w.Push(&items[next])
			next++
			if nc := w.Cap(); nc != c {
				grows++
				if nc != 2*c {
					t.Fatalf("Cap went from %d to %d: want doubling", c, nc)
				}
				if before < c {
					t.Fatalf("grew from %d with only %d items before the push", c, before)
				}
			}
		}
		for range rng.IntN(maxBurst) {
			pop()
		}
		if rng.IntN(2) == 0 {
			runtime.Gosched() // let the thieves catch up: keeps the deque shallow
		}
	}
	done.Store(true)
	for pop() {
	}
	wg.Wait()

	taken := popped
	for _, st := range stats {
		taken += st.steals + st.halfItems
	}
	set.verify(t, next, taken)
	c := w.Cap()
	if c&(c-1) != 0 || c > 2*max(maxLen, 2) {
		t.Errorf("Cap %d: not a power of two, or more than twice the largest length %d", c, maxLen)
	}
	if next < 8*c {
		t.Errorf("only %d pushes for a final Cap of %d: indices did not wrap enough to test wrap-around", next, c)
	}
	t.Logf("%d items, %d by the owner; %d grows to Cap %d, max Len %d; %s",
		next, popped, grows, c, maxLen, fmt.Sprintf("thieves %+v", stats))
}
