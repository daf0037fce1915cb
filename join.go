package worksteal

import (
	"time"

	"github.com/worksteal/worksteal/internal/policyrt"
)

// Join runs fa and fb, possibly in parallel, and returns both results.
//
// fa runs at once on the calling worker; fb runs after fa returns, on w,
// as in a plain call — unless another worker takes it first. Which Joins
// can be taken: w keeps the oldest of its open Joins'
// second halves, internal/policyrt.LatentFrames of them beyond those already
// offered, in latent frames; a Join made while that many are open is a
// plain call of fa then fb, which no other worker ever sees. A latent fb
// is offered to thieves at the first poll point w reaches (every Join and
// Spawn inside fa, every chunk of a package par loop, [Worker.Poll]) that
// finds some worker idle, oldest first. If a thief took fb, w does not
// block: it runs other work — its own deque, then steals, preferring the
// worker that took fb — until fb has finished. A Join that nobody is idle
// for writes no atomic memory and makes one atomic load (PROTOCOL.md "What
// a Join costs"). The exception is the heartbeat: every
// internal/policyrt.HeartbeatJoins-th Join of a worker (and every
// internal/policyrt.HeartbeatPolls-th Poll) makes its oldest latent half public
// whether or not anyone is idle — a push on w's deque, one atomic store —
// and publishes w's statistics (nine atomic stores), so the largest
// pieces of a long computation wait in w's deque, where an idle worker
// takes them even while w is off its CPU.
//
// Joins near the root of w's stack (the first internal/policyrt.EagerDepth levels
// of the job w took) offer fb at once instead, as a deque-based join does:
// those are the largest pieces, and a tree of coarse leaves is then
// stealable at its top even while every owner is inside a leaf. Deeper, a
// first half that runs long without a poll point (a sequential leaf of a
// millisecond or more) keeps fb from idle workers until it returns: call
// w.Poll in its loop. fa must not wait for something fb does: as in a
// plain call, fb may start only after fa returns (the pool's stall
// monitor reports such a wait: [Config].OnStall).
//
// Join allocates fb's closure and what it captures (they escape to the
// deque, where a thief can see them): about 30–50 ns per Join more than
// [JoinFunc], which passes a plain function and its argument and allocates
// nothing (BenchmarkJoin).
//
// w must be the handle passed to the running task. Each closure receives the
// handle of the worker that runs it; fork inside them through that handle.
//
// Panics: a panic in fa or fb goes on from Join as from a plain call of
// fa then fb — the same value, its stack intact — once the other half has
// finished or when it provably never started: if fa panics, an fb that no
// other worker took is dropped, never run, and an fb that a thief is
// running is waited for. A panic of fb on another worker is re-raised by
// Join after fa returned, as a *PanicError that keeps that worker's
// stack. If both panic, fa's panic wins. Run, Scope and the other entry
// points re-raise a task's panic as a *PanicError ([PanicError]).
func Join[A, B any](w *Worker, fa func(w *Worker) A, fb func(w *Worker) B) (ra A, rb B) {
	// fb travels as the argument with a nil function (see frame.call): a
	// func value made from the generic callFunc[B] would need a closure
	// binding B's dictionary, allocated on every Join. The fast path is
	// JoinFunc's, written out (PROTOCOL.md "What a Join costs").
	checkWorker(w)
	if w.idle.Load() == 0 { // [P1]
		if w.beatLeft--; w.beatLeft > w.floor {
			ra = fa(w)
			return ra, fb(w)
		}
		w.beatLeft++ // joinFull counts this Join
		return joinFull[func(*Worker) A, A, func(*Worker) B, B](w, nil, fa, nil, fb)
	}
	return joinFull[func(*Worker) A, A, func(*Worker) B, B](w, nil, fa, nil, fb)
}

// JoinFunc is Join for plain functions with one argument each: it runs
// fa(w, xa) and fb(w, xb), possibly in parallel, and returns both results,
// allocating nothing in the steady state. A latent second half lives in a
// per-worker frame reused at each nesting depth (PROTOCOL.md "Join").
// Pass functions declared at top level (or method values bound once); an
// argument that is a closure or a pointer to a local escapes like in Join.
//
// A JoinFunc that nobody steals costs a few ns of CPU over a plain call
// (BenchmarkJoin's cpu-ns/join in bench_test.go; PROTOCOL.md "What a Join
// costs"); the semantics, panics included, are those of [Join]. The
// compiler inlines JoinFunc only in a build with profile-guided
// optimization (go build -pgo, or a default.pgo beside the main package)
// whose CPU profile shows the call site hot: the Join then costs about
// half the instructions over a plain call (PROTOCOL.md "What a Join
// costs"; cmd/worksteal is built that way).
// Keep xa and xb small: when w, the two functions and the two arguments
// fit in Go's nine integer argument registers (arguments of up to three
// words each), the call passes them in registers; larger ones go through
// memory. Measured on a tree of 2^20 leaves (BenchmarkJoinArgSize, 1
// worker): 8- and 16-byte arguments joined in about 7 ns over a plain
// recursive call, a 24-byte one (five words) in about 12 ns over a plain
// call that itself cost 5 ns more than with 16 bytes. Pass a pointer to
// what does not fit.
func JoinFunc[XA, RA, XB, RB any](w *Worker, fa func(w *Worker, x XA) RA, xa XA, fb func(w *Worker, x XB) RB, xb XB) (ra RA, rb RB) {
	// The fast path (PROTOCOL.md "What a Join costs"): policyrt.LatentFrames
	// latent frames are open (depth >= gate; no profile), nobody is idle,
	// no heartbeat is due. Then this Join is a plain call of both halves:
	// no frame, so no other worker can ever see fb, and a panic in either
	// half goes on as it is, fb never having started if fa panicked.
	// Everything else — a latent frame to open, an eager depth, a poll
	// that finds a worker idle, the heartbeat — is joinFull.
	//
	// The fast path is written as the body of the ifs, each slow exit
	// ending in its own call: the compiler then lays it out as one straight
	// run of code with no taken branch but the calls (with a call on one
	// side only, it moves that side out of line as the unlikely one). The
	// same shape with the tests inverted ran 10 % slower on fib
	// (PROTOCOL.md "What a Join costs").
	checkWorker(w)
	if w.idle.Load() == 0 { // [P1]
		// One test for depth >= gate and the heartbeat: floor is 0 while
		// depth >= gate and MaxInt below it (setDepth, setLo), and
		// beatLeft >= 1, so the count passes it only when this Join is
		// to be a plain call and is not the beat's.
		if w.beatLeft--; w.beatLeft > w.floor {
			ra = fa(w, xa)
			return ra, fb(w, xb)
		}
		w.beatLeft++ // joinFull counts this Join (the beat: when the count reaches 0 there)
		return joinFull(w, fa, xa, fb, xb)
	}
	return joinFull(w, fa, xa, fb, xb)
}

// joinFull is a whole Join off the fast path: a depth without a frame of
// this type, an eager depth, a poll point that has something to do (a
// worker idle, the heartbeat), or a profiled computation. fa nil means
// xa is a func(*Worker) RA (Join's closure form), and likewise fb.
func joinFull[XA, RA, XB, RB any](w *Worker, fa func(*Worker, XA) RA, xa XA, fb func(*Worker, XB) RB, xb XB) (ra RA, rb RB) {
	f, d := joinPushSlow(w, fb, xb)
	phase := joinRunningA
	defer func() {
		if phase != joinDone { // a panic or runtime.Goexit: it goes on as it is
			joinUnwind(w, f, d, phase)
		}
	}()
	if fa != nil {
		ra = fa(w, xa)
	} else {
		ra = any(xa).(func(*Worker) RA)(w)
	}
	phase = joinTakingB
	rb = joinPop(w, f, d)
	phase = joinDone
	return ra, rb
}

// JoinFuncLazy is [JoinFunc] for a first half that usually ends at once
// but may wait or grow: fb is offered to other workers only when fa
// itself makes it worth taking — fa enters [Worker.Blocking], or fa's own
// Joins publish their halves (eagerly near the root of the job, at a poll
// point that finds a worker idle, at the heartbeat), which publishes fb
// with them, oldest first. The Join itself offers nothing: it is never
// eager (PROTOCOL.md "Eager Joins near the root") and it does not poll,
// so a worker idle when it is made is not woken for an fb that w runs a
// moment later anyway. Package par's
// loops run their first chunk so, before they know what an iteration
// costs: a body that waits gets the rest of its range run beside its
// first wait, and a small loop stays on its worker.
//
// Everything else is JoinFunc's: both halves have finished when it
// returns, fb runs on w after fa unless a thief took it, panics go on as
// from a plain call (see [Join]). It allocates nothing in the steady
// state, but it opens a frame at every call, which JoinFunc's fast path
// does not once policyrt.LatentFrames frames are open: on fib 30 at 1
// worker it cost 27 ns per Join against JoinFunc's 7 (BenchmarkJoin's
// JoinFuncLazy rows). Use it where a Join is made once per piece of work,
// not at every level of a recursion.
func JoinFuncLazy[XA, RA, XB, RB any](w *Worker, fa func(w *Worker, x XA) RA, xa XA, fb func(w *Worker, x XB) RB, xb XB) (ra RA, rb RB) {
	// joinFull's body with joinPushLatent for joinPushSlow: kept apart,
	// not a flag of joinFull's, so that the slow path of every other Join
	// tests nothing more.
	checkWorker(w)
	f, d := joinPushLatent(w, fb, xb)
	phase := joinRunningA
	defer func() {
		if phase != joinDone { // a panic or runtime.Goexit: it goes on as it is
			joinUnwind(w, f, d, phase)
		}
	}()
	ra = fa(w, xa)
	phase = joinTakingB
	rb = joinPop(w, f, d)
	phase = joinDone
	return ra, rb
}

// Join runs fa and fb, possibly in parallel, for halves that return
// nothing: the form of [Join] that needs no struct{} results, as in
//
//	w.Join(func(w *worksteal.Worker) { sort(w, a[:m]) },
//		func(w *worksteal.Worker) { sort(w, a[m:]) })
//
// Everything [Join] says holds: fa runs at once on w, fb after it unless a
// thief takes it (at a poll point that finds a worker idle), both have
// finished when Join returns, and a panic goes on as from a plain call
// once the other half has finished or provably never started. Like Join
// it allocates fb's closure and what it captures (BenchmarkJoin's Unit
// rows).
func (w *Worker) Join(fa, fb func(w *Worker)) {
	// JoinFunc's fast path once more, with no generic dictionary; in
	// joinFull, fb is the frame's argument and runUnit its function.
	checkWorker(w)
	if w.idle.Load() == 0 { // [P1]
		if w.beatLeft--; w.beatLeft > w.floor {
			fa(w)
			fb(w)
			return
		}
		w.beatLeft++ // joinFull counts this Join
		joinFull(w, runUnit, fa, runUnit, fb)
		return
	}
	joinFull(w, runUnit, fa, runUnit, fb)
}

// runUnit calls f: the function of Worker.Join's frames, whose argument is
// the second half.
func runUnit(w *Worker, f func(w *Worker)) struct{} {
	f(w)
	return struct{}{}
}

// Phases of a Join, for the panic path.
const (
	joinRunningA = iota // fb is latent, queued or stolen; fa runs
	joinTakingB         // fa returned; fb is being taken back, run, or waited for
	joinDone
)

// frame is the typed Join frame of one nesting depth of one worker. The
// owner writes fb and xb before pushing (the push is the happens-before edge
// [J1] to the thief that steals it); a thief writes rb or pe before setting
// the latch ([L1] in job.go).
//
// Frames are not padded against false sharing: measured on UTS b0=6000 and
// fib 35 at 1 and 2 workers, padding both sides changed nothing beyond the
// noise, and it triples a frame's size in deep recursions.
type frame[XB, RB any] struct {
	job
	fb func(*Worker, XB) RB
	xb XB
	rb RB
	pe *PanicError
	pf *profFrame // work/span profiling (workspan.go): nil, or pf.prof nil, when off
}

// call runs the second half: fb(w, xb), or, for Join's closure form (fb
// nil), xb itself, which is then a func(*Worker) RB.
func (f *frame[XB, RB]) call(w *Worker) RB {
	if f.fb != nil {
		return f.fb(w, f.xb)
	}
	return any(f.xb).(func(*Worker) RB)(w)
}

// runJob runs a stolen frame's second half (on the thief, or on the owner
// when it steals its own frame back during a wait).
//
// The latch is set by the first deferred call, so it runs last, after
// everything else the thief writes into the frame — the result or panic,
// and the profile's path lengths in runStolen's deferred call — also when
// the goroutine is exiting through runtime.Goexit ([L1]: the owner may
// read and reuse the frame as soon as it sees the latch set).
func (f *frame[XB, RB]) runJob(w *Worker) {
	f.thief.Store(int32(w.id))
	defer f.done.set() // last access: the owner may reuse f at once
	if f.pf != nil && f.pf.prof != nil {
		f.pf.runStolen(w, func() { f.runB(w) })
	} else {
		f.runB(w)
	}
}

// runB runs the second half, keeping its result or its failure in f.
func (f *frame[XB, RB]) runB(w *Worker) {
	guard(func() { f.rb = f.call(w) }, func(pe *PanicError) { f.pe = pe })
}

// A Join's frame: its push (written out in Join and JoinFunc) takes
// the frame for the current depth and makes it w's youngest latent frame:
// w alone knows it exists until a poll point promotes it (PROTOCOL.md
// "Join"). The poll itself is one load of the sleep state: while no worker
// is idle, a Join writes only w's own memory.

// pollJoin is the rest of a Join's poll point when the quick test found
// something to do.
func (w *Worker) pollJoin() {
	if w.idle.Load() != 0 {
		w.offer()
	}
	if w.beatLeft == 0 {
		w.beatLeft = policyrt.HeartbeatJoins
		w.st.joins += policyrt.HeartbeatJoins
		w.publish()
		w.heartbeat()
	}
}

// heartbeat promotes w's oldest latent frame, whether or not a worker is
// idle: every policyrt.HeartbeatJoins Joins (tens of microseconds of fine-grained
// fork-join), as in heartbeat scheduling (Acar et al., PLDI 2018), which
// promotes latent parallelism at a bounded rate. It keeps the oldest,
// largest second halves of a long computation in w's deque, where a worker
// that runs dry takes them without w's help — also while w itself is off
// its CPU (the Go scheduler ran a collector's worker in its place, or the
// OS another process), when no poll point of w's can answer. Its cost is
// one promotion (a push, a load of the sleep state) and, later, one pop
// per policyrt.HeartbeatJoins Joins. The frame of the Join just forked (the youngest)
// is never promoted here: it is the smallest piece, and its Join usually
// ends before anyone could take it.
func (w *Worker) heartbeat() {
	w.narrow()
	w.beatHeld()
	if w.lo < w.depth-1 {
		w.beat()
	}
}

// beatHeld ends the plain calls that an earlier beat left ([P4]) once w's
// deque is empty — the half that beat promoted was taken by a thief (or
// popped back): gate goes back to lo + LatentFrames, so w's next Joins
// open a latent frame again, for an idle worker's next poll and for the
// next beat, instead of offering only the Join that polls. Called at each
// beat (every policyrt.HeartbeatJoins Joins, policyrt.HeartbeatPolls polls):
// one load of the deque's ends per beat.
func (w *Worker) beatHeld() {
	if w.gate < w.lo+w.latentFrames && w.dq.Len() == 0 {
		w.setLo(w.lo)
	}
}

// beat promotes the oldest latent frame (w.lo < w.depth). Owner only.
//
// It leaves gate where it was ([P4]): the rest of the promoted Join's
// first half keeps making plain calls, as it did before the beat. Moving
// gate up with lo, as any other promotion does, would open a new latent
// frame at the next Join, and then one at every Join along each chain of
// second halves that runs inline (fib: every right spine) until the
// promoted Join returns — one frame Join in every 30–100 of a long
// computation at one worker, 0.2 ns per Join of fib's 3 (PROTOCOL.md "What
// a Join costs"). The deque holds the promoted half meanwhile, which is
// what the heartbeat is for; an idle worker still gets a frame at the
// next poll point (joinFull, offer), and gate comes back to
// lo + policyrt.LatentFrames at the next setLo: when the promoted Join
// returns (joinPopPromoted) at the latest.
func (w *Worker) beat() {
	g := w.gate
	w.promoteTo(w.lo + 1)
	w.setGate(g)
}

// joinPushSlow takes and fills the frame of a Join that opens one
// (joinFull): the frame of depth w.depth, allocated once per depth and
// type, reused while the type matches.
//
// Eager Joins: a Join within policyrt.EagerDepth levels of the job w is
// running (d − eagerBase < EagerDepth; execute sets eagerBase to the depth
// the job starts at) — near the root of the job's stack, where its largest
// pieces are — pushes its second half at once, with every older latent
// frame ([P2]: oldest first), as a deque-based join does: a tree of coarse
// leaves that never poll is then stealable at its top even while every
// owner is inside a leaf (PROTOCOL.md "Eager Joins near the root"). This
// holds for every job, also one w took while it waited at a Join whose
// half was stolen (helpUntil), which starts deep in w's stack: its levels
// count from its own start, as in the simulator, which counts from the
// piece a worker last stole. The fast path never sees those depths
// (a job starts at depth >= lo, so its first Joins are below gate), so
// deep Joins pay nothing for this. At most eagerJoins Joins of one job
// are eager (eagerLeft, set by execute for each job and restored after
// it): a task that Joins in a loop at depth 0 goes latent after that.
func joinPushSlow[XB, RB any](w *Worker, fb func(*Worker, XB) RB, xb XB) (*frame[XB, RB], int) {
	f, d := joinPushLatent(w, fb, xb)
	w.beatLeft-- // counts the Join (w.joins); 0: the heartbeat is due (pollJoin)
	if d-w.eagerBase < policyrt.EagerDepth && w.eagerLeft > 0 {
		w.eagerLeft--
		if (policyrt.EagerWidens || w.pool.cfg.eagerWidens) && w.idle.Load() != 0 {
			w.widen() // thieves are asking, as at an offer
		}
		w.promoteTo(d + 1) // frames [lo, d] go public, oldest first
	}
	w.pollJoin()
	return f, d
}

// joinPushLatent takes and fills the frame of depth w.depth and opens it,
// latent: it stays w's alone until a promotion (a poll point that finds a
// worker idle, the heartbeat, Blocking). JoinFuncLazy's push, and the
// first part of joinPushSlow's.
func joinPushLatent[XB, RB any](w *Worker, fb func(*Worker, XB) RB, xb XB) (*frame[XB, RB], int) {
	if invariants {
		w.checkFloor()
	}
	d := w.depth
	var f *frame[XB, RB]
	if d < len(w.frames) {
		f, _ = w.frames[d].(*frame[XB, RB])
	}
	if f == nil {
		f = newFrame[XB, RB](w, d)
	}
	f.fb, f.xb = fb, xb
	if w.prof != nil {
		if f.pf == nil { // allocated once per frame, kept for later profiles
			f.pf = &profFrame{}
		}
		f.pf.prof = w.prof.shared
		f.pf.s0, f.pf.b0 = w.prof.fork()
	}
	w.setDepth(d + 1)
	return f, d
}

// eagerJoins bounds the eager Joins of one job: the Joins of a complete
// binary tree's top policyrt.EagerDepth levels.
const eagerJoins = 1<<policyrt.EagerDepth - 1

// offer is a poll point's response to an idle worker: promote the latent
// frames, unless w's deque holds work already — then the idle worker can
// take that (it was posted when it was pushed), and the frames, younger
// than what the deque holds, wait for the next poll that finds the deque
// empty. This bounds promotions while a thief searches to one per emptied
// deque instead of one per Join.
//
// An offer that promotes finds the thieves hungry: they took everything w
// published and ask again. w then widens its latent window to
// policyrt.HungryLatentFrames (before promote's setLo, which sets gate
// from it): its next Joins open frames instead of making plain calls, so
// the next offer hands over the oldest halves of a stretch of Joins
// rather than one frame and the Join that polls (PROTOCOL.md "Hungry
// thieves"). policyrt.QuietBeats beats in a row without such an offer
// narrow it back (narrow), as does parking: on a worker that nobody asks,
// latentFrames stays latentBase.
func (w *Worker) offer() {
	if w.dq.Len() == 0 {
		if w.lo < w.depth {
			w.widen()
		}
		w.promote()
	}
}

// widen opens w's latent window to policyrt.HungryLatentFrames and marks
// the stretch hungry (narrow counts quiet beats from it). Called before a
// promotion, whose setLo sets gate from the widened window. Owner only.
func (w *Worker) widen() {
	w.hungry = true
	w.latentFrames = max(w.latentBase, policyrt.HungryLatentFrames)
}

// narrow ends a hungry stretch at a beat (heartbeat): once
// policyrt.QuietBeats beats in a row have passed without an offer that
// promoted, the latent window goes back to latentBase (reset). Owner only.
func (w *Worker) narrow() {
	if w.hungry {
		w.hungry, w.quiet = false, 0
		return
	}
	if w.latentFrames != w.latentBase {
		if w.quiet++; w.quiet >= policyrt.QuietBeats {
			w.reset()
		}
	}
}

// reset narrows w's latent window to latentBase at once: gate comes down
// with it unless it is already lower (a beat's hold, [P4]) or a profile
// holds it at MaxInt. Called by narrow, and by a worker about to park
// (idleWait.failed), whose thieves, if any, have found other work or
// none: the next computation it joins starts with the one-frame window,
// not with what the last one's thieves asked for. Owner only.
func (w *Worker) reset() {
	w.latentFrames, w.hungry, w.quiet = w.latentBase, false, 0
	if w.prof == nil && w.gate > w.lo+w.latentFrames {
		w.setGate(w.lo + w.latentFrames)
	}
}

// promote makes every latent frame of w public, oldest first: frames
// [lo, depth) (promoteTo). Owner only.
func (w *Worker) promote() {
	if w.lo < w.depth {
		w.promoteTo(w.depth)
	}
}

// promoteTo makes latent frames [lo, end) public, oldest first (lo < end
// <= depth): it pushes them on w's deque, where thieves take the oldest
// first (PushWork), then posts them (ReadState: wake a sleeper if none
// searches). Owner only.
func (w *Worker) promoteTo(end int) {
	for d := w.lo; d < end; d++ {
		w.dq.Push(w.fjobs[d]) // [J1]
	}
	w.st.promoted += uint64(end - w.lo)
	if w.rec != nil {
		w.rec.record(EvPromote, -1, uint64(end-w.lo))
	}
	w.setLo(end)
	// PROTOCOL.md "Posting work": PushWork, then ReadState.
	w.posted()
}

func newFrame[XB, RB any](w *Worker, d int) *frame[XB, RB] {
	f := &frame[XB, RB]{}
	f.run = f
	f.fork = true
	f.done.waiter = w
	f.thief.Store(-1)
	if d < len(w.frames) {
		w.frames[d] = f // a frame of another type used this depth before
		w.fjobs[d] = &f.job
	} else {
		w.frames = append(w.frames, f)
		w.fjobs = append(w.fjobs, &f.job)
	}
	return f
}

// joinPop finishes a Join after fa returned. If the frame is still latent
// (d >= lo: no poll point promoted it), nobody else can have it: run fb
// inline, having touched only w's own memory. Otherwise the frame was
// promoted to the deque: pop it back, or, if a thief took it, help until
// the thief has finished it.
func joinPop[XB, RB any](w *Worker, f *frame[XB, RB], d int) RB {
	if d >= w.lo && w.prof == nil {
		// The fast path. depth goes back to d first: fb runs as the
		// continuation, and its own Joins reuse frame d (call has read
		// fb and xb already).
		w.setDepth(d)
		// The frame keeps fb and xb until it is reused: clearing them
		// costs a typed memory clear with write barriers on every Join,
		// and what they keep alive is bounded by the join depth.
		return f.call(w)
	}
	return joinPopPromoted(w, f, d)
}

// joinPopPromoted finishes a profiled Join, or one whose frame a poll
// point promoted to the deque.
func joinPopPromoted[XB, RB any](w *Worker, f *frame[XB, RB], d int) RB {
	// A heartbeat that promoted frame d left gate below lo +
	// policyrt.LatentFrames (beat, [P4]); fb, and whatever w runs while it
	// waits for a thief, may open latent frames again.
	w.setLo(w.lo)
	var jp joinProf
	if w.prof != nil {
		jp = joinProf{ps: w.prof}
		jp.spanA, jp.bspanA = w.prof.cut()
		if d >= w.lo { // latent: run inline, continuing the longer path
			w.setDepth(d)
			return f.runInline(w, jp)
		}
	}
	if w.surplus() && jp.ps == nil {
		// Out of the active set (SetWorkers): leave the frame to the
		// active workers, wait for it (resize.go, waitSurplus).
		rb := joinPopSlow(w, f, d, nil, jp)
		w.setLo(d)
		return rb
	}
	j, _ := w.dq.Pop()
	if j == &f.job && jp.ps == nil {
		// Promoted, and nobody took it. Progress for the stall monitor,
		// as when a job starts (execute): a tree of coarse leaves
		// without Poll, forked at eager depths, moves the word between
		// every two leaves, so the monitor does not take the worker for
		// stalled (and stop the world for a stack dump) while it runs
		// one leaf after another. A latent frame's pop (joinPop's fast
		// path) never comes here.
		w.bump()
		w.st.executed++
		rb := f.call(w)
		w.setDepth(d)
		w.setLo(d)
		return rb
	}
	rb := joinPopSlow(w, f, d, j, jp)
	w.setLo(d) // frames below d were promoted before frame d ([P2])
	return rb
}

// joinProf is a profiled Join's state when its first half ended: the
// worker's profile and the first half's path lengths (ps nil: not profiled).
type joinProf struct {
	ps            *profState
	spanA, bspanA time.Duration
}

// joinPopSlow finishes a Join whose first pop (j, nil when the deque was
// empty) did not return its frame, or any Join of a profiled computation.
//
// Until fb is taken back or its thief has finished, w runs other jobs
// (popOwn, the wait in waitStolen); if one of them calls runtime.Goexit,
// this goroutine unwinds with fb still queued or running on a thief. The
// deferred settleB then finishes the Join's part first, so that Join's
// joinUnwind frees a frame nobody else holds and the computation is not
// reported failed before both halves have run.
func joinPopSlow[XB, RB any](w *Worker, f *frame[XB, RB], d int, j *job, jp joinProf) (rb RB) {
	settled := false
	defer func() {
		if !settled { // only Goexit leaves early: execute never lets a panic out
			settleB(w, f, true)
		}
	}()
	if popOwn(w, &f.job, j) {
		settled = true
		w.st.executed++
		rb = f.runInline(w, jp)
	} else {
		rb = f.waitStolen(w, jp, &settled)
	}
	w.setDepth(d)
	return rb
}

// popOwn runs the jobs that are above the frame own in w's deque (tasks
// its first half spawned into an enclosing scope; j is the first one
// popped, nil if the deque was empty) and reports whether it then popped
// own. False means own was stolen: thieves take the oldest items first, so
// everything older than own was stolen too, the deque is empty, and helping
// cannot pop a frame of an enclosing Join.
func popOwn(w *Worker, own, j *job) bool {
	for j != nil && j != own {
		w.execute(j)
		j, _ = w.dq.Pop()
	}
	return j != nil
}

// runInline runs the second half on the joining worker after it popped
// the frame back; a profiled Join continues from the longer half's path.
//
// It does not count the execution: a frame popped back counts it in
// joinPopSlow; a latent one is counted at publish (counters.run).
func (f *frame[XB, RB]) runInline(w *Worker, jp joinProf) RB {
	if jp.ps == nil {
		return f.call(w)
	}
	jp.ps.resume(f.pf.s0, f.pf.b0)
	rb := f.call(w)
	spanB, bspanB := jp.ps.cut()
	jp.ps.resume(max(jp.spanA, spanB), max(jp.bspanA, bspanB))
	f.pf.prof = nil
	return rb
}

// waitStolen helps until the thief of the frame has set its latch, then
// frees the frame for reuse and returns the thief's result, or re-panics
// with its panic (Join's deferred joinUnwind then frees the frame).
func (f *frame[XB, RB]) waitStolen(w *Worker, jp joinProf, settled *bool) RB {
	waitFrom := now()
	w.helpUntil(&f.done, &f.job)
	*settled = true
	f.done.reset()
	f.thief.Store(-1)
	if jp.ps != nil {
		jp.ps.joinStolen(f.pf, jp.spanA, jp.bspanA, waitFrom)
		f.pf.prof = nil
	}
	if pe := f.pe; pe != nil {
		f.pe = nil
		panic(pe)
	}
	return f.rb
}

// joinUnwind runs when a Join with a frame is left by a panic or by
// runtime.Goexit (the deferred call of joinFull). It does not recover: the
// panic goes on as it is, with its value and its stack, once the Join's
// frame is settled, so that whoever sees the panic next — a recover in
// the function that called Join, or the job's guard — sees it after fb
// has finished or when fb can no longer run:
//
//   - fa panicked, fb latent (d >= lo: the Joins nested in fa unwound
//     first, restoring depth and lo): nobody else knows of fb, and it is
//     dropped, never run — as in a plain call of fa then fb;
//   - fa panicked, fb promoted: settleB takes it back from the deque
//     (running the jobs above it, tasks fa spawned) and drops it, or, if a
//     thief took it, helps until the thief has finished it;
//   - phase joinTakingB: fb has finished or was never started (it
//     panicked or exited inline, the thief's panic is being re-raised by
//     waitStolen, or joinPopSlow's settleB settled it).
//
// Then the frame is free and depth and lo are restored.
func joinUnwind[XB, RB any](w *Worker, f *frame[XB, RB], d int, phase int) {
	defer f.release(w, d)
	if phase == joinRunningA && d < w.lo {
		settleB(w, f, false)
	}
}

// settleB makes sure the second half of the Join of frame f, promoted, has
// finished or will never run when that Join is left by a panic or by
// runtime.Goexit: it pops the jobs above the frame and runs them, then
// takes fb itself back — and runs it if run is set (a Join whose first
// half returned, left while it took fb back), else drops it — or, if fb
// was stolen, helps until the thief has set the latch. Jobs it runs may
// call Goexit themselves (the goroutine is already exiting, or starts to):
// then its deferred call carries on where it stopped, so it never returns
// before fb has finished or is known never to run.
func settleB[XB, RB any](w *Worker, f *frame[XB, RB], run bool) {
	taken := false // fb was popped back: it ran here, or was dropped
	settleFrom(w, f, run, &taken)
}

func settleFrom[XB, RB any](w *Worker, f *frame[XB, RB], run bool, taken *bool) {
	finished := false
	defer func() {
		if !finished { // a job run below called Goexit
			settleFrom(w, f, run, taken)
		}
	}()
	for !*taken {
		j, ok := w.dq.Pop()
		if !ok {
			// Stolen: everything left in the deque was newer and has run.
			w.helpUntil(&f.done, &f.job)
			break
		}
		if j == &f.job {
			*taken = true
			if run {
				func() {
					defer func() { _ = recover() }() // the Goexit being unwound wins
					w.st.executed++
					f.call(w)
				}()
			}
			break
		}
		w.execute(j)
	}
	finished = true
}

// release frees the frame for the next Join at depth d: the latch of a
// stolen fb, set once its thief finished, is reset (the owner may reuse the
// frame only after that), and what the frame holds is dropped.
func (f *frame[XB, RB]) release(w *Worker, d int) {
	if f.done.isSet() {
		f.done.reset()
	}
	f.thief.Store(-1)
	f.pe = nil // fa's panic wins; a re-raised thief's panic was taken already
	if f.pf != nil {
		f.pf.prof = nil
	}
	f.fb = nil
	var zx XB
	f.xb = zx
	var zr RB
	f.rb = zr
	w.setDepth(d)
	w.setLo(min(w.lo, d)) // frames below d stay as they were ([P2])
}
