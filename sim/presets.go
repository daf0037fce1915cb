package sim

import (
	"fmt"
	"strings"
)

// preset is a named, built-in scenario. Presets reproduce the classic
// teaching experiments of work stealing, plus a few that exercise the rest
// of the simulator.
type preset struct {
	Name        string
	Description string
	Scenario    Scenario
}

// The seed tutorial: Greg Wilson's "A Work-Stealing Scheduler" (the
// worksteal chapter of gvwilson/dsdx, simulated with asimpy). Its workers
// pop their own deque, else try every other worker once in random order
// (zero-cost steals, one task each), else wait 0.1 s and try again; tasks
// are submitted to random workers. Its published figures (the .out files
// beside its examples) are what the tutorial presets are checked against:
// a preset must land between the ideal and the published figure, since the
// tutorial's 0.1 s polling (and, for the granularity table, its 1 s
// completion check) only add delay.
const (
	tutorialPoll = 0.1 // seconds between a failed round and the next
)

// tutorial returns a scenario with the tutorial's setup on the given
// number of workers: random submission, zero-cost steals, 0.1 s retry.
func tutorial(name string, workers, tasks int, d Dist) Scenario {
	return Scenario{
		Name:     name,
		Seed:     1,
		Workers:  Workers{Count: workers},
		Workload: Workload{Tasks: tasks, Duration: d, Arrival: Arrival{Target: targetRandom}},
		Policy:   Policy{Idle: Idle{Mode: idlePoll, Interval: tutorialPoll}},
	}
}

// Published figures of the seed tutorial's examples, by preset (and sweep
// value): the makespan its output shows.
var tutorialPublished = map[string]map[string]float64{
	"basic":       {"": 4.2},                               // ex_basic_ws.out: last task completes at 4.2
	"nested":      {"": 4.5},                               // ex_spawning.out: last task completes at 4.5
	"adaptive":    {"": 5.4},                               // ex_adaptive.out: last task completes at 5.4
	"granularity": {"0.1": 13.0, "0.5": 13.0, "2.0": 15.0}, // ex_granularity.out: wall time
}

// presets returns the built-in scenarios, in a fixed order: first the seed
// tutorial's experiments (zero-cost steals, 0.1 s polling), then scenarios
// with realistic costs, each description naming them. Each call returns
// fresh copies that the caller may modify.
func presets() []preset {
	var ps []preset
	add := func(desc string, s Scenario) { ps = append(ps, preset{Name: s.Name, Description: desc, Scenario: s}) }
	const tut = "tutorial: "
	const tutCosts = "; zero-cost steals, 0.1 s retry"
	basicDur := Dist{Dist: distUniform, Min: 0.5, Max: 2.0}

	add(tut+"3 workers, 10 tasks of 0.5-2.0 s submitted to random workers"+tutCosts,
		tutorial("basic", 3, 10, basicDur))

	s := tutorial("nested", 4, 0, Dist{Dist: distUniform, Min: 1.0, Max: 3.0})
	s.Workload.Arrival = Arrival{Pattern: arriveBursts}
	for i := 0; i < 5; i++ {
		s.Workload.Arrival.Bursts = append(s.Workload.Arrival.Bursts, Burst{At: Seconds(0.5 * float64(i)), Tasks: 1, Target: targetRandom})
	}
	s.Workload.Spawn = Spawn{Prob: 0.3, Min: 1, Max: 3, At: 0.5, Depth: 8, Duration: &Dist{Dist: distUniform, Min: 0.3, Max: 1.0}}
	add(tut+"4 workers, 5 tasks of 1-3 s submitted every 0.5 s; halfway through, a task spawns 1-3 children of 0.3-1.0 s with probability 30%"+tutCosts, s)

	s = tutorial("adaptive", 4, 0, Dist{Dist: distUniform, Min: 1.0, Max: 2.0})
	s.Workload.Arrival = Arrival{Pattern: arriveBursts, Bursts: []Burst{{At: 0, Tasks: 12, Worker: 0}, {At: 0, Tasks: 3, Target: targetRandom}}}
	s.Policy.Victim = "largest"
	add(tut+"4 workers, 15 tasks of 1-2 s, 12 of them on worker 0; thieves steal from the largest queue"+tutCosts, s)

	s = tutorial("granularity", 4, 0, Dist{Dist: distConstant, Value: 1})
	s.Workload.Total = 50
	s.sweep = &sweepSpec{Param: "grain", Values: []string{"0.1", "0.5", "2.0"}}
	add(tut+"50 s of work on 4 workers in tasks of 0.1, 0.5 and 2.0 s: wall time, speedup, efficiency, steal rate"+tutCosts, s)

	s = tutorial("fork-join", 4, 0, Dist{Dist: distUniform, Min: 1.0, Max: 3.0})
	s.Workload.Arrival = ps[1].Scenario.Workload.Arrival
	s.Workload.Spawn = Spawn{Prob: 0.4, Min: 1, Max: 3, At: 0.5, Depth: 8, Join: true, Duration: &Dist{Dist: distUniform, Min: 0.3, Max: 0.8}}
	add(tut+"nested, as fork-join: with probability 40% a task forks 1-3 children of 0.3-0.8 s and resumes when they finish (the forking worker runs one child and keeps the others latent until an idle worker asks, as the runtime does, except the forks within policy.EagerDepth levels of the root of its stack, which it pushes at once)"+tutCosts, s)

	s = tutorial("workers", 2, 20, basicDur)
	s.sweep = &sweepSpec{Param: "workers", Values: []string{"2", "3", "4", "5", "6", "7", "8"}}
	add(tut+"exercise 1: 2..8 workers, 20 tasks of 0.5-2.0 s: where does adding workers stop paying?"+tutCosts, s)

	s = tutorial("backoff", 3, 10, basicDur)
	s.Policy.Idle = Idle{Mode: idlePoll, Interval: tutorialPoll, Rounds: 1000, Base: 0.05, Cap: 0.5, Jitter: 0}
	s.sweep = &sweepSpec{Param: "idle", Values: []string{"poll", "backoff"}}
	add(tut+"exercise 4: the basic run with a fixed 0.1 s retry vs exponential backoff from 0.05 s to 0.5 s; zero-cost steals", s)

	s = tutorial("bursty", 4, 0, Dist{Dist: distUniform, Min: 1.0, Max: 2.0})
	s.Workload.Arrival = Arrival{Pattern: arriveBursts, Bursts: []Burst{{At: 0, Tasks: 10, Worker: 0}, {At: 5, Tasks: 10, Worker: 1}}}
	s.sweep = &sweepSpec{Param: "victim", Values: []string{"random", "largest"}}
	add(tut+"exercise 5: worker 0's 10 tasks at t=0, worker 1's 10 at t=5 (1-2 s each): largest-queue (adaptive) vs random victims"+tutCosts, s)

	s = tutorial("granularity-costs", 4, 0, Dist{Dist: distConstant, Value: 1})
	s.Workload.Total = 50
	s.Workload.Arrival = Arrival{Target: targetOne}
	s.Policy.Idle = Idle{Rounds: 3, Base: 0.1, Cap: 1, Jitter: 0.5}
	s.Costs = Costs{Task: 0.01, Steal: 0.05, Failed: 0.02}
	s.sweep = &sweepSpec{Param: "grain", Values: []string{"0.1", "0.5", "2.0"}}
	add("granularity with costs: 50 s of work on 4 workers, all tasks on worker 0; costs 10 ms per task, 50 ms per steal, 20 ms per failed steal; the runtime's idle protocol (3 rounds, backoff 0.1-1 s): the finest grain pays most", s)

	add("fib(27) fork-join tree with cutoff 12 on 8 workers, steal half; costs 20 ns per task, 200 ns per steal, 100 ns per failed steal", Scenario{
		Name: "fib", Seed: 1, Workers: Workers{Count: 8},
		Workload: Workload{Kind: kindFib, Fib: Fib{N: 27, Cutoff: 12, Leaf: 2e-9}},
		Policy:   Policy{Amount: "half"},
		Costs:    Costs{Steal: 200e-9, Failed: 100e-9, Task: 20e-9},
	})

	add("UTS geometric tree (b0=4, depth 6, root 0: 1,732 nodes) of 1 µs nodes on 8 workers; costs 100 ns per steal, 50 ns per failed steal", Scenario{
		Name: "uts", Seed: 1, Workers: Workers{Count: 8},
		Workload: Workload{Kind: kindUTS, UTS: UTS{Type: utsGeometric, Shape: shapeLinear, B0: 4, Depth: 6, Node: 1e-6}},
		Costs:    Costs{Steal: 100e-9, Failed: 50e-9},
	})

	add("central queue on 10 µs tasks, 1..64 workers; costs 100 ns per access plus 50 ns per waiting worker (compare --scheduler steal: 200 ns per steal)", Scenario{
		Name: "central", Seed: 1, Workers: Workers{Count: 8},
		Workload: Workload{Tasks: 20000, Duration: Dist{Dist: distConstant, Value: 10e-6}, Arrival: Arrival{Target: targetRoundRobin}},
		Policy:   Policy{Scheduler: schedCentral},
		Costs:    Costs{Queue: 100e-9, Contention: 50e-9, Steal: 200e-9, Failed: 100e-9},
		sweep:    &sweepSpec{Param: "workers", Values: []string{"1", "2", "4", "8", "16", "32", "64"}},
	})

	add("faults: worker 3 is lost at t=1 s (detected 0.5 s later), worker 5 runs 4x slower from 0.5 s to 2 s; costs 100 µs per steal, 50 µs per failed steal", Scenario{
		Name: "faults", Seed: 1, Workers: Workers{Count: 8},
		Workload: Workload{Tasks: 400, Duration: Dist{Dist: distExponential, Mean: 0.05}, Arrival: Arrival{Target: targetRandom}},
		Costs:    Costs{Steal: 1e-4, Failed: 5e-5},
		Policy:   Policy{Idle: Idle{Rounds: 4, Base: 1e-3, Cap: 0.01, Jitter: 0.5}},
		Faults: []Fault{{Kind: faultLose, Worker: 3, At: 1, Detect: 0.5},
			{Kind: faultSlow, Worker: 5, At: 0.5, Until: 2, Factor: 0.25}},
	})

	add("heterogeneous machine: two fast, two slow cores in two groups; long-tailed tasks; costs 100 µs per steal (300 µs across groups), 50 µs per failed steal", Scenario{
		Name: "hetero", Seed: 1,
		Workers:  Workers{Count: 4, Speeds: []float64{2, 2, 0.5, 0.5}, GroupSize: 2},
		Workload: Workload{Tasks: 100, Duration: Dist{Dist: distPareto, Min: 0.01, Alpha: 1.5, Max: 1}, Arrival: Arrival{Target: targetRoundRobin}},
		Policy:   Policy{Victim: "locality"},
		Costs:    Costs{Steal: 1e-4, Failed: 5e-5, CrossGroup: 2e-4},
	})

	// The cluster tier's two tiers (issue 20): 16 machines of 8 cores, a
	// steal inside a machine costs what a deque steal does, one across
	// machines a network hand-over.
	room := func(name string) Scenario {
		return Scenario{
			Name: name, Seed: 1, Workers: Workers{Count: 128, GroupSize: 8},
			Workload: Workload{Kind: kindUTS, UTS: UTS{Type: utsGeometric, Shape: shapeLinear, B0: 4, Depth: 11, Node: 100e-6}},
			Policy:   Policy{Amount: "half"},
			Costs:    Costs{Steal: 50e-9, Failed: 50e-9, CrossGroup: 500e-6},
		}
	}
	s = room("machine-room")
	s.sweep = &sweepSpec{Param: "victim", Values: []string{"locality", "random"}}
	add("two-tier machine room: 16 machines x 8 cores, a UTS tree (b0=4, depth 11, 51,000 nodes) of 100 µs nodes, steal half; 50 ns per steal in a machine, 500 µs more across machines: local-first (locality victims) vs flat random stealing (compare machine-room-central)", s)
	s = room("machine-room-central")
	s.Policy = Policy{Scheduler: schedCentral}
	s.Costs = Costs{Queue: 50e-6}
	add("the machine room with one central queue (a broker): every task goes through it, 50 µs per access, serialized (the cluster tier's measured rate, about 20,000 tasks a second)", s)

	add("scale: 1,000,000 tasks on 1,024 workers (exponential, mean 1 ms), steal half; costs 100 ns per task, 1 µs per steal, 0.5 µs per failed steal", scaleScenario())
	return ps
}

// scaleScenario is the scale target: a million tasks on 1,024 workers.
func scaleScenario() Scenario {
	return Scenario{
		Name: "scale", Seed: 1, Workers: Workers{Count: 1024},
		Workload: Workload{Tasks: 1_000_000, Duration: Dist{Dist: distExponential, Mean: 1e-3}, Arrival: Arrival{Target: targetRandom}},
		Policy:   Policy{Amount: "half", Idle: Idle{Attempts: 32}},
		Costs:    Costs{Task: 100e-9, Steal: 1e-6, Failed: 5e-7},
	}
}

// lookupPreset returns a copy of the preset scenario with that name.
func lookupPreset(name string) (Scenario, error) {
	var names []string
	for _, p := range presets() {
		if p.Name == name {
			return p.Scenario, nil
		}
		names = append(names, p.Name)
	}
	return Scenario{}, fmt.Errorf("sim: unknown preset %q (presets: %s)", name, strings.Join(names, ", "))
}
