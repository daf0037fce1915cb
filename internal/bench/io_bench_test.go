package bench

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/par"
)

// BenchmarkIOBatch is issue 30's I/O case as a new user meets it: 300
// simulated fetches, each a sleep of 5–20 ms (the wait for a server) and
// then 2 ms of CPU (parsing the reply), through a pool's Scope.Go and
// par.For, with and without Worker.Blocking around the wait, beside a
// goroutine per fetch and errgroup with SetLimit(32). The pool has
// GOMAXPROCS workers and the default Config: without Blocking, the stall
// monitor (Config.StallAfter) is what keeps the queued fetches moving.
//
//	go test -run '^$' -bench IOBatch -benchtime 5x ./internal/bench/
//
// The ideal on P cores is about max(300 × 2 ms / P, the longest sleep):
// 300 ms on 2 cores.
//
// Each process calibrates its 2 ms of CPU anew, so ms/op moves from one
// process to the next with the machine's speed at calibration; x-errgroup
// (a variant's ms/op over errgroup's, measured just before in the same
// process; reported when errgroup ran) compares the variants without it.
func BenchmarkIOBatch(b *testing.B) {
	const n = 300
	sleeps := make([]time.Duration, n)
	r := rand.New(rand.NewPCG(30, 4))
	for i := range sleeps {
		sleeps[i] = 5*time.Millisecond + time.Duration(r.Int64N(int64(15*time.Millisecond)))
	}
	spin := calibrateSpin(2 * time.Millisecond)
	var sink sync.Map
	fetch := func(i int, wait func(func())) {
		wait(func() { time.Sleep(sleeps[i]) })
		sink.Store(i%8, cpuWork(spin))
	}
	direct := func(f func()) { f() }
	var errgroupMS float64 // errgroup's ms/op in this process (0: not run)
	reportVsErrgroup := func(b *testing.B) {
		if errgroupMS > 0 {
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N)/errgroupMS, "x-errgroup")
		}
	}

	b.Run("errgroup-limit32", func(b *testing.B) {
		for b.Loop() {
			var g errgroup.Group
			g.SetLimit(32)
			for i := range n {
				g.Go(func() error { fetch(i, direct); return nil })
			}
			_ = g.Wait()
		}
		reportMS(b)
		errgroupMS = float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N)
	})
	b.Run("goroutines", func(b *testing.B) {
		for b.Loop() {
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() { fetch(i, direct) })
			}
			wg.Wait()
		}
		reportMS(b)
		reportVsErrgroup(b)
	})
	for _, blocking := range []bool{false, true} {
		name := "plain"
		if blocking {
			name = "Blocking"
		}
		wait := func(w *worksteal.Worker) func(func()) {
			if blocking {
				return w.Blocking
			}
			return direct
		}
		b.Run("ws-ScopeGo-"+name, func(b *testing.B) {
			p := newPool(b)
			for b.Loop() {
				err := p.Scope(context.Background(), func(w *worksteal.Worker, s *worksteal.Scope) error {
					for i := range n {
						s.Go(w, func(w *worksteal.Worker) error { fetch(i, wait(w)); return nil })
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			reportMS(b)
			reportVsErrgroup(b)
		})
		b.Run("ws-parFor-"+name, func(b *testing.B) {
			p := newPool(b)
			for b.Loop() {
				err := p.Do(func(w *worksteal.Worker) {
					par.For(w, 0, n, func(w *worksteal.Worker, i int) { fetch(i, wait(w)) })
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			reportMS(b)
			reportVsErrgroup(b)
		})
	}
}

func newPool(b *testing.B) *worksteal.Pool {
	p, err := worksteal.New(worksteal.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	return p
}

func reportMS(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// calibrateSpin returns the number of cpuWork steps that take about d on
// one core of this machine (measured once, best of five).
func calibrateSpin(d time.Duration) int {
	const probe = 1 << 16
	best := time.Duration(1 << 62)
	var sink uint64
	for range 5 {
		t0 := time.Now()
		sink += cpuWork(probe)
		best = min(best, time.Since(t0))
	}
	spinSink.Store(sink)
	return int(float64(probe) * float64(d) / float64(max(best, 1)))
}

var spinSink atomic.Uint64 // keeps the calibration's work from being removed

// cpuWork is n steps of an xorshift generator: CPU work the compiler
// cannot remove.
func cpuWork(n int) uint64 {
	x := uint64(88172645463325252)
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}
