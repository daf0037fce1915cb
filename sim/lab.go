package sim

import (
	"context"
	"io"

	"github.com/worksteal/worksteal/internal/simx"
)

// What the worksteal command's presets and sweeps (internal/simlab) reach
// through internal/simx: they live here, beside the engine whose tests use
// them, and no Go program that imports sim sees them.
func init() {
	simx.MaxWorkers = maxWorkers
	simx.Schedulers = schedulers
	simx.IdleModes = idleModes
	simx.SweepParams = sweepParams
	simx.Presets = func() []simx.Preset {
		var ps []simx.Preset
		for _, p := range presets() {
			ps = append(ps, simx.Preset{Name: p.Name, Description: p.Description, Scenario: p.Scenario})
		}
		return ps
	}
	simx.ParseSweep = parseSweep
	simx.RunSweep = func(ctx context.Context, s, o any) (*simx.SweepResult, error) {
		r, err := runSweep(ctx, s.(Scenario), o.(Options))
		if err != nil {
			return nil, err
		}
		return &simx.SweepResult{Name: r.Name, Param: r.Param, Values: r.Values, Reports: r.Reports,
			Table: r.WriteTable, CSV: r.WriteCSV, SVG: r.WriteSVG}, nil
	}
	simx.WithRun = func(o any, maxEvents int64, record bool) any {
		c := o.(Options)
		c.maxEvents, c.record = maxEvents, record
		return c
	}
	simx.WriteGantt = func(res any, w io.Writer) error { return res.(*Result).writeGantt(w) }
	simx.WriteTrace = func(res any, w io.Writer) error { return res.(*Result).writeTrace(w) }
	simx.SweepOf = func(s any) *simx.Sweep { return s.(Scenario).sweep }
	simx.WithSweep = func(s any, sw *simx.Sweep) any {
		c := s.(Scenario)
		c.sweep = sw
		return c
	}
}
