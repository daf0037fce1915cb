package sim

import (
	"math"
	"slices"
	"time"
)

// The runtime's join protocol, latent frames (PROTOCOL.md "Join"; the
// runtime's join.go and worker.go), in virtual time. Policy.Join latent,
// under work stealing:
//
//   - A fork keeps its other halves private: the children but the last
//     become latent frames of the forking worker (w.latent, oldest first),
//     and the worker runs the last child inline. Nobody else can see a
//     latent frame: it is not in a deque, so thieves cannot take it and
//     ReadWork (workVisible) does not count it.
//   - The request of an idle worker is its announcement in the sleep
//     state: counted as searching, or in the idle list. Nothing is sent to
//     any owner in particular.
//   - The response comes at the owner's next poll point — every fork,
//     every spawn (before the children are pushed), and every
//     Workload.Poll of work inside a running piece (the runtime's
//     Worker.Poll, or the Joins that a coarse simulated leaf stands for;
//     none by default): if some worker is idle
//     and the owner's deque is empty, the owner promotes all its latent
//     frames, oldest first, onto its deque (Costs.Promote each, paid
//     by the owner), then wakes a sleeper if nobody searches (notify, as
//     any posted work). If its deque holds work, the idle worker can take
//     that, and the frames wait for a poll that finds the deque empty.
//   - The heartbeat: every Policy.Heartbeat poll points
//     (policyrt.HeartbeatJoins in the runtime) a worker promotes its
//     oldest latent frame alone, idle workers or not (never the frames of the fork just made), so the
//     largest pieces wait in its deque for a thief that runs dry.
//   - Plain calls (Policy.LatentFrames, the runtime's policyrt.LatentFrames):
//     a fork made while that many offerable latent frames are open (a
//     frame the heartbeat took counts until its first half is done, as
//     the runtime's beat leaves gate, [P4]), not
//     eager, with no worker idle and no heartbeat due, keeps its halves
//     latent for good (w.latent holds them as ^id): no poll point or
//     heartbeat offers them, and its worker runs them inline, as the
//     runtime's plain-call Joins run fb.
//   - Thieves then steal from the deque as under join eager: the victim
//     policy's order (policyrt.Selector), one or half (policy.Amount), at
//     the steal costs.
//   - When a worker is done with what it ran inline, its newest latent
//     frame — the other half of the fork it is in — runs inline too, at
//     no cost beyond Costs.Fork (no deque, no atomics in the runtime).
//     A promoted frame is popped back from the deque if no thief took it.
//
// A worker's latent frames are always the other halves of forks whose
// inline half it is running (they nest, as calls do). Under the greedy
// join (policy.join_wait any) a worker that runs out of work holds none:
// when a fork's offered half is still running elsewhere, the worker runs
// the older halves of the forks it is inside, plain calls' included.
// Under the runtime's join (join_wait stack, below) it cannot: it waits
// at that fork, and the halves below it on its stack — the plain calls'
// above all, which nobody else can take — wait with it. That is what
// makes the runtime's thieves take small pieces: a waiting owner is a
// thief too, and what it could run is hidden on its own stack
// (sim/README.md, "UTS"). One worker alone never promotes (nobody is
// idle while it runs).

// forkLatent continues a fork under join latent: latent frames for the
// children but the last, a poll, then the last child inline.
func (e *engine) forkLatent(w *worker, kids []int32) {
	n := len(kids)
	eager := e.eagerDepth > 0 && e.tasks[kids[0]].depth-1-w.root < e.eagerDepth
	beat := e.beatEvery > 0 && (w.polls+1)%e.beatEvery == 0
	if e.latentCap > 0 && w.nOffer+len(w.holds) >= e.window(w) && !eager && !beat && !e.idleWorkers() {
		// A plain call (the runtime's fast path): its halves are never
		// offered, and the poll below has nothing to do.
		for _, id := range kids[:n-1] {
			w.latent = append(w.latent, ^id)
		}
		w.polls++
		e.dispatch(w, kids[n-1])
		return
	}
	w.latent = append(w.latent, kids[:n-1]...)
	w.nOffer += n - 1
	e.frameForks++
	if eager {
		// Near the root of w's stack: the halves go public at once, with
		// every older latent frame ([P2]: oldest first), as the runtime's
		// eager Joins do (policyrt.EagerDepth). If a worker is idle, the
		// window widens, as a poll point's promotion widens it
		// (policy.eager_widens, the runtime's policyrt.EagerWidens).
		if e.eagerWidens && e.idleWorkers() {
			w.wide, w.hungry = true, true
		}
		e.promote(w)
	}
	e.poll(w)
	if w.polls++; e.beatEvery > 0 && w.polls%e.beatEvery == 0 {
		e.narrow(w)
		if w.nOffer > n-1 {
			e.heartbeat(w) // never the frames just forked
		}
	}
	e.dispatch(w, kids[n-1])
}

// heartbeat promotes w's oldest latent frame alone, whether or not a
// worker is idle (the runtime's heartbeat, every Policy.Heartbeat poll
// points): the largest pieces of a long computation wait in the deque,
// where a thief takes them without the owner's answer.
func (e *engine) heartbeat(w *worker) {
	if len(w.holds) > 0 && w.dq.len() == 0 {
		// The runtime's beatHeld: what an earlier beat promoted was taken,
		// so its place is free again.
		w.holds = w.holds[:0]
	}
	if w.nOffer < 2 { // keep the youngest: its join usually ends first
		return
	}
	i := 0
	for w.latent[i] < 0 { // the oldest offerable frame; plain calls stay
		i++
	}
	id := w.latent[i]
	copy(w.latent[i:], w.latent[i+1:])
	w.latent = w.latent[:len(w.latent)-1]
	w.nOffer--
	// The runtime's beat leaves gate where it was ([P4] in PROTOCOL.md):
	// the frame still counts toward Policy.LatentFrames until its first
	// half is done — until w, out of work, finds latent no longer than i
	// (findWork) — so the forks of that first half stay plain calls.
	w.holds = append(w.holds, i)
	e.qAdd(w, 1)
	w.dq.pushBack(id)
	if e.log != nil {
		e.logf("worker %d: heartbeat promotes T%d", w.id, id)
	}
	w.st.Promoted++
	e.promoted++
	w.extra += e.promoteCost
	e.notify()
}

// scheduleBeat queues a heartbeat at the k-th poll point of w's running
// segment (k from 1), if the segment reaches it.
func (e *engine) scheduleBeat(w *worker, k int64) {
	gap := float64(e.pollGap)
	if float64(k)*gap >= w.segWork || k > math.MaxInt32 {
		return
	}
	left := w.segRem - float64(e.now-w.segStart)*w.speed
	done := w.segWork - left
	at := e.now + time.Duration(math.Ceil((float64(k)*gap-done)/w.speed))
	e.push(event{at: at, kind: evPoll, w: w.id, gen: w.pollTok, arg: int32(k)})
}

// idleWorkers reports whether some worker searches or sleeps: the
// runtime's ReadIdle, the sleep state's word being nonzero.
func (e *engine) idleWorkers() bool { return e.searching > 0 || len(e.idleList) > 0 }

// poll is a poll point of w: offer its latent frames if a worker is idle
// and w's deque is empty. Such a promotion finds the thieves hungry (they
// took all w published and ask again): w's window widens to
// policy.hungry_frames until policy.quiet_beats heartbeats pass without
// another (narrow) or w parks (block), as the runtime's offer does.
func (e *engine) poll(w *worker) {
	if w.nOffer == 0 || w.dq.len() > 0 || !e.idleWorkers() {
		return
	}
	if e.hungryCap > 0 {
		w.wide, w.hungry = true, true
	}
	e.promote(w)
}

// window is how many offerable latent frames w keeps open before its forks
// become plain calls: policy.latent_frames, or policy.hungry_frames while
// its thieves are hungry.
func (e *engine) window(w *worker) int {
	if w.wide {
		return max(e.latentCap, e.hungryCap)
	}
	return e.latentCap
}

// narrow is the runtime's narrow, at each heartbeat of w: once
// policy.quiet_beats heartbeats in a row pass with no poll point that
// promoted, the window goes back to latent_frames.
func (e *engine) narrow(w *worker) {
	if w.hungry {
		w.hungry, w.quiet = false, 0
		return
	}
	if w.wide {
		if w.quiet++; e.quietBeats > 0 && w.quiet >= e.quietBeats {
			w.wide, w.quiet = false, 0
		}
	}
}

// promote pushes all of w's latent frames on its deque, oldest first,
// charges w the promotion, and posts the work (wake a sleeper if nobody
// searches).
func (e *engine) promote(w *worker) {
	n := w.nOffer
	keep := w.latent[:0] // plain calls' halves stay, in their order
	var pushed []int32
	for _, id := range w.latent {
		if id < 0 {
			keep = append(keep, id)
			continue
		}
		e.qAdd(w, 1)
		w.dq.pushBack(id)
		if e.log != nil {
			pushed = append(pushed, id)
		}
	}
	if e.log != nil {
		e.logf("worker %d: promotes %s", w.id, taskList(pushed))
	}
	w.latent = keep
	w.nOffer = 0
	w.holds = w.holds[:0] // the runtime's setLo: gate is lo + LatentFrames again
	w.st.Promoted += int64(n)
	e.promoted += int64(n)
	w.extra += time.Duration(n) * e.promoteCost
	e.notify()
}

// request is called when some worker becomes idle while none was: every
// owner that runs a piece holding latent frames, with an empty deque,
// will answer at its next poll point inside the piece. (An owner whose
// deque holds work answers once a thief empties it: tryTake calls
// answerAt. One that starts a piece later checks at its start.)
func (e *engine) request() {
	if !e.latentJoin || e.pollGap <= 0 {
		return
	}
	for i := range e.ws {
		if w := &e.ws[i]; w.state == stRun && w.nOffer > 0 && w.dq.len() == 0 {
			e.schedulePoll(w)
		}
	}
}

// answerAt schedules owner v's answer after a thief emptied its deque
// while workers are idle.
func (e *engine) answerAt(v *worker) {
	if e.latentJoin && e.pollGap > 0 && v.state == stRun && len(v.latent) > 0 && v.dq.len() == 0 && e.idleWorkers() {
		e.schedulePoll(v)
	}
}

// schedulePoll queues w's next poll point inside its running segment,
// every pollGap of work from the segment's start, unless one is queued
// already or the segment ends first (what follows a segment, a fork or
// the inline run of a latent frame, polls at its own fork).
func (e *engine) schedulePoll(w *worker) {
	if w.pollSet {
		return
	}
	left := w.segRem - float64(e.now-w.segStart)*w.speed // work left in the segment
	done := w.segWork - left
	gap := float64(e.pollGap)
	next := (math.Floor(done/gap) + 1) * gap
	if next >= w.segWork {
		return
	}
	w.pollSet = true
	at := e.now + time.Duration(math.Ceil((next-done)/w.speed))
	e.push(event{at: at, kind: evPoll, w: w.id, gen: w.pollTok})
}

// The join under policy.join_wait stack (the runtime's Join and its
// helpUntil, rayon's join): a fork is a call on its worker's stack.
//
//   - A worker that forks pushes the fork on w.stack; it pops it when it
//     resumes what follows the fork, and only it does (the forks of a
//     stolen piece go on the thief's stack, above whatever the thief was
//     inside of).
//   - Until then the worker runs the fork's own children first: its latent
//     frames (the newest latent entry, if that is a child of the top fork:
//     inTop), then its deque. The latent entries of forks further down,
//     plain calls' halves above all, wait until the stack is back there.
//   - With none of that left and a child still running elsewhere, the
//     worker waits at the fork: it offers its latent frames (helpUntil
//     promotes first), searches like any thief, and runs what it steals
//     on top of its stack. Whoever finishes the fork's last child tells the
//     owner (joinDone): a searching owner resumes at its next round, a
//     sleeping one is woken, one running a stolen piece resumes when that
//     piece has returned.
//
// A worker that finished the last child of a fork further down its stack
// (a child it took back while waiting higher up) leaves that fork done
// where it is: it resumes once the forks above it have.

// inTop reports whether latent entry id (a frame, or ^id a plain call's
// half) belongs to w's innermost fork: under join_wait stack only those
// run before that fork's wait; under any, every entry may.
func (e *engine) inTop(w *worker, id int32) bool {
	if !e.stackJoin {
		return true
	}
	if id < 0 {
		id = ^id
	}
	n := len(w.stack)
	return n > 0 && e.tasks[id].parent == w.stack[n-1]
}

// topDone reports whether w's innermost fork has no child left running.
func (e *engine) topDone(w *worker) bool {
	n := len(w.stack)
	return n > 0 && e.joins[e.tasks[w.stack[n-1]].join].pending == 0
}

// resumeTop resumes what follows w's innermost fork if that fork is done
// (join_wait stack). Otherwise, if w is inside a fork and about to look
// elsewhere for work, it begins to wait there: it offers its latent
// frames first, as the runtime's helpUntil does.
func (e *engine) resumeTop(w *worker) bool {
	if !e.stackJoin || len(w.stack) == 0 {
		return false
	}
	if !e.topDone(w) {
		if w.nOffer > 0 && w.dq.len() == 0 {
			e.promote(w)
		}
		return false
	}
	n := len(w.stack)
	pid := w.stack[n-1]
	w.stack = w.stack[:n-1]
	p := &e.joins[e.tasks[pid].join]
	p.joinAt = e.now - p.joinAt
	e.dispatch(w, pid)
	return true
}

// resumeSearcher ends w's search if the fork it waits at is done (its
// rounds check, as helpUntil checks its latch between rounds): w resumes
// there through findWork.
func (e *engine) resumeSearcher(w *worker) bool {
	if !e.stackJoin || !e.topDone(w) {
		return false
	}
	e.endSearch(w, true)
	e.findWork(w)
	return true
}

// resumeHere is called when w finished the last child of fork pid: it
// reports whether w resumes pid now, as the greedy join always does. Under
// join_wait stack only pid's owner does, and only when pid is its
// innermost fork; when another worker owns pid, that owner is told.
func (e *engine) resumeHere(w *worker, pid int32) bool {
	o := &e.ws[e.joins[e.tasks[pid].join].owner]
	if o != w {
		if o.lost {
			// The model re-runs a lost worker's work anywhere (faults.go):
			// the fork leaves its stack and resumes here.
			if i := slices.Index(o.stack, pid); i >= 0 {
				o.stack = slices.Delete(o.stack, i, i+1)
			}
			return true
		}
		e.joinDone(o)
		return false
	}
	if n := len(w.stack); n > 0 && w.stack[n-1] == pid {
		w.stack = w.stack[:n-1]
		return true
	}
	return false
}

// joinDone tells o, the owner of a fork whose last child another worker
// just finished, that the fork is done: a searching owner sees it at its
// next round, a sleeping one is woken for it (the latch's wake-up), and
// one that runs a piece sees it when the piece has returned (findWork).
func (e *engine) joinDone(o *worker) {
	switch o.state {
	case stBackoff:
		e.at(o, e.now)
	case stParked, stSleep:
		e.wakeWorker(o)
	}
}
