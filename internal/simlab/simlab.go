// Package simlab is the worksteal command's side of the simulator: the
// built-in presets (`worksteal sim --list`), sweeps over one parameter
// (`--sweep`, a scenario's sweep block) with their table, CSV and SVG
// writers, and the lists of names its flags complete. A Go program that
// imports sim builds its scenario, varies it in its own loop and reads
// the reports; these serve the command, its tests and the anchor suite.
// The code lives in package sim, beside the engine it tests (the presets
// are the engine's fixtures: its goldens and determinism checks), and is
// reached through internal/simx.
package simlab

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/worksteal/worksteal/internal/simx"
	"github.com/worksteal/worksteal/sim"
)

// Sweep is a scenario's sweep block: run the scenario once per value of
// one parameter ([SweepParams]).
type Sweep = simx.Sweep

// Preset is a named, built-in scenario. Presets reproduce the classic
// teaching experiments of work stealing, plus a few that exercise the rest
// of the simulator.
type Preset struct {
	Name        string
	Description string
	Scenario    sim.Scenario // with its sweep block, if any ([SweepOf])
}

// Presets returns the built-in scenarios, in a fixed order: first the seed
// tutorial's experiments (zero-cost steals, 0.1 s polling), then scenarios
// with realistic costs, each description naming them. Each call returns
// fresh copies that the caller may modify.
func Presets() []Preset {
	var ps []Preset
	for _, p := range simx.Presets() {
		ps = append(ps, Preset{Name: p.Name, Description: p.Description, Scenario: p.Scenario.(sim.Scenario)})
	}
	return ps
}

// LookupPreset returns a copy of the preset scenario with that name.
func LookupPreset(name string) (sim.Scenario, error) {
	var names []string
	for _, p := range Presets() {
		if p.Name == name {
			return p.Scenario, nil
		}
		names = append(names, p.Name)
	}
	return sim.Scenario{}, fmt.Errorf("sim: unknown preset %q (presets: %s)", name, strings.Join(names, ", "))
}

// SweepOf returns the sweep block of s (read by sim.ParseScenario from a
// scenario file's "sweep" key, or set by [WithSweep]), or nil.
func SweepOf(s sim.Scenario) *Sweep { return simx.SweepOf(s) }

// WithSweep returns s with the sweep block sw (nil: none).
func WithSweep(s sim.Scenario, sw *Sweep) sim.Scenario { return simx.WithSweep(s, sw).(sim.Scenario) }

// ParseSweep reads a sweep given as "param=v1,v2,...", with "a..b" for a
// range of integers (workers=2..8).
func ParseSweep(spec string) (*Sweep, error) { return simx.ParseSweep(spec) }

// SweepResult is one report per value of the swept parameter.
type SweepResult struct {
	Name    string
	Param   string
	Values  []string
	Reports []sim.Report
	r       *simx.SweepResult
}

// RunSweep runs s once per value of its sweep block (which must be set),
// changing only that parameter, and collects the reports in value order. A
// value that makes the scenario invalid is a *sim.FieldError naming
// "sweep.values[i]" and the field it broke, with the line of a parsed
// scenario. Options apply to every run.
func RunSweep(ctx context.Context, s sim.Scenario, o sim.Options) (*SweepResult, error) {
	r, err := simx.RunSweep(ctx, s, o)
	if err != nil {
		return nil, err
	}
	return &SweepResult{Name: r.Name, Param: r.Param, Values: r.Values, Reports: r.Reports.([]sim.Report), r: r}, nil
}

// WriteTable writes the sweep as a text table, one row per value.
func (sr *SweepResult) WriteTable(w io.Writer) error { return sr.r.Table(w) }

// WriteCSV writes the sweep as CSV, one row per value.
func (sr *SweepResult) WriteCSV(w io.Writer) error { return sr.r.CSV(w) }

// WriteSVG draws the sweep as a line plot: speedup (left axis) and
// efficiency and steal rate (right axis, as fractions) against the swept
// parameter. Numeric parameters are spaced by value, others evenly.
func (sr *SweepResult) WriteSVG(w io.Writer) error { return sr.r.SVG(w) }

// Options returns o with what only the command sets: maxEvents, when
// positive, stops a run that processes more events with an error (a guard
// against scenarios that poll every nanosecond for hours of virtual time;
// a program has its context), and record keeps the schedule (task spans and
// steals) for [WriteGantt] and [WriteTrace].
func Options(o sim.Options, maxEvents int64, record bool) sim.Options {
	return simx.WithRun(o, maxEvents, record).(sim.Options)
}

// WriteTrace writes the recorded schedule of res (run with [Options]'
// record) as Chrome trace-event JSON, which opens in Perfetto
// (ui.perfetto.dev) or chrome://tracing: one thread per worker, a complete
// event ("ph":"X") per span with ts and dur in microseconds, and an instant
// event ("ph":"i") per steal on the thief's thread. The runtime's trace
// recorder writes the same format, so a simulated and a real schedule look
// alike (`worksteal trace` reads both).
func WriteTrace(res *sim.Result, w io.Writer) error { return simx.WriteTrace(res, w) }

// WriteGantt draws the recorded schedule of res as an SVG Gantt chart: one
// lane per worker, a bar per task piece (colored by task; continuations
// darker, aborted pieces red) and a black tick per steal on the thief's
// lane. Pieces too short to see are merged into grey runs so that a
// million-task schedule stays drawable.
func WriteGantt(res *sim.Result, w io.Writer) error { return simx.WriteGantt(res, w) }

// MaxWorkers bounds a scenario's worker count.
func MaxWorkers() int { return simx.MaxWorkers }

// Schedulers are the values of sim.Policy.Scheduler.
func Schedulers() []string { return simx.Schedulers }

// IdleModes are the values of sim.Idle.Mode.
func IdleModes() []string { return simx.IdleModes }

// SweepParams are the parameters a [Sweep] can vary (sim's sweep.go says
// what a value of each means).
func SweepParams() []string { return simx.SweepParams }
