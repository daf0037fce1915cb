package sim

import (
	"time"

	"github.com/worksteal/worksteal/internal/policyrt"
)

// This file is the schedulers: how an idle worker finds work and where new
// tasks are put. Work stealing uses the runtime's own policy package (victim
// selection, steal amount, idle schedule), so a simulated policy is the real
// one; the baselines are central (one locked FIFO), static, round-robin and
// lpt (placement only, no balancing afterwards).

// tryTake takes from the top of w's chosen victim (the oldest tasks): one,
// or half under StealHalf — except that a fork-join child (a Join's second
// half in the runtime) is taken alone, as the runtime's thieves take a
// Join frame (job.fork): the oldest half of a fork-join stack is about as
// much work as everything younger. On success w runs the first and keeps
// the rest.
func (e *engine) tryTake(w *worker) bool {
	v := &e.ws[w.victim]
	n := v.dq.len()
	if v.lost || n == 0 {
		w.st.Failed++
		if e.log != nil {
			e.logf("worker %d: failed to steal from worker %d", w.id, v.id)
		}
		return false
	}
	k := policyrt.Take(e.amount, n, e.maxBatch)
	if k > 1 && !e.s.Policy.BatchForks && e.tasks[v.dq.front()].parent >= 0 {
		k = 1
	}
	e.qAdd(v, -1)
	first := v.dq.popFront()
	for i := 1; i < k; i++ {
		e.qAdd(v, -1)
		t := v.dq.popFront()
		e.qAdd(w, 1)
		w.dq.pushBack(t)
	}
	w.st.Stolen += int64(k)
	v.st.StolenFrom += int64(k)
	w.root = e.tasks[first].depth // the runtime runs a stolen half at the root of the thief's stack
	if v.dq.len() == 0 {
		e.answerAt(v) // the owner's next poll point offers its latent frames
	}
	e.steals++
	e.latencies = append(e.latencies, e.now-w.searchStart)
	if e.rec != nil {
		e.rec.Steals = append(e.rec.Steals, stealRec{At: e.now, Thief: int(w.id), Victim: int(v.id), Task: int(first), Count: k})
	}
	if e.log != nil {
		if k > 1 {
			e.logf("worker %d: stole T%d and %d more from worker %d", w.id, first, k-1, v.id)
		} else {
			e.logf("worker %d: stole T%d from worker %d", w.id, first, v.id)
		}
	}
	e.endSearch(w, true)
	if k > 1 && e.s.Policy.WakeBatch && len(e.idleList) > 0 {
		e.wakeOne() // the rest of the batch is public in w's deque
	}
	if e.moveCost > 0 {
		w.cur = first
		e.setState(w, stMove)
		e.at(w, e.now+e.moveCost)
		return true
	}
	e.setState(w, stFree)
	e.dispatch(w, first)
	return true
}

// requestLock queues w for the central queue's lock.
func (e *engine) requestLock(w *worker, op uint8) {
	w.op = op
	e.setState(w, stAccess)
	if e.holder < 0 {
		e.grant(w)
		return
	}
	e.waiters.pushBack(w.id)
}

// grant gives w the lock. One access holds it for the queue cost plus the
// contention cost per other worker waiting: the more workers contend, the
// slower every access, as cache-line transfers slow a real shared queue.
func (e *engine) grant(w *worker) {
	e.holder = w.id
	hold := e.queueCost + e.contention*time.Duration(e.waiters.len())
	if hold == 0 {
		e.accessDone(w)
		return
	}
	e.at(w, e.now+hold)
}

// accessDone performs w's queue operation at the end of its hold, then
// passes the lock on.
func (e *engine) accessDone(w *worker) {
	switch w.op {
	case opPop:
		if e.central.len() > 0 {
			e.qTick()
			id := e.central.popFront()
			e.setState(w, stFree)
			e.dispatch(w, id)
		} else {
			e.parkPlain(w) // before the release, so a push behind us wakes us
		}
		e.release()
	case opPush:
		for w.dq.len() > 0 {
			e.qAdd(w, -1)
			e.pushCentral(w.dq.popFront())
		}
		e.release()
		e.afterSpawn(w)
	}
}

func (e *engine) release() {
	e.holder = -1
	for e.waiters.len() > 0 {
		x := &e.ws[e.waiters.popFront()]
		if x.state == stAccess && !x.lost {
			e.grant(x)
			return
		}
	}
}

func (e *engine) pushCentral(id int32) {
	e.qTick()
	e.central.pushBack(id)
	e.wakeOne()
}

// pushTo puts a task on worker x's deque (the owner's end) and wakes
// whoever must see it: x itself if it sleeps (an arrival for it, as the
// runtime's SubmitTo), else, under work stealing, one sleeper when nobody
// searches (notify; see idle.go).
func (e *engine) pushTo(x *worker, id int32) {
	e.qAdd(x, 1)
	x.dq.pushBack(id)
	if !e.wakeWorker(x) && e.sched == schedSteal {
		e.notify()
	}
}

// placeSpawned puts the children that w's task just created.
func (e *engine) placeSpawned(w *worker, kids []int32) {
	switch e.sched {
	case schedSteal:
		if e.latentJoin { // a spawn is a poll point: older latent frames go first
			e.poll(w)
		}
		for _, k := range kids {
			e.pushTo(w, k)
		}
	case schedCentral:
		for _, k := range kids { // staged in w's queue until the push completes
			e.qAdd(w, 1)
			w.dq.pushBack(k)
		}
		e.requestLock(w, opPush)
		return
	case schedStatic:
		for _, k := range kids {
			e.assign(w, k)
		}
	case schedRoundRobin, schedLPT:
		e.deal(kids)
	}
	e.afterSpawn(w)
}

// deal assigns ids under the round-robin or LPT scheduler: in turn, or
// longest first to the least-loaded worker.
func (e *engine) deal(ids []int32) {
	if e.sched == schedLPT {
		e.sortLPT(ids)
	}
	for _, id := range ids {
		if e.sched == schedLPT {
			e.assign(e.leastLoaded(id), id)
		} else {
			e.assign(e.nextRR(), id)
		}
	}
}

// assign gives task id to worker x under a placement scheduler.
func (e *engine) assign(x *worker, id int32) {
	t := &e.tasks[id]
	x.load += t.work[0] + t.work[1]
	e.pushTo(x, id)
}

func (e *engine) nextRR() *worker {
	l := e.liveList
	if len(l) == 0 {
		return &e.ws[0]
	}
	x := &e.ws[l[e.rr%len(l)]]
	e.rr++
	return x
}

// leastLoaded returns the live worker that would finish task id first given
// the work already assigned to it (LPT's rule with known costs).
func (e *engine) leastLoaded(id int32) *worker {
	t := &e.tasks[id]
	wk := float64(t.work[0] + t.work[1])
	var best *worker
	bestT := 0.0
	for _, i := range e.liveList {
		x := &e.ws[i]
		f := (float64(x.load) + wk) / x.base
		if best == nil || f < bestT {
			best, bestT = x, f
		}
	}
	if best == nil {
		return &e.ws[0]
	}
	return best
}

// live returns worker i, or the next worker after it whose loss is not
// known, so that nothing is placed on a worker known to be gone.
func (e *engine) live(i int) *worker {
	n := len(e.ws)
	for k := 0; k < n; k++ {
		if x := &e.ws[(i+k)%n]; !x.detected {
			return x
		}
	}
	return &e.ws[i]
}

// placeBatch places root tasks that arrive together (or re-queued tasks).
func (e *engine) placeBatch(ids []int32, target string, wk int) {
	switch e.sched {
	case schedCentral:
		for _, id := range ids {
			e.pushCentral(id)
		}
	case schedStatic:
		l := e.liveList
		if len(l) == 0 {
			l = []int32{0}
		}
		for j, id := range ids {
			e.assign(&e.ws[l[j*len(l)/len(ids)]], id)
		}
	case schedRoundRobin, schedLPT:
		e.deal(ids)
	default:
		for _, id := range ids {
			var x *worker
			switch target {
			case targetRandom:
				x = e.live(e.placeRng.Intn(len(e.ws)))
			case targetRoundRobin:
				x = e.nextRR()
			default:
				x = e.live(wk)
			}
			e.pushTo(x, id)
		}
	}
}

// arrive creates the root tasks of arrival batch i (-1: the next Poisson
// arrival) and places them.
func (e *engine) arrive(i int) {
	e.pendArr--
	n, target, worker := 1, e.s.Workload.Arrival.Target, e.s.Workload.Arrival.Worker
	e.rootDst = nil
	if i >= 0 {
		b := &e.batches[i]
		n, target, worker, e.rootDst = b.n, b.target, b.worker, b.dist
	} else if e.poisson--; e.poisson > 0 {
		e.push(event{at: e.nextPoisson(e.now), kind: evArrive, arg: -1})
		e.pendArr++
	}
	if n == 0 {
		return
	}
	if e.created+int64(n) > e.maxTasks {
		e.errAbort = errTooMany(e.maxTasks)
		return
	}
	wl := &e.s.Workload
	// Under work stealing, tasks for random workers are numbered worker by
	// worker (the targets are drawn first, in submission order, as before):
	// each worker's tasks then lie together in memory, which its LIFO pops
	// walk in order. Only the numbering changes, not the schedule.
	var targets []int32
	order := make([]int32, n) // order[k]: the k-th task created is root base+order[k]
	for j := range order {
		order[j] = int32(j)
	}
	if e.sched == schedSteal && target == targetRandom && n > 1 {
		targets = make([]int32, n)
		count := make([]int32, len(e.ws)+1)
		for j := range targets {
			targets[j] = e.live(e.placeRng.Intn(len(e.ws))).id
			count[targets[j]+1]++
		}
		for k := 1; k < len(count); k++ {
			count[k] += count[k-1]
		}
		for j, x := range targets {
			order[count[x]] = int32(j)
			count[x]++
		}
	}
	ids := make([]int32, n)
	base := e.roots
	e.roots += n
	for _, j := range order {
		r := base + int(j)
		var st [20]byte
		if wl.Kind == kindUTS {
			st = wl.UTS.root(wl.UTS.Root + r)
		}
		ids[j] = e.newTask(-1, rootSeed(e.s.Seed, r), 0, int16(wl.Fib.N), e.now, &st)
	}
	if e.log != nil {
		if len(ids) == 1 {
			e.logf("T%d arrives", ids[0])
		} else {
			e.logf("%d tasks arrive (T%d..T%d)", len(ids), e.created-int64(n), e.created-1)
		}
	}
	e.rootDst = nil
	if targets != nil {
		for j, id := range ids {
			e.pushTo(&e.ws[targets[j]], id)
		}
		return
	}
	e.placeBatch(ids, target, worker)
}
