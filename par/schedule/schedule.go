// Package schedule runs a loop on the work-stealing pool under any of
// package balance's schedules, so that the same body can be timed under each
// and its balance measured:
//
//   - balance.Static, balance.Dynamic and balance.Guided (and any other
//     balance.Schedule) are driven the OpenMP way: the loop spawns one
//     driver task per pool worker in a worksteal.Scope, and each driver
//     asks the Schedule's Chunker for chunks until it runs dry;
//   - balance.Stealing is the runtime's own loop, par.ForRange.
//
// Every run returns its LoopStats (makespan, per-worker busy time, chunks
// and iterations), which balance.Analyze reads through LoopStats.Profile.
//
// Nesting is safe: the caller waits in Scope (or in the runtime loop's
// joins), which runs other tasks while it waits, so a loop inside a loop's
// body never blocks a worker that could run the work it waits for.
//
// The package lives apart from balance so that balance (partitioners,
// schedules, straggler tools, metrics) and its users, the batch runner
// among them, do not import the runtime; and apart from par because it
// imports balance, and par (a core package) imports only the standard
// library.
package schedule

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/balance"
	"github.com/worksteal/worksteal/par"
)

// For runs body over [0, n) on w's pool under schedule s and returns when
// every iteration has run, with the run's measurements. body receives the
// handle of the worker that runs the chunk: fork inside it through that
// handle. w must be the handle of the calling task. A nil s means
// Stealing{}.
//
// Under a Chunker schedule (Static, Dynamic, Guided) the loop has one
// driver per pool worker (at most n): the calling worker runs driver 0 at
// once, the others are spawned for idle workers to take, and a driver that
// nobody took is run by the calling worker when its own chunks are done.
// Static's blocks are the drivers', not the workers': when the loop is
// nested and the other workers are busy, the caller runs every block.
//
// Measuring costs two clock reads per chunk (tens of ns), so use chunks of a
// microsecond or more, as for any of these schedules.
//
// Panics: if n < 0; and with a *worksteal.PanicError carrying the first
// panic of body, after the chunks already running have finished (no driver
// takes a new chunk once one has panicked).
func For(w *worksteal.Worker, n int, s balance.Schedule, body func(w *worksteal.Worker, lo, hi int)) LoopStats {
	st, _ := ForContext(context.Background(), w, n, s, body)
	return st
}

// ForContext is For with a context: once ctx is done, no new chunk starts
// (the chunks running finish) and ForContext returns ctx.Err() with the
// measurements of what ran. It returns nil when every iteration ran, even
// if ctx was done by then. ctx is checked between chunks, never inside body.
//
// Panics: as For.
func ForContext(ctx context.Context, w *worksteal.Worker, n int, s balance.Schedule, body func(w *worksteal.Worker, lo, hi int)) (LoopStats, error) {
	if n < 0 {
		panic(fmt.Sprintf("schedule: For with n = %d < 0", n))
	}
	if s == nil {
		s = balance.Stealing{}
	}
	rec := newRecorder(w.Pool().Workers())
	start := time.Now()
	if n > 0 {
		if st, ok := asStealing(s); ok {
			opts := options(st)
			if ctx.Done() != nil {
				opts = append(opts, par.WithContext(ctx))
			}
			par.ForRange(w, 0, n, func(w *worksteal.Worker, lo, hi int) {
				rec.run(w, lo, hi, body)
			}, opts...)
		} else {
			driveChunks(ctx, w, n, s, body, rec)
		}
	}
	stats := rec.stats(fmt.Sprint(s), n, time.Since(start))
	if stats.Done < n {
		return stats, ctx.Err() // only ctx stops a loop early without a panic
	}
	return stats, nil
}

// options returns the runtime loop options that s stands for.
func options(s balance.Stealing) []par.LoopOption {
	var opts []par.LoopOption
	if s.MinGrain > 1 {
		opts = append(opts, par.MinGrain(s.MinGrain))
	}
	if s.MaxGrain > 0 {
		opts = append(opts, par.MaxGrain(s.MaxGrain))
	}
	return opts
}

// asStealing reports whether s is a Stealing schedule (or a pointer to one).
func asStealing(s balance.Schedule) (balance.Stealing, bool) {
	switch st := s.(type) {
	case balance.Stealing:
		return st, true
	case *balance.Stealing:
		if st != nil {
			return *st, true
		}
	}
	return balance.Stealing{}, false
}

// driveChunks runs the OpenMP-style drivers of a Chunker schedule in a
// Scope: drivers 1.. are spawned, driver 0 runs on the calling worker.
// Scope's error is ignored: it can only be ctx's, and it is reported even
// when all that was skipped is a driver that would have found no chunk left;
// the caller compares the iterations done with n instead.
func driveChunks(ctx context.Context, w *worksteal.Worker, n int, s balance.Schedule, body func(w *worksteal.Worker, lo, hi int), rec *recorder) {
	drivers := min(w.Pool().Workers(), n)
	c := s.Start(n, drivers)
	_ = w.Scope(ctx, func(w *worksteal.Worker, sc *worksteal.Scope) error {
		// The scope's context is done when ctx is, and also after a
		// driver's panic: the other drivers then stop taking chunks.
		done := sc.Context().Done()
		drive := func(w *worksteal.Worker, d int) {
			for {
				select {
				case <-done:
					return
				default:
				}
				r, ok := c.Next(d)
				if !ok {
					return
				}
				rec.run(w, r.Lo, r.Hi, body)
			}
		}
		for d := 1; d < drivers; d++ {
			sc.Spawn(w, func(w *worksteal.Worker) { drive(w, d) })
		}
		drive(w, 0)
		return nil
	})
}

// ForPool runs one loop on pool p from a plain goroutine (not a worker of
// p): ForContext on a worker of p. It returns worksteal.ErrClosed if p is
// closed.
//
// Panics: as For; the panic is re-raised in the caller.
func ForPool(ctx context.Context, p *worksteal.Pool, n int, s balance.Schedule, body func(w *worksteal.Worker, lo, hi int)) (LoopStats, error) {
	if n < 0 {
		panic(fmt.Sprintf("schedule: For with n = %d < 0", n))
	}
	var (
		st  LoopStats
		err error
	)
	_, runErr := worksteal.Run(p, func(w *worksteal.Worker) struct{} {
		st, err = ForContext(ctx, w, n, s, body)
		return struct{}{}
	})
	if runErr != nil {
		return LoopStats{}, runErr
	}
	return st, err
}

// LoopStats are the measurements of one loop run by For, ForContext or
// ForPool. The per-worker slices have one entry per regular worker of the
// pool, in worker ID order, then one per spare worker (started by
// worksteal.Worker.Blocking) that ran a chunk, in ID order.
type LoopStats struct {
	// Schedule names the schedule, e.g. "dynamic(8)" or "stealing".
	Schedule string
	// N is the loop's size; Done is how many iterations ran (less than N
	// only when a context ended the loop early).
	N, Done int
	// Wall is the makespan: from the start of the call until the last chunk
	// had finished.
	Wall time.Duration
	// Busy is each worker's time inside body for this loop. Time a worker
	// spends in a nested loop's chunks while helping is counted in both
	// loops.
	Busy []time.Duration
	// Chunks is how many times each worker called body.
	Chunks []int
	// Iterations is how many iterations each worker ran.
	Iterations []int
}

// Idle returns each worker's time in the loop not spent in body, Wall −
// Busy[i] (0 where nesting made Busy exceed Wall).
func (s LoopStats) Idle() []time.Duration {
	idle := make([]time.Duration, len(s.Busy))
	for i, b := range s.Busy {
		idle[i] = max(s.Wall-b, 0)
	}
	return idle
}

// Imbalance returns Imbalance(s.Busy): the busiest worker's time over the
// mean, 1 for a perfect split.
func (s LoopStats) Imbalance() float64 { return balance.Imbalance(s.Busy) }

// Utilization returns Utilization(s.Busy, s.Idle()): the fraction of the
// workers' time during the loop that went into body.
func (s LoopStats) Utilization() float64 { return balance.Utilization(s.Busy, s.Idle()) }

// TotalChunks returns the number of body calls, summed over the workers.
func (s LoopStats) TotalChunks() int {
	t := 0
	for _, c := range s.Chunks {
		t += c
	}
	return t
}

// Profile returns the run as an Analyze input: per-worker Busy and Idle.
func (s LoopStats) Profile() balance.Profile { return balance.Profile{Busy: s.Busy, Idle: s.Idle()} }

// String formats s on one line, e.g. "dynamic(8): 1000/1000 iterations in
// 125 chunks, wall 2.1ms, imbalance 1.01, utilization 98%".
func (s LoopStats) String() string {
	return fmt.Sprintf("%s: %d/%d iterations in %d chunks, wall %v, imbalance %.2f, utilization %.0f%%",
		s.Schedule, s.Done, s.N, s.TotalChunks(), s.Wall.Round(time.Microsecond), s.Imbalance(), 100*s.Utilization())
}

// recorder accumulates one loop's per-worker measurements. A worker's slot
// is written only by chunks that run on it, but atomically, so that a spare
// whose ID is reused, or a racy runner, cannot corrupt it.
type recorder struct {
	slots []loadSlot // regular workers, by ID

	mu     sync.Mutex
	spares map[int]*loadSlot // spare workers, by ID
}

type loadSlot struct {
	busy, chunks, iters atomic.Int64
	_                   [104]byte // one slot per cache line pair
}

func newRecorder(workers int) *recorder {
	return &recorder{slots: make([]loadSlot, workers)}
}

// run runs body(w, lo, hi) and charges it to w.
func (r *recorder) run(w *worksteal.Worker, lo, hi int, body func(w *worksteal.Worker, lo, hi int)) {
	t0 := time.Now()
	body(w, lo, hi)
	d := time.Since(t0)
	s := r.slot(w.ID())
	s.busy.Add(int64(d))
	s.chunks.Add(1)
	s.iters.Add(int64(hi - lo))
}

func (r *recorder) slot(id int) *loadSlot {
	if id < len(r.slots) {
		return &r.slots[id]
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.spares == nil {
		r.spares = make(map[int]*loadSlot)
	}
	s := r.spares[id]
	if s == nil {
		s = new(loadSlot)
		r.spares[id] = s
	}
	return s
}

// stats snapshots the slots; the loop has finished, so they are final.
func (r *recorder) stats(schedule string, n int, wall time.Duration) LoopStats {
	st := LoopStats{Schedule: schedule, N: n, Wall: wall}
	add := func(s *loadSlot) {
		st.Busy = append(st.Busy, time.Duration(s.busy.Load()))
		st.Chunks = append(st.Chunks, int(s.chunks.Load()))
		st.Iterations = append(st.Iterations, int(s.iters.Load()))
		st.Done += int(s.iters.Load())
	}
	for i := range r.slots {
		add(&r.slots[i])
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range slices.Sorted(maps.Keys(r.spares)) {
		add(r.spares[id])
	}
	return st
}
