package sim

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The seed tutorial's runs, replayed task by task from its published
// output (testdata/tutorial/*.yaml), land between the ideal — the work-span
// lower bound max(T1/P, T∞), release times included — and the makespan the
// tutorial published: same tasks, same setup, and the tutorial's polling
// can only add delay.
func TestTutorialReplays(t *testing.T) {
	for _, name := range []string{"basic", "nested", "adaptive"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "tutorial", name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			s, err := ParseScenario(data)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(context.Background(), *s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			d := r.Report.DAG
			published := tutorialPublished[name][""]
			t.Logf("%s: ideal %.3f s <= makespan %.3f s <= published %.1f s", name, d.LowerBound, d.makespan, published)
			if d.makespan < d.LowerBound-1e-9 || d.makespan > published+1e-9 {
				t.Fatalf("makespan %v outside [ideal %v, published %v]", d.makespan, d.LowerBound, published)
			}
		})
	}
}

// Golden test per table of the tutorial: each tutorial preset's report (or
// sweep table) is pinned in testdata/tutorial/NAME.golden, every run lands
// at or above its ideal, and the granularity table lands between the ideal
// and the tutorial's published wall times (13.0, 13.0, 15.0 s).
func TestTutorialPresets(t *testing.T) {
	n := 0
	for _, p := range presets() {
		if !strings.HasPrefix(p.Description, "tutorial: ") {
			continue
		}
		n++
		t.Run(p.Name, func(t *testing.T) {
			var out bytes.Buffer
			var reports []Report
			var values []string
			if p.Scenario.sweep != nil {
				res, err := runSweep(context.Background(), p.Scenario, Options{})
				if err != nil {
					t.Fatal(err)
				}
				res.WriteTable(&out)
				reports, values = res.Reports, res.Values
			} else {
				r, err := Run(context.Background(), p.Scenario, Options{})
				if err != nil {
					t.Fatal(err)
				}
				r.Report.WriteText(&out)
				reports, values = []Report{r.Report}, []string{""}
			}
			for i, r := range reports {
				d := r.DAG
				if d.makespan < d.LowerBound-1e-9 {
					t.Errorf("%s %s: makespan %v below the ideal %v", p.Name, values[i], d.makespan, d.LowerBound)
				}
				pub, ok := tutorialPublished[p.Name][values[i]]
				if !ok || p.Scenario.sweep == nil {
					continue // a single run with random durations: its replay is checked above
				}
				// equal tasks: the ideal is whole waves of tasks
				g := float64(p.Scenario.Workload.Total) / float64(r.Totals.Tasks)
				ideal := math.Ceil(float64(r.Totals.Tasks)/float64(r.workers)) * g
				t.Logf("grain %s: ideal %.2f s <= makespan %.2f s <= published %.1f s", values[i], ideal, d.makespan, pub)
				if d.makespan < ideal-1e-9 || d.makespan > pub+1e-9 {
					t.Errorf("grain %s: makespan %v outside [ideal %v, published %v]", values[i], d.makespan, ideal, pub)
				}
			}
			path := filepath.Join("testdata", "tutorial", p.Name+".golden")
			if *update {
				if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -run TestTutorialPresets -update writes it)", err)
			}
			if out.String() != string(want) {
				t.Errorf("output differs from %s (go test -run TestTutorialPresets -update rewrites it)\ngot:\n%s", path, out.String())
			}
		})
	}
	if n < 8 {
		t.Fatalf("%d tutorial presets; want basic, nested, adaptive, granularity, fork-join and the exercises", n)
	}
}
