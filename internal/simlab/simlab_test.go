package simlab

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/worksteal/worksteal/sim"
)

// A scenario file's sweep block reaches the command through the parsed
// scenario (sim keeps it unexported), survives Normalize and a copy, and
// a bad value is named with the block's line. Red when the decoder drops
// the block (SweepOf nil) or when Normalize loses it.
func TestASweepBlockTravelsWithItsScenario(t *testing.T) {
	s, err := sim.ParseScenario([]byte("workers:\n  count: 2\nsweep:\n  param: workers\n  values: [2, 3]\n"))
	if err != nil {
		t.Fatal(err)
	}
	sw := SweepOf(*s)
	if sw == nil || sw.Param != "workers" || !slices.Equal(sw.Values, []string{"2", "3"}) {
		t.Fatalf("SweepOf(parsed) = %+v; want workers [2 3]", sw)
	}
	n, err := s.Normalize()
	if err != nil || SweepOf(n) == nil {
		t.Fatalf("Normalize dropped the sweep block: %+v, %v", SweepOf(n), err)
	}
	res, err := RunSweep(context.Background(), n, sim.Options{})
	if err != nil || len(res.Reports) != 2 || len(res.Reports[1].PerWork) != 3 {
		t.Fatalf("RunSweep = %+v, %v; want reports for 2 and 3 workers", res, err)
	}
	if SweepOf(WithSweep(n, nil)) != nil {
		t.Fatal("WithSweep(nil) kept the sweep block")
	}
	bad, err := sim.ParseScenario([]byte("workers:\n  count: 2\nsweep:\n  param: workers\n  values: [2, -3]\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = RunSweep(context.Background(), *bad, sim.Options{})
	var fe *sim.FieldError
	if !errors.As(err, &fe) || fe.Path != "sweep.values[1]" || fe.Line != 5 {
		t.Fatalf("RunSweep error = %v; want sweep.values[1] at line 5", err)
	}
}
