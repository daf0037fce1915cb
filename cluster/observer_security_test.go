package cluster_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterobs"
	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestObserverWritesNothingAndReadsNoOutput: with the observer role's
// own credentials against a real server, an observer cannot make a
// durable consumer on the results bucket, cannot make the server deliver
// the buckets' records onto ws.routes (which workers receive), and cannot
// read a task's output by any request (the server refuses each and no
// consumer appears); the dashboard's Observer, with the same credentials,
// still shows the worker and the job: its results recorded before it
// started counted by the server, its running task.
func TestObserverWritesNothingAndReadsNoOutput(t *testing.T) {
	e := newSecureEnv(t)
	srv := startSecureServer(t, e, false)
	url := srv.ClientURL()
	adminNC, _ := e.connectAs(t, url, "")
	workNC, _ := e.connectAs(t, url, cluster.RoleWorker)
	serveAs(t, workNC, cluster.WithName("w1"))
	subNC, _ := e.connectAs(t, url, cluster.RoleSubmitter)
	sub, err := cluster.New(subNC, testOptions(cluster.WithRole(cluster.RoleSubmitter))...)
	if err != nil {
		t.Fatal(err)
	}
	// Two tasks finish before the observer starts, one runs on.
	s, err := sub.Submit(context.Background(), cluster.Job{ID: "secret", Tasks: []cluster.Task{
		{ID: "t1", Handler: "upper", Payload: []byte("top secret")},
		{ID: "t2", Handler: "upper", Payload: []byte("more")},
		{ID: "t3", Handler: "slow", Payload: []byte("600000")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	nctx, ncancel := context.WithTimeout(context.Background(), testdeadline.Left(t))
	defer ncancel()
	for range 2 {
		r, err := s.Next(nctx)
		if err != nil || r.Task == "t3" || !r.OK() {
			t.Fatalf("Next = %+v, %v; want t1 and t2, done", r, err)
		}
		if r.Task == "t1" && string(r.Output) != "TOP SECRET" {
			t.Fatalf("t1's output = %q; want TOP SECRET", r.Output)
		}
	}

	// The consumers there are (the submitter's): the observer must add none.
	js, _ := jetstream.New(adminNC)
	ctx, cancel := context.WithTimeout(context.Background(), testdeadline.Left(t))
	defer cancel()
	consumers := func() map[string]bool {
		names := map[string]bool{}
		for _, b := range []string{"KV_ws_results", "KV_ws_jobs"} {
			st, err := js.Stream(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			for name := range st.ConsumerNames(ctx).Name() {
				names[b+" "+name] = true
			}
		}
		return names
	}
	before := consumers()

	nc, v := e.connectAs(t, url, cluster.RoleObserver)
	for _, r := range []refusal{
		{what: "make a durable consumer of the results bucket", subject: "$JS.API.CONSUMER.CREATE.KV_ws_results.spy",
			body: `{"stream_name":"KV_ws_results","config":{"durable_name":"spy","name":"spy","ack_policy":"none","deliver_policy":"all"}}`},
		{what: "make a durable consumer of the results bucket (filter in the subject)", subject: "$JS.API.CONSUMER.CREATE.KV_ws_results.spy2.$KV.ws_results.>",
			body: `{"stream_name":"KV_ws_results","config":{"durable_name":"spy2","name":"spy2","ack_policy":"none","filter_subject":"$KV.ws_results.>"}}`},
		{what: "make the server deliver the jobs bucket onto ws.routes", subject: "$JS.API.CONSUMER.CREATE.KV_ws_jobs.push",
			body: `{"stream_name":"KV_ws_jobs","config":{"name":"push","deliver_subject":"ws.routes","ack_policy":"none","deliver_policy":"all"}}`},
		{what: "make the server deliver results onto ws.routes", subject: "$JS.API.CONSUMER.CREATE.KV_ws_results.push2.$KV.ws_results.>",
			body: `{"stream_name":"KV_ws_results","config":{"name":"push2","deliver_subject":"ws.routes","ack_policy":"none","filter_subject":"$KV.ws_results.>"}}`},
		{what: "read a task's output by key", subject: "$JS.API.DIRECT.GET.KV_ws_results.$KV.ws_results.secret.t1"},
		{what: "read a task's output in a batch", subject: "$JS.API.DIRECT.GET.KV_ws_results", body: `{"multi_last":["$KV.ws_results.>"],"batch":10}`},
		{what: "read a task's output by sequence", subject: "$JS.API.STREAM.MSG.GET.KV_ws_results", body: `{"seq":1}`},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		answers := make(chan []byte, 1)
		go func() {
			m, err := nc.RequestWithContext(ctx, r.subject, []byte(r.body))
			if err != nil {
				answers <- nil
				return
			}
			answers <- m.Data
		}()
		var answer []byte
		answered := false
		for !v.has(r.subject) && !answered && ctx.Err() == nil {
			select {
			case <-v.seen:
			case answer = <-answers:
				answered = true
			case <-ctx.Done():
			}
		}
		cancel()
		if !answered {
			answer = <-answers
		}
		if !v.has(r.subject) {
			t.Errorf("an observer could %s: no refusal of %q (answer %q)", r.what, r.subject, answer)
		}
		if strings.Contains(string(answer), "SECRET") || strings.Contains(string(answer), "VE9QIFNFQ1JFVA") {
			t.Errorf("an observer read an output: %s answered %q", r.subject, answer)
		}
	}
	// The observer's Node refuses nothing it should not: it lists jobs
	// and workers, and following a job's results (outputs) is refused.
	obs, err := cluster.New(nc, testOptions(cluster.WithRole(cluster.RoleObserver))...)
	if err != nil {
		t.Fatal(err)
	}
	if jobs, err := clusterops.Jobs(ctx, obs); err != nil || len(jobs) != 1 || jobs[0].ID != "secret" {
		t.Errorf("observer: Jobs = %+v, %v; want job secret", jobs, err)
	}
	if o, err := obs.Open(ctx, "secret"); err == nil {
		rs, _ := o.Wait(ctx)
		o.Stop()
		for _, r := range rs {
			if len(r.Output) > 0 {
				t.Errorf("observer: Open read output %q", r.Output)
			}
		}
	}

	// No consumer was made on the buckets behind the refusals.
	for name := range consumers() {
		if !before[name] {
			t.Errorf("consumer %s appeared after the observer's refused requests", name)
		}
	}

	// The dashboard's Observer, with the observer's credentials, still
	// shows the worker and the job, finished.
	o, err := clusterobs.NewObserver(nc, clusterobs.ObserverConfig{})
	if err != nil {
		t.Fatal(err)
	}
	octx, ocancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- o.Run(octx) }()
	defer func() { ocancel(); <-done }()
	// Done: the server's count of the results recorded before it started.
	waitFor(t, "the observer to show w1 and job secret with 2 of 3 done, 1 running", func() bool {
		st := o.State()
		return st.Ready && len(st.Workers) == 1 && st.Workers[0].Name == "w1" &&
			len(st.Jobs) == 1 && st.Jobs[0].ID == "secret" && st.Jobs[0].Total == 3 && st.Jobs[0].Succeeded == 2 && st.Jobs[0].Running == 1 && !st.Jobs[0].Finished
	})
	for _, e := range v.all() {
		if strings.Contains(strings.ToLower(e), "permission") && !strings.Contains(e, "KV_ws_results") && !strings.Contains(e, "KV_ws_jobs.push") {
			t.Errorf("the observer's reads were refused: %s", e)
		}
	}
}
