package dash

import (
	"sync"
	"time"

	"github.com/worksteal/worksteal"
)

// poolState is a Pool's state as the dashboard shows it (the JSON of the
// package doc's "A pool's state"): per worker, its counters since the
// pool started and its rates over the last interval.
type poolState struct {
	// Kind is "pool": the page draws a pool.
	Kind    string            `json:"kind"`
	Time    time.Time         `json:"time"`
	Workers []poolWorkerState `json:"workers"`
	// Utilization is busy / (busy + idle) of all workers over the last
	// interval; Imbalance and StealRate cover the pool's life.
	Utilization float64 `json:"utilization"`
	Imbalance   float64 `json:"imbalance"`
	StealRate   float64 `json:"steal_rate"`
	// TasksPerSec is jobs executed per second over the last interval.
	TasksPerSec float64 `json:"tasks_per_s"`
}

// poolWorkerState is one worker of a poolState.
type poolWorkerState struct {
	Worker        int     `json:"worker"`
	Executed      uint64  `json:"executed"`
	Stolen        uint64  `json:"stolen"`
	StolenFrom    uint64  `json:"stolen_from"`
	StealAttempts uint64  `json:"steal_attempts"`
	Parks         uint64  `json:"parks"`
	BusySec       float64 `json:"busy_s"`
	IdleSec       float64 `json:"idle_s"`
	// Utilization is busy / (busy + idle) over the last interval;
	// StealsPerSec and ParksPerSec are rates over it.
	Utilization  float64 `json:"utilization"`
	StealsPerSec float64 `json:"steals_per_s"`
	ParksPerSec  float64 `json:"parks_per_s"`
}

// Pool returns a Source of p's statistics (worksteal.Pool.Stats). Rates
// are taken between snapshots at least a second apart, so any number of
// pages and JSON readers see the same recent window.
//
// Panics: if p is nil.
func Pool(p *worksteal.Pool) Source {
	if p == nil {
		panic("dash: nil pool")
	}
	return &poolSource{stats: p.Stats}
}

// poolSource keeps the previous snapshot to turn counters into rates.
type poolSource struct {
	stats func() worksteal.Stats

	mu         sync.Mutex
	prev, base worksteal.Stats // base: the window's start; prev: its end
	prevAt     time.Time
	baseAt     time.Time
}

// window is the least time over which rates are measured.
const window = time.Second

func (s *poolSource) Snapshot() any {
	now := time.Now()
	st := s.stats()
	s.mu.Lock()
	if s.prevAt.IsZero() {
		s.base, s.baseAt = st, now
	} else if now.Sub(s.prevAt) >= window {
		s.base, s.baseAt = s.prev, s.prevAt
	}
	if s.prevAt.IsZero() || now.Sub(s.prevAt) >= window {
		s.prev, s.prevAt = st, now
	}
	base, dt := s.base, now.Sub(s.baseAt).Seconds()
	s.mu.Unlock()

	d := st.Sub(base)
	out := poolState{Kind: "pool", Time: now, Workers: make([]poolWorkerState, len(st.Workers)),
		Imbalance: st.Imbalance(), StealRate: st.StealRate()}
	var busy, idle time.Duration
	var executed uint64
	for i, w := range st.Workers {
		ws := poolWorkerState{Worker: i, Executed: w.Executed, Stolen: w.Stolen, StolenFrom: w.StolenFrom,
			StealAttempts: w.StealAttempts, Parks: w.Parks, BusySec: w.Busy.Seconds(), IdleSec: w.Idle.Seconds()}
		if i < len(d.Workers) && i < len(base.Workers) {
			dw := d.Workers[i]
			if t := dw.Busy + dw.Idle; t > 0 {
				ws.Utilization = float64(dw.Busy) / float64(t)
			}
			if dt > 0 {
				ws.StealsPerSec = float64(dw.Stolen) / dt
				ws.ParksPerSec = float64(dw.Parks) / dt
			}
			busy, idle, executed = busy+dw.Busy, idle+dw.Idle, executed+dw.Executed
		}
		out.Workers[i] = ws
	}
	if busy+idle > 0 {
		out.Utilization = float64(busy) / float64(busy+idle)
	}
	if dt > 0 {
		out.TasksPerSec = float64(executed) / dt
	}
	return out
}
