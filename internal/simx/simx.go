// Package simx is what package sim lends internal/simlab (the worksteal
// command's presets and sweeps): sim imports this package and fills its
// variables in its init, so that the presets, the sweep runner and the
// lists of names stay beside the engine they test while no Go program
// that imports sim sees them. The functions take and return sim's values
// as any (sim.Scenario, sim.Options, []sim.Report); internal/simlab gives
// them their types.
package simx

import (
	"context"
	"io"
)

// Sweep is a scenario's sweep block: run the scenario once per value of one
// parameter. In a scenario file it is the "sweep" key.
type Sweep struct {
	Param  string   `json:"param"`
	Values []string `json:"values"`
}

// Preset is a named, built-in scenario (Scenario is a sim.Scenario).
type Preset struct {
	Name        string
	Description string
	Scenario    any
}

// SweepResult is one report per value of the swept parameter (Reports is
// a []sim.Report), with its writers.
type SweepResult struct {
	Name    string
	Param   string
	Values  []string
	Reports any
	Table   func(io.Writer) error // a text table, one row per value
	CSV     func(io.Writer) error
	SVG     func(io.Writer) error // a line plot against the swept parameter
}

// Set by package sim's init.
var (
	// MaxWorkers bounds a scenario's worker count.
	MaxWorkers int
	// Schedulers, IdleModes and SweepParams are the values of
	// Policy.Scheduler, Idle.Mode and Sweep.Param.
	Schedulers, IdleModes, SweepParams []string

	Presets    func() []Preset
	ParseSweep func(spec string) (*Sweep, error)
	RunSweep   func(ctx context.Context, s, o any) (*SweepResult, error)
	SweepOf    func(s any) *Sweep
	WithSweep  func(s any, sw *Sweep) any

	// WithRun returns the sim.Options o with the command's event cap
	// (0: none) and recording of the schedule.
	WithRun func(o any, maxEvents int64, record bool) any
	// WriteGantt and WriteTrace write a *sim.Result's recorded schedule.
	WriteGantt, WriteTrace func(res any, w io.Writer) error
)
