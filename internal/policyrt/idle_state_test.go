package policyrt

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/xrand"
	"github.com/worksteal/worksteal/policy"
)

// TestIdleState walks the schedule: one step per failed round, backoffs
// between the rounds, a park after the last, and round 0 again after it.
func TestIdleState(t *testing.T) {
	p := policy.Idle{Rounds: 4, Base: 10 * time.Microsecond, Cap: 40 * time.Microsecond}
	var s IdleState
	var got []string
	for i := 0; i < 8; i++ {
		st := s.Next(p, nil)
		got = append(got, fmt.Sprintf("%v %v", st.Kind, st.Delay))
	}
	want := []string{"spin 10µs", "sleep 20µs", "sleep 40µs", "park 0s", "spin 10µs", "sleep 20µs", "sleep 40µs", "park 0s"}
	if !slices.Equal(got, want) {
		t.Fatalf("steps %q; want %q", got, want)
	}
	s.Next(p, nil)
	if s.Round() != 1 {
		t.Fatalf("Round after one step = %d", s.Round())
	}
	s.Reset()
	if st := s.Next(p, nil); st.Kind != IdleSpin || st.Delay != 10*time.Microsecond {
		t.Fatalf("after Reset: %+v", st)
	}
	one, _ := NormalizeIdle(policy.Idle{Rounds: -1})
	s.Reset()
	if st := s.Next(one, nil); st.Kind != IdlePark {
		t.Fatalf("Rounds -1: first step %v; want park", st.Kind)
	}
	if !IdleSleep.Blocks() || !IdlePark.Blocks() || IdleSpin.Blocks() {
		t.Fatal("Blocks")
	}
	// The delay a step reports is the one drawn, within the jitter range,
	// and the kind follows that same value.
	j := policy.Idle{Rounds: 3, Base: 16 * time.Microsecond, Cap: 100 * time.Microsecond, Jitter: 1}
	r := xrand.New(3)
	sawSpin, sawSleep := false, false
	for i := 0; i < 1000; i++ {
		s.Reset()
		st := s.Next(j, r)
		if st.Delay < 0 || st.Delay > 16*time.Microsecond || (st.Kind == IdleSpin) != (st.Delay < SpinLimit) {
			t.Fatalf("step %+v", st)
		}
		st = s.Next(j, r) // nominal 32µs, drawn in [0, 32µs]
		sawSpin = sawSpin || st.Kind == IdleSpin
		sawSleep = sawSleep || st.Kind == IdleSleep
		if (st.Kind == IdleSpin) != (st.Delay < SpinLimit) {
			t.Fatalf("step %+v: kind disagrees with its delay", st)
		}
	}
	if !sawSpin || !sawSleep {
		t.Fatalf("jittered 32µs never drew both sides of SpinLimit (spin %v, sleep %v)", sawSpin, sawSleep)
	}
}
