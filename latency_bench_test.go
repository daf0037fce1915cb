package worksteal_test

import (
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
			slices.Sort(waits)
			q := func(f float64) float64 { return float64(waits[int(f*float64(len(waits)-1))]) / 1e3 }
			b.ReportMetric(q(0.5), "p50-µs")
			b.ReportMetric(q(0.99), "p99-µs")
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
