package expvarpub_test

import (
	"encoding/json"
	"expvar"
	"fmt"
	"log"
	"net/http"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/metrics/expvarpub"
)

// Publish a pool once at start-up; importing expvar serves every published
// variable as JSON on /debug/vars of http.DefaultServeMux.
func ExamplePublish() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	expvarpub.Publish("worksteal", pool)
	log.Fatal(http.ListenAndServe("localhost:8080", nil)) // GET /debug/vars
}

// Func fits under a name of your own, e.g. in a map of pools published
// once with expvar.Publish("pools", pools).
func ExampleFunc() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	pools := new(expvar.Map)
	pools.Set("render", expvarpub.Func(pool))

	worksteal.Run(pool, func(w *worksteal.Worker) int { return 42 })

	var s struct { // the JSON object of the package doc
		Workers   int              `json:"workers"`
		PerWorker []map[string]any `json:"per_worker"`
	}
	if err := json.Unmarshal([]byte(pools.Get("render").String()), &s); err != nil {
		log.Fatal(err)
	}
	fmt.Println("workers:", s.Workers, "per-worker entries:", len(s.PerWorker))
	// Output: workers: 2 per-worker entries: 2
}
