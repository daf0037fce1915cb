package expvarpub_test

import (
	"encoding/json"
	"expvar"
	"fmt"
	"log"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/metrics/expvarpub"
)

// Publish a pool once at start-up; importing expvar serves it on
// /debug/vars of http.DefaultServeMux.
func ExamplePublish() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	expvarpub.Publish("example_pool", pool)

	worksteal.Run(pool, func(w *worksteal.Worker) int { return 42 })

	var s expvarpub.Snapshot
	if err := json.Unmarshal([]byte(expvar.Get("example_pool").String()), &s); err != nil {
		log.Fatal(err)
	}
	fmt.Println("workers:", s.Workers, "per-worker entries:", len(s.PerWorker))
	// Output: workers: 2 per-worker entries: 2
}

// Func fits under a name of your own, e.g. in an expvar.Map of pools.
func ExampleFunc() {
	pool, err := worksteal.New(worksteal.Config{Workers: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	pools := expvar.NewMap("example_pools")
	pools.Set("render", expvarpub.Func(pool))
	fmt.Println(pools.Get("render") != nil)
	// Output: true
}
