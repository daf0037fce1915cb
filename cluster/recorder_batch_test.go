package cluster_test

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
)

// TestABatchRecordsEachDeliveryOnce: the recorder checks a batch's
// entries, sends their creates together and answers each on its own. A
// worker-role connection that holds one delivery sends a batch naming it
// twice with two different results: the first is recorded ("ok"), the
// second is a duplicate ("dup"), and the record is the first; the same
// batch sent again after the task is settled is refused as not held or
// answered dup, and changes nothing. Mutation: the pipelined path taking
// every create for written (recorded(ctx, w, true)) answers the second
// "ok" and turns this red.
func TestABatchRecordsEachDeliveryOnce(t *testing.T) {
	e := newSecureEnv(t)
	srv := startSecureServer(t, e, false)
	subNC, _ := e.connectAs(t, srv.ClientURL(), cluster.RoleSubmitter)
	sub, err := cluster.New(subNC, testOptions(cluster.WithRole(cluster.RoleSubmitter))...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sub.Submit(context.Background(), cluster.Job{ID: "once", Tasks: []cluster.Task{{Handler: "upper", Payload: []byte("a")}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()

	// The task's route, as an admin sees it.
	adminNC, _ := e.connectAs(t, srv.ClientURL(), "")
	js, err := adminNC.JetStream()
	if err != nil {
		t.Fatal(err)
	}
	var route string
	waitFor(t, "the job's route", func() bool {
		for ci := range js.Consumers("ws_tasks") { // the job's only route
			if strings.HasPrefix(ci.Config.FilterSubject, "ws.task.once.") {
				route = ci.Name
			}
		}
		return route != ""
	})

	// A worker-role connection says hello as worker "w", Serve "S1", and
	// pulls the task itself.
	wnc, _ := e.connectAs(t, srv.ClientURL(), cluster.RoleWorker)
	ask := func(op string, body []byte) *nats.Msg {
		t.Helper()
		m, err := wnc.Request("ws.rec.w."+op, body, 5*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		return m
	}
	if st := ask("hello", []byte("S1")).Header.Get("Ws-Status"); st != "ok" {
		t.Fatalf("hello: %q", st)
	}
	dlv, err := wnc.SubscribeSync("ws.dlv.w.S1.>")
	if err != nil {
		t.Fatal(err)
	}
	var m *nats.Msg
	waitFor(t, "the task's delivery to w", func() bool {
		if err := wnc.PublishRequest("$JS.API.CONSUMER.MSG.NEXT.ws_tasks."+route, "ws.dlv.w.S1.1", []byte(`{"batch":1,"expires":1000000000}`)); err != nil {
			t.Fatal(err)
		}
		for {
			d, err := dlv.NextMsg(2 * time.Second)
			if err != nil {
				return false
			}
			if strings.HasPrefix(d.Reply, "$JS.ACK.") {
				m = d
				return true
			}
			if d.Header.Get("Status") != "100" { // 404/408: this request ended without the task
				return false
			}
		}
	})
	result := func(out string) []byte {
		b, err := cluster.Result{Job: "once", Task: m.Header.Get("Ws-Task"), Handler: "upper", Worker: "w", Attempt: 1, Deliveries: 1, Output: []byte(out)}.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	field := func(b, f []byte) []byte { return append(binary.AppendUvarint(b, uint64(len(f))), f...) }
	var batch []byte
	for _, out := range []string{"FIRST", "SECOND"} {
		batch = field(field(batch, []byte(m.Reply)), result(out))
	}
	if got := string(ask("results", batch).Data); got != "ok\ndup" {
		t.Errorf("a batch naming the delivery twice answered %q; want \"ok\\ndup\"", got)
	}
	rs := waitJob(t, s)
	if len(rs) != 1 || string(rs[0].Output) != "FIRST" {
		t.Fatalf("results %+v; want the first entry's, FIRST", rs)
	}
	kv, err := js.KeyValue("ws_results")
	if err != nil {
		t.Fatal(err)
	}
	key := "once." + m.Header.Get("Ws-Task")
	before, err := kv.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	// Settled now: the same batch again records nothing.
	for _, line := range strings.Split(string(ask("results", batch).Data), "\n") {
		if line != "dup" && !strings.HasPrefix(line, "refused\tnot-held") {
			t.Errorf("the batch again, after the record, answered %q; want dup or refused not-held", line)
		}
	}
	if after, err := kv.Get(key); err != nil {
		t.Errorf("the stored result after the batch again: %v", err)
	} else if after.Revision() != before.Revision() {
		t.Errorf("the stored result's revision %d after the batch again; want %d, unchanged", after.Revision(), before.Revision())
	}
}
