package worksteal_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/worksteal/worksteal"
)

// Trace records scheduling events per worker; WriteChrome exports them for
// Perfetto (ui.perfetto.dev), in the format `worksteal sim --trace` writes.
func ExamplePool_Trace() {
	p, _ := worksteal.New(worksteal.Config{Workers: 2, Trace: 1 << 12})
	for i := 0; i < 10; i++ {
		p.Submit(func(*worksteal.Worker) {})
	}
	p.Close() // drains the tasks
	tr := p.Trace()
	starts := 0
	for _, evs := range tr.Workers {
		for _, ev := range evs {
			if ev.Kind == worksteal.EvTaskStart {
				starts++
			}
		}
	}
	var buf bytes.Buffer
	tr.WriteChrome(&buf)
	fmt.Println(starts, strings.Contains(buf.String(), `"traceEvents"`))
	// Output: 10 true
}

// Profile measures the work and span of a computation: a balanced tree of
// 16 leaves has 15 forks and a parallelism of at most 16.
func ExampleProfile() {
	p, _ := worksteal.New(worksteal.Config{Workers: 2})
	defer p.Close()
	var tree func(w *worksteal.Worker, depth int) int
	tree = func(w *worksteal.Worker, depth int) int {
		if depth == 0 {
			s := 0
			for i := 0; i < 100_000; i++ {
				s += i & 7
			}
			return s
		}
		a, b := worksteal.Join(w,
			func(w *worksteal.Worker) int { return tree(w, depth-1) },
			func(w *worksteal.Worker) int { return tree(w, depth-1) })
		return a + b
	}
	_, ws, _ := worksteal.Profile(p, func(w *worksteal.Worker) int { return tree(w, 4) })
	fmt.Println(ws.Forks, ws.Span <= ws.Work, ws.Parallelism() <= 16.5)
	// On one worker the speedup is at most 1; the lower bound,
	// work/(work + burdened span), is below it by what steals would cost.
	lo, hi := ws.SpeedupRange(1)
	fmt.Printf("P=1: at most %.0f, lower bound below it: %v\n", hi, 0 < lo && lo <= hi)
	// Output:
	// 15 true true
	// P=1: at most 1, lower bound below it: true
}
