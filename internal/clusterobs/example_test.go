package clusterobs_test

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterobs"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// An observer follows a cluster without changing it: a monitoring job
// prints each job's progress and the stragglers every few seconds.
func ExampleNewObserver() {
	nc, err := nats.Connect("nats://127.0.0.1:4222", nats.CustomInboxPrefix(clusterops.InboxPrefix(cluster.RoleObserver)))
	if err != nil {
		panic(err)
	}
	defer nc.Close()
	obs, err := clusterobs.NewObserver(nc, clusterobs.ObserverConfig{StragglerFactor: 3}) // 300% of the median
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go obs.Run(ctx)
	for range time.Tick(5 * time.Second) {
		st := obs.State()
		for _, j := range st.Jobs {
			fmt.Printf("%s: %d/%d done, %d failed, %.0f/s, ETA %.0fs\n", j.ID, j.Succeeded+j.Failed, j.Total, j.Failed, j.Rate, j.ETASec)
		}
		for _, s := range st.Stragglers {
			fmt.Printf("straggler %s/%s on %s: %.1f × the median\n", s.Job, s.Task, s.Worker, s.Ratio)
		}
	}
}
