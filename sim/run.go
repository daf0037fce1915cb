package sim

import (
	"context"
	"io"
)

// Options says what a run records besides its [Report]. The worksteal
// command also caps a run's events and records its schedule for its
// pictures (internal/simlab.Options); a program that runs a scenario has
// its context for a deadline, and the report for its figures.
type Options struct {
	// Log, when set, receives the verbose event log, one event a line:
	// "[12.4] worker 2: stole T17 from worker 0". Times are virtual seconds.
	Log io.Writer
	// record keeps the schedule (task spans and steals) in the [Result]
	// for writeGantt and writeTrace.
	record bool
	// maxEvents, when positive, stops a run that processes more events
	// with an error (a guard against scenarios that poll every nanosecond
	// for hours of virtual time).
	maxEvents int64
}

// Result is the outcome of one run: its [Report] and, when the worksteal
// command asked for it, the recorded schedule that its --trace and --svg
// write (internal/simlab.WriteTrace, WriteGantt).
type Result struct {
	Report   Report
	schedule *schedule // nil unless Options.record
}

// Run simulates the scenario and returns its report. The simulation is a
// pure function of the scenario (seed included): the same scenario gives
// byte-identical reports, logs and pictures, on any machine of the same
// architecture. Virtual time never depends on the wall clock.
//
// Run normalizes s first and returns a [*FieldError] for an invalid field.
// It checks ctx every few thousand events and returns ctx.Err() when it is
// done. A run stops when every task has finished, at the scenario's Limit,
// or when no worker is left to make progress (then the report's
// Totals.Completed is below Totals.Tasks).
func Run(ctx context.Context, s Scenario, o Options) (*Result, error) {
	if err := s.normalize(); err != nil {
		return nil, s.locate(err)
	}
	e, err := newEngine(&s, o)
	if err != nil {
		return nil, err
	}
	if err := e.run(ctx); err != nil {
		return nil, err
	}
	res := &Result{Report: e.report()}
	if o.record {
		res.schedule = e.rec
	}
	return res, nil
}
