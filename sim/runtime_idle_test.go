package sim_test

// This test pins "a simulated policy is the real one" for idle workers: the
// runtime and the simulator, put in the same scripted situation, make the
// same sequence of idle decisions. It is the one place where sim's tests
// use the runtime (sim itself never imports it).

import (
	"bufio"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/internal/testdeadline"
	"github.com/worksteal/worksteal/policy"
	"github.com/worksteal/worksteal/sim"
)

// scriptIdle is the idle schedule of the script: after failed round 0 a
// 10 µs spin (below policyrt.SpinLimit), after rounds 1 and 2 timed sleeps of
// 20 and 40 µs, after round 3 a park. No jitter, so both executions draw
// the same delays.
var scriptIdle = policy.Idle{Rounds: 4, Base: 10 * time.Microsecond, Cap: 40 * time.Microsecond, Jitter: 0}

// The script, on two workers:
//
//  1. Both start with no work: each goes through the whole schedule and
//     parks.
//  2. A task is submitted to worker 0 (SubmitTo; in the simulator an
//     arrival for worker 0): worker 0 is woken and takes it; as the last
//     searcher to find work it wakes worker 1 (chain wake-up), which finds
//     nothing, goes through the schedule again and parks.
//  3. Once worker 1 has parked the second time, the task forks: the push
//     wakes worker 1 (nobody searches), which steals the forked half and
//     runs it.
//
// Worker 1's decisions are written as tokens: fail (a failed steal
// attempt), block (it announced itself and slept or parked), wake (it
// woke, by its timer or by a waker), steal, run. Spins leave no token
// (the runtime's trace records none; the simulator logs them, and they are
// dropped). Untimed parks are counted separately.
func TestIdleDecisionsMatchRuntime(t *testing.T) {
	want := []string{
		// 1: fail, spin, fail, sleep 20µs, fail, sleep 40µs, fail, park
		"fail", "fail", "block", "wake", "fail", "block", "wake", "fail", "block",
		// 2: woken by the chain wake-up; the schedule again from round 0
		"wake", "fail", "fail", "block", "wake", "fail", "block", "wake", "fail", "block",
		// 3: woken by the fork's push
		"wake", "steal", "run",
	}
	rt, rtParks := runtimeDecisions(t)
	sm, smParks := simDecisions(t)
	t.Logf("runtime: %v (%d parks)", rt, rtParks)
	t.Logf("sim:     %v (%d parks)", sm, smParks)
	if !slices.Equal(rt, want) {
		t.Errorf("runtime's worker 1 decided\n%v\nwant\n%v", rt, want)
	}
	if !slices.Equal(sm, want) {
		t.Errorf("simulator's worker 1 decided\n%v\nwant\n%v", sm, want)
	}
	if rtParks != 2 || smParks != 2 {
		t.Errorf("untimed parks of worker 1: runtime %d, simulator %d; want 2 and 2", rtParks, smParks)
	}
}

// runtimeDecisions plays the script on a real pool and reads worker 1's
// decisions from its trace.
func runtimeDecisions(t *testing.T) ([]string, uint64) {
	p, err := worksteal.New(worksteal.Config{Workers: 2, Idle: scriptIdle, Trace: 4096, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	deadline := time.Now().Add(testdeadline.Left(t))
	parked := func(worker int, n uint64) bool {
		for time.Now().Before(deadline) {
			if p.Stats().Workers[worker].Parks >= n {
				return true
			}
			time.Sleep(50 * time.Microsecond)
		}
		return false
	}
	// A pool's workers start parked without searching (pool.go; neither
	// start-up park is traced); the simulator's start searching an empty
	// pool and park. A no-op task posted to worker 0 wakes a worker, and
	// the chain wake-up the other, so worker 1 then searches an empty pool
	// as the simulator's workers do at time 0: from there on the two
	// executions are compared.
	if err := p.SubmitTo(0, func(*worksteal.Worker) {}); err != nil {
		t.Fatal(err)
	}
	if !parked(0, 1) || !parked(1, 1) {
		t.Fatal("the idle workers never parked")
	}
	done := make(chan string, 1)
	var parks uint64 // worker 1's untimed parks when it starts the stolen half
	err = p.SubmitTo(0, func(w *worksteal.Worker) {
		if w.ID() != 0 || !parked(1, 2) {
			done <- "the task ran on the wrong worker, or worker 1 never parked again"
			return
		}
		started := make(chan struct{})
		worksteal.Join(w, func(*worksteal.Worker) bool {
			select { // keep the first half busy until the second half is stolen
			case <-started:
				return true
			case <-time.After(time.Until(deadline)):
				return false
			}
		}, func(w *worksteal.Worker) bool {
			parks = p.Stats().Workers[w.ID()].Parks // before it can park again
			close(started)
			return true
		})
		done <- ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if msg := <-done; msg != "" {
		t.Fatal(msg)
	}
	var tokens []string
	// Worker 1 may be the one the no-op woke (it then takes the no-op from
	// worker 0's inbox): its decisions are compared from the no-op's end.
	events := p.Trace().Workers[1]
	for i, ev := range events {
		if ev.Kind == worksteal.EvPark {
			break
		}
		if ev.Kind == worksteal.EvTaskEnd {
			events = events[i+1:]
			break
		}
	}
	for _, ev := range events {
		switch ev.Kind {
		case worksteal.EvStealFail:
			tokens = append(tokens, "fail")
		case worksteal.EvPark:
			tokens = append(tokens, "block")
		case worksteal.EvWake:
			tokens = append(tokens, "wake")
		case worksteal.EvSteal:
			tokens = append(tokens, "steal")
		case worksteal.EvTaskStart:
			return append(tokens, "run"), parks
		}
	}
	return tokens, parks
}

// simDecisions plays the script in the simulator and reads worker 1's
// decisions from the event log.
func simDecisions(t *testing.T) ([]string, int64) {
	s := sim.Scenario{
		Seed:    1,
		Workers: sim.Workers{Count: 2},
		Workload: sim.Workload{
			Duration: sim.Dist{Value: 0.01},
			Arrival:  sim.Arrival{Pattern: "bursts", Bursts: []sim.Burst{{At: 0.001, Tasks: 1, Worker: 0}}},
			Spawn:    sim.Spawn{Prob: 1, Min: 1, Max: 1, At: 0.5, Depth: 1},
		},
		Policy: sim.Policy{Idle: sim.Idle{Rounds: scriptIdle.Rounds, Base: sim.Seconds(scriptIdle.Base.Seconds()),
			Cap: sim.Seconds(scriptIdle.Cap.Seconds()), Jitter: scriptIdle.Jitter}},
	}
	var log strings.Builder
	res, err := sim.Run(context.Background(), s, sim.Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^\[[0-9.]+\] worker 1: (failed to steal|sleeps|parks|wakes|sleep ends|stole|starts)`)
	var tokens []string
	sc := bufio.NewScanner(strings.NewReader(log.String()))
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		switch m[1] {
		case "failed to steal":
			tokens = append(tokens, "fail")
		case "sleeps", "parks":
			tokens = append(tokens, "block")
		case "wakes", "sleep ends":
			tokens = append(tokens, "wake")
		case "stole":
			tokens = append(tokens, "steal")
		case "starts":
			return append(tokens, "run"), res.Report.PerWork[1].Parks
		}
	}
	return tokens, res.Report.PerWork[1].Parks
}
