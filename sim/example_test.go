package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/worksteal/worksteal/sim"
)

// The classic teaching experiment: three workers, ten tasks of 0.5-2 s, all
// submitted to worker 0; the other two steal.
func ExampleRun() {
	s := sim.Scenario{
		Seed:    1,
		Workers: sim.Workers{Count: 3},
		Workload: sim.Workload{Tasks: 10,
			Duration: sim.Dist{Dist: "uniform", Min: 0.5, Max: 2}},
		Policy: sim.Policy{Victim: "random", Amount: "one"},
		Costs:  sim.Costs{Steal: 0.05, Failed: 0.02},
	}
	res, err := sim.Run(context.Background(), s, sim.Options{})
	if err != nil {
		panic(err)
	}
	t := res.Report.Totals
	fmt.Printf("makespan %.3fs, speedup %.2f, %d steals\n", t.Makespan, t.Speedup, t.Steals)
	d := res.Report.DAG
	fmt.Printf("lower bound %.3fs <= makespan <= ... (T1 %.3fs, T∞ %.3fs)\n", d.LowerBound, d.T1, d.TInf)
	// Output:
	// makespan 4.275s, speedup 2.45, 6 steals
	// lower bound 3.497s <= makespan <= ... (T1 10.490s, T∞ 1.402s)
}

// The verbose event log, one line per event, in virtual seconds.
func ExampleOptions_log() {
	// the basic preset of `worksteal sim`: the seed tutorial's first run
	s := sim.Scenario{Name: "basic", Seed: 1, Workers: sim.Workers{Count: 3},
		Workload: sim.Workload{Tasks: 10, Duration: sim.Dist{Dist: "uniform", Min: 0.5, Max: 2}, Arrival: sim.Arrival{Target: "random"}},
		Policy:   sim.Policy{Idle: sim.Idle{Mode: "poll", Interval: 0.1}}}
	var log bytes.Buffer
	if _, err := sim.Run(context.Background(), s, sim.Options{Log: &log}); err != nil {
		panic(err)
	}
	lines := strings.Split(log.String(), "\n")
	fmt.Println(strings.Join(lines[:5], "\n"))
	// Output:
	// [0] 10 tasks arrive (T0..T9)
	// [0] worker 0: starts T3
	// [0] worker 1: starts T7
	// [0] worker 2: starts T9
	// [0.576624789] worker 2: finishes T9
}

func ExampleParseScenario() {
	s, err := sim.ParseScenario([]byte(`{
  "workers": {"count": 4},
  "workload": {"tasks": 100, "duration": {"dist": "exponential", "mean": "2ms"}},
  "policy": {"victim": "adaptive", "amount": "half"}
}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Workers.Count, s.Workload.Duration.Mean, s.Policy.Victim, s.Policy.Idle.Mode)

	// A bad field is named, with its line.
	_, err = sim.ParseScenario([]byte("{\n  \"workers\": {\"count\": 4},\n  \"policy\": {\"victim\": \"nearest\"}\n}"))
	fmt.Println(err)
	// Output:
	// 4 0.002 largest backoff
	// sim: line 3: policy.victim: unknown value "nearest" (want one of random, round-robin, largest, adaptive, two-choices, locality)
}

// The same scenario in YAML; its errors name the line and the field.
func ExampleParseScenario_yaml() {
	s, err := sim.ParseScenario([]byte(`
workers:
  count: 8
workload:
  kind: fib
  fib: {n: 25, cutoff: 10}
policy:
  amount: half
  max_batch: -1   # no cap on steal-half
`))
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Workers.Count, s.Workload.Kind, s.Workload.Fib.N, s.Policy.Amount, s.Policy.MaxBatch)

	_, err = sim.ParseScenario([]byte("workers:\n  count: eight\n"))
	fmt.Println(err)
	// Output:
	// 8 fib 25 half -1
	// sim: line 2: workers.count: want an integer, got a string
}

func ExampleScenario_Normalize() {
	s, err := sim.Scenario{}.Normalize()
	fmt.Println(s.Workers.Count, s.Workload.Kind, s.Workload.Tasks, s.Policy.Scheduler, s.Policy.Victim, s.Policy.Idle.Mode, err)
	// Output:
	// 4 tasks 1 steal random backoff <nil>
}

func ExampleSeconds_Duration() {
	fmt.Println(sim.Seconds(0.0025).Duration())
	// Output:
	// 2.5ms
}

func ExampleReport_WriteText() {
	s := sim.Scenario{Name: "tiny", Workers: sim.Workers{Count: 2}, Workload: sim.Workload{Tasks: 3}}
	res, _ := sim.Run(context.Background(), s, sim.Options{})
	res.Report.WriteText(os.Stdout)
	// Output:
	// tiny: 2 workers, seed 0
	// policy:   steal (victim random, amount one, idle backoff 8 rounds, 1µs..100µs, jitter 0.5)
	// costs:    none (the ideal machine)
	// workload: 3 tasks, constant 1s to worker 0
	//
	//   worker  speed  group  executed  stolen  stolen-from  attempts  failed  queue  busy  overhead  idle    util
	//        0      1      0         2       0            1         1       1      0    2s        0s    0s  100.0%
	//        1      1      0         1       1            0         9       8      0    1s        0s    1s   50.0%
	//      all                       3       1            1        10       9           3s        0s    1s   75.0%
	//
	// tasks            3 of 3 completed (100.0%)
	// makespan         2s
	// total work       3s
	// speedup          1.500    efficiency 75.0%
	// steal rate       0.333    1 steals, 9 of 10 attempts failed
	// steal latency    mean 0s  p99 0s
	// load imbalance   1.333    (max/mean busy)
	// straggler ratio  1.333    (max/median busy)
	// utilization      75.0%
	// queue depth      mean 0.5  variance 0.25 over time, 0.125 across workers
	//
	// work-span: T1 3s, T∞ 1s, parallelism 3
	//   lower bound max(T1/P, T∞) 1.5s  <=  makespan 2s  vs greedy bound T1/P + T∞ 2.5s
	// events: 12
}

func ExampleReport_WriteJSON() {
	s := sim.Scenario{Workers: sim.Workers{Count: 2}, Workload: sim.Workload{Tasks: 4}}
	res, _ := sim.Run(context.Background(), s, sim.Options{})
	var b bytes.Buffer
	res.Report.WriteJSON(&b)
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, `"makespan"`) || strings.Contains(l, `"speedup"`) {
			fmt.Println(strings.TrimSpace(l))
		}
	}
	// Output:
	// "makespan": 2,
	// "speedup": 2,
	// "makespan": 2
}

// A report marshals whole: the figures Go code reads as fields and the
// ones only its JSON and text carry, such as the effective policy.
func ExampleReport_MarshalJSON() {
	s := sim.Scenario{Workers: sim.Workers{Count: 2}, Workload: sim.Workload{Tasks: 4}}
	res, _ := sim.Run(context.Background(), s, sim.Options{})
	b, _ := json.Marshal(res.Report)
	var r struct {
		Policy string `json:"policy"`
		Totals struct {
			Makespan float64 `json:"makespan"`
			Busy     float64 `json:"busy"`
		} `json:"totals"`
	}
	json.Unmarshal(b, &r)
	fmt.Println(r.Policy)
	fmt.Println(r.Totals.Makespan, r.Totals.Busy)
	// Output:
	// steal (victim random, amount one, idle backoff 8 rounds, 1µs..100µs, jitter 0.5)
	// 2 4
}
