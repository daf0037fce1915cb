package simlab_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/worksteal/worksteal/internal/simlab"
	"github.com/worksteal/worksteal/sim"
)

func ExampleRunSweep() {
	s, _ := simlab.LookupPreset("workers")
	s = simlab.WithSweep(s, &simlab.Sweep{Param: "workers", Values: []string{"2", "4", "8"}})
	res, err := simlab.RunSweep(context.Background(), s, sim.Options{})
	if err != nil {
		panic(err)
	}
	for i, r := range res.Reports {
		fmt.Printf("%s workers: speedup %.2f, efficiency %.0f%%\n", res.Values[i], r.Totals.Speedup, 100*r.Totals.Efficiency)
	}
	// Output:
	// 2 workers: speedup 1.95, efficiency 98%
	// 4 workers: speedup 3.94, efficiency 98%
	// 8 workers: speedup 6.72, efficiency 84%
}

func ExampleSweepResult_WriteCSV() {
	s, _ := simlab.LookupPreset("granularity")
	res, err := simlab.RunSweep(context.Background(), s, sim.Options{})
	if err != nil {
		panic(err)
	}
	res.WriteCSV(os.Stdout)
	// Output:
	// grain,makespan,speedup,efficiency,steal_rate,attempts,idle,overhead,utilization,imbalance,completion
	// 0.1,12.5,4,1,0.052,57,0,0,1,1,1
	// 0.5,12.5,4,1,0.15,36,0,0,1,1,1
	// 2.0,14,3.5714286,0.89285714,0.24,192,6,0,0.89285714,1.12,1
}

func ExampleSweepResult_WriteTable() {
	s, _ := simlab.LookupPreset("bursty")
	res, err := simlab.RunSweep(context.Background(), s, sim.Options{})
	if err != nil {
		panic(err)
	}
	res.WriteTable(os.Stdout)
	// Output:
	// bursty: sweep of victim (steal (victim random, amount one, idle poll every 100ms); 20 tasks, uniform 1s..2s, 2 bursts)
	//
	//    victim  makespan  speedup  efficiency  steal_rate  attempts    idle  overhead  utilization  imbalance  completion
	//    random    9.538s    3.014       75.3%       0.750       314  9.407s        0s        75.3%      1.078      100.0%
	//   largest    9.538s    3.014       75.3%       0.750       303  9.407s        0s        75.3%      1.078      100.0%
}

func ExampleSweepResult_WriteSVG() {
	s, _ := simlab.LookupPreset("workers")
	res, _ := simlab.RunSweep(context.Background(), s, sim.Options{})
	var svg bytes.Buffer
	res.WriteSVG(&svg) // write it to a file and open it in a browser
	fmt.Println(strings.HasPrefix(svg.String(), "<svg"), strings.Count(svg.String(), "<polyline"))
	// Output:
	// true 3
}

func ExampleParseSweep() {
	sw, err := simlab.ParseSweep("workers=2..5")
	fmt.Println(sw.Param, sw.Values, err)
	// Output:
	// workers [2 3 4 5] <nil>
}

func ExamplePresets() {
	for _, p := range simlab.Presets()[:3] {
		fmt.Printf("%-8s %s\n", p.Name, p.Description)
	}
	// Output:
	// basic    tutorial: 3 workers, 10 tasks of 0.5-2.0 s submitted to random workers; zero-cost steals, 0.1 s retry
	// nested   tutorial: 4 workers, 5 tasks of 1-3 s submitted every 0.5 s; halfway through, a task spawns 1-3 children of 0.3-1.0 s with probability 30%; zero-cost steals, 0.1 s retry
	// adaptive tutorial: 4 workers, 15 tasks of 1-2 s, 12 of them on worker 0; thieves steal from the largest queue; zero-cost steals, 0.1 s retry
}

func ExampleLookupPreset() {
	s, err := simlab.LookupPreset("granularity")
	fmt.Println(s.Workers.Count, simlab.SweepOf(s).Param, simlab.SweepOf(s).Values, err)
	_, err = simlab.LookupPreset("nope")
	fmt.Println(err != nil)
	// Output:
	// 4 grain [0.1 0.5 2.0] <nil>
	// true
}

func ExampleWriteTrace() {
	s := sim.Scenario{Workers: sim.Workers{Count: 2}, Workload: sim.Workload{Tasks: 2, Duration: sim.Dist{Value: 0.001}}}
	res, _ := sim.Run(context.Background(), s, simlab.Options(sim.Options{}, 0, true))
	simlab.WriteTrace(res, os.Stdout)
	// Output:
	// {"displayTimeUnit":"ms","traceEvents":[
	// {"name":"process_name","ph":"M","pid":0,"tid":0,"args":{"name":"sim"}},
	// {"name":"thread_name","ph":"M","pid":0,"tid":0,"args":{"name":"worker 0"}},
	// {"name":"thread_name","ph":"M","pid":0,"tid":1,"args":{"name":"worker 1"}},
	// {"name":"T1","cat":"run","ph":"X","ts":0,"dur":1000,"pid":0,"tid":0},
	// {"name":"T0","cat":"run","ph":"X","ts":0,"dur":1000,"pid":0,"tid":1},
	// {"name":"steal T0 from 0","cat":"steal","ph":"i","s":"t","ts":0,"pid":0,"tid":1,"args":{"count":1}}
	// ]}
}

func ExampleWriteGantt() {
	// the basic preset of `worksteal sim`: the seed tutorial's first run
	s := sim.Scenario{Name: "basic", Seed: 1, Workers: sim.Workers{Count: 3},
		Workload: sim.Workload{Tasks: 10, Duration: sim.Dist{Dist: "uniform", Min: 0.5, Max: 2}, Arrival: sim.Arrival{Target: "random"}},
		Policy:   sim.Policy{Idle: sim.Idle{Mode: "poll", Interval: 0.1}}}
	res, _ := sim.Run(context.Background(), s, simlab.Options(sim.Options{}, 0, true))
	var svg bytes.Buffer
	simlab.WriteGantt(res, &svg) // one lane per worker, a bar per task, ▼ per steal
	fmt.Println(strings.Count(svg.String(), "<rect"), strings.Count(svg.String(), "stole"))
	// Output:
	// 12 1
}
