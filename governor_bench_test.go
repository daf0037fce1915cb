package worksteal

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// neighbourEnv makes the test binary a CPU-bound neighbour process
// (TestNeighbourProcess) for BenchmarkGovernorNeighbour.
const neighbourEnv = "WORKSTEAL_NEIGHBOUR"

// TestNeighbourProcess is not a test: run by BenchmarkGovernorNeighbour as
// a separate process (the environment variable set), it spins on one
// thread and, for each line read on stdin, prints how many work units it
// has done so far.
func TestNeighbourProcess(t *testing.T) {
	if os.Getenv(neighbourEnv) == "" {
		t.Skip("only a helper process of BenchmarkGovernorNeighbour")
	}
	runtime.GOMAXPROCS(1)
	var units, sink atomic.Uint64
	go func() {
		x := uint64(1)
		for {
			for range 1 << 14 {
				x = x*6364136223846793005 + 1442695040888963407
			}
			sink.Store(x)
			units.Add(1)
		}
	}()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		fmt.Println(units.Load())
	}
	os.Exit(0)
}

// neighbour is a running neighbour process.
type neighbour struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startNeighbour(b *testing.B) *neighbour {
	cmd := exec.Command(os.Args[0], "-test.run=^TestNeighbourProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), neighbourEnv+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &neighbour{cmd: cmd, in: in, out: bufio.NewScanner(out)}
}

// units asks the neighbour how many units it has done.
func (n *neighbour) units(b *testing.B) uint64 {
	if _, err := io.WriteString(n.in, "\n"); err != nil {
		b.Fatal(err)
	}
	if !n.out.Scan() {
		b.Fatalf("neighbour: %v", n.out.Err())
	}
	v, err := strconv.ParseUint(strings.TrimSpace(n.out.Text()), 10, 64)
	if err != nil {
		b.Fatalf("neighbour said %q", n.out.Text())
	}
	return v
}

func (n *neighbour) stop() {
	n.in.Close()
	n.cmd.Wait()
}

// BenchmarkGovernorNeighbour measures, in one run, a 2-worker pool running
// a fixed batch of fork-join work (fib 30 × 8) beside a CPU-bound
// single-thread neighbour process, with and without Config.Governor
// (defaults: 250 ms readings, 1 s hold), interleaved, reps times each;
// plus each program alone. It reports medians:
//
//   - makespan-solo, makespan-gov, makespan-nogov: our batch's time;
//   - nb-solo, nb-gov, nb-nogov: the neighbour's units per second;
//   - sum-gov, sum-nogov: the sum of both programs' throughput, each as a
//     fraction of its solo throughput (2.0 would be both at full speed).
//
// Run it alone: go test -run '^$' -bench GovernorNeighbour -benchtime 1x .
func BenchmarkGovernorNeighbour(b *testing.B) {
	if runtime.NumCPU() < 2 {
		b.Skip("needs 2 CPUs")
	}
	// The batch must outlast several of the governor's readings and its
	// hold: 20 × fib 35 is about 2.6 s alone on the 2-core EPYC (8 × fib
	// 30 was 60 ms once Joins got cheaper: over before a second reading).
	const reps, batch, n = 3, 20, 35
	runBatch := func(gov bool) time.Duration {
		cfg := Config{Workers: 2}
		if gov {
			cfg.Governor = &Governor{}
		}
		p, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		t0 := time.Now()
		for range batch {
			if _, err := Run(p, func(w *Worker) int { return fibJoin(w, n) }); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t0)
	}
	for range b.N {
		var solo, withGov, noGov []float64
		var nbSolo, nbGov, nbNoGov []float64
		for range reps {
			solo = append(solo, runBatch(false).Seconds())

			nb := startNeighbour(b)
			time.Sleep(200 * time.Millisecond)
			u0, t0 := nb.units(b), time.Now()
			time.Sleep(2 * time.Second)
			nbSolo = append(nbSolo, float64(nb.units(b)-u0)/time.Since(t0).Seconds())
			for _, gov := range []bool{true, false} {
				u0, t0 := nb.units(b), time.Now()
				d := runBatch(gov)
				rate := float64(nb.units(b)-u0) / time.Since(t0).Seconds()
				if gov {
					withGov, nbGov = append(withGov, d.Seconds()), append(nbGov, rate)
				} else {
					noGov, nbNoGov = append(noGov, d.Seconds()), append(nbNoGov, rate)
				}
			}
			nb.stop()
		}
		med := func(xs []float64) float64 {
			s := slices.Clone(xs)
			slices.Sort(s)
			return s[len(s)/2]
		}
		ms, mg, mn := med(solo), med(withGov), med(noGov)
		ns, ng, nn := med(nbSolo), med(nbGov), med(nbNoGov)
		b.ReportMetric(ms, "makespan-solo-s")
		b.ReportMetric(mg, "makespan-gov-s")
		b.ReportMetric(mn, "makespan-nogov-s")
		b.ReportMetric(ns, "nb-solo-units/s")
		b.ReportMetric(ng, "nb-gov-units/s")
		b.ReportMetric(nn, "nb-nogov-units/s")
		b.ReportMetric(ms/mg+ng/ns, "sum-gov")
		b.ReportMetric(ms/mn+nn/ns, "sum-nogov")
		b.Logf("makespans solo %v, governor %v, none %v; neighbour units/s solo %v, governor %v, none %v", solo, withGov, noGov, nbSolo, nbGov, nbNoGov)
	}
}
