package worksteal

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// neighbourEnv makes the test binary a CPU-bound neighbour process
// (TestNeighbourProcess) for BenchmarkGovernorNeighbour.
const neighbourEnv = "WORKSTEAL_NEIGHBOUR"

// TestNeighbourProcess is not a test: run by BenchmarkGovernorNeighbour and
// BenchmarkResizeUnderNeighbour as a separate process (the environment
// variable set), it spins on one thread and, for each line read on stdin,
// prints how many work units it has done so far; for a line "since NS",
// its own timeline instead: "T:U" pairs (Unix nanoseconds, units done
// then), one at least every millisecond it ran, from time NS on.
func TestNeighbourProcess(t *testing.T) {
	if os.Getenv(neighbourEnv) == "" {
		t.Skip("only a helper process of BenchmarkGovernorNeighbour")
	}
	runtime.GOMAXPROCS(1)
	var units, sink atomic.Uint64
	var mu sync.Mutex
	var stamps []stamp // the timeline, under mu
	go func() {
		x := uint64(1)
		var last int64
		for {
			for range 1 << 14 {
				x = x*6364136223846793005 + 1442695040888963407
			}
			sink.Store(x)
			u := units.Add(1)
			if now := time.Now().UnixNano(); now-last >= int64(time.Millisecond) {
				last = now
				mu.Lock()
				if len(stamps) < 1<<22 {
					stamps = append(stamps, stamp{now, u})
				}
				mu.Unlock()
			}
		}
	}()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		since, ok := strings.CutPrefix(in.Text(), "since ")
		if !ok {
			fmt.Println(units.Load())
			continue
		}
		ns, _ := strconv.ParseInt(since, 10, 64)
		var line strings.Builder
		mu.Lock()
		i, _ := slices.BinarySearchFunc(stamps, ns, func(s stamp, ns int64) int { return cmp.Compare(s.t, ns) })
		for _, s := range stamps[i:] {
			fmt.Fprintf(&line, "%d:%d ", s.t, s.u)
		}
		mu.Unlock()
		fmt.Println(line.String())
	}
	os.Exit(0)
}

// stamp is a point of the neighbour's timeline: at Unix time t (ns) it had
// done u units.
type stamp struct {
	t int64
	u uint64
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

// timeline asks the neighbour for its timeline from since on.
func (n *neighbour) timeline(b *testing.B, since time.Time) []stamp {
	if _, err := fmt.Fprintf(n.in, "since %d\n", since.UnixNano()); err != nil {
		b.Fatal(err)
	}
	if !n.out.Scan() {
		b.Fatalf("neighbour: %v", n.out.Err())
	}
	var ss []stamp
	for _, f := range strings.Fields(n.out.Text()) {
		ts, us, _ := strings.Cut(f, ":")
		t, err1 := strconv.ParseInt(ts, 10, 64)
		u, err2 := strconv.ParseUint(us, 10, 64)
		if err1 != nil || err2 != nil {
			b.Fatalf("neighbour's timeline: %q", f)
		}
		ss = append(ss, stamp{t, u})
	}
	return ss
}

// rateOver is the neighbour's units per second over [from, to] of its
// timeline ss (the stamps nearest inside the stretch), 0 if ss has fewer
// than two stamps there.
func rateOver(ss []stamp, from, to time.Time) float64 {
	i, _ := slices.BinarySearchFunc(ss, from.UnixNano(), func(s stamp, ns int64) int { return cmp.Compare(s.t, ns) })
	j, _ := slices.BinarySearchFunc(ss, to.UnixNano(), func(s stamp, ns int64) int { return cmp.Compare(s.t, ns) })
	if j >= len(ss) || ss[j].t > to.UnixNano() {
		j--
	}
	if i >= j || j >= len(ss) {
		return 0
	}
	return float64(ss[j].u-ss[i].u) / (float64(ss[j].t-ss[i].t) / 1e9)
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
