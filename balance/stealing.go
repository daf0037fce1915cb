package balance

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Stealing is work stealing with adaptive splitting. On the pool (package
// par/schedule: For, ForContext, ForPool) it is par.ForRange, the adaptive loop: lazy
// binary splitting, which runs a worker's piece sequentially in chunks that
// grow while they are cheap and splits the rest of the piece in two only when
// another worker is idle, down to single iterations for a skewed loop. No
// chunk size needs choosing.
//
// Its Chunker, for Loop and other runners without a work-stealing runtime,
// is range stealing: each worker starts with its static block Split(n,
// workers)[w] and takes chunks of MinGrain iterations from the front of it;
// a worker whose block is empty steals the back half of the largest
// remaining block. A claim locks the worker's own block (uncontended but for
// steals); a steal locks the victim's block, then the thief's own.
type Stealing struct {
	// MinGrain is the smallest piece a loop is split into and the size of
	// its first chunks (par.MinGrain); ≤ 0 means 1.
	MinGrain int
	// MaxGrain caps the chunk size, and so the time between two checks for
	// idle workers (par.MaxGrain); ≤ 0 means no cap. The Chunker's
	// chunks are MinGrain long and ignore it.
	MaxGrain int
}

// String returns "stealing", with the grains when set, e.g.
// "stealing(min 4, max 64)".
func (s Stealing) String() string {
	switch {
	case s.MinGrain > 1 && s.MaxGrain > 0:
		return fmt.Sprintf("stealing(min %d, max %d)", s.MinGrain, s.MaxGrain)
	case s.MinGrain > 1:
		return fmt.Sprintf("stealing(min %d)", s.MinGrain)
	case s.MaxGrain > 0:
		return fmt.Sprintf("stealing(max %d)", s.MaxGrain)
	}
	return "stealing"
}

// Start begins a range-stealing loop (see Stealing); par/schedule.For does
// not use it, it runs par.ForRange instead.
//
// Panics: if n < 0 or workers < 1.
func (s Stealing) Start(n, workers int) Chunker {
	checkLoop("Stealing", n, workers)
	c := &stealChunks{grain: int64(max(s.MinGrain, 1)), blocks: make([]stealBlock, workers), done: make([]paddedCount, workers)}
	for w := range c.blocks {
		r := splitAt(n, workers, w)
		c.blocks[w].lo.Store(int64(r.Lo))
		c.blocks[w].hi.Store(int64(r.Hi))
	}
	return c
}

// stealChunks: worker w's unclaimed iterations are blocks[w], [lo, hi).
//
// Invariants: every unclaimed index lies in exactly one block, or in a
// range being moved by a thief (between removal from the victim's block and
// installation in its own), and such a move is counted in started but not yet
// in finished. lo and hi change only under the block's mu; they are atomic
// so that a thief can pick a victim without locking every block. Only worker
// w adds to blocks[w], and only when it is empty; everyone else only
// shrinks it.
type stealChunks struct {
	grain             int64
	blocks            []stealBlock
	done              []paddedCount // done[w] != 0: Next(w) said false once
	started, finished atomic.Int64  // steals begun and completed
}

type stealBlock struct {
	mu     sync.Mutex
	lo, hi atomic.Int64
	_      [104]byte // one block per cache line pair: owners do not share lines
}

func (c *stealChunks) Next(worker int) (Range, bool) {
	checkWorker(worker, len(c.blocks))
	if c.done[worker].Load() != 0 {
		return Range{}, false
	}
	if r, ok := c.claim(worker); ok {
		return r, true
	}
	for {
		f := c.finished.Load()
		stole, seen := c.steal(worker)
		if stole {
			if r, ok := c.claim(worker); ok {
				return r, true
			}
			continue // the stolen range was stolen from us in turn: look again
		}
		// Every block looked empty. That is the truth only if no range was
		// being moved meanwhile: no steal began after f was read, and none
		// begun before was still unfinished.
		if !seen && c.started.Load() == f {
			c.done[worker].Store(1)
			return Range{}, false
		}
	}
}

// claim takes the next chunk from the front of worker's own block.
func (c *stealChunks) claim(worker int) (Range, bool) {
	b := &c.blocks[worker]
	b.mu.Lock()
	defer b.mu.Unlock()
	lo, hi := b.lo.Load(), b.hi.Load()
	if lo >= hi {
		return Range{}, false
	}
	end := min(lo+c.grain, hi)
	b.lo.Store(end)
	return Range{int(lo), int(end)}, true
}

// steal moves the back half of the largest other block into worker's own
// (empty) block. It reports whether it moved something, and whether it saw
// a non-empty block at all (then a failed steal lost a race and is worth
// retrying).
func (c *stealChunks) steal(worker int) (stole, seen bool) {
	victim, most := -1, int64(0)
	for v := range c.blocks {
		if v == worker {
			continue
		}
		if rem := c.blocks[v].hi.Load() - c.blocks[v].lo.Load(); rem > most {
			victim, most = v, rem
		}
	}
	if victim < 0 {
		return false, false
	}
	c.started.Add(1) // before the removal: see Next's emptiness check
	defer c.finished.Add(1)
	v := &c.blocks[victim]
	v.mu.Lock()
	lo, hi := v.lo.Load(), v.hi.Load()
	rem := hi - lo
	if rem <= 0 {
		v.mu.Unlock()
		return false, true
	}
	take := max(rem-rem/2, min(rem, c.grain)) // the back half, at least a grain
	mid := hi - take
	v.hi.Store(mid)
	v.mu.Unlock()
	own := &c.blocks[worker]
	own.mu.Lock()
	own.lo.Store(mid)
	own.hi.Store(hi)
	own.mu.Unlock()
	return true, true
}
