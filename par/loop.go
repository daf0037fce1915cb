package par

import (
	"context"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/worksteal/worksteal"
)

// chunkTarget is the chunk duration below which the chunk size doubles.
var chunkTarget = 5 * time.Microsecond

// splitWorth is the least estimated remaining work for which a piece is
// split: below it, waking or feeding another worker costs about as much as
// the work it would take over, so small loops stay as cheap as sequential
// code. The estimate is the time per iteration measured so far in the piece
// (inherited from the piece it was split from), times the iterations left;
// a piece with no estimate yet runs one chunk first.
const splitWorth = 16 * time.Microsecond

// eagerPiece is the work a piece keeps when split eagerly: a piece whose
// measured remaining work is at least twice this splits whether or not a
// peer is idle, so the deque holds pieces of about this size and an idle
// worker finds one at once instead of waiting for the owner's next chunk
// boundary (on skewed work, such as Mandelbrot rows of up to 2 ms, that wait
// costs more than the join: about 20 ns per piece, 0.04% of 50 µs).
const eagerPiece = 50 * time.Microsecond

// probing turns probe off when false: for the benchmarks and tests that
// compare a loop with and without it in one binary (the layout of two
// binaries moved a loop's time by up to 20 % on the 2-core VM).
var probing = true

// clockBase is the origin of the loops' chunk timing: time.Since of a
// time with a monotonic reading reads only the monotonic clock.
var clockBase = time.Now()

// sureChunk is the shortest chunk whose timing is trusted for eager
// splitting: above the clock's resolution and overhead.
const sureChunk = time.Microsecond

// LoopOption configures one parallel loop.
type LoopOption func(*loopConfig)

type loopConfig struct {
	minGrain, maxGrain uint
	ctx                context.Context
}

// MinGrain makes the loop never split a piece smaller than n iterations and
// start its chunks at n iterations (default 1).
func MinGrain(n int) LoopOption {
	return func(c *loopConfig) {
		if n > 1 {
			c.minGrain = uint(n)
		}
	}
}

// MaxGrain caps the number of iterations a worker runs between two checks
// for idle workers (default: no cap beyond the geometric growth).
func MaxGrain(n int) LoopOption {
	return func(c *loopConfig) {
		if n > 0 {
			c.maxGrain = uint(n)
		}
	}
}

// WithContext makes the loop stop handing out new chunks once ctx is done.
// Chunks already started finish; the loop then returns early, and the
// caller learns about it from ctx.Err().
func WithContext(ctx context.Context) LoopOption {
	return func(c *loopConfig) { c.ctx = ctx }
}

func loopOptions(opts []LoopOption) loopConfig {
	c := loopConfig{minGrain: 1, maxGrain: ^uint(0) >> 1}
	if len(opts) == 0 {
		// c stays on the stack: in loopConfigWith, o(&c) passes it to a
		// function the compiler cannot see, so it escapes, and every
		// loop without options paid an allocation for it.
		return c
	}
	return loopConfigWith(c, opts)
}

// loopConfigWith applies opts to a copy of c (on the heap: see
// loopOptions).
func loopConfigWith(c loopConfig, opts []LoopOption) loopConfig {
	for _, o := range opts {
		o(&c)
	}
	if c.maxGrain < c.minGrain {
		c.maxGrain = c.minGrain
	}
	return c
}

// piece is a part of a loop's index range, [lo, lo+n). Lengths are unsigned
// so that a range across the whole int domain cannot overflow. psPerIter is
// the measured cost of one iteration in picoseconds (0: not measured yet).
type piece struct {
	lo        int
	n         uint
	psPerIter uint64
	chunk     uint  // the chunk size reached so far (inherited by halves)
	sure      bool  // psPerIter comes from a chunk of at least sureChunk
	waits     bool  // a chunk of this piece entered Worker.Blocking (fanOut)
	kind      uint8 // pieceRun, or a probe's first chunk or rest (probe)
	link      uint8 // which of the loop's probes (probe): 0 for drive's
}

// Kinds of piece: a piece that runs (and probes if it has no estimate),
// and the two halves of a probe.
const (
	pieceRun = iota
	pieceFirst
	pieceRest
)

// maxProbes bounds the probes of one loop: drive's, and one more for each
// rest taken before its first chunk ended without that chunk's having
// entered Blocking (the chunk's own Joins published it: an idle worker
// at one of their poll points, or their eager levels).
const maxProbes = 4

// probe is the record of one probe's first chunk, read by its rest.
// state decides which ran first ([LP1]): the first chunk moves it
// 0 → 1 when it has ended (after writing the other fields, which the CAS
// releases); the rest moves it 0 → 2 if it starts before that, and then
// ignores them.
type probe struct {
	state     atomic.Uint32
	waits     bool
	wid       int // the worker that ran the first chunk (Worker.ID)
	c         uint
	took, end time.Duration
}

// loop is the state of one parallel loop over an index range, with a result
// of type R per piece (struct{} for plain loops) combined in index order.
type loop[R any] struct {
	cfg     loopConfig
	leaf    func(w *worksteal.Worker, lo, hi int, acc R) R
	combine func(a, b R) R
	zero    R
	fn      func(w *worksteal.Worker, s piece) R // l.run, bound once: no allocation per split
	stop    atomic.Bool                          // set by a panic, an early exit or the context
	done    <-chan struct{}
	// cut, if not nil, is an index from which no chunk needs to run (the
	// first match found so far by Index): pieces at or beyond it stop.
	cut *atomic.Int64
	// blocked is set by Worker.Blocking when a probe's first chunk enters
	// it (Worker.NotifyBlocking). probe0 is drive's probe; more holds
	// the others (links 1 to maxProbes−1), allocated by the first of them:
	// most loops never need them.
	blocked atomic.Bool
	probe0  probe
	more    atomic.Pointer[[maxProbes - 1]probe]
}

// probeOf returns the record of the probe with the given link. The
// record of link k > 0 is made (with all others) by the worker that starts
// probe k, before its Join publishes the rest that reads it; links are
// started one after another (link k+1 by the worker that took link k's
// rest), so only one worker ever makes them.
func (l *loop[R]) probeOf(link uint8) *probe {
	if link == 0 {
		return &l.probe0
	}
	m := l.more.Load()
	if m == nil {
		m = new([maxProbes - 1]probe)
		l.more.Store(m)
	}
	return &m[link-1]
}

func newLoop[R any](cfg loopConfig, zero R, leaf func(w *worksteal.Worker, lo, hi int, acc R) R, combine func(a, b R) R) *loop[R] {
	l := &loop[R]{cfg: cfg, leaf: leaf, combine: combine, zero: zero}
	if cfg.ctx != nil {
		l.done = cfg.ctx.Done()
	}
	l.fn = l.run
	return l
}

// stopped reports whether the loop should hand out no more chunks.
func (l *loop[R]) stopped() bool {
	if l.stop.Load() {
		return true
	}
	if l.done != nil {
		select {
		case <-l.done:
			l.stop.Store(true)
			return true
		default:
		}
	}
	return false
}

// run executes piece s: chunks of growing size, splitting the rest in two
// when a peer is idle and w's deque is empty. It returns the piece's result.
func (l *loop[R]) run(w *worksteal.Worker, s piece) R {
	// t0 is the end of the previous chunk (monotonic, since clockBase):
	// one clock read per chunk, and a monotonic one, which costs half of
	// time.Now (that reads the wall clock too): 25 ns against 48 on the
	// 2-core EPYC VM, 0.5 % of a 5 µs chunk instead of 1 %.
	var t0 time.Duration = -1
	switch s.kind {
	case pieceFirst:
		return l.first(w, s)
	case pieceRest:
		s, t0 = l.rest(w, s)
	}
	if probing && s.psPerIter == 0 && !s.waits && s.kind == pieceRun && int(s.link) < maxProbes {
		// The first chunk as run would cut it, with a rest of at least
		// MinGrain (a shorter one would have been the chunk's tail).
		if c := min(max(s.chunk, l.cfg.minGrain), l.cfg.maxGrain); s.n >= c+l.cfg.minGrain && !l.stopped() {
			if !l.blocked.Load() {
				return l.probe(w, s, c)
			}
			s.waits = true // an iteration of this loop waited: fan out
		}
	}
	acc := l.zero
	chunk := max(s.chunk, l.cfg.minGrain)
	finished := false
	defer func() {
		if !finished { // a panic in the body: stop handing out chunks
			l.stop.Store(true)
			if r := recover(); r != nil { // nil: runtime.Goexit, which goes on
				panic(asPanicError(r))
			}
		}
	}()
	for s.n > 0 {
		if l.stopped() || l.cut != nil && int64(s.lo) >= l.cut.Load() {
			break
		}
		if s.waits {
			acc = l.combine(acc, l.fanOut(w, s))
			break
		}
		if s.n >= 2*l.cfg.minGrain && s.psPerIter > 0 && l.shouldSplit(w, s) {
			half := s.n / 2
			// The halves inherit the estimate but not its trust: each runs
			// a chunk of its own before it splits eagerly again, so one
			// chunk stalled by the OS (under load, a 1-iteration first
			// chunk that took 10 µs) cannot cut the whole range into
			// pieces of a few iterations.
			left, right := worksteal.JoinFunc(w, l.fn, piece{lo: s.lo, n: half, psPerIter: s.psPerIter, chunk: chunk},
				l.fn, piece{lo: s.lo + int(half), n: s.n - half, psPerIter: s.psPerIter, chunk: chunk})
			acc = l.combine(acc, l.combine(left, right))
			break
		}
		c := chunk
		if c > s.n || s.n-c < l.cfg.minGrain { // no tail below the grain
			// The rest in one chunk if MaxGrain allows it; else leave a
			// tail of exactly MinGrain (s.n < chunk+minGrain <=
			// maxGrain+minGrain, so c <= maxGrain). Only MaxGrain <
			// 2*MinGrain can force a shorter tail.
			c = s.n
			if s.n > l.cfg.maxGrain {
				c = max(l.cfg.minGrain, s.n-l.cfg.minGrain)
			}
		}
		if t0 < 0 {
			t0 = time.Since(clockBase)
		}
		b0 := w.BlockingCalls()
		acc = l.leaf(w, s.lo, s.lo+int(c), acc)
		s.waits = s.waits || w.BlockingCalls() != b0
		s.lo += int(c)
		s.n -= c
		t1 := time.Since(clockBase)
		took := t1 - t0
		t0 = t1
		s.psPerIter = max(1, uint64(took)*1000/uint64(c))
		s.sure = took >= sureChunk
		if took < chunkTarget && chunk < l.cfg.maxGrain {
			chunk *= 2
			if chunk > l.cfg.maxGrain {
				chunk = l.cfg.maxGrain
			}
		}
	}
	finished = true
	return acc
}

// probe runs piece s, which has no estimate yet (drive's, or a rest taken
// early), as a lazy Join: the first chunk of c iterations, and the rest of
// s as the second half, which stays latent unless the chunk publishes it
// (worksteal.JoinFuncLazy). If the
// first chunk enters Worker.Blocking, Blocking sets l.blocked before it
// publishes the rest (Worker.NotifyBlocking), a spare takes it, and the
// rest fans out at once (rest): every wait of the loop is then in flight
// within a spare's wake-up of the first, not after the first wait ends.
// Without it, the 300 fetches of the I/O batch (a 5–20 ms wait, then 2 ms
// of CPU) took 7–10 % longer than errgroup's, the first wait.
//
// If nothing takes the rest, the Join runs it after the first chunk, from
// that chunk's estimate, as if the chunk had been the piece's first: the
// probe then costs a Join and two uncontended CASes. A rest published by
// the chunk's own Joins (a body with Joins of its own, an idle worker at
// one of their poll points) and taken before the chunk ends probes in
// turn, up to maxProbes per loop.
func (l *loop[R]) probe(w *worksteal.Worker, s piece, c uint) R {
	first := piece{lo: s.lo, n: c, chunk: c, kind: pieceFirst, link: s.link}
	rest := piece{lo: s.lo + int(c), n: s.n - c, chunk: s.chunk, kind: pieceRest, link: s.link}
	a, b := worksteal.JoinFuncLazy(w, l.fn, first, l.fn, rest)
	return l.combine(a, b)
}

// first runs a probe's first chunk, s, whole, with the loop's flag
// installed (Worker.NotifyBlocking), and tells its rest what it measured
// ([LP1]): what run's loop does for one chunk, without its tests for a
// split (a piece without an estimate does not split) or a stop (the
// probe tested it just before).
func (l *loop[R]) first(w *worksteal.Worker, s piece) (acc R) {
	pr := l.probeOf(s.link)
	prev := w.NotifyBlocking(&l.blocked)
	finished := false
	defer func() {
		w.NotifyBlocking(prev)
		if !finished { // a panic in the body: stop handing out chunks
			l.stop.Store(true)
			if r := recover(); r != nil { // nil: runtime.Goexit, which goes on
				panic(asPanicError(r))
			}
		}
	}()
	b0 := w.BlockingCalls()
	t0 := time.Since(clockBase)
	acc = l.leaf(w, s.lo, s.lo+int(s.n), l.zero)
	pr.end = time.Since(clockBase)
	pr.took, pr.c, pr.waits, pr.wid = pr.end-t0, s.n, w.BlockingCalls() != b0, w.ID()
	pr.state.CompareAndSwap(0, 1) // [LP1]
	finished = true
	return acc
}

// rest turns a probe's rest into a piece to run ([LP1]), and returns the
// time its first chunk starts from (-1: read the clock). If the first
// chunk has ended, the rest starts from its estimate and, if it waited,
// fans out; on the chunk's worker, right after it (the Join's inline
// call, or a pop of the published half), it also starts from the chunk's
// end, which saves a clock read. If not, the rest was taken while the
// chunk runs: if the chunk (or any probe's) entered Blocking, it fans out
// with no estimate (a task per MinGrain iterations), else it probes
// afresh with the next link.
func (l *loop[R]) rest(w *worksteal.Worker, s piece) (piece, time.Duration) {
	pr := l.probeOf(s.link)
	s.kind = pieceRun
	if pr.state.CompareAndSwap(0, 2) { // [LP1]: the first chunk runs yet
		s.link++
		s.waits = l.blocked.Load()
		return s, -1
	}
	t0 := time.Duration(-1)
	if pr.wid == w.ID() {
		t0 = pr.end
	}
	c := max(pr.c, 1)
	s.psPerIter = max(1, uint64(pr.took)*1000/uint64(c))
	s.sure = pr.took >= sureChunk
	s.waits = pr.waits
	s.chunk = c
	if pr.took < chunkTarget && c < l.cfg.maxGrain {
		s.chunk = min(2*c, l.cfg.maxGrain)
	}
	return s, t0
}

// fanOut runs the rest of piece s, whose body waits in Worker.Blocking, as
// one public task per grain of about eagerPiece of work (one iteration for
// waits of milliseconds), in a Scope (in fanWidth pieces that fan out in
// turn, for long ranges), and combines their results in index order.
//
// Why not split by Joins as other pieces do: a wait is not work. The time
// a chunk measured is mostly its wait's, and the iterations left wait as
// long, so the loop is I/O-bound: what it needs is as many waits in
// flight as Blocking's spares allow (Config.MaxBlocking), as soon as
// possible, as a goroutine per iteration would have them. Halving by Joins
// reaches that only level by level, and a Join made while no worker is
// idle (the spares all blocked, the workers busy) is a plain call whose
// second half waits for its first: in the I/O batch of issue 30 (300
// iterations of a 5–20 ms wait and 2 ms of CPU), a tail of iterations
// waited one after another behind such halves, 375–440 ms against 328–345
// for errgroup with SetLimit(32). Spawned tasks are public at once: each
// Blocking's spare steals from the queue, as Scope.Go's batch does.
//
// The decision holds for the rest of the piece: if only its first chunk
// waited (a first iteration that filled a cache) and the others are cheap,
// they still go out a task each, which costs a spawn per iteration where
// chunks would have cost almost nothing; MinGrain bounds a task from
// below. Letting each of the fanWidth pieces learn afresh from a chunk of
// its own was tried and not kept: it keeps all but one wave of the waits
// back until the first wave has ended.
func (l *loop[R]) fanOut(w *worksteal.Worker, s piece) R {
	g := uint64(l.cfg.minGrain)
	// psPerIter 0: a rest taken while its probe's first chunk waits, with
	// no estimate: MinGrain iterations per task.
	if s.psPerIter > 0 {
		g = max(g, uint64(eagerPiece)*1000/s.psPerIter)
	}
	g = min(g, uint64(l.cfg.maxGrain))
	n := uint64(s.n)
	per, k := g, (n+g-1)/g // iterations per task, tasks
	nested := k > fanWidth
	if nested { // fanWidth pieces of whole grains, each fanning out in turn
		per = (k + fanWidth - 1) / fanWidth * g
		k = (n + per - 1) / per
	}
	res := make([]R, k)
	_ = w.Scope(context.Background(), func(w *worksteal.Worker, sc *worksteal.Scope) error {
		for i := range k {
			lo := s.lo + int(i*per)
			m := min(per, n-i*per)
			sc.Spawn(w, func(w *worksteal.Worker) {
				if l.stopped() || l.cut != nil && int64(lo) >= l.cut.Load() {
					return
				}
				// A panic cancels the Scope, which skips the tasks not
				// yet started, and reaches run's handler from its wait.
				if nested {
					res[i] = l.run(w, piece{lo: lo, n: uint(m), psPerIter: s.psPerIter, chunk: s.chunk, sure: true, waits: true})
				} else {
					res[i] = l.leaf(w, lo, lo+int(m), l.zero)
				}
			})
		}
		return nil
	})
	acc := l.zero
	for _, r := range res {
		acc = l.combine(acc, r)
	}
	return acc
}

// fanWidth is the most tasks one fanOut spawns: a longer range is cut into
// fanWidth pieces that fan out in turn when they run, so a loop of a
// million iterations that wait queues 64 tasks at a time per level, not a
// million before the first one runs.
const fanWidth = 64

// shouldSplit decides whether piece s (with a cost estimate) splits now:
// eagerly while each half would still hold at least eagerPiece of work (by
// a reliable estimate), so thieves always find pieces of about that size in
// the deque; below that, lazily, when a peer is idle, the deque is empty
// and the rest is worth a steal. A surplus worker (Pool.SetWorkers) always
// splits: it hands the rest of its piece back half by half at each chunk,
// and its joins wait for the active workers to run the halves.
func (l *loop[R]) shouldSplit(w *worksteal.Worker, s piece) bool {
	if w.Surplus() {
		return true
	}
	if s.sure && uint64(s.n) >= 2*uint64(eagerPiece)*1000/s.psPerIter {
		return true
	}
	return !w.HasPendingTasks() && w.PeersIdle() && uint64(s.n) >= uint64(splitWorth)*1000/s.psPerIter
}

// drive runs l over [lo, hi) on w and returns the combined result.
func (l *loop[R]) drive(w *worksteal.Worker, lo, hi int) R {
	if hi <= lo {
		return l.zero
	}
	return l.run(w, piece{lo: lo, n: uint(hi) - uint(lo)})
}

// asPanicError gives a panic in a body the form a panic in a joined task
// has, so a loop reports its body's panic the same way whichever worker ran
// it. Call it from the deferred function that recovered: the stack of the
// panic site is still there.
func asPanicError(r any) *worksteal.PanicError {
	if pe, ok := r.(*worksteal.PanicError); ok {
		return pe // already wrapped where it happened (a stolen piece)
	}
	return &worksteal.PanicError{Value: r, Stack: debug.Stack()}
}

func noCombine(struct{}, struct{}) struct{} { return struct{}{} }

// For runs body(w, i) for every i in [lo, hi), in parallel on w's pool, and
// returns when all have run. Iterations are split adaptively (see the
// package doc): no grain argument is needed;
// MinGrain, MaxGrain and WithContext tune it. An empty range (hi <= lo)
// runs nothing.
//
// The body receives the handle of the worker that runs it; nested loops and
// joins inside the body fork through that handle.
//
// Panics: a panic in body stops the loop from handing out new chunks; once
// the chunks already running have finished, For re-panics with a
// [*worksteal.PanicError] carrying the original stack.
func For(w *worksteal.Worker, lo, hi int, body func(w *worksteal.Worker, i int), opts ...LoopOption) {
	l := newLoop(loopOptions(opts), struct{}{}, func(w *worksteal.Worker, lo, hi int, _ struct{}) struct{} {
		for i := lo; i < hi; i++ {
			body(w, i)
		}
		return struct{}{}
	}, noCombine)
	l.drive(w, lo, hi)
}

// ForRange is For with a body that receives a whole chunk [lo, hi) at a
// time: the fastest loop when the per-iteration work is tiny, because the
// inner loop is the caller's own code (no call per iteration).
func ForRange(w *worksteal.Worker, lo, hi int, body func(w *worksteal.Worker, lo, hi int), opts ...LoopOption) {
	l := newLoop(loopOptions(opts), struct{}{}, func(w *worksteal.Worker, lo, hi int, _ struct{}) struct{} {
		body(w, lo, hi)
		return struct{}{}
	}, noCombine)
	l.drive(w, lo, hi)
}

// ForEach runs body(w, i, &s[i]) for every element of s, in parallel; the
// body may modify the element through the pointer.
func ForEach[T any](w *worksteal.Worker, s []T, body func(w *worksteal.Worker, i int, v *T), opts ...LoopOption) {
	l := newLoop(loopOptions(opts), struct{}{}, func(w *worksteal.Worker, lo, hi int, _ struct{}) struct{} {
		for i := lo; i < hi; i++ {
			body(w, i, &s[i])
		}
		return struct{}{}
	}, noCombine)
	l.drive(w, 0, len(s))
}

// Map returns a new slice with f applied to every element of s, computed in
// parallel; out[i] = f(w, s[i]).
func Map[T, U any](w *worksteal.Worker, s []T, f func(w *worksteal.Worker, v T) U, opts ...LoopOption) []U {
	out := make([]U, len(s))
	l := newLoop(loopOptions(opts), struct{}{}, func(w *worksteal.Worker, lo, hi int, _ struct{}) struct{} {
		for i := lo; i < hi; i++ {
			out[i] = f(w, s[i])
		}
		return struct{}{}
	}, noCombine)
	l.drive(w, 0, len(s))
	return out
}
