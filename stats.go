package worksteal

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/worksteal/worksteal/internal/loadstat"
	"github.com/worksteal/worksteal/internal/policyrt"
)

// counters are a worker's statistics, written only by the worker itself
// with plain increments (an atomic add per join would cost more than the
// join). They are copied into published at quiet moments — after each
// top-level job, before parking, and at every heartbeat
// (policyrt.HeartbeatJoins Joins) — so a snapshot is at most that stale.
//
// A Join's fast path makes one decrement, of w.beatLeft, which times the
// heartbeat and counts the Joins since the last beat (w.joins). What it does not count is derived at publish: a Join's
// second half that ran inline while latent is an executed job that was
// never promoted, so executed as published is executed (jobs run from the
// deque, the inbox, a steal, or a promoted frame popped back) plus
// joins − promoted − the latent frames still open (run). A plain-call
// Join's second half (join.go) is counted when the Join is made: while its
// first half runs, and for good if that panics (fb is dropped), executed
// counts one half that has not run.
type counters struct {
	executed, spawned, stolen, attempts, failed, parks uint64
	joins                                              uint64 // Joins forked up to the last heartbeat (w.joins; spawned counts scope tasks)
	busy, idle                                         time.Duration
	promoted                                           uint64 // latent frames made public
}

// published is the snapshot-safe copy of counters, plus stolenFrom, which
// thieves add to directly.
type published struct {
	executed, spawned, stolen, attempts, failed, parks atomic.Uint64
	promoted                                           atomic.Uint64
	busy, idle                                         atomic.Int64
	stolenFrom                                         atomic.Uint64
}

// publish copies the owner's counters to the snapshot-safe copy.
func (w *Worker) publish() {
	w.bump() // progress, for the stall monitor (every publishEvery Joins, and after each job)
	if w.noStats {
		return
	}
	w.pub.executed.Store(w.run())
	w.pub.spawned.Store(w.st.spawned + w.joins())
	w.pub.stolen.Store(w.st.stolen)
	w.pub.attempts.Store(w.st.attempts)
	w.pub.failed.Store(w.st.failed)
	w.pub.parks.Store(w.st.parks)
	w.pub.promoted.Store(w.st.promoted)
	w.pub.busy.Store(int64(w.st.busy))
	w.pub.idle.Store(int64(w.st.idle))
}

// run is the number of jobs w has run (Stats' Executed): see counters.
// Frames [lo, depth) are latent and their second halves have not started
// (a latent half starts inline only after depth went back below it).
// Owner only.
func (w *Worker) run() uint64 {
	return w.st.executed + w.joins() - w.st.promoted - uint64(w.depth-w.lo)
}

// joins is the number of Joins w has forked: st.joins counts them at each
// heartbeat, beatLeft the rest down (the fast path's one decrement).
func (w *Worker) joins() uint64 {
	return w.st.joins + uint64(policyrt.HeartbeatJoins-w.beatLeft)
}

// beginIdle ends a busy interval; endIdle ends an idle one.
func (w *Worker) beginIdle() {
	w.setMonBits(monIdle, monIdle)
	if w.noStats {
		return
	}
	t := now()
	w.st.busy += t - w.mark
	w.mark = t
	w.publish()
}

func (w *Worker) endIdle() {
	w.setMonBits(monIdle, 0)
	if w.noStats {
		return
	}
	t := now()
	w.st.idle += t - w.mark
	w.mark = t
	w.publish()
}

// WorkerStats are one worker's counters since the pool started.
type WorkerStats struct {
	Executed      uint64 // jobs run: stolen or popped Join halves, scope and submitted tasks
	Spawned       uint64 // Joins it forked (their second halves, latent or pushed) and tasks it spawned
	Stolen        uint64 // jobs it took from other workers' deques
	StolenFrom    uint64 // jobs other workers took from its deque
	StealAttempts uint64 // steal attempts, successful or not
	FailedSteals  uint64 // attempts that found the victim empty or lost a race
	Parks         uint64 // times it parked for lack of work
	// Promoted counts the latent Join halves it made public (pushed on its
	// deque, where thieves can take them): at a poll point that found a
	// worker idle, at a heartbeat, before a wait, or at once for the Joins
	// near the root of its stack (policyrt.EagerDepth; PROTOCOL.md "Join").
	// A Join half never promoted ran inline, at the cost of a plain call.
	Promoted uint64
	Busy     time.Duration // time spent running work
	Idle     time.Duration // time spent looking for work or parked
	// Counters are the hardware and kernel counts of the worker's thread
	// (Config.Counters with Config.Pin: an unpinned worker moves between
	// OS threads); nil when not counted.
	Counters *Counters
}

// Stats is a snapshot of a pool's statistics.
type Stats struct {
	Workers []WorkerStats // regular workers, then spares that ever ran
	// Counters are the process's hardware and kernel counts and the
	// machine's energy since the pool started (Config.Counters); nil when
	// not counted.
	Counters *Counters
}

// Stats returns a snapshot of the pool's statistics. It is cheap (no locks,
// a few loads per worker) and safe to call at any time, from any goroutine.
// A busy worker's counters may lag by up to a few thousand spawns.
// With Config.NoStats every counter reads zero.
func (p *Pool) Stats() Stats {
	var s Stats
	add := func(w *Worker) {
		s.Workers = append(s.Workers, WorkerStats{
			Executed:      w.pub.executed.Load(),
			Spawned:       w.pub.spawned.Load(),
			Stolen:        w.pub.stolen.Load(),
			StolenFrom:    w.pub.stolenFrom.Load(),
			StealAttempts: w.pub.attempts.Load(),
			FailedSteals:  w.pub.failed.Load(),
			Parks:         w.pub.parks.Load(),
			Promoted:      w.pub.promoted.Load(),
			Busy:          time.Duration(w.pub.busy.Load()),
			Idle:          time.Duration(w.pub.idle.Load()),
		})
	}
	for _, w := range p.workers {
		add(w)
	}
	p.spares.each(add)
	p.counters.fill(&s)
	return s
}

// Total sums the per-worker counters.
func (s Stats) Total() WorkerStats {
	var t WorkerStats
	for _, w := range s.Workers {
		t.Executed += w.Executed
		t.Spawned += w.Spawned
		t.Stolen += w.Stolen
		t.StolenFrom += w.StolenFrom
		t.StealAttempts += w.StealAttempts
		t.FailedSteals += w.FailedSteals
		t.Parks += w.Parks
		t.Promoted += w.Promoted
		t.Busy += w.Busy
		t.Idle += w.Idle
		if w.Counters != nil {
			if t.Counters == nil {
				t.Counters = &Counters{}
			}
			t.Counters.add(*w.Counters)
		}
	}
	return t
}

// Sub returns the counters accumulated between an earlier snapshot and s,
// worker by worker (for measuring one phase of a long-lived pool).
func (s Stats) Sub(earlier Stats) Stats {
	out := Stats{Workers: slices.Clone(s.Workers), Counters: subCounters(s.Counters, earlier.Counters)}
	for i := range out.Workers {
		if i >= len(earlier.Workers) {
			break
		}
		e, w := earlier.Workers[i], &out.Workers[i]
		w.Executed -= e.Executed
		w.Spawned -= e.Spawned
		w.Stolen -= e.Stolen
		w.StolenFrom -= e.StolenFrom
		w.StealAttempts -= e.StealAttempts
		w.FailedSteals -= e.FailedSteals
		w.Parks -= e.Parks
		w.Promoted -= e.Promoted
		w.Busy -= e.Busy
		w.Idle -= e.Idle
		w.Counters = subCounters(w.Counters, e.Counters)
	}
	return out
}

// subCounters is c − earlier, nil when c is nil.
func subCounters(c, earlier *Counters) *Counters {
	if c == nil || earlier == nil {
		return c
	}
	d := c.Sub(*earlier)
	return &d
}

// StealRate is stolen jobs per executed job (glossary: steal rate).
func (s Stats) StealRate() float64 {
	t := s.Total()
	if t.Executed == 0 {
		return 0
	}
	return float64(t.Stolen) / float64(t.Executed)
}

// Utilization is busy / (busy + idle) over all workers, 0 when no time was
// measured (the same definition as balance.Utilization).
func (s Stats) Utilization() float64 {
	busy, idle := s.times()
	return loadstat.Utilization(busy, idle)
}

// Imbalance is the load imbalance max/avg of the workers' busy time
// (1 is perfect balance, and the value when nothing ran; the same
// definition as balance.Imbalance).
func (s Stats) Imbalance() float64 {
	busy, _ := s.times()
	return loadstat.Imbalance(busy)
}

// times returns each worker's busy and idle time.
func (s Stats) times() (busy, idle []time.Duration) {
	busy = make([]time.Duration, len(s.Workers))
	idle = make([]time.Duration, len(s.Workers))
	for i, w := range s.Workers {
		busy[i], idle[i] = w.Busy, w.Idle
	}
	return busy, idle
}
