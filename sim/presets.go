package sim

import (
	"fmt"
	"strings"
)

// Preset is a named, built-in scenario. Presets reproduce the classic
// teaching experiments of work stealing, plus a few that exercise the rest
// of the simulator.
type Preset struct {
	Name        string
	Description string
	Scenario    Scenario
}

// Presets returns the built-in scenarios, in a fixed order. Each call
// returns fresh copies that the caller may modify.
func Presets() []Preset {
	// seconds-scale costs for the teaching presets
	classicCosts := Costs{Steal: 0.05, Failed: 0.02}
	classicIdle := Idle{Rounds: 3, Base: 0.1, Cap: 1, Jitter: 0.5}
	classic := func(name string, workers int) Scenario {
		return Scenario{
			Name:    name,
			Seed:    1,
			Workers: Workers{Count: workers},
			Workload: Workload{Tasks: 10, Duration: Dist{Dist: DistUniform, Min: 0.5, Max: 2.0},
				Arrival: Arrival{Target: TargetOne}},
			Policy: Policy{Idle: classicIdle},
			Costs:  classicCosts,
		}
	}
	var ps []Preset
	add := func(desc string, s Scenario) { ps = append(ps, Preset{Name: s.Name, Description: desc, Scenario: s}) }

	add("3 workers, 10 tasks of 0.5-2.0 s submitted to worker 0; the others steal", classic("basic", 3))

	s := classic("nested", 4)
	s.Workload.Spawn = Spawn{Prob: 0.3, Min: 1, Max: 3, Depth: 4}
	add("tasks spawn 1-3 children with probability 30% in the middle of their run", s)

	s = classic("adaptive", 8)
	s.Workers.GroupSize = 4
	s.Workload.Duration = Dist{Dist: DistExponential, Mean: 0.5}
	s.Workload.Arrival = Arrival{Pattern: ArriveBursts, Bursts: []Burst{{At: 0, Tasks: 60, Worker: 0}, {At: 0, Tasks: 20, Worker: 5}}}
	s.Workload.Tasks = 0
	s.Costs.CrossGroup = 0.03
	s.Sweep = &Sweep{Param: "victim", Values: []string{"random", "largest", "two-choices", "locality", "round-robin"}}
	add("adaptive (largest-queue) vs random victims and the others, on uneven initial load", s)

	s = classic("granularity", 4)
	s.Workload = Workload{Total: 50, Duration: Dist{Dist: DistConstant, Value: 1}, Arrival: Arrival{Target: TargetOne}}
	s.Costs.Task = 0.01
	s.Sweep = &Sweep{Param: "grain", Values: []string{"0.1", "0.5", "2.0"}}
	add("50 s of work on 4 workers in tasks of 0.1, 0.5 and 2.0 s: wall time, speedup, efficiency, steal rate", s)

	s = classic("fork-join", 4)
	s.Workload.Tasks = 6
	s.Workload.Duration = Dist{Dist: DistUniform, Min: 0.5, Max: 1.5}
	s.Workload.Spawn = Spawn{Prob: 1, Min: 2, Max: 3, At: 0.3, Depth: 2, Join: true}
	add("fork-join parents wait for 2-3 children; the join stretches each parent", s)

	s = classic("backoff", 4)
	s.Workload = Workload{Tasks: 40, Duration: Dist{Dist: DistExponential, Mean: 1},
		Arrival: Arrival{Pattern: ArrivePoisson, Rate: 2, Target: TargetRandom}}
	s.Costs = Costs{Steal: 0.005, Failed: 0.005}
	s.Policy.Idle = Idle{Rounds: 6, Base: 0.05, Cap: 1, Jitter: 0.5}
	s.Sweep = &Sweep{Param: "backoff", Values: []string{"off", "0.01", "0.05", "0.2"}}
	add("no backoff vs backoff: idle time, steal attempts and total time under Poisson arrivals", s)

	s = classic("bursty", 4)
	s.Workload.Tasks = 0
	s.Workload.Arrival = Arrival{Pattern: ArriveBursts, Bursts: []Burst{
		{At: 0, Tasks: 10, Worker: 0}, {At: 5, Tasks: 10, Worker: 1}, {At: 10, Tasks: 10, Worker: 2}}}
	add("bursts: worker 0's tasks at t=0, worker 1's at t=5, worker 2's at t=10", s)

	s = classic("workers", 2)
	s.Workload.Tasks = 20
	s.Sweep = &Sweep{Param: "workers", Values: []string{"2", "3", "4", "5", "6", "7", "8"}}
	add("worker count 2..8 with 20 tasks: where does adding workers stop paying?", s)

	add("fib(27) fork-join tree with cutoff 12 on 8 workers, steal half", Scenario{
		Name: "fib", Seed: 1, Workers: Workers{Count: 8},
		Workload: Workload{Kind: KindFib, Fib: Fib{N: 27, Cutoff: 12, Leaf: 2e-9}},
		Policy:   Policy{Amount: "half"},
		Costs:    Costs{Steal: 200e-9, Failed: 100e-9, Task: 20e-9},
	})

	add("UTS geometric tree (b0=4, depth 6, root 0: 1,732 nodes) on 8 workers", Scenario{
		Name: "uts", Seed: 1, Workers: Workers{Count: 8},
		Workload: Workload{Kind: KindUTS, UTS: UTS{Type: UTSGeometric, Shape: ShapeLinear, B0: 4, Depth: 6, Node: 1e-6}},
		Costs:    Costs{Steal: 100e-9, Failed: 50e-9},
	})

	add("central queue with contention on fine tasks, 1..64 workers (compare --scheduler steal)", Scenario{
		Name: "central", Seed: 1, Workers: Workers{Count: 8},
		Workload: Workload{Tasks: 20000, Duration: Dist{Dist: DistConstant, Value: 10e-6}, Arrival: Arrival{Target: TargetRoundRobin}},
		Policy:   Policy{Scheduler: SchedCentral},
		Costs:    Costs{Queue: 100e-9, Contention: 50e-9, Steal: 200e-9, Failed: 100e-9},
		Sweep:    &Sweep{Param: "workers", Values: []string{"1", "2", "4", "8", "16", "32", "64"}},
	})

	add("faults: worker 3 is lost at t=1 s (detected 0.5 s later), worker 5 runs 4x slower from 0.5 s to 2 s", Scenario{
		Name: "faults", Seed: 1, Workers: Workers{Count: 8},
		Workload: Workload{Tasks: 400, Duration: Dist{Dist: DistExponential, Mean: 0.05}, Arrival: Arrival{Target: TargetRandom}},
		Costs:    Costs{Steal: 1e-4, Failed: 5e-5},
		Policy:   Policy{Idle: Idle{Rounds: 4, Base: 1e-3, Cap: 0.01, Jitter: 0.5}},
		Faults: []Fault{{Kind: FaultLose, Worker: 3, At: 1, Detect: 0.5},
			{Kind: FaultSlow, Worker: 5, At: 0.5, Until: 2, Factor: 0.25}},
	})

	add("heterogeneous machine: two fast, two slow cores in two groups; long-tailed tasks", Scenario{
		Name: "hetero", Seed: 1,
		Workers:  Workers{Count: 4, Speeds: []float64{2, 2, 0.5, 0.5}, GroupSize: 2},
		Workload: Workload{Tasks: 100, Duration: Dist{Dist: DistPareto, Min: 0.01, Alpha: 1.5, Max: 1}, Arrival: Arrival{Target: TargetRoundRobin}},
		Policy:   Policy{Victim: "locality"},
		Costs:    Costs{Steal: 1e-4, Failed: 5e-5, CrossGroup: 2e-4},
	})

	add("scale: 1,000,000 tasks on 1,024 workers (exponential, mean 1 ms), steal half", scaleScenario())
	return ps
}

// scaleScenario is the scale target: a million tasks on 1,024 workers.
func scaleScenario() Scenario {
	return Scenario{
		Name: "scale", Seed: 1, Workers: Workers{Count: 1024},
		Workload: Workload{Tasks: 1_000_000, Duration: Dist{Dist: DistExponential, Mean: 1e-3}, Arrival: Arrival{Target: TargetRandom}},
		Policy:   Policy{Amount: "half", Idle: Idle{Attempts: 32}},
		Costs:    Costs{Task: 100e-9, Steal: 1e-6, Failed: 5e-7},
	}
}

// LookupPreset returns a copy of the preset scenario with that name.
func LookupPreset(name string) (Scenario, error) {
	var names []string
	for _, p := range Presets() {
		if p.Name == name {
			return p.Scenario, nil
		}
		names = append(names, p.Name)
	}
	return Scenario{}, fmt.Errorf("sim: unknown preset %q (presets: %s)", name, strings.Join(names, ", "))
}
