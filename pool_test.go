package worksteal

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/policy"
)

func TestConfigRefusesBadFieldsByNameAndFillsDefaults(t *testing.T) {
	defer watchdog(t)()
	// Every invalid Config is refused with an error that names the field.
	invalid := []struct {
		name  string
		cfg   Config
		field string // must appear in the error
	}{
		{"negative Workers", Config{Workers: -1}, "Config.Workers"},
		{"too many Workers", Config{Workers: 1<<16 + 1}, "Config.Workers"},
		{"unknown Victim", Config{Victim: policy.Locality + 1}, "Config.Victim"},
		{"unknown Steal", Config{Steal: policy.StealOne + 1}, "Config.Steal"},
		{"Idle jitter above 1", Config{Idle: policy.Idle{Jitter: 1.5}}, "Config.Idle"},
		{"negative Idle jitter", Config{Idle: policy.Idle{Jitter: -0.1}}, "Config.Idle"},
		{"negative Idle base", Config{Idle: policy.Idle{Base: -time.Microsecond}}, "Config.Idle"},
		{"Idle cap below base", Config{Idle: policy.Idle{Base: time.Millisecond, Cap: time.Microsecond}}, "Config.Idle"},
	}
	if !pinSupported {
		invalid = append(invalid, struct {
			name  string
			cfg   Config
			field string
		}{"Pin where unsupported", Config{Pin: true}, "Config.Pin"})
	}
	for _, tc := range invalid {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.cfg)
			if err == nil {
				p.Close()
				t.Fatalf("New(%+v) = nil error; want one naming %s", tc.cfg, tc.field)
			}
			if p != nil {
				t.Errorf("New(%+v) returned a pool with error %v", tc.cfg, err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.field) || !strings.HasPrefix(msg, "worksteal: ") {
				t.Errorf("New(%+v) error %q; want the prefix \"worksteal: \" and the field %s", tc.cfg, msg, tc.field)
			}
		})
	}

	t.Run("Workers 0 means GOMAXPROCS", func(t *testing.T) {
		p := newTestPool(t, Config{})
		if got, want := p.Workers(), runtime.GOMAXPROCS(0); got != want {
			t.Errorf("Workers() = %d; want GOMAXPROCS = %d", got, want)
		}
		if got := p.Config().Workers; got != p.Workers() {
			t.Errorf("Config().Workers = %d; want %d", got, p.Workers())
		}
	})

	t.Run("defaults are filled in", func(t *testing.T) {
		p := newTestPool(t, Config{Workers: 3})
		c := p.Config()
		if c.Idle != policyrt.DefaultIdle {
			t.Errorf("Config().Idle = %+v; want policyrt.DefaultIdle %+v", c.Idle, policyrt.DefaultIdle)
		}
		if c.MaxBlocking != 256 {
			t.Errorf("Config().MaxBlocking = %d; want 256 (the default for up to 64 workers)", c.MaxBlocking)
		}
		if c.StallAfter != defaultStallAfter || c.StallReport != defaultStallReport {
			t.Errorf("Config().StallAfter, StallReport = %v, %v; want the defaults %v, %v", c.StallAfter, c.StallReport, defaultStallAfter, defaultStallReport)
		}
		if c.Seed == 0 {
			t.Errorf("Config().Seed = 0; want the default seed filled in")
		}
	})
}

// New(p.Config()) makes a pool with the same settings: Config() returns
// every field so that it means the same again (a negative MaxBlocking,
// "compensation off", stays negative; 0 would mean the default).
func TestConfigRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"defaults", Config{Workers: 2}},
		{"policies", Config{Workers: 2, MaxBlocking: 5, Steal: policy.StealHalf, Victim: policy.Locality, Groups: policy.EvenGroups(2, 1)}},
		{"negative Idle rounds", Config{Workers: 2, Idle: policy.Idle{Rounds: -1}}},
		{"compensation off", Config{Workers: 2, MaxBlocking: -1}},
		{"monitor off", Config{Workers: 2, StallAfter: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			p1 := newTestPool(t, cfg)
			p2 := newTestPool(t, p1.Config())
			if c1, c2 := p1.Config(), p2.Config(); !reflect.DeepEqual(c1, c2) {
				t.Errorf("New(p.Config()).Config() = %+v; want p.Config() = %+v (New(%+v))", c2, c1, cfg)
			}
		})
	}
}

// TestRunReturnsTheResult: Run returns the result.
func TestRunReturnsTheResult(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 2})
	got, err := Run(p, func(w *Worker) string { return fmt.Sprint(fibJoin(w, 12)) })
	if err != nil || got != "144" {
		t.Fatalf("Run = %q, %v; want \"144\", nil", got, err)
	}
}

// TestSubmitRunsEveryTaskExactlyOnce: Submit, SubmitTo and SubmitSpread,
// from one and from four goroutines; each task counts its own runs: every
// task must run exactly once.
func TestSubmitRunsEveryTaskExactlyOnce(t *testing.T) {
	defer watchdog(t)()
	n := 20000
	if testing.Short() {
		n = 2000
	}
	entries := []struct {
		name   string
		submit func(p *Pool, i int, f func(*Worker)) error
	}{
		{"Submit", func(p *Pool, _ int, f func(*Worker)) error { return p.Submit(f) }},
		{"SubmitTo", func(p *Pool, i int, f func(*Worker)) error { return p.SubmitTo(i%p.Workers(), f) }},
		{"SubmitSpread", func(p *Pool, _ int, f func(*Worker)) error { return p.SubmitSpread(f) }},
	}
	for _, e := range entries {
		for _, submitters := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s runs every task exactly once/submitters=%d", e.name, submitters), func(t *testing.T) {
				p := newTestPool(t, Config{Workers: 3})
				runs := make([]atomic.Int32, n)
				var wg sync.WaitGroup
				wg.Add(n)
				var submit sync.WaitGroup
				for g := range submitters {
					submit.Add(1)
					go func() {
						defer submit.Done()
						for i := g; i < n; i += submitters {
							if err := e.submit(p, i, func(*Worker) { runs[i].Add(1); wg.Done() }); err != nil {
								t.Errorf("%s(task %d) = %v", e.name, i, err)
								wg.Done()
							}
						}
					}()
				}
				submit.Wait()
				wg.Wait()
				for i := range runs {
					if got := runs[i].Load(); got != 1 {
						t.Fatalf("task %d ran %d times; want 1", i, got)
					}
				}
			})
		}
	}
}

// TestSubmitSpreadSpreadsOverTheInboxes: SubmitSpread spreads over the inboxes.
func TestSubmitSpreadSpreadsOverTheInboxes(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 4})
	// Hold every worker so that the tasks stay in the inboxes.
	release := make(chan struct{})
	var held sync.WaitGroup
	held.Add(4)
	for range 4 {
		mustSubmit(t, p, func(*Worker) { held.Done(); <-release })
	}
	held.Wait()
	var done sync.WaitGroup
	done.Add(8)
	for range 8 {
		if err := p.SubmitSpread(func(*Worker) { done.Done() }); err != nil {
			t.Fatal(err)
		}
	}
	for i, w := range p.workers {
		if got := w.inbox.len(); got != 2 {
			t.Errorf("worker %d inbox holds %d tasks after 8 SubmitSpread on 4 workers; want 2", i, got)
		}
	}
	close(release)
	done.Wait()
}

// TestSubmitToRefusesWorkerOutOfRange: SubmitTo refuses a worker out of range.
func TestSubmitToRefusesWorkerOutOfRange(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 2})
	for _, i := range []int{-1, 2, 100} {
		err := p.SubmitTo(i, func(*Worker) { t.Errorf("SubmitTo(%d) ran the task", i) })
		if err == nil || errors.Is(err, ErrClosed) {
			t.Errorf("SubmitTo(%d) = %v; want an out-of-range error", i, err)
		}
	}
	if err := p.SubmitTo(0, nil); err == nil {
		t.Errorf("SubmitTo(0, nil) = nil; want an error")
	}
	if err := p.Submit(nil); err == nil {
		t.Errorf("Submit(nil) = nil; want an error")
	}
}
