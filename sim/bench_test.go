package sim

import (
	"context"
	"testing"

	"github.com/worksteal/worksteal/internal/proctest"
)

// TestScale runs the scale scenario — a million tasks on 1,024 workers —
// to completion (skipped under -short and the race detector). How fast it
// runs is BenchmarkScale's to say: a wall-clock threshold here would fail
// on a loaded machine.
func TestScale(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("scale run: not under -short or -race")
	}
	r, err := Run(context.Background(), scaleScenario(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tot := r.Report.Totals
	if tot.Completed != 1_000_000 {
		t.Fatalf("completed %d tasks", tot.Completed)
	}
	if d := r.Report.DAG; d.makespan < d.LowerBound {
		t.Fatalf("makespan %v below the lower bound %v", d.makespan, d.LowerBound)
	}
}

// BenchmarkScale runs the scale scenario (1M tasks, 1,024 workers) and
// reports simulated events per second of wall time, and per second of the
// process's CPU time (getrusage, where the system has it): on a shared,
// loaded machine the wall time counts other processes' turns, the CPU time
// does not.
func BenchmarkScale(b *testing.B) {
	s := scaleScenario()
	var events int64
	cpu0 := proctest.CPUTime().Seconds()
	for b.Loop() {
		r, err := Run(context.Background(), s, Options{})
		if err != nil {
			b.Fatal(err)
		}
		events += r.Report.Totals.events
	}
	cpu := proctest.CPUTime().Seconds() - cpu0
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	if cpu > 0 {
		b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(events)/cpu, "events/cpu-s")
	}
}

// BenchmarkEngine measures the engine on medium scenarios of each kind.
func BenchmarkEngine(b *testing.B) {
	for _, name := range []string{"fib", "uts", "faults", "central"} {
		s, _ := lookupPreset(name)
		s.sweep = nil
		b.Run(name, func(b *testing.B) {
			var events int64
			for b.Loop() {
				r, err := Run(context.Background(), s, Options{})
				if err != nil {
					b.Fatal(err)
				}
				events += r.Report.Totals.events
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkManyWorkers runs a short scenario on 100,000 workers: 100,000
// tasks of 1 ms on random workers, zero-cost steals, the runtime's idle
// protocol (each worker that runs out searches, backs off, sleeps and
// parks). Simulated workers cost O(1) each. (With a latency per steal
// attempt, a round over all 99,999 others makes the search O(P²) events:
// cap the attempts per round, as the scale preset does.)
func BenchmarkManyWorkers(b *testing.B) {
	s := Scenario{Seed: 1, Workers: Workers{Count: 100_000},
		Workload: Workload{Tasks: 100_000, Duration: Dist{Value: 1e-3}, Arrival: Arrival{Target: targetRandom}}}
	var events int64
	for b.Loop() {
		r, err := Run(context.Background(), s, Options{})
		if err != nil {
			b.Fatal(err)
		}
		events += r.Report.Totals.events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
