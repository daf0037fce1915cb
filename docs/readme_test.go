// The Go snippets of README.md, docs/*.md and balance/README.md, compiled:
// each ```go block of those files is split at its blank lines, and every piece
// must appear, line for line (indentation and runs of spaces aside; a line
// "..." stands for any lines), in this file, readme_fib_test.go or
// readme_tree_test.go. Edit a snippet here and in the README together;
// TestReadmeSnippets says which piece no longer matches.
package docs_test

import (
	"context"
	"expvar"
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/balance"
	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/dash"
	"github.com/worksteal/worksteal/metrics/expvarpub"
	"github.com/worksteal/worksteal/metrics/prom"
	"github.com/worksteal/worksteal/par"
	"github.com/worksteal/worksteal/par/schedule"
)

// README.md, "Plain goroutines against worksteal".

// worksteal: the worker handle travels explicitly, like a ctx (~40 instructions per join over a call).
func fib(w *worksteal.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := worksteal.JoinFunc(w, fib, n-2, fib, n-1)
	return a + b
}

// README.md, "The runtime".
func quickStart(ctx context.Context, items []int, process func(*worksteal.Worker, int) error, out []float64, body func(*worksteal.Worker, int)) {
	pool, err := worksteal.New(worksteal.Config{}) // GOMAXPROCS workers, random victims, steal half
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	n, _ := worksteal.Run(pool, func(w *worksteal.Worker) int { return fib(w, 30) })

	// Nothing to return: Do (DoErr for a function that returns an error).
	err = pool.Do(func(w *worksteal.Worker) { par.For(w, 0, len(out), body) })
	if err != nil {
		log.Fatal(err)
	}

	// Any number of tasks that spawn more; the first error cancels the rest.
	err = pool.Scope(ctx, func(w *worksteal.Worker, s *worksteal.Scope) error {
		for _, item := range items {
			s.Go(w, func(w *worksteal.Worker) error { return process(w, item) })
		}
		return nil
	})
	_, _ = n, err
}

// README.md, "Parallel loops", and docs/loops.md.
func loops(w *worksteal.Worker, n int, in, out []float64, f func(float64) float64,
	keys []uint64, xs []string, isWanted func(*worksteal.Worker, string) bool) {
	par.For(w, 0, n, func(w *worksteal.Worker, i int) { out[i] = f(in[i]) })
	par.ForRange(w, 0, n, func(w *worksteal.Worker, lo, hi int) { /* your own inner loop */ })
	sum := par.ReduceRange(w, 0, n, 0, func(_ *worksteal.Worker, lo, hi int, acc uint64) uint64 {
		for x := lo; x < hi; x++ {
			acc += uint64(x * x)
		}
		return acc
	}, func(a, b uint64) uint64 { return a + b })
	par.Sort(w, keys)               // integers: parallel radix sort; others: parallel merge sort
	i := par.Index(w, xs, isWanted) // early exit: no chunk beyond the first match starts
	_, _ = sum, i
}

// docs/tracing.md.
func recordTrace() {
	pool, _ := worksteal.New(worksteal.Config{Workers: 2, Trace: 1 << 16})
	worksteal.Run(pool, func(w *worksteal.Worker) int { return fib(w, 30) })
	f, _ := os.Create("trace.json")
	pool.Trace().WriteChrome(f) // Chrome trace-event JSON: open it in https://ui.perfetto.dev
}

// docs/tracing.md, "Metrics".
func metrics(pool *worksteal.Pool) {
	prometheus.MustRegister(prom.New(pool, prom.Opts{ConstLabels: prometheus.Labels{"pool": "render"}}))
	expvarpub.Publish("worksteal", pool) // JSON on /debug/vars
	_ = expvar.Get("worksteal")
}

// README.md, "Batches on many machines: the cluster", and docs/cluster.md:
// a whole function, nothing left out.
func renderFilm(ctx context.Context, nc *nats.Conn, tasks []cluster.Task,
	render func(pool *worksteal.Pool, frame, checkpoint []byte) ([]byte, error)) ([]cluster.Result, error) {
	node, err := cluster.New(nc, cluster.WithSlots(8))
	if err != nil {
		return nil, err
	}
	node.Handle("render", func(ctx context.Context, frame []byte) ([]byte, error) {
		last, err := cluster.LoadCheckpoint(ctx) // resume after a redelivery
		if err != nil {
			return nil, err
		}
		return render(cluster.PoolFrom(ctx), frame, last) // fine-grained work on the work-stealing pool
	})
	go node.Serve(ctx)
	sub, err := node.Submit(ctx, cluster.Job{ID: "film", Tasks: tasks, Speculate: true})
	if err != nil {
		return nil, err // an invalid job, no worker with the handler, the server unreachable
	}
	defer sub.Stop()
	return sub.Wait(ctx) // the error wraps cluster.ErrTasksFailed when some failed
}

// README.md, "Balancing strategies", and balance/README.md, "Choosing a strategy".
func analyze(busy []float64, taskTimes []time.Duration) {
	r := balance.Analyze(balance.Profile{Loads: busy, Durations: taskTimes})
	fmt.Println(r)
	// imbalance 1.29 (target < 1.20): missed
	// straggler ratio 8.18 (target < 2.00): missed
	// suggest: stealing + hedging (long tail (p99 = 7.8× median))
}

// balance/README.md, "Loops on the work-stealing pool".
func schedules(ctx context.Context, rows int, render func(int)) {
	p, _ := worksteal.New(worksteal.Config{Workers: 2})
	defer p.Close()
	for _, s := range []balance.Schedule{
		balance.Static{}, balance.Dynamic{Chunk: 16}, balance.Guided{}, balance.Stealing{},
	} {
		st, err := schedule.ForPool(ctx, p, rows, s, func(w *worksteal.Worker, lo, hi int) {
			for y := lo; y < hi; y++ {
				render(y)
			}
		})
		fmt.Println(st, err)
		// static: 1000/1000 iterations in 2 chunks, wall 511ms, imbalance 1.49, utilization 67%
		fmt.Println(balance.Analyze(st.Profile())) // targets missed, strategy suggested
	}
}

var _ = []any{quickStart, loops, recordTrace, metrics, renderFilm, analyze, schedules}

// norm is a line as the comparison sees it: no indentation, runs of spaces
// and tabs as one space.
func norm(line string) string { return strings.Join(strings.Fields(line), " ") }

// goBlocks returns the ```go blocks of a Markdown file, each with the line
// number of its first line.
func goBlocks(t *testing.T, path string) (blocks [][]string, at []int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cur []string
	in := false
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```go":
			in, cur = true, nil
			at = append(at, i+2)
		case in && strings.TrimSpace(line) == "```":
			in = false
			blocks = append(blocks, cur)
		case in:
			cur = append(cur, line)
		}
	}
	if in {
		t.Fatalf("%s: the ```go block at line %d is not closed", path, at[len(at)-1])
	}
	return blocks, at
}

// pieces splits a block at its blank lines.
func pieces(block []string, first int) (ps [][]string, at []int) {
	var cur []string
	for i, line := range append(block, "") {
		if strings.TrimSpace(line) == "" {
			if len(cur) > 0 {
				ps = append(ps, cur)
			}
			cur = nil
			continue
		}
		if cur == nil {
			at = append(at, first+i)
		}
		cur = append(cur, norm(line))
	}
	return ps, at
}

// matchAt reports whether piece matches src from line i on ("..." matches
// any number of lines).
func matchAt(piece, src []string, i int) bool {
	if len(piece) == 0 {
		return true
	}
	if piece[0] == "..." {
		for j := i; j <= len(src); j++ {
			if matchAt(piece[1:], src, j) {
				return true
			}
		}
		return false
	}
	return i < len(src) && src[i] == piece[0] && matchAt(piece[1:], src, i+1)
}

func TestReadmeSnippets(t *testing.T) {
	var src []string
	for _, f := range []string{"readme_test.go", "readme_fib_test.go", "readme_tree_test.go"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			src = append(src, norm(line))
		}
	}
	total := 0
	guides, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, md := range append([]string{"../README.md", "../balance/README.md"}, guides...) {
		blocks, at := goBlocks(t, md)
		if len(blocks) == 0 && !strings.HasPrefix(md, "..") {
			continue // a guide without Go
		}
		if len(blocks) == 0 {
			t.Errorf("%s: no ```go block found", md)
		}
		for b, block := range blocks {
			ps, pat := pieces(block, at[b])
			for p, piece := range ps {
				total++
				found := false
				for i := range src {
					if matchAt(piece, src, i) {
						found = true
						break
					}
				}
				if !found {
					t.Errorf("%s:%d: this snippet is not in docs/readme_test.go, so nothing compiles it:\n%s",
						md, pat[p], strings.Join(piece, "\n"))
				}
			}
		}
	}
	t.Logf("%d snippet pieces compiled", total)
}

// README.md, "The dashboard".
//
//lint:ignore U1000 a README snippet: compiled, not run
func dashboard(pool *worksteal.Pool) {
	http.Handle("/dash/", http.StripPrefix("/dash", dash.New(dash.Pool(pool), dash.Config{})))
}

// docs/adapting.md.
//
//lint:ignore U1000 a README snippet: compiled, not run
func adapting(work func()) {
	pool, _ := worksteal.New(worksteal.Config{Workers: 8})
	pool.SetWorkers(2)                                // while computations run
	fmt.Println(pool.ActiveWorkers(), pool.Workers()) // 2 8

	{
		pool, _ := worksteal.New(worksteal.Config{Governor: &worksteal.Governor{
			OnChange: func(c worksteal.GovernorChange) { log.Printf("%d -> %d: %s", c.From, c.To, c.Reason) },
		}})
		_ = pool
	}

	c := worksteal.CountProcess()
	defer c.Close()
	work()
	fmt.Println(c.Read()) // instructions=… cycles=… or instructions=n/a …, then c.Read().Reasons()
}

// docs/dashboard.md, from a Go program.
//
//lint:ignore U1000 a README snippet: compiled, not run
func dashboardServer(pool *worksteal.Pool) {
	d := dash.New(dash.Pool(pool), dash.Config{})
	mux := http.NewServeMux()
	mux.Handle("/dash/", http.StripPrefix("/dash", d))
	srv := &http.Server{Addr: "localhost:8080", Handler: mux}
	srv.RegisterOnShutdown(d.Close) // else Shutdown waits for the open event streams
	go srv.ListenAndServe()
}
