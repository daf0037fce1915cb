package prom_test

import (
	"fmt"
	"log"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/metrics/prom"
)

// Register a pool's collector and serve it on /metrics (start the server
// with http.ListenAndServe). Here the registry is also gathered once, to
// print what a scrape sees.
func Example() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	reg := prometheus.NewRegistry()
	reg.MustRegister(prom.New(pool, prom.Opts{ConstLabels: prometheus.Labels{"pool": "main"}}))
	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))

	n, err := testutil.GatherAndCount(reg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("series per scrape:", n)
	names, _ := reg.Gather()
	for _, mf := range names {
		if strings.HasSuffix(mf.GetName(), "_total") {
			fmt.Println(mf.GetName(), mf.GetType())
		}
	}
	// Output:
	// series per scrape: 24
	// worksteal_busy_seconds_total COUNTER
	// worksteal_failed_steals_total COUNTER
	// worksteal_idle_seconds_total COUNTER
	// worksteal_parks_total COUNTER
	// worksteal_promoted_total COUNTER
	// worksteal_steal_attempts_total COUNTER
	// worksteal_steals_total COUNTER
	// worksteal_stolen_from_total COUNTER
	// worksteal_tasks_executed_total COUNTER
	// worksteal_tasks_spawned_total COUNTER
}
