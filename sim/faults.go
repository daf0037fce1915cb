package sim

import (
	"fmt"
	"math"
	"time"
)

// Fault phases, encoded in the low two bits of a fault event's arg.
const (
	faultBegin  = 0 // slowdown starts, or the worker is lost
	faultEnd    = 1 // slowdown ends
	faultDetect = 2 // the loss is noticed: the lost worker's tasks are re-queued
)

func errTooMany(n int64) error { return fmt.Errorf("sim: workload exceeds %d tasks", n) }

func (e *engine) fault(arg int) {
	f := &e.s.Faults[arg/4]
	w := &e.ws[f.Worker]
	switch arg % 4 {
	case faultBegin:
		if f.Kind == faultSlow {
			w.slows = append(w.slows, int32(arg/4))
			e.setSpeed(w)
			return
		}
		e.lose(w)
	case faultEnd:
		for i, x := range w.slows {
			if int(x) == arg/4 {
				w.slows = append(w.slows[:i], w.slows[i+1:]...)
				break
			}
		}
		e.setSpeed(w)
	case faultDetect:
		e.detect(w)
	}
}

// setSpeed recomputes w's speed from its base and active slowdowns. A
// running segment keeps the work it has done and finishes the rest at the
// new speed.
func (e *engine) setSpeed(w *worker) {
	s := w.base
	for _, i := range w.slows {
		s *= e.s.Faults[i].Factor
	}
	if s == w.speed {
		return
	}
	if e.log != nil {
		e.logf("worker %d: speed %g", w.id, s)
	}
	if w.state == stRun {
		w.segRem -= float64(e.now-w.segStart) * w.speed
		if w.segRem < 0 {
			w.segRem = 0
		}
		w.segStart = e.now
		w.speed = s
		e.at(w, e.now+e.segDur(w))
		return
	}
	w.speed = s
}

// lose stops w at once. The piece it was running is abandoned (its work so
// far is wasted and it will run again); its queue stays out of reach until
// the loss is detected.
func (e *engine) lose(w *worker) {
	if w.lost {
		return
	}
	if w.idleIdx >= 0 {
		e.removeIdle(w, false)
	}
	if w.searching {
		w.searching = false
		e.searching--
	}
	e.visibleQ -= int64(w.dq.len()) // out of reach until the loss is detected
	wasRunning := w.state == stRun
	e.setState(w, stLost)
	w.lost = true
	w.gen++ // cancel its timer
	w.st.Lost = true
	if e.log != nil {
		e.logf("worker %d: lost", w.id)
	}
	if w.cur >= 0 {
		t := &e.tasks[w.cur]
		if wasRunning {
			done := float64(e.now-w.segStart) * w.speed
			seg := 0
			if t.phase > 0 {
				seg = 1
			}
			done += float64(t.work[seg]) - w.segRem
			if t.phase == 1 { // the part before the spawn point is redone too
				done += float64(t.work[0])
				t.phase = 0
			}
			e.lostWork += time.Duration(math.Min(done, float64(t.work[0]+t.work[1])))
			t.aborts++
			e.reexec++
			e.record(w, w.cur, spanAborted)
		} else if t.phase == 1 { // lost while pushing its children
			e.lostWork += t.work[0]
			t.phase = 0
			t.aborts++
			e.reexec++
		}
	}
	if e.holder == w.id {
		e.release()
	}
}

// detect re-queues everything the lost worker held: the piece it was
// running and its queue. Nothing is lost; the re-run work is counted.
func (e *engine) detect(w *worker) {
	if w.detected {
		return
	}
	w.detected = true
	for i, x := range e.liveList {
		if x == w.id {
			e.liveList = append(e.liveList[:i], e.liveList[i+1:]...)
			break
		}
	}
	var ids []int32
	if w.cur >= 0 {
		ids = append(ids, w.cur)
		w.cur = -1
	}
	for w.dq.len() > 0 {
		e.qAdd(w, -1)
		ids = append(ids, w.dq.popFront())
	}
	for _, id := range w.latent { // its latent frames, which nobody else could take
		if id < 0 {
			id = ^id
		}
		ids = append(ids, id)
	}
	w.latent = w.latent[:0]
	// The forks it was inside (policy.join_wait stack): one that is done
	// resumes elsewhere; one that is not resumes on whoever finishes its
	// last child (resumeHere: the owner is lost).
	for _, pid := range w.stack {
		if j := &e.joins[e.tasks[pid].join]; j.pending == 0 {
			j.joinAt = e.now - j.joinAt
			ids = append(ids, pid)
		}
	}
	w.stack = w.stack[:0]
	w.nOffer = 0
	w.holds = w.holds[:0]
	w.load = 0
	e.requeued += int64(len(ids))
	if e.log != nil {
		e.logf("worker %d: loss detected; re-queues %s", w.id, taskList(ids))
	}
	if len(ids) == 0 {
		return
	}
	if e.sched == schedSteal { // spread over the survivors
		for _, id := range ids {
			e.pushTo(e.nextRR(), id)
		}
		return
	}
	e.placeBatch(ids, targetRoundRobin, 0)
}
