package sim

import (
	"time"

	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/policy"
)

// The idle protocol of the work-stealing scheduler, step for step the
// runtime's (PROTOCOL.md "Finding work", "Posting work", "Parking"; the
// runtime's idle.go and park.go), in virtual time:
//
//   - A worker that runs out of work becomes a searcher (searching+1) and
//     makes rounds: its own deque (the runtime's own inbox), then one steal
//     attempt per victim in the policy's order.
//   - After each failed round it asks its policyrt.IdleState — the very type
//     the runtime's idleWait uses, with the same policy.Idle and a
//     generator seeded per worker — what to do: spin for the drawn delay
//     (awake, still searching), sleep for it (a timed park), or park.
//   - Sleeping and parking announce first (IncSleepers: into the idle list,
//     sleepers+1, searching−1), then re-check for visible work (ReadWork);
//     if there is some, the worker takes itself out again (searching+1) and
//     searches on. A sleep whose timer fires does the same.
//   - A searcher that finds work stops searching; if it was the last
//     searcher and workers sleep, it wakes one (chain wake-up).
//   - Whoever publishes work — a spawning task, an arrival, a re-queue after
//     a loss — then wakes one sleeper if some sleep and none searches
//     (notify, ReadState); an arrival for a sleeping worker wakes that one
//     (the runtime's SubmitTo). The waker does the accounting
//     (sleepers−1, searching+1), as in the runtime.
//   - Waking takes the last worker of the idle list, which is kept exactly
//     as the runtime keeps it (append; removal swaps the last one in).
//
// The simulator adds only what virtual time needs: attempts and wake-ups
// cost the scenario's costs, and a round that took no time is followed by
// at least a nanosecond before the next, so that time always advances.
//
// Other idle modes are not the runtime's: poll (a round every interval,
// never sleeping: the seed tutorial's 0.1 s retry) and spin (rounds back to
// back). They never sleep, so nobody waits for a wake-up.

// idleSchedule returns the schedule a worker's policyrt.IdleState follows:
// the scenario's backoff, or one round then park for mode park.
func idleSchedule(id *Idle) policy.Idle {
	p := id.policyIdle()
	if id.Mode == idlePark {
		p.Rounds = 1
	}
	return p
}

// beginSearch counts w as searching (the runtime's startSearching), unless
// it already is (a woken worker is counted by its waker).
func (e *engine) beginSearch(w *worker) {
	if !w.searching {
		first := !e.idleWorkers() // then this is a request (latent.go)
		w.searching = true
		e.searching++
		if first {
			e.request()
		}
	}
}

// endSearch stops w searching because it found work (chain: wake a sleeper
// if it was the last searcher) or was lost.
func (e *engine) endSearch(w *worker, chain bool) {
	w.idleSt.Reset()
	if !w.searching {
		return
	}
	w.searching = false
	e.searching--
	if chain && e.searching == 0 && len(e.idleList) > 0 {
		if e.log != nil {
			e.logf("worker %d: last searcher found work: chain wake-up", w.id)
		}
		e.wakeOne()
	}
}

// announce is IncSleepers: w joins the idle list and moves from searching
// to sleeping.
func (e *engine) announce(w *worker) {
	first := !e.idleWorkers() // then this is a request (latent.go)
	w.idleIdx = int32(len(e.idleList))
	e.idleList = append(e.idleList, w.id)
	if w.searching {
		w.searching = false
		e.searching--
	}
	if first {
		e.request()
	}
}

// removeIdle takes w out of the idle list (swapping the last one into its
// place, as the runtime's removeLocked does) and counts it as searching.
func (e *engine) removeIdle(w *worker, search bool) {
	i := w.idleIdx
	last := int32(len(e.idleList) - 1)
	moved := e.idleList[last]
	e.idleList[i] = moved
	e.ws[moved].idleIdx = i
	e.idleList = e.idleList[:last]
	w.idleIdx = -1
	if search {
		w.searching = true
		e.searching++
	}
}

// workVisible is ReadWork: is there work in any queue a thief can reach?
func (e *engine) workVisible() bool { return e.visibleQ > 0 }

// notify is ReadState after publishing work: wake one sleeper if some sleep
// and nobody searches.
func (e *engine) notify() {
	if len(e.idleList) > 0 && e.searching == 0 {
		e.wakeOne()
	}
}

// wakeOne wakes the last worker of the idle list, if any.
func (e *engine) wakeOne() {
	if n := len(e.idleList); n > 0 {
		e.wakeWorker(&e.ws[e.idleList[n-1]])
	}
}

// wakeWorker wakes w if it is in the idle list (and reports whether it
// was): the waker moves it to searching; after the wake-up cost it searches
// again.
func (e *engine) wakeWorker(w *worker) bool {
	if w.idleIdx < 0 {
		return false
	}
	e.removeIdle(w, e.sched == schedSteal)
	if e.log != nil {
		e.logf("worker %d: wakes", w.id)
	}
	if e.wakeCost > 0 {
		e.setState(w, stWaking)
		e.at(w, e.now+e.wakeCost)
		return true
	}
	e.setState(w, stFree)
	e.resume(w)
	return true
}

// resume continues a worker that was woken or whose sleep ended.
func (e *engine) resume(w *worker) {
	w.searchStart = e.now
	if e.sched == schedSteal {
		e.round(w)
		return
	}
	e.findWork(w)
}

// startSearch begins the idle stretch of a thief whose own deque is empty.
func (e *engine) startSearch(w *worker) {
	e.beginSearch(w)
	w.searchStart = e.now
	e.round(w)
}

// round makes one round: the own deque (new arrivals land there), then one
// attempt per victim. A worker alone has no victims: its round is the look
// at its own deque.
func (e *engine) round(w *worker) {
	e.setState(w, stFree)
	if e.resumeSearcher(w) {
		return
	}
	if w.dq.len() > 0 {
		e.qAdd(w, -1)
		id := w.dq.popBack()
		e.endSearch(w, true) // may wake a sleeper, who may steal from us
		e.dispatch(w, id)
		return
	}
	w.attempt = 0
	w.roundStart = e.now
	if len(e.ws) == 1 {
		if e.mode == idleSpin { // nobody to steal from: spinning would only burn events
			e.block(w, policyrt.IdleStep{Kind: policyrt.IdlePark})
			return
		}
		e.roundFailed(w)
		return
	}
	w.sel.Begin()
	if e.freeRounds && !e.workVisible() && e.log == nil {
		// Nothing anywhere and attempts cost nothing: every attempt of the
		// round fails at this instant. Count them without making them (the
		// selector's order draws nothing per attempt for these victim
		// policies, so the run is the same as when they are made).
		w.st.Attempts += int64(e.perRound)
		w.st.Failed += int64(e.perRound)
		e.roundFailed(w)
		return
	}
	e.nextAttempt(w, 0)
}

// nextAttempt issues w's next steal attempt after delay (the cost of the
// previous failure), or ends the round. An attempt with no latency is
// resolved at once.
func (e *engine) nextAttempt(w *worker, delay time.Duration) {
	for {
		if w.attempt >= e.perRound {
			if delay > 0 { // the last failure's cost, then the round is over
				e.setState(w, stRoundEnd)
				e.at(w, e.now+delay)
				return
			}
			e.roundFailed(w)
			return
		}
		v := int32(w.sel.Next(e.qlen))
		w.attempt++
		w.st.Attempts++
		w.victim = v
		cost := e.stealCost + delay
		if e.crossCost > 0 && e.ws[v].group != w.group {
			cost += e.crossCost
		}
		e.setState(w, stSearch)
		if cost > 0 {
			e.at(w, e.now+cost)
			return
		}
		if e.tryTake(w) {
			return
		}
		delay = e.failed
	}
}

// attemptDone completes a steal attempt whose latency has passed.
func (e *engine) attemptDone(w *worker) {
	if e.tryTake(w) {
		return
	}
	e.nextAttempt(w, e.failed)
}

// roundFailed does what the idle schedule says after a round that found
// nothing: spin (back off awake), sleep (a timed park) or park.
func (e *engine) roundFailed(w *worker) {
	if e.resumeSearcher(w) {
		return
	}
	var step policyrt.IdleStep
	switch e.mode {
	case idlePoll:
		step = policyrt.IdleStep{Kind: policyrt.IdleSpin, Delay: e.interval}
	case idleSpin:
		step = policyrt.IdleStep{Kind: policyrt.IdleSpin}
	default:
		step = w.idleSt.Next(e.idle, w.sel.Rand())
	}
	if !step.Kind.Blocks() {
		d := step.Delay
		if d <= 0 && e.now == w.roundStart {
			d = 1 // a round that took no time must not repeat at the same instant
		}
		if d > 0 {
			if e.log != nil && e.mode != idleSpin {
				e.logf("worker %d: backs off %s", w.id, fmtTime(d))
			}
			e.setState(w, stBackoff)
			e.at(w, e.now+d)
			return
		}
		e.round(w)
		return
	}
	e.block(w, step)
}

// block puts w to sleep (step IdleSleep, for step.Delay) or parks it
// (IdlePark): announce, re-check, then block unless work is visible.
func (e *engine) block(w *worker, step policyrt.IdleStep) {
	e.announce(w)
	if e.workVisible() { // ReadWork saw work: take ourselves out again
		e.removeIdle(w, true)
		if e.log != nil {
			e.logf("worker %d: sees work before sleeping: searches on", w.id)
		}
		e.round(w)
		return
	}
	if step.Kind == policyrt.IdleSleep {
		e.setState(w, stSleep)
		w.st.Sleeps++
		if e.log != nil {
			e.logf("worker %d: sleeps %s", w.id, fmtTime(step.Delay))
		}
		e.at(w, e.now+step.Delay)
		return
	}
	e.setState(w, stParked)
	w.gen++ // no timer while parked
	w.st.Parks++
	// The runtime's reset before a park: whoever asked w for work was fed
	// or is idle too, so w's next piece starts with latent_frames.
	w.wide, w.hungry, w.quiet = false, false, 0
	if e.log != nil {
		e.logf("worker %d: parks", w.id)
	}
}

// sleepDone is the end of a timed park: w takes itself out of the idle
// list and searches again.
func (e *engine) sleepDone(w *worker) {
	if e.log != nil {
		e.logf("worker %d: sleep ends", w.id)
	}
	e.removeIdle(w, true)
	e.round(w)
}

// parkPlain parks a worker of a placement or central scheduler until work
// is pushed to it (no searching: those schedulers do not steal).
func (e *engine) parkPlain(w *worker) {
	e.announce(w)
	e.setState(w, stParked)
	w.gen++
	w.st.Parks++
	if e.log != nil {
		e.logf("worker %d: parks", w.id)
	}
}
