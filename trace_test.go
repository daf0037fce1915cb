package worksteal

import (
	"bytes"
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/tracefmt"
	"github.com/worksteal/worksteal/policy"
)

func TestTraceEventsAreOrderedAndMatched(t *testing.T) {
	p := newTestPool(t, Config{Workers: 3, Trace: 1 << 14})
	Run(p, func(w *Worker) int { return fibJoin(w, 22) })
	Run(p, func(w *Worker) int {
		w.Scope(context.Background(), func(w *Worker, s *Scope) error {
			for i := 0; i < 50; i++ {
				s.Spawn(w, func(w *Worker) { fibJoin(w, 12) })
			}
			return nil
		})
		return 0
	})
	// Close first: Run returns when the root task is done, a moment before
	// its worker records the task's end event.
	p.Close()
	tr := p.Trace()
	if tr == nil || len(tr.Workers) != 3 {
		t.Fatalf("Trace() = %+v", tr)
	}
	var starts, ends, spawns, steals, promoted int
	for wi, evs := range tr.Workers {
		open := map[uint64]bool{}
		waiting := false
		for i, ev := range evs {
			if i > 0 && ev.Time < evs[i-1].Time {
				t.Fatalf("worker %d: event %d at %v before event %d at %v", wi, i, ev.Time, i-1, evs[i-1].Time)
			}
			switch ev.Kind {
			case EvTaskStart:
				starts++
				open[ev.Task] = true
				if int(ev.Task>>32) != wi {
					t.Errorf("task id %x not of worker %d", ev.Task, wi)
				}
			case EvTaskEnd:
				ends++
				if !open[ev.Task] {
					t.Errorf("worker %d: end of task %x that did not start", wi, ev.Task)
				}
				delete(open, ev.Task)
			case EvSpawn:
				spawns++
			case EvWaitStart:
				if waiting {
					t.Errorf("worker %d: wait-start inside a wait", wi)
				}
				waiting = true
			case EvWaitEnd:
				if !waiting {
					t.Errorf("worker %d: wait-end without a wait-start", wi)
				}
				waiting = false
			case EvPromote:
				if ev.Jobs < 1 {
					t.Errorf("worker %d: a promotion of %d frames", wi, ev.Jobs)
				}
				promoted += ev.Jobs
			case EvSteal:
				if ev.Jobs < 1 || ev.Jobs > policy.MaxBatch {
					t.Errorf("worker %d: a steal of %d jobs", wi, ev.Jobs)
				}
				steals += ev.Jobs
				if ev.Peer < 0 || ev.Peer >= 3 || ev.Peer == wi {
					t.Errorf("worker %d stole from %d", wi, ev.Peer)
				}
			}
		}
	}
	if starts == 0 || starts != ends || spawns != 50 {
		t.Errorf("starts %d ends %d spawns %d; want equal starts and ends, 50 spawns", starts, ends, spawns)
	}
	st := p.Stats().Total()
	if uint64(steals) != st.Stolen {
		t.Errorf("trace has %d stolen jobs, Stats %d", steals, st.Stolen)
	}
	// Every promotion is traced with its frames and counted in Stats, and nothing
	// is stolen that was not made public: a promoted frame or a spawned task.
	if uint64(promoted) != st.Promoted || promoted == 0 {
		t.Errorf("trace has %d promoted frames, Stats %d (want equal, > 0)", promoted, st.Promoted)
	}
	if steals > promoted+spawns {
		t.Errorf("%d jobs stolen, but only %d frames promoted and %d tasks spawned", steals, promoted, spawns)
	}
	var buf bytes.Buffer
	if err := tr.WriteChrome(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := tracefmt.Read(&buf)
	if err != nil {
		t.Fatalf("reading our own trace back: %v", err)
	}
	runs := 0
	for _, sp := range f.Spans {
		if sp.Cat == "run" {
			runs++
		}
	}
	if f.Workers != 3 || runs != starts {
		t.Errorf("Chrome trace: %d workers, %d task spans; want 3, %d", f.Workers, runs, starts)
	}
}

// A small ring wraps: the oldest events go, counted as dropped, and the
// snapshot keeps the newest ones in order.
func TestTraceRingDrops(t *testing.T) {
	p := newTestPool(t, Config{Workers: 1, Trace: 16})
	for i := 0; i < 100; i++ {
		p.Submit(func(*Worker) {})
	}
	Run(p, func(*Worker) int { return 0 })
	tr := p.Trace()
	if n := len(tr.Workers[0]); n > 16 || n == 0 {
		t.Fatalf("%d events retained in a ring of 16", n)
	}
	if tr.Dropped[0] == 0 {
		t.Fatal("no drops counted after 200+ events in a ring of 16")
	}
	if p2 := newTestPool(t, Config{Workers: 1}); p2.Trace() != nil {
		t.Fatal("Trace() of an untraced pool is not nil")
	}
	if _, err := New(Config{Trace: -1}); err == nil {
		t.Fatal("New accepted Config.Trace = -1")
	}
}

// BenchmarkTraceOverhead: fib(30) and UTS-like trees with tracing off and on.
func BenchmarkTraceOverhead(b *testing.B) {
	for _, ring := range []int{0, 1 << 16} {
		p := newTestPool(b, Config{Workers: 2, Trace: ring})
		b.Run(map[bool]string{false: "trace=off", true: "trace=on"}[ring > 0], func(b *testing.B) {
			for b.Loop() {
				Run(p, func(w *Worker) int { return fibJoin(w, 30) })
			}
		})
	}
}

// A joiner whose second half was stolen, with nothing else to do, records
// its idle stretch as a wait span inside its task.
func TestTraceRecordsJoinWaits(t *testing.T) {
	p := newTestPool(t, Config{Workers: 2, Trace: 1 << 10})
	Run(p, func(w *Worker) int {
		var stolen atomic.Bool
		a, b := Join(w,
			func(w *Worker) int {
				for !stolen.Load() {
					w.Poll() // the second half is offered at poll points
					runtime.Gosched()
				}
				return 1
			},
			func(*Worker) int {
				stolen.Store(true)
				for { // until the joiner (the only other worker) idles in its wait
					if sleepers, searching := counts(p.sleep.state.Load()); sleepers+searching > 0 {
						break
					}
					runtime.Gosched()
				}
				time.Sleep(5 * time.Millisecond) // inside the joiner's wait span
				return 2
			})
		return a + b
	})
	p.Close()
	var buf bytes.Buffer
	if err := p.Trace().WriteChrome(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := tracefmt.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var wait time.Duration
	for _, sp := range f.Spans {
		if sp.Cat == "wait" {
			wait += sp.Dur
		}
	}
	if wait < 5*time.Millisecond {
		t.Fatalf("waits total %v; the joiner idled while its stolen half slept 5 ms", wait)
	}
}
