package dash_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/dash"
)

func fib(w *worksteal.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := worksteal.Join(w,
		func(w *worksteal.Worker) int { return fib(w, n-1) },
		func(w *worksteal.Worker) int { return fib(w, n-2) })
	return a + b
}

// A program mounts the dashboard of its own pool; a browser at /dash/ sees
// each worker's utilization, steals and parks, live.
func ExampleNew() {
	pool, err := worksteal.New(worksteal.Config{Workers: 4})
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	d := dash.New(dash.Pool(pool), dash.Config{Title: "fib"})
	mux := http.NewServeMux()
	mux.Handle("/dash/", http.StripPrefix("/dash", d))
	web := httptest.NewServer(mux) // a real program: an http.Server on its address
	// The event streams end on Shutdown (else it waits for its deadline).
	web.Config.RegisterOnShutdown(d.Close)
	defer web.Close()

	n, _ := worksteal.Run(pool, func(w *worksteal.Worker) int { return fib(w, 25) })
	fmt.Println("fib(25) =", n)

	resp, err := http.Get(web.URL + "/dash/api/state")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var st struct { // the package doc's keys
		Kind    string           `json:"kind"`
		Workers []map[string]any `json:"workers"`
	}
	json.NewDecoder(resp.Body).Decode(&st)
	fmt.Println(st.Kind, "with", len(st.Workers), "workers")
	// Output:
	// fib(25) = 75025
	// pool with 4 workers
}

// A Source is anything with a Snapshot: here a fixed view drawn as a pool
// (the keys of the package doc's pool state).
func ExampleSourceFunc() {
	type worker struct {
		Worker   int    `json:"worker"`
		Executed uint64 `json:"executed"`
	}
	type view struct {
		Kind    string   `json:"kind"`
		Workers []worker `json:"workers"`
	}
	src := dash.SourceFunc(func() any {
		return view{Kind: "pool", Workers: []worker{{Worker: 0, Executed: 42}}}
	})
	web := httptest.NewServer(dash.New(src, dash.Config{}))
	defer web.Close()
	resp, err := http.Get(web.URL + "/api/state")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var st view
	json.NewDecoder(resp.Body).Decode(&st)
	fmt.Println(st.Workers[0].Executed)
	// Output: 42
}

// A program adds its own read-only JSON route beside the dashboard's.
func ExampleServer_HandleJSON() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	d := dash.New(dash.Pool(pool), dash.Config{})
	defer d.Close()
	d.HandleJSON("/api/workers", func() any { return map[string]int{"workers": pool.Workers()} })
	web := httptest.NewServer(d)
	defer web.Close()

	resp, err := http.Get(web.URL + "/api/workers")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var v map[string]int
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		panic(err)
	}
	fmt.Println(resp.Header.Get("Content-Type"), v["workers"])
	// Output: application/json 2
}
