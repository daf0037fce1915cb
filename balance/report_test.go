package balance

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// durations draws n task durations from a distribution: mean 1ms times
// the factor f returns for each draw.
func durations(seed uint64, n int, f func(r *rand.Rand) float64) []time.Duration {
	r := rand.New(rand.NewPCG(seed, seed))
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(float64(time.Millisecond) * f(r))
	}
	return out
}

func TestAnalyzeSuggests(t *testing.T) {
	uniform := durations(1, 1000, func(r *rand.Rand) float64 { return 0.9 + 0.2*r.Float64() })
	variable := durations(2, 1000, func(r *rand.Rand) float64 { return 0.2 + 1.6*r.Float64() })
	lognormal := durations(3, 1000, func(r *rand.Rand) float64 { return math.Exp(1.2 * r.NormFloat64()) })
	cases := []struct {
		name string
		p    Profile
		want Strategy
	}{
		{"nothing measured", Profile{}, StrategyUnknown},
		{"uniform", Profile{Durations: uniform}, StrategyStatic},
		{"uniform with known costs stays static", Profile{Durations: uniform, CostsKnown: true}, StrategyStatic},
		{"variable", Profile{Durations: variable}, StrategyDynamic},
		{"long tail", Profile{Durations: lognormal}, StrategyStealingHedging},
		{"long tail with known costs", Profile{Durations: lognormal, CostsKnown: true}, StrategyWeighted},
		{"variable with known costs", Profile{Durations: variable, CostsKnown: true}, StrategyWeighted},
		{"loads only, even", Profile{Loads: []float64{10, 10.5, 9.8}}, StrategyStatic},
		{"loads only, uneven", Profile{Loads: []float64{10, 2, 3}}, StrategyDynamic},
		{"busy only, uneven", Profile{Busy: []time.Duration{10, 2}, Idle: []time.Duration{0, 8}}, StrategyDynamic},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Analyze(tc.p)
			if r.Suggest != tc.want {
				t.Errorf("Analyze(%s).Suggest = %v (%s); want %v", tc.name, r.Suggest, r.Why, tc.want)
			}
			if r.Why == "" {
				t.Errorf("Analyze(%s).Why is empty", tc.name)
			}
		})
	}
}

func TestAnalyzeChecks(t *testing.T) {
	s := time.Second
	cases := []struct {
		name       string
		p          Profile
		wantChecks []string // names, in order
		wantMissed []string
	}{
		{"nothing measured", Profile{}, nil, nil},
		{
			"all met",
			Profile{
				Loads:     []float64{10, 11},
				Durations: []time.Duration{s, s, s},
				Busy:      []time.Duration{95 * s}, Idle: []time.Duration{5 * s},
			},
			[]string{"imbalance", "straggler ratio", "utilization"},
			nil,
		},
		{
			"all missed",
			Profile{
				Loads:     []float64{10, 2},
				Durations: []time.Duration{s, s, 5 * s},
				Busy:      []time.Duration{5 * s}, Idle: []time.Duration{5 * s},
			},
			[]string{"imbalance", "straggler ratio", "utilization"},
			[]string{"imbalance", "straggler ratio", "utilization"},
		},
		{
			"busy stands in for loads",
			Profile{Busy: []time.Duration{9 * s, 3 * s}, Idle: []time.Duration{0, 6 * s}},
			[]string{"imbalance", "straggler ratio", "utilization"},
			[]string{"imbalance", "utilization"},
		},
		{
			"exactly on a target misses it",
			Profile{Loads: []float64{12, 8}},
			[]string{"imbalance", "straggler ratio"},
			[]string{"imbalance"},
		},
	}
	names := func(cs []Check) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Analyze(tc.p)
			if got := names(r.Checks); !slices.Equal(got, tc.wantChecks) {
				t.Errorf("Analyze(%s) checks %v; want %v", tc.name, got, tc.wantChecks)
			}
			if got := names(r.Missed()); !slices.Equal(got, tc.wantMissed) {
				t.Errorf("Analyze(%s) missed %v; want %v", tc.name, got, tc.wantMissed)
			}
			if r.OK() != (len(tc.wantMissed) == 0) {
				t.Errorf("Analyze(%s).OK() = %v; want %v", tc.name, r.OK(), len(tc.wantMissed) == 0)
			}
		})
	}
}

// TestAnalyzeUsesTheMetrics: the report's numbers are the metric functions'
// numbers, not a second definition.
func TestAnalyzeUsesTheMetrics(t *testing.T) {
	p := Profile{
		Loads:       []float64{4, 2, 3},
		Durations:   []time.Duration{1, 2, 3, 10},
		Busy:        []time.Duration{8, 6},
		Idle:        []time.Duration{2, 4},
		QueueDepths: []float64{1, 3},
	}
	r := Analyze(p)
	if r.Imbalance != Imbalance(p.Loads) || r.StragglerRatio != StragglerRatio(p.Durations) ||
		r.Utilization != Utilization(p.Busy, p.Idle) || r.QueueDepthStdDev != QueueDepthStdDev(p.QueueDepths) {
		t.Errorf("Analyze = %+v; want the metric functions' values", r)
	}
}

func TestReportString(t *testing.T) {
	r := Analyze(Profile{Loads: []float64{3, 1}})
	want := "imbalance 1.50 (target < 1.20): missed\n" +
		"straggler ratio 1.50 (target < 2.00): met\n" +
		"suggest: dynamic/stealing (uneven loads (imbalance 1.50), task durations unknown)"
	if got := r.String(); got != want {
		t.Errorf("Report.String() =\n%s\nwant\n%s", got, want)
	}
	if got := (Check{Name: "utilization", Value: 0.95, Target: 0.9, Above: true, Met: true}).String(); !strings.Contains(got, "> 0.90): met") {
		t.Errorf("Check.String() = %q; want the target with >", got)
	}
}

func TestStrategyString(t *testing.T) {
	cases := []struct {
		s    Strategy
		want string
	}{
		{StrategyUnknown, "unknown"},
		{StrategyStatic, "static"},
		{StrategyDynamic, "dynamic/stealing"},
		{StrategyStealingHedging, "stealing + hedging"},
		{StrategyWeighted, "weighted (LPT)"},
		{Strategy(99), "unknown"},
	}
	for _, tc := range cases {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("Strategy(%d).String() = %q; want %q", int(tc.s), got, tc.want)
		}
	}
}
