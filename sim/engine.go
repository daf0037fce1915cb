package sim

import (
	"bufio"
	"context"
	"fmt"
	"time"

	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/internal/xrand"
	"github.com/worksteal/worksteal/policy"
)

// Worker states. The time a worker spends in each is charged to busy
// (stRun), overhead (stOverhead, stAccess) or idle (the rest but stLost).
const (
	stFree     uint8 = iota // between actions (never across an event)
	stSearch                // a steal attempt is in flight
	stRun                   // running a piece of a task
	stOverhead              // paying the per-task overhead before a piece
	stBackoff               // backing off between rounds of attempts
	stParked                // asleep until woken (in the idle list)
	stSleep                 // asleep until woken or its timer fires (in the idle list)
	stWaking                // woken, not yet looking
	stRoundEnd              // paying the last failed attempt's cost of a round
	stMove                  // bringing a stolen task over (Costs.Move)
	stAccess                // waiting for or holding the central queue
	stLost                  // gone (fault)
)

// Central-queue operations.
const (
	opPop uint8 = iota
	opPush
)

type worker struct {
	id, group   int32
	cur         int32 // task being run or dispatched, -1 when none
	victim      int32
	gen         uint32
	idleIdx     int32 // index in engine.idleList, -1 when not there
	state, op   uint8
	lost        bool // stopped (fault)
	detected    bool // its loss is known: no placement, tasks re-queued
	searching   bool // counted in engine.searching
	idleSt      policyrt.IdleState
	attempt     int
	roundStart  time.Duration
	speed, base float64
	slows       []int32 // active slowdown faults
	since       time.Duration
	segStart    time.Duration
	pieceStart  time.Duration
	searchStart time.Duration
	segRem      float64 // work (ns at speed 1) left at segStart
	load        time.Duration
	dq          queue
	latent      []int32       // join latent: the latent frames' tasks, oldest first; a plain call's as ^id (owner only)
	nOffer      int           // the frames in latent that may be offered (not plain calls)
	holds       []int         // join latent: where in latent a heartbeat took a frame whose first half still runs (latent.go, [P4])
	wide        bool          // join latent: the window is policy.hungry_frames, not latent_frames (latent.go)
	hungry      bool          // join latent: a poll point promoted since the last heartbeat
	quiet       int           // join latent: heartbeats since the last that found hungry set (narrow)
	stack       []int32       // policy.join_wait stack: the forks w is inside, innermost last (latent.go)
	root        int16         // generation of the piece w last stole: its stack's root (policy.eager_depth)
	pollTok     uint32        // numbers w's segments: a poll event of an earlier one is stale
	pollSet     bool          // a poll event is pending for the current segment
	polls       int64         // poll points passed (heartbeat count; those inside a segment added at its end)
	segWork     float64       // work (ns at speed 1) of the current segment
	extra       time.Duration // overhead to pay before the next piece (fork, promotion)
	sel         *policyrt.Selector
	st          WorkerStats
	busy, over  time.Duration
	idle        time.Duration
}

// engine is one simulation in progress. It is single-threaded and owns all
// its state; see Run.
type engine struct {
	s       *Scenario
	now     time.Duration
	h       evHeap
	seq     uint64
	ws      []worker
	tasks   []task
	joins   []joinState
	uts     [][20]byte
	dist    sampler
	child   sampler  // spawned children's durations
	rootDst *sampler // while a burst with its own durations arrives: those
	sched   string

	// policy
	victim                      policy.Victim
	amount                      policy.Amount
	maxBatch                    int // cap of one steal-half (<1: none)
	idle                        policy.Idle
	mode                        string
	perRound                    int
	freeRounds                  bool // attempts cost nothing and draw nothing per attempt (idle.go)
	interval                    time.Duration
	groups                      *policy.Groups
	taskCost, stealCost, failed time.Duration
	crossCost, wakeCost         time.Duration
	moveCost                    time.Duration
	queueCost, contention       time.Duration
	latentJoin                  bool  // policy.join latent (under work stealing)
	stackJoin                   bool  // policy.join_wait stack (under work stealing)
	eagerDepth                  int16 // policy.eager_depth under join latent (0: none)
	latentCap                   int   // policy.latent_frames under join latent (0: no limit)
	hungryCap                   int   // policy.hungry_frames under join latent with latent_frames (0: none)
	eagerWidens                 bool  // policy.eager_widens under a hungry window
	quietBeats                  int   // policy.quiet_beats: quiet heartbeats that narrow a wide window (0: never)
	frameForks                  int64 // join latent: forks that kept offerable frames (not plain calls; tests)
	forkCost, promoteCost       time.Duration
	pollGap                     time.Duration // work between poll points inside a piece (0: none)
	beatEvery                   int64         // poll points between heartbeats (0: none)
	qlen                        func(int) int

	// central queue and its lock
	central queue
	holder  int32
	waiters queue
	rr      int

	// the idle protocol (idle.go): searchers, the idle list (sleepers),
	// and the tasks that thieves can see
	searching int
	idleList  []int32
	visibleQ  int64

	placeRng xrand.Rand
	liveList []int32

	// arrivals
	batches  []batch
	poisson  int // Poisson arrivals left
	arrRng   xrand.Rand
	roots    int
	pendArr  int // arrival events still to come
	lastDone time.Duration

	// accounting
	created, completed, outstanding int64
	events                          int64
	work, tinf                      time.Duration
	steals                          int64
	promoted                        int64
	latencies                       []time.Duration
	joinWaits                       []joinRec
	reexec                          int64
	requeued                        int64
	lostWork                        time.Duration
	qArea, qArea2, spreadArea       float64
	qLast                           time.Duration
	sumQ, sumQ2                     int64
	maxTasks                        int64
	errAbort                        error

	maxEvents int64
	kids      []int32
	log       *bufio.Writer
	rec       *schedule
}

type batch struct {
	at     time.Duration
	n      int
	target string
	worker int
	dist   *sampler // the burst's own durations, or nil for the workload's
}

type joinRec struct {
	task       int32
	wait       time.Duration
	own, total time.Duration
}

func newEngine(s *Scenario, o Options) (*engine, error) {
	p := s.Workers.Count
	e := &engine{s: s, sched: s.Policy.Scheduler, holder: -1, dist: sampler{s.Workload.Duration}, child: sampler{s.Workload.Duration}, maxEvents: o.maxEvents}
	if d := s.Workload.Spawn.Duration; d != nil {
		e.child = sampler{*d}
	}
	e.victim, _ = policyrt.ParseVictim(s.Policy.Victim)
	e.amount, _ = policyrt.ParseAmount(s.Policy.Amount)
	e.maxBatch = s.Policy.MaxBatch
	e.idle = idleSchedule(&s.Policy.Idle)
	e.mode = s.Policy.Idle.Mode
	e.interval = s.Policy.Idle.Interval.Duration()
	c := &s.Costs
	e.taskCost, e.stealCost, e.failed = c.Task.Duration(), c.Steal.Duration(), c.Failed.Duration()
	e.crossCost, e.wakeCost = c.CrossGroup.Duration(), c.Wake.Duration()
	e.moveCost = c.Move.Duration()
	e.queueCost, e.contention = c.Queue.Duration(), c.Contention.Duration()
	e.forkCost, e.promoteCost = c.Fork.Duration(), c.Promote.Duration()
	e.latentJoin = e.sched == schedSteal && s.Policy.Join == joinLatent
	e.stackJoin = e.sched == schedSteal && s.Policy.JoinWait == joinWaitStack
	e.pollGap = s.Workload.Poll.Duration()
	if e.latentJoin && s.Policy.EagerDepth > 0 {
		e.eagerDepth = int16(s.Policy.EagerDepth)
	}
	if e.latentJoin && s.Policy.Heartbeat > 0 {
		e.beatEvery = int64(s.Policy.Heartbeat)
	}
	if e.latentJoin && s.Policy.LatentFrames > 0 && s.Policy.HungryFrames > 0 {
		e.hungryCap = s.Policy.HungryFrames
		e.quietBeats = max(s.Policy.QuietBeats, 0) // −1 (never narrow): 0
		e.eagerWidens = s.Policy.EagerWidens == 1
	}
	if e.latentJoin && s.Policy.LatentFrames > 0 {
		e.latentCap = s.Policy.LatentFrames
	}
	g, err := policy.NewGroups(s.Workers.Groups)
	if err != nil {
		return nil, fmt.Errorf("sim: %v", err)
	}
	e.groups = g
	e.perRound = p - 1
	if s.Policy.Idle.Attempts > 0 && s.Policy.Idle.Attempts < e.perRound {
		e.perRound = s.Policy.Idle.Attempts
	}
	e.freeRounds = e.sched == schedSteal && e.stealCost == 0 && e.failed == 0 && e.crossCost == 0 &&
		(e.victim == policy.Random || e.victim == policy.Locality)
	e.ws = make([]worker, p)
	e.liveList = make([]int32, p)
	for i := range e.ws {
		w := &e.ws[i]
		w.id, w.group, w.cur, w.victim, w.idleIdx = int32(i), int32(s.Workers.Groups[i]), -1, -1, -1
		w.speed, w.base = s.Workers.Speeds[i], s.Workers.Speeds[i]
		w.st = WorkerStats{worker: i, speed: w.base, group: int(w.group)}
		if e.sched == schedSteal {
			w.sel = policyrt.NewSelector(e.victim, i, p, g, xrand.SplitMix64(s.Seed^0x7e1ec70a))
		}
		e.liveList[i] = int32(i)
	}
	e.qlen = func(i int) int { return e.ws[i].dq.len() }
	e.placeRng.Seed(xrand.SplitMix64(s.Seed ^ 0x91ace))
	e.arrRng.Seed(xrand.SplitMix64(s.Seed ^ 0xa771e))
	e.maxTasks = 1 << 28
	if s.Workload.Kind == kindUTS {
		e.maxTasks = int64(s.Workload.UTS.MaxNodes)
	}
	if o.Log != nil {
		e.log = bufio.NewWriterSize(o.Log, 64<<10)
	}
	if o.record {
		e.rec = &schedule{Workers: p}
	}
	e.tasks = make([]task, 0, min(s.Workload.Tasks, 1<<22))
	e.schedule(s)
	return e, nil
}

// schedule queues the arrivals, the start of every worker and the faults.
func (e *engine) schedule(s *Scenario) {
	a := &s.Workload.Arrival
	switch a.Pattern {
	case arriveBursts:
		for _, b := range a.Bursts {
			t := b.Target
			if t == "" {
				t = targetOne
			}
			var d *sampler
			if b.Duration != nil {
				d = &sampler{*b.Duration}
			}
			e.batches = append(e.batches, batch{b.At.Duration(), b.Tasks, t, b.Worker, d})
		}
		// stable by time, so equal times keep their listed order
		for i := 1; i < len(e.batches); i++ {
			for j := i; j > 0 && e.batches[j].at < e.batches[j-1].at; j-- {
				e.batches[j], e.batches[j-1] = e.batches[j-1], e.batches[j]
			}
		}
	case arrivePoisson:
		e.poisson = s.Workload.Tasks
	default:
		e.batches = []batch{{0, s.Workload.Tasks, a.Target, a.Worker, nil}}
	}
	for i, b := range e.batches {
		e.push(event{at: b.at, kind: evArrive, arg: int32(i)})
		e.pendArr++
	}
	if e.poisson > 0 {
		e.push(event{at: e.nextPoisson(0), kind: evArrive, arg: -1})
		e.pendArr++
	}
	e.push(event{kind: evStart})
	for i, f := range s.Faults {
		e.push(event{at: f.At.Duration(), kind: evFault, arg: int32(i * 4)})
		if f.Kind == faultSlow && f.Until > 0 {
			e.push(event{at: f.Until.Duration(), kind: evFault, arg: int32(i*4 + 1)})
		}
		if f.Kind == faultLose {
			e.push(event{at: f.At.Duration() + f.Detect.Duration(), kind: evFault, arg: int32(i*4 + 2)})
		}
	}
}

func (e *engine) nextPoisson(from time.Duration) time.Duration {
	gap := -(1 / e.s.Workload.Arrival.Rate) * logOneMinus(e.arrRng.Float64())
	return from + secs(gap)
}

func (e *engine) push(ev event) {
	ev.seq = e.seq
	e.seq++
	e.h.push(ev)
}

// at sets worker w's timer, replacing any earlier one.
func (e *engine) at(w *worker, t time.Duration) {
	w.gen++
	e.push(event{at: t, kind: evWorker, w: w.id, gen: w.gen})
}

func (e *engine) finished() bool { return e.outstanding == 0 && e.pendArr == 0 }

func (e *engine) run(ctx context.Context) error {
	limit := e.s.Limit.Duration()
	for len(e.h) > 0 && !e.finished() {
		ev := e.h.pop()
		if limit > 0 && ev.at > limit {
			e.now = limit
			break
		}
		if ev.kind == evWorker && ev.gen != e.ws[ev.w].gen {
			continue // superseded timer
		}
		if e.events == e.maxEvents && e.maxEvents > 0 {
			return fmt.Errorf("sim: more than %d events at virtual time %ss (raise the event budget, or check the idle policy and costs)", e.maxEvents, fmtTime(ev.at))
		}
		e.now = ev.at
		e.events++
		if e.events&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		switch ev.kind {
		case evWorker:
			e.onTimer(&e.ws[ev.w])
		case evArrive:
			e.arrive(int(ev.arg))
		case evStart:
			for i := range e.ws {
				if w := &e.ws[i]; w.state == stFree && w.cur < 0 {
					if i > 0 && e.s.Workers.StartParked && e.sched == schedSteal {
						e.announce(w)
						e.setState(w, stParked)
						w.gen++
						continue
					}
					e.findWork(w)
				}
			}
		case evFault:
			e.fault(int(ev.arg))
		case evPoll:
			if w := &e.ws[ev.w]; ev.gen == w.pollTok && w.state == stRun {
				if ev.arg > 0 { // a heartbeat at the arg-th poll point of the segment
					e.narrow(w)
					e.heartbeat(w)
					e.scheduleBeat(w, int64(ev.arg)+e.beatEvery)
					break
				}
				w.pollSet = false
				e.poll(w)
			}
		}
		if e.errAbort != nil {
			return e.errAbort
		}
	}
	if e.finished() {
		e.now = e.lastDone
	}
	e.qTick()
	for i := range e.ws {
		e.setState(&e.ws[i], e.ws[i].state) // close the books at the end
	}
	if e.log != nil {
		e.logf("end: %d of %d tasks done", e.completed, e.created)
		if err := e.log.Flush(); err != nil {
			return fmt.Errorf("sim: writing log: %w", err)
		}
	}
	return nil
}

func (e *engine) onTimer(w *worker) {
	switch w.state {
	case stOverhead:
		e.beginPiece(w)
	case stRun:
		e.pieceDone(w)
	case stSearch:
		e.attemptDone(w)
	case stBackoff:
		e.round(w)
	case stRoundEnd:
		e.roundFailed(w)
	case stMove:
		e.setState(w, stFree)
		e.dispatch(w, w.cur)
	case stSleep:
		e.sleepDone(w)
	case stWaking:
		e.setState(w, stFree)
		e.resume(w)
	case stAccess:
		e.accessDone(w)
	}
}

// setState charges the time since the last change to the old state's
// account and enters st.
func (e *engine) setState(w *worker, st uint8) {
	if d := e.now - w.since; d > 0 {
		switch w.state {
		case stRun:
			w.busy += d
		case stOverhead, stAccess, stMove:
			w.over += d
		case stLost:
		default:
			w.idle += d
		}
	}
	w.since = e.now
	w.state = st
}

// qTick integrates the queue-depth statistics up to now.
func (e *engine) qTick() {
	if dt := float64(e.now - e.qLast); dt > 0 {
		q := float64(e.sumQ + int64(e.central.len()))
		e.qArea += q * dt
		e.qArea2 += q * q * dt
		p := float64(len(e.ws))
		m := float64(e.sumQ) / p
		e.spreadArea += (float64(e.sumQ2)/p - m*m) * dt
	}
	e.qLast = e.now
}

// qAdd records that worker w's queue is about to change by d.
func (e *engine) qAdd(w *worker, d int) {
	e.qTick()
	if !w.lost {
		e.visibleQ += int64(d)
	}
	l := int64(w.dq.len())
	e.sumQ += int64(d)
	e.sumQ2 += (l+int64(d))*(l+int64(d)) - l*l
}

// dispatch starts task id's next piece on w (after the per-task overhead
// and any fork or promotion overhead w owes).
func (e *engine) dispatch(w *worker, id int32) {
	w.cur = id
	if d := e.taskCost + w.extra; d > 0 {
		w.extra = 0
		e.setState(w, stOverhead)
		e.at(w, e.now+d)
		return
	}
	e.beginPiece(w)
}

func (e *engine) beginPiece(w *worker) {
	t := &e.tasks[w.cur]
	if t.flags&fStarted == 0 {
		t.flags |= fStarted
		if t.join >= 0 {
			e.joins[t.join].start = e.now
		}
	}
	t.starts++
	w.pieceStart = e.now
	if e.log != nil {
		if t.phase == 2 {
			e.logf("worker %d: resumes T%d after its join", w.id, w.cur)
		} else {
			e.logf("worker %d: starts T%d", w.id, w.cur)
		}
	}
	seg := 0
	if t.phase > 0 {
		seg = 1
	}
	e.runSegment(w, t.work[seg])
}

func (e *engine) runSegment(w *worker, work time.Duration) {
	e.setState(w, stRun)
	w.segStart, w.segRem = e.now, float64(work)
	w.segWork = float64(work)
	w.pollTok++
	w.pollSet = false
	e.at(w, e.now+e.segDur(w))
	if e.pollGap > 0 && e.latentJoin {
		if w.nOffer > 0 && w.dq.len() == 0 && e.idleWorkers() {
			e.schedulePoll(w)
		}
		if e.beatEvery > 0 {
			e.scheduleBeat(w, e.beatEvery-w.polls%e.beatEvery)
		}
	}
}

// segDur is how long the rest of w's segment takes at its current speed.
func (e *engine) segDur(w *worker) time.Duration {
	if w.speed == 1 {
		return time.Duration(w.segRem)
	}
	return time.Duration(ceil(w.segRem / w.speed))
}

// record appends a span to the schedule being recorded.
func (e *engine) record(w *worker, id int32, kind string) {
	if e.rec != nil {
		e.rec.Spans = append(e.rec.Spans, span{Worker: int(w.id), Task: int(id), Start: w.pieceStart, End: e.now, Kind: kind})
	}
}

func (e *engine) pieceDone(w *worker) {
	if e.pollGap > 0 && e.latentJoin { // the poll points inside the segment
		w.polls += int64(w.segWork / float64(e.pollGap))
	}
	id := w.cur
	t := &e.tasks[id]
	if t.phase == 0 && t.nkids > 0 {
		kind := spanRun
		e.record(w, id, kind)
		w.pieceStart = e.now
		w.load -= t.work[0]
		if t.flags&fJoin != 0 {
			t.phase = 2
			e.joins[t.join].joinAt = e.now
			if e.stackJoin {
				e.joins[t.join].owner = w.id
				w.stack = append(w.stack, id)
			}
			w.st.Executed++
			w.cur = -1
		} else {
			t.phase = 1
		}
		if t.flags&fSpawned != 0 { // re-executed after a loss: children exist
			e.afterSpawn(w)
			return
		}
		if e.created+int64(t.nkids) > e.maxTasks {
			e.errAbort = errTooMany(e.maxTasks)
			return
		}
		e.kids = e.spawnChildren(id, e.kids)
		if e.log != nil {
			verb := "spawns"
			if t.flags&fJoin != 0 {
				verb = "forks"
			}
			e.logf("worker %d: T%d %s %s", w.id, id, verb, taskList(e.kids))
		}
		if t.flags&fJoin != 0 {
			w.extra += e.forkCost
			if e.latentJoin {
				e.forkLatent(w, e.kids)
				return
			}
		}
		e.placeSpawned(w, e.kids)
		return
	}
	e.finish(w, id)
}

// afterSpawn continues w once its spawned children are placed: the rest of
// a plain task, or, for a fork-join parent that suspended, other work.
func (e *engine) afterSpawn(w *worker) {
	if w.cur < 0 {
		e.setState(w, stFree)
		e.findWork(w)
		return
	}
	w.pieceStart = e.now // the wait for the central queue's lock is not the task's
	e.runSegment(w, e.tasks[w.cur].work[1])
}

func (e *engine) finish(w *worker, id int32) {
	t := &e.tasks[id]
	kind := spanRun
	if t.phase == 2 {
		kind = spanContinuation
	}
	e.record(w, id, kind)
	seg := 0
	if t.phase > 0 {
		seg = 1
	}
	w.load -= t.work[seg]
	var fin time.Duration
	if t.phase == 2 {
		j := &e.joins[t.join]
		fin = j.joinSpan + t.work[1]
		// joinAt holds the wait at the join since the continuation resumed
		e.joinWaits = append(e.joinWaits, joinRec{task: id, wait: j.joinAt, own: t.work[0] + t.work[1], total: e.now - j.start})
	} else {
		fin = t.span + t.work[0] + t.work[1]
	}
	t.flags |= fDone
	t.phase = 3
	e.tinf = max(e.tinf, fin)
	e.work += t.work[0] + t.work[1]
	e.completed++
	e.outstanding--
	e.lastDone = e.now
	w.st.Executed++
	w.cur = -1
	if e.log != nil {
		e.logf("worker %d: finishes T%d", w.id, id)
	}
	if pid := t.parent; pid >= 0 {
		p := &e.joins[e.tasks[pid].join]
		p.joinSpan = max(p.joinSpan, fin)
		p.pending--
		if p.pending == 0 {
			if e.stackJoin && !e.resumeHere(w, pid) {
				// The rest of the fork is on its owner's stack, below what
				// the owner runs now: it resumes there (latent.go).
				e.setState(w, stFree)
				e.findWork(w)
				return
			}
			p.joinAt = e.now - p.joinAt // from now on: the wait at the join
			e.setState(w, stFree)
			e.dispatch(w, pid)
			return
		}
	}
	e.setState(w, stFree)
	e.findWork(w)
}

// findWork looks for the next piece for an idle worker, by scheduler.
func (e *engine) findWork(w *worker) {
	switch e.sched {
	case schedSteal:
		for k := len(w.holds); k > 0 && w.holds[k-1] >= len(w.latent); k-- {
			w.holds = w.holds[:k-1] // that frame's first half is done ([P4])
		}
		if n := len(w.latent); n > 0 && e.inTop(w, w.latent[n-1]) { // join latent: the newest frame, inline
			id := w.latent[n-1]
			w.latent = w.latent[:n-1]
			if id < 0 { // a plain call's half
				id = ^id
			} else {
				w.nOffer--
			}
			e.dispatch(w, id)
			return
		}
		if e.resumeTop(w) { // join_wait stack: the fork w is inside is done
			return
		}
		if w.dq.len() > 0 {
			e.qAdd(w, -1)
			e.dispatch(w, w.dq.popBack())
			return
		}
		e.startSearch(w)
	case schedCentral:
		e.requestLock(w, opPop)
	default:
		if w.dq.len() > 0 {
			e.qAdd(w, -1)
			e.dispatch(w, w.dq.popFront())
			return
		}
		e.parkPlain(w)
	}
}
