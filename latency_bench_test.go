package worksteal_test

import (
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/par"
)

// BenchmarkThiefWait measures how long an idle worker waits for a Join
// half that another worker forked while nobody was idle (so the half is
// latent): from the moment the thief runs dry to the moment the half
// starts. The owner is inside one of five first halves meanwhile:
// fine-grained Joins, the same Joins while the owner allocates, a par
// loop, a 10 ms leaf without a poll point, and the same leaf calling
// Worker.Poll every ~10 µs. A half that the owner
// ended up running itself (the leaf without polls) counts with the time
// it started. Metrics: p50 and p99 in µs, and the share of halves a thief
// ran.
func BenchmarkThiefWait(b *testing.B) {
	spin := func(d time.Duration, poll *worksteal.Worker) {
		end := time.Now().Add(d)
		for i := 0; ; i++ {
			if i%64 == 0 {
				if time.Now().After(end) {
					return
				}
				if poll != nil {
					poll.Poll()
				}
			}
		}
	}
	const span = 10 * time.Millisecond
	owners := []struct {
		name string
		run  func(w *worksteal.Worker)
	}{
		{"joins", func(w *worksteal.Worker) {
			end := time.Now().Add(span)
			for time.Now().Before(end) {
				fibW(w, 12)
			}
		}},
		{"joins+alloc", func(w *worksteal.Worker) {
			// The same Joins in an owner that allocates (64 B every fib(12),
			// kept in a ring of 4096: the collector runs often, with a
			// bounded heap), as most real Go code does.
			end := time.Now().Add(span)
			for i := 0; time.Now().Before(end); i++ {
				fibW(w, 12)
				allocRing[i%len(allocRing)] = make([]byte, 64)
			}
		}},
		{"par", func(w *worksteal.Worker) {
			var sink atomic.Int64
			end := time.Now().Add(span)
			for time.Now().Before(end) {
				par.For(w, 0, 4096, func(_ *worksteal.Worker, i int) { sink.Add(int64(i)) })
			}
		}},
		{"leaf", func(w *worksteal.Worker) { spin(span, nil) }},
		{"leaf+Poll", func(w *worksteal.Worker) { spin(span, w) }},
	}
	for _, o := range owners {
		b.Run(o.name, func(b *testing.B) {
			p, err := worksteal.New(worksteal.Config{Workers: 2})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			var waits []time.Duration
			stolen := 0
			for b.Loop() {
				var ystarted, forked atomic.Bool
				var t0, t1 time.Time
				var owner, runner int
				worksteal.Run(p, func(w *worksteal.Worker) int {
					worksteal.Join(w, func(w *worksteal.Worker) int {
						// x: wait until the other worker runs y, then fork
						// while both are busy: the inner half is latent.
						for !ystarted.Load() {
							w.Poll()
						}
						owner = w.ID()
						worksteal.Join(w, func(w *worksteal.Worker) int {
							forked.Store(true)
							o.run(w)
							return 0
						}, func(w *worksteal.Worker) int {
							t1, runner = time.Now(), w.ID()
							return 0
						})
						return 0
					}, func(w *worksteal.Worker) int {
						ystarted.Store(true)
						for !forked.Load() {
						}
						t0 = time.Now() // y ends: this worker runs dry now
						return 0
					})
					return 0
				})
				waits = append(waits, t1.Sub(t0))
				if runner != owner {
					stolen++
				}
			}
			b.ReportMetric(quantileMicros(waits, 0.5), "p50-µs")
			b.ReportMetric(quantileMicros(waits, 0.99), "p99-µs")
			b.ReportMetric(float64(stolen)/float64(len(waits)), "stolen")
		})
	}
}

var allocRing [4096][]byte

func fibW(w *worksteal.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := worksteal.JoinFunc(w, fibW, n-2, fibW, n-1)
	return a + b
}

// BenchmarkStartDelay measures how long a computation started on an idle
// pool (every worker parked: a gap of 2 ms before each Run) waits for its
// second worker: from Run's call to the start of the root Join's second
// half on the other worker, while the first half computes for 2 ms
// without a poll point (the Join is at the root, so its second half is
// offered at once). "first" is Run's call to the first half's start.
// Metrics: p50 and p99 of each in µs, and the share of second halves that
// the other worker ran.
func BenchmarkStartDelay(b *testing.B) {
	cfg := worksteal.Config{Workers: 2}
	p, err := worksteal.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	var firsts, seconds []time.Duration
	stolen := 0
	for b.Loop() {
		time.Sleep(2 * time.Millisecond) // timed too: StopTimer stops the world
		var ta, tb time.Time
		var wa, wb int
		t0 := time.Now()
		worksteal.Run(p, func(w *worksteal.Worker) int {
			worksteal.Join(w, func(w *worksteal.Worker) int {
				ta, wa = time.Now(), w.ID()
				for end := ta.Add(2 * time.Millisecond); time.Now().Before(end); {
				}
				return 0
			}, func(w *worksteal.Worker) int {
				tb, wb = time.Now(), w.ID()
				return 0
			})
			return 0
		})
		firsts = append(firsts, ta.Sub(t0))
		seconds = append(seconds, tb.Sub(t0))
		if wa != wb {
			stolen++
		}
	}
	b.ReportMetric(quantileMicros(firsts, 0.5), "first-p50-µs")
	b.ReportMetric(quantileMicros(seconds, 0.5), "second-p50-µs")
	b.ReportMetric(quantileMicros(seconds, 0.99), "second-p99-µs")
	b.ReportMetric(float64(stolen)/float64(len(seconds)), "stolen")
}

// BenchmarkWakeFromRunning is the Go scheduler's side of the runtime's
// wake-up, with plain goroutines: after a 2 ms gap (the machine idle), A
// is woken and, 10 µs into a 2 ms computation, wakes B with a channel send
// (as a worker that forks wakes a parked thief). "wait" is A's send to B's
// start, "resume" is A's send to A's next instruction. With "yield", A
// calls runtime.Gosched after the send, as the runtime's workers do
// (Worker.posted): B then runs on A's P at once and A resumes on the
// thread the wake-up started. Metrics: p50 and p90 of each in µs, and the
// share of wakes where B waited more than 1 ms.
func BenchmarkWakeFromRunning(b *testing.B) {
	for _, yield := range []bool{false, true} {
		name := "send"
		if yield {
			name = "send+yield"
		}
		b.Run(name, func(b *testing.B) {
			wa, wb, done := make(chan struct{}, 1), make(chan struct{}, 1), make(chan struct{}, 2)
			var sent, resumed, started time.Time
			go func() {
				for range wa {
					spinFor(10 * time.Microsecond)
					sent = time.Now()
					wb <- struct{}{}
					if yield {
						runtime.Gosched()
					}
					resumed = time.Now()
					spinFor(2 * time.Millisecond)
					done <- struct{}{}
				}
			}()
			go func() {
				for range wb {
					started = time.Now()
					spinFor(time.Millisecond)
					done <- struct{}{}
				}
			}()
			defer close(wa)
			defer close(wb)
			var waits, resumes []time.Duration
			late := 0
			for b.Loop() {
				time.Sleep(2 * time.Millisecond)
				wa <- struct{}{}
				<-done
				<-done
				waits = append(waits, started.Sub(sent))
				resumes = append(resumes, resumed.Sub(sent))
				if started.Sub(sent) > time.Millisecond {
					late++
				}
			}
			b.ReportMetric(quantileMicros(waits, 0.5), "wait-p50-µs")
			b.ReportMetric(quantileMicros(waits, 0.9), "wait-p90-µs")
			b.ReportMetric(quantileMicros(resumes, 0.5), "resume-p50-µs")
			b.ReportMetric(float64(late)/float64(len(waits)), "late")
		})
	}
}

// quantileMicros is the f-quantile of ds (sorted in place) in µs.
func quantileMicros(ds []time.Duration, f float64) float64 {
	slices.Sort(ds)
	return float64(ds[int(f*float64(len(ds)-1))]) / 1e3
}

// BenchmarkBursts measures bursts of small work from outside the pool,
// back to back ("gap=0") or after the pool has idled for 200 µs (its
// workers backing off or parked): "tasks", 4 submitted tasks of about 1 µs;
// "pair", 2 submitted tasks that each wait (yielding) until both have
// started, which needs both workers at once; "loop", a Run of par.For over
// 8 iterations of about 1 µs. This is what a change to how workers park
// and wake must not slow down: a wake-up that puts a worker on another,
// idle CPU costs more than such a burst (docs/measured.md, "Two ways to
// park"). Metric: µs per burst (the op).
func BenchmarkBursts(b *testing.B) {
	for _, kind := range []string{"tasks", "pair", "loop"} {
		for _, gap := range []time.Duration{0, 200 * time.Microsecond} {
			b.Run("kind="+kind+"/gap="+gap.String(), func(b *testing.B) {
				p, err := worksteal.New(worksteal.Config{Workers: 2})
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				done := make(chan struct{}, 4)
				var started atomic.Int32
				submit := func(f func(*worksteal.Worker)) {
					if err := p.Submit(f); err != nil {
						b.Fatal(err)
					}
				}
				burst := func() {
					switch kind {
					case "tasks":
						for range 4 {
							submit(func(*worksteal.Worker) { spinFor(time.Microsecond); done <- struct{}{} })
						}
						for range 4 {
							<-done
						}
					case "pair":
						started.Store(0)
						for range 2 {
							submit(func(*worksteal.Worker) {
								started.Add(1)
								for started.Load() < 2 {
									runtime.Gosched()
								}
								done <- struct{}{}
							})
						}
						<-done
						<-done
					case "loop":
						if err := p.Do(func(w *worksteal.Worker) {
							par.For(w, 0, 8, func(*worksteal.Worker, int) { spinFor(time.Microsecond) })
						}); err != nil {
							b.Fatal(err)
						}
					}
				}
				var busy time.Duration
				for b.Loop() {
					if gap > 0 {
						spinFor(gap) // timed too: StopTimer stops the world
					}
					t0 := time.Now()
					burst()
					busy += time.Since(t0)
				}
				b.ReportMetric(float64(busy.Nanoseconds())/1e3/float64(b.N), "µs/burst")
			})
		}
	}
}

// spinFor computes for d without a poll point or a yield.
func spinFor(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}
