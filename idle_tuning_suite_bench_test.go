package worksteal_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/internal/bench"
	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/policy"
)

// idleSettings are the schedules BenchmarkIdleTuning compares: the default
// schedule (jittered backoff from 1 µs, capped at 100 µs) with 2, 8 (the
// default) or 32 rounds before parking, and the adaptive one.
var idleSettings = []struct {
	name string
	idle policy.Idle
}{
	{"fixed2", withRounds(2)},
	{"fixed8", withRounds(8)},
	{"fixed32", withRounds(32)},
	{"adaptive", policy.Idle{Adaptive: true}},
}

func withRounds(n int) policy.Idle {
	p := policyrt.DefaultIdle
	p.Rounds = n
	return p
}

var spinSink atomic.Int64

// spinWork burns about n×10 ns of CPU.
func spinWork(n int) int {
	x := 1
	for i := range n {
		x = x*31 + i
	}
	return x
}

// bursty submits 5 bursts of 32 small tasks (~20 µs each) with 200 µs gaps,
// in which the workers go idle and may park: a Submit workload whose cost
// is mostly waking up.
func bursty(p *worksteal.Pool) {
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(32)
		for range 32 {
			p.Submit(func(*worksteal.Worker) { spinSink.Store(int64(spinWork(2000))); wg.Done() })
		}
		wg.Wait()
		time.Sleep(200 * time.Microsecond)
	}
}

// suiteOp returns an op that runs the bench suite's workload at a size
// (internal/bench) n times in a row, each a computation of its own.
func suiteOp(b *testing.B, workload, size string, n int) func(*worksteal.Pool) {
	body, err := bench.Body(workload, size)
	if err != nil {
		b.Fatal(err)
	}
	return func(p *worksteal.Pool) {
		for range n {
			if _, err := worksteal.Run(p, body); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkIdleTuning runs each workload — the bench suite's fork-join
// kinds at small sizes (fib, nqueens, UTS), a fine-grained one (200 runs
// of fib 12 in a row: the cost is the hand-off between the submitting
// goroutine and the workers) and a bursty Submit load — with every idle
// schedule of idleSettings, each on a pool of its own with 2 workers (w2:
// one per core on the 2-core development machine) and with 4 (w4: more
// searching workers than cores, where a search takes a core that the
// submitter or a working worker needs), in one run: each of
// idleTuningRounds rounds times one op on every pool, starting with a
// different pool each round, so that samples compared with each other lie
// a few milliseconds apart and share the machine's load (on a shared
// machine that load changes from one millisecond to the next). Before each op the pools rest idleGap, longer than any schedule
// backs off, so that no pool's search takes a core from the one measured
// and each op starts from a parked pool, as a computation that arrives at
// an idle pool does.
//
// It reports each schedule's median ms per op and adaptive-vs-best-%: for
// each fixed schedule, the median over rounds of the adaptive schedule's
// time over the fixed one's in the same round, minus 1 (positive: adaptive
// is slower); of these, the largest — the comparison with the fixed
// schedule that did best against adaptive. (Pairing by round, rather than
// comparing each schedule's median, keeps the gap stable where the
// machine's load makes every schedule's times bimodal.) The log gives every
// paired median with a 95 % confidence interval (order statistics).
//
//	go test -run '^$' -bench IdleTuning -benchtime 1x .
//	go test -run '^$' -bench IdleTuning/w2 -benchtime 1x . # 2 workers only
func BenchmarkIdleTuning(b *testing.B) {
	workloads := []struct {
		name string
		op   func(p *worksteal.Pool)
	}{
		{"fib25", suiteOp(b, "fib", "25", 1)},
		{"nqueens9", suiteOp(b, "nqueens", "9", 1)},
		{"uts100", suiteOp(b, "uts", "100", 1)},
		{"fib12x200", suiteOp(b, "fib", "12", 200)},
		{"bursty-submit", bursty},
	}
	for _, workers := range []int{2, 4} {
		for _, wl := range workloads {
			b.Run(fmt.Sprintf("w%d/%s", workers, wl.name), func(b *testing.B) {
				for range b.N {
					ms := idleTuningRun(b, workers, wl.op)
					reportIdleTuning(b, ms)
				}
			})
		}
	}
}

// idleTuningRun times op on a pool of each idle schedule; ms[i][r] is
// schedule i's time in round r.
func idleTuningRun(b *testing.B, workers int, op func(*worksteal.Pool)) [][]float64 {
	pools := make([]*worksteal.Pool, len(idleSettings))
	for i, s := range idleSettings {
		p, err := worksteal.New(worksteal.Config{Workers: workers, Idle: s.idle})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		pools[i] = p
		op(p) // warm
	}
	ms := make([][]float64, len(idleSettings))
	for r := range idleTuningRounds {
		for k := range idleSettings {
			i := (r + k) % len(idleSettings)
			time.Sleep(idleGap)
			t0 := time.Now()
			op(pools[i])
			ms[i] = append(ms[i], float64(time.Since(t0).Nanoseconds())/1e6)
		}
	}
	return ms
}

const (
	idleTuningRounds = 201
	// idleGap is longer than the longest idle schedule compared (32
	// rounds: 2.5 ms of backing off).
	idleGap = 4 * time.Millisecond
)

// reportIdleTuning reports the medians and the paired adaptive-vs-best
// ratio of BenchmarkIdleTuning; ms[i][r] is schedule i's time in round r.
func reportIdleTuning(b *testing.B, ms [][]float64) {
	median := func(x []float64) float64 {
		s := slices.Clone(x)
		slices.Sort(s)
		return s[len(s)/2]
	}
	ad := len(idleSettings) - 1
	var log strings.Builder
	for i, s := range idleSettings {
		b.ReportMetric(median(ms[i]), s.name+"-ms")
		fmt.Fprintf(&log, " %s %.3f", s.name, median(ms[i]))
	}
	log.WriteString("; adaptive / fixed per round, median (95 % CI):")
	worst := math.Inf(-1)
	for i, s := range idleSettings[:ad] {
		ratio := make([]float64, len(ms[ad]))
		for r := range ratio {
			ratio[r] = ms[ad][r] / ms[i][r]
		}
		slices.Sort(ratio)
		n := len(ratio)
		// The median's 95 % interval: ranks n/2 ± 0.98·√n.
		h := int(0.98*math.Sqrt(float64(n)) + 0.5)
		lo, hi := max(0, n/2-h), min(n-1, n/2+h)
		fmt.Fprintf(&log, " %s %+.1f %% (%+.1f…%+.1f)", s.name, 100*(ratio[n/2]-1), 100*(ratio[lo]-1), 100*(ratio[hi]-1))
		worst = max(worst, 100*(ratio[n/2]-1))
	}
	b.ReportMetric(worst, "adaptive-vs-best-%")
	b.Log(log.String())
}
