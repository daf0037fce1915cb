package cluster_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// idleGap is the rate limit of the idle signals a worker answers: one per
// sender per idleGap (the package doc, "Trees").
const idleGap = 50 * time.Millisecond

// TestIdleSignalFloodHandsOverAtMostTheBound: with the worker role's real
// credentials, an attacker floods a busy worker with idle signals of one
// made-up name (and some whose body names another sender than their
// subject). The worker answers at most one per sender per idleGap over the
// flood's duration, discards and counts the rest, hands over at most one
// child per answered signal (they claim one free slot), and the job still
// ends with every node counted once.
func TestIdleSignalFloodHandsOverAtMostTheBound(t *testing.T) {
	e := newSecureEnv(t)
	srv := startSecureServer(t, e, false)
	url := srv.ClientURL()
	subNC, _ := e.connectAs(t, url, cluster.RoleSubmitter)
	sub, err := cluster.New(subNC, testOptions(cluster.WithRole(cluster.RoleSubmitter))...)
	if err != nil {
		t.Fatal(err)
	}
	wnc, _ := e.connectAs(t, url, cluster.RoleWorker)
	busy, err := cluster.New(wnc, testOptions(cluster.WithRole(cluster.RoleWorker), cluster.WithSlots(1), cluster.WithName("busy"))...)
	if err != nil {
		t.Fatal(err)
	}
	registerTree(busy)
	startServing(t, busy)
	attacker, refused := e.connectAs(t, url, cluster.RoleWorker)

	const leaves = 2000
	s, err := sub.Submit(context.Background(), spinJob("idleflood", leaves, 300))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	waitFor(t, "the busy worker spawning", func() bool { return clusterops.StatsOf(busy).Spawned > 8 })

	const flood, mismatched = 3000, 200
	before := clusterops.StatsOf(busy)
	start := time.Now()
	for i := range flood + mismatched {
		body := "attacker-id\t1\tmallory"
		if i%16 == 0 && i/16 < mismatched {
			body = "attacker-id\t1\tbusy2" // names another sender than its subject
		}
		if err := attacker.Publish("ws.idle.mallory", []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := attacker.Flush(); err != nil {
		t.Fatal(err)
	}
	testdeadline.Until(t, "the busy worker hearing the flood", 10*time.Millisecond, func() bool {
		st := clusterops.StatsOf(busy)
		return st.IdleAccepted+st.IdleRefused-before.IdleAccepted-before.IdleRefused >= flood+mismatched
	})
	elapsed := time.Since(start)
	after := clusterops.StatsOf(busy)
	accepted, discarded := after.IdleAccepted-before.IdleAccepted, after.IdleRefused-before.IdleRefused
	bound := 2 + int64(elapsed/idleGap)
	t.Logf("flood of %d over %v: %d answered, %d discarded", flood+mismatched, elapsed, accepted, discarded)
	if accepted > bound || discarded < flood+mismatched-bound {
		t.Errorf("a flood of %d idle signals over %v: %d answered, %d discarded; want at most %d answered (one per %v), the rest discarded",
			flood+mismatched, elapsed, accepted, discarded, bound, idleGap)
	}
	for _, v := range refused.all() {
		if strings.Contains(strings.ToLower(v), "permission") {
			t.Errorf("the shared worker key was refused an idle signal: %s", v)
		}
	}
	rs := waitJob(t, s)
	checkTree(t, s, rs, spinNodes(leaves))
	// Hand-overs end after the signals are heard: count them once the job
	// is done (no other worker sends idle signals here).
	spilled := clusterops.StatsOf(busy).Spilled - before.Spilled
	t.Logf("%d children handed over", spilled)
	if spilled > accepted {
		t.Errorf("the flood made the busy worker hand %d children over on %d answered signals of one free slot", spilled, accepted)
	}
}
