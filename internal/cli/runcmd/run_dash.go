package runcmd

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/worksteal/worksteal/balance"
	"github.com/worksteal/worksteal/dash"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/clusterobs"
	"github.com/worksteal/worksteal/internal/clusterwire"
	"github.com/worksteal/worksteal/internal/runopts"
	"github.com/worksteal/worksteal/runner"
)

// startRunDashboard serves the dashboard of a local run on cfg.http (if
// set), fed by rcfg's callbacks, until the returned stop is called.
func startRunDashboard(env *cmdenv.Env, cfg runConfig, rcfg *runner.Config, total int, factor float64, log io.Writer) (stop func(), err error) {
	if cfg.http == "" {
		return func() {}, nil
	}
	slots := rcfg.Slots
	if slots <= 0 {
		slots = runtime.NumCPU()
	}
	d := newLocalDash(slots, total, factor)
	progress := rcfg.Progress
	rcfg.Progress = func(p runner.Progress) {
		d.onProgress(p)
		if progress != nil {
			progress(p)
		}
	}
	runopts.Of(rcfg).Attempts = d.onAttempt
	ln, err := net.Listen("tcp", cfg.http)
	if err != nil {
		return nil, fmt.Errorf("--http %s: %w", cfg.http, err)
	}
	ctx, cancel := context.WithCancel(env.Ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		cmdenv.ServeListener(ctx, ln, dash.New(d, dash.Config{Title: "worksteal run"}), log, func(ctx context.Context) error { <-ctx.Done(); return nil })
	}()
	return func() {
		d.finish()
		cancel()
		<-done
	}, nil
}

// localDash is the dashboard's view of a local "worksteal run": the batch
// is one job, the machine one worker with the run's slots, drawn by the
// same page as a cluster. It is fed by the runner's Progress and Attempts
// callbacks (one goroutine) and read by the dashboard (others): mu covers
// every field.
type localDash struct {
	job, worker string
	slots       int
	total       int
	factor      float64 // straggler rule: × the median
	created     time.Time

	mu                 sync.Mutex
	progress           runner.Progress
	finished           bool
	running            map[[2]int]runopts.Attempt // by seq, slot
	hist               *balance.History
	executed, failures int64
	busy               time.Duration // finished attempts
	spans              []clusterobs.Span
	ends               []time.Time
	prevBusy           time.Duration
	prevAt             time.Time
	util               float64
	retries            int
}

// dashTimelineKeep is how many finished attempts the timeline keeps.
const dashTimelineKeep = 64

func newLocalDash(slots, total int, factor float64) *localDash {
	host, _ := os.Hostname()
	if host == "" {
		host = "local"
	}
	if factor <= 0 {
		factor = 2
	}
	now := time.Now()
	return &localDash{job: "run", worker: host, slots: slots, total: total, factor: factor, created: now, prevAt: now,
		running: map[[2]int]runopts.Attempt{}, hist: balance.NewHistory(0)}
}

func (d *localDash) onProgress(p runner.Progress) {
	d.mu.Lock()
	d.progress = p
	d.mu.Unlock()
}

func (d *localDash) onAttempt(a runopts.Attempt) {
	d.mu.Lock()
	defer d.mu.Unlock()
	key := [2]int{a.Seq, a.Slot}
	if !a.Ended {
		d.running[key] = a
		if a.Try > 1 && !a.Copy {
			d.retries++
		}
		return
	}
	delete(d.running, key)
	d.executed++
	d.busy += a.Runtime
	if a.OK {
		d.hist.Observe(a.Runtime)
	} else {
		d.failures++
	}
	end := a.Start.Add(a.Runtime)
	d.ends = append(d.ends, end)
	sp := clusterobs.Span{Job: d.job, Task: strconv.Itoa(a.Seq), StartMs: a.Start.UnixMilli(), Ms: a.Runtime.Milliseconds(), OK: a.OK}
	if len(d.spans) == dashTimelineKeep {
		d.spans = append(d.spans[:0], d.spans[1:]...)
	}
	d.spans = append(d.spans, sp)
}

// finish marks the batch as over.
func (d *localDash) finish() {
	d.mu.Lock()
	d.finished = true
	d.mu.Unlock()
}

// Snapshot is the state as the dashboard draws it (dash.Source).
func (d *localDash) Snapshot() any {
	now := time.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	busy := d.busy
	w := clusterobs.WorkerState{Name: d.worker, Status: "up", Slots: d.slots, Handlers: []string{"sh"}, Started: d.created,
		LastSeen: now, Executed: d.executed, Failures: d.failures, Tasks: []clusterwire.StatusTask{}, Timeline: append([]clusterobs.Span{}, d.spans...)}
	st := clusterobs.State{Kind: "cluster", Time: now, Stream: "local", Ready: true, StragglerFactor: d.factor,
		Stragglers: []clusterobs.Straggler{}}
	med := d.hist.Quantile(0.5)
	for _, a := range d.running {
		busy += now.Sub(a.Start)
		w.Tasks = append(w.Tasks, clusterwire.StatusTask{Job: d.job, Task: strconv.Itoa(a.Seq), Attempt: a.Try, Speculative: a.Copy, Start: a.Start})
		if ran := now.Sub(a.Start); d.hist.Len() >= 3 && med > 0 && float64(ran) > d.factor*float64(med) {
			st.Stragglers = append(st.Stragglers, clusterobs.Straggler{Job: d.job, Task: strconv.Itoa(a.Seq), Worker: d.worker, Attempt: a.Try,
				RunningSec: ran.Seconds(), MedianSec: med.Seconds(), Ratio: float64(ran) / float64(med)})
		}
	}
	w.Running = len(w.Tasks)
	w.BusySec = busy.Seconds()
	if dt := now.Sub(d.prevAt); dt >= time.Second {
		d.util = min(1, max(0, float64(busy-d.prevBusy)/(float64(dt)*float64(d.slots))))
		d.prevBusy, d.prevAt = busy, now
	}
	w.Utilization = d.util
	if d.finished {
		w.Status, w.Utilization = "stopped", 0
	}
	st.Workers = []clusterobs.WorkerState{w}

	p := d.progress
	done := p.Succeeded + p.Failed
	j := clusterobs.JobState{ID: d.job, Total: d.total, Succeeded: p.Succeeded, Failed: p.Failed, Running: w.Running,
		Retries: d.retries, Created: d.created, Finished: d.finished || done >= d.total, MedianSec: med.Seconds(), ETASec: -1,
		ElapsedSec: now.Sub(d.created).Seconds()}
	j.Queued = max(0, d.total-done-w.Running)
	k := 0
	for k < len(d.ends) && now.Sub(d.ends[k]) > 10*time.Second {
		k++
	}
	d.ends = d.ends[k:]
	if span := min(10*time.Second, now.Sub(d.created)); span > 0 {
		j.Rate = float64(len(d.ends)) / span.Seconds()
	}
	switch {
	case j.Finished:
		j.ETASec = 0
	case j.Rate > 0:
		j.ETASec = float64(d.total-done) / j.Rate
	}
	st.Jobs = []clusterobs.JobState{j}
	st.Queued, st.Running = j.Queued, j.Running
	return st
}
