package attacktest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestStolenWorkerKeyCannotActOnAnotherWorkersDelivery: the issue's "a
// worker records a result only for a task delivered to it, while its
// lease lasts, and only once", attacked with a second worker's real
// credential (w2, added by name) on a deployment made as an operator makes
// it. The attacker takes a task itself and hands it back, so the real
// worker w1 holds it; it learns w1's delivery from failover's held lists
// (which every worker hears) and tries, as w2, to record a result, count a
// failure or a discarded run, hand a child over (listed or not), save a
// checkpoint, ack and nak it, and to have the recorder hand w1's tasks
// back as lost; as w1 it tries to ask the recorder, to settle the
// delivery directly, and to hear w1's deliveries; past the recorder it
// tries to write w1's task's checkpoint and hand-over list, to purge
// another's, and to claim w1's tasks for failover; it asks the recorder
// to read w1's task's records, and once the job is done reads its
// results, checkpoints and failure counts directly. The refusals are
// counted by role and reason where the dashboard hears them. It also records late under its own lost lease. Each is
// refused (by the server, or by the recorder, which logs it), each task
// runs once, and the job prints its real outputs.
func TestStolenWorkerKeyCannotActOnAnotherWorkersDelivery(t *testing.T) {
	secrets := e2e.InitSecrets(t, []string{"--mtls"})
	dir := secrets.Dir()
	secrets.Add(t, "worker", "w1", "w2")
	serve, url := secrets.Serve(t, "-v")
	creds := secrets.Flags
	logs := func() string { return serve.Stdout.String() + serve.Stderr.String() }
	a := connectNamed(t, url, dir, "w2")
	// The recorder's refusal counts by role and reason (what the
	// dashboard shows), heard with the observer's key.
	var mu sync.Mutex
	counts := map[string]int64{}
	obs := connectHolder(t, url, dir, "observer", cluster.RoleObserver)
	if _, err := obs.nc.Subscribe("ws.refusals", func(m *nats.Msg) {
		var c map[string]int64
		if json.Unmarshal(m.Data, &c) == nil {
			mu.Lock()
			counts = c
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}

	// Three tasks; each notes each run of it and waits for the gate, so
	// the attacks happen while w1 holds them.
	work := t.TempDir()
	gate := filepath.Join(work, "go")
	var cmds strings.Builder
	for i := range 3 {
		cmds.WriteString("echo run >> " + filepath.Join(work, "runs"+strconv.Itoa(i)) + "; while [ ! -e " + gate + " ]; do sleep 0.05; done; echo real" + strconv.Itoa(i) + "\n")
	}
	sub := e2e.Start(t, cmds.String(), nil, append([]string{"run", "--nats", url, "--job", "victim", "-k"}, creds("admin")...)...)
	ctx := testdeadline.Context(t)
	route := ""
	for route == "" {
		if st, err := a.js.Stream(ctx, "ws_tasks"); err == nil {
			for c := range st.ListConsumers(ctx).Info() {
				if strings.HasPrefix(c.Config.FilterSubject, "ws.task.victim.") {
					route = c.Name
				}
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("no route of job victim; run's stderr %q", sub.Stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Failover's held lists: every worker hears them.
	lists := map[string]string{} // by the Serve id: the last list
	if _, err := a.nc.Subscribe("ws.held.*.*", func(m *nats.Msg) {
		mu.Lock()
		lists[m.Subject[strings.LastIndexByte(m.Subject, '.')+1:]] = string(m.Data)
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}

	// The attacker's own delivery, handed back at once: its lease ends.
	mine := a.hold(t, route, "evil2")
	md, err := mine.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	seq, task := md.Sequence.Stream, mine.Header.Get("Ws-Task")
	a.settle(mine.Reply, "-NAK")

	w1 := e2e.Start(t, "", nil, append([]string{"worker", "--nats", url, "-j", "4", "--name", "w1"}, creds("w1")...)...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("w1's stderr:\n%s\nserve's log:\n%s", w1.Stderr, logs())
		}
	})
	// w1's delivery of the attacker's task, from w1's held list.
	var w1ID, theirs string
	testdeadline.Until(t, "w1's held list naming task "+task, 20*time.Millisecond, func() bool {
		mu.Lock()
		defer mu.Unlock()
		for id, l := range lists {
			for _, line := range strings.Split(l, "\n") {
				ack, _, _ := strings.Cut(line, "\t")
				if f := strings.Split(ack, "."); len(f) >= 9 && strings.Contains(line, "\tvictim."+task+"\t") {
					w1ID, theirs = id, ack
					return true
				}
			}
		}
		return false
	})
	if !strings.Contains(theirs, "."+strconv.FormatUint(seq, 10)+".") {
		t.Fatalf("w1's delivery %q is not of message %d", theirs, seq)
	}

	// The attacker's late record under its lost lease.
	if st, body := a.ask(t, "result", mine.Reply, nil, forgedResult("victim", task, "")); st != "refused" {
		t.Errorf("a record under a lost lease: the recorder answered %q %q; want a refusal", st, body)
	}
	// As w2, on w1's delivery: each refused as not w2's.
	tries := []struct {
		what, op string
		hdr      map[string]string
		data     []byte
	}{
		{"a result", "result", nil, forgedResult("victim", task, "")},
		{"a failure count", "failure", map[string]string{"Ws-Seen": "0"}, []byte("forged")},
		{"a discarded run", "discarded", map[string]string{"Ws-Delivered": "2"}, nil},
		{"a child", "spawn", map[string]string{"Ws-Task": task + "=0"}, []byte(`{"cmd":"echo FORGED"}`)},
		{"a child listed in the unit's hand-over list", "spawn", map[string]string{"Ws-Task": task + "=0", "Ws-List": "1"}, []byte(`{"cmd":"echo FORGED"}`)},
		{"a checkpoint", "checkpoint", nil, []byte("FORGED")},
		{"a read of whether the task's result is in", "read", map[string]string{"Ws-Read": "result"}, nil},
		{"a read of the task's checkpoint", "read", map[string]string{"Ws-Read": "checkpoint"}, nil},
	}
	for _, tr := range tries {
		st, body := a.ask(t, tr.op, theirs, tr.hdr, tr.data)
		if st != "refused" || !strings.HasPrefix(body, clusterops.RefusedNotHolder) {
			t.Errorf("%s on w1's delivery, asked as w2: the recorder answered %q %q; want a refusal, %s", tr.what, st, body, clusterops.RefusedNotHolder)
		}
	}
	a.settle(theirs, "-NAK")
	a.settle(theirs, "+TERM")
	testdeadline.Until(t, "serve's log of the refused acks", 20*time.Millisecond, func() bool {
		return strings.Count(logs(), "refused a worker's ack: "+clusterops.RefusedNotHolder) >= 2
	})
	// Hand w1's tasks back as if w1 were lost: w1 answers pings.
	if st, body := a.ask(t, "lost", "", nil, []byte("w1\t"+w1ID)); st != "refused" || !strings.HasPrefix(body, clusterops.RefusedNotLost) {
		t.Errorf("w1 named lost by w2: the recorder answered %q %q; want a refusal, %s", st, body, clusterops.RefusedNotLost)
	}
	// As w1, or past the recorder: the server refuses.
	w1Result := nats.NewMsg("ws.rec.w1.result")
	w1Result.Header.Set("Ws-Ack", theirs)
	w1Result.Data = forgedResult("victim", task, "")
	a.nc.PublishMsg(w1Result)
	a.nc.Publish(theirs, []byte("-NAK"))
	if _, err := a.nc.Subscribe("ws.dlv.w1.>", func(*nats.Msg) {}); err != nil {
		t.Fatal(err)
	}
	// The checkpoints bucket directly: w1's task's checkpoint and
	// hand-over list, a purge of them, and failover's claim on w1's tasks
	// (which would keep every watcher from handing them back).
	ckpt, handed, claim := "$KV.ws_checkpoints.victim."+task, "$KV.ws_checkpoints.victim."+task+".handed", "$KV.ws_checkpoints.lost."+w1ID+".1"
	a.nc.Publish(ckpt, []byte("FORGED"))
	a.nc.Publish(handed, []byte(task+"=0"))
	a.nc.Publish(claim, []byte("w2"))
	purgeCkpt := nats.NewMsg("$KV.ws_checkpoints.victim." + otherTask(task))
	purgeCkpt.Header.Set("KV-Operation", "PURGE")
	a.nc.PublishMsg(purgeCkpt)
	for _, s := range []string{"ws.rec.w1.result", theirs, "ws.dlv.w1.>", ckpt, handed, claim, purgeCkpt.Subject} {
		if !a.wasRefused(t, s) {
			t.Errorf("the server did not refuse w2's key %s", s)
		}
	}

	// Nothing of the attacker's is in the checkpoints bucket (its keys, from
	// the stream's per-subject counts: a worker's key reads no value).
	if st, err := a.js.Stream(ctx, "KV_ws_checkpoints"); err != nil {
		t.Errorf("the checkpoints bucket: %v", err)
	} else if info, err := st.Info(ctx, jetstream.WithSubjectFilter("$KV.ws_checkpoints.>")); err != nil {
		t.Errorf("the checkpoints bucket's keys: %v", err)
	} else {
		for _, k := range []string{"victim." + task, "victim." + task + ".handed", "lost." + w1ID + ".1"} {
			if c := info.State.Subjects["$KV.ws_checkpoints."+k]; c != 0 {
				t.Errorf("checkpoint key %s has %d values after w2's attempts; want none", k, c)
			}
		}
	}
	// The refusals, by role and reason, as the dashboard hears them.
	testdeadline.Until(t, "the recorder's count of worker/not-holder refusals", 20*time.Millisecond, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return counts["worker/"+clusterops.RefusedNotHolder] >= int64(len(tries))+2 // the tries, a nak and a term
	})

	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sub.Done:
	case <-ctx.Done():
		t.Fatalf("run did not end; stderr %q", sub.Stderr)
	}
	if code, out := sub.Cmd.ProcessState.ExitCode(), sub.Stdout.String(); code != 0 || out != "real0\nreal1\nreal2\n" {
		t.Errorf("run: exit %d, stdout %q, stderr %q; want the real outputs", code, out, sub.Stderr)
	}
	// The job's results, checkpoints and failure counts, read directly
	// with w2's key: refused (a worker reads only its held tasks' records,
	// through the recorder).
	reads := []string{"$JS.API.DIRECT.GET.KV_ws_results.$KV.ws_results.victim.0", "$JS.API.DIRECT.GET.KV_ws_results",
		"$JS.API.DIRECT.GET.KV_ws_checkpoints.$KV.ws_checkpoints.victim.0", "$JS.API.DIRECT.GET.KV_ws_failures.$KV.ws_failures.victim.0",
		"$JS.API.STREAM.MSG.GET.KV_ws_results"}
	for _, s := range reads {
		a.nc.PublishRequest(s, a.nc.NewRespInbox(), []byte(`{"last_by_subj":"$KV.ws_results.victim.0"}`))
	}
	for _, s := range reads {
		if !a.wasRefused(t, s) {
			t.Errorf("the server did not refuse w2's read %s", s)
		}
	}
	for i := range 3 {
		data, err := os.ReadFile(filepath.Join(work, "runs"+strconv.Itoa(i)))
		if errors.Is(err, os.ErrNotExist) || strings.Count(string(data), "run") != 1 {
			t.Errorf("task %d ran %d times (%v); want once: a nak of w1's delivery went through", i, strings.Count(string(data), "run"), err)
		}
	}
	for _, want := range []string{"refused a worker's result: " + clusterops.RefusedNotHolder, "refused a worker's spawn: " + clusterops.RefusedNotHolder,
		"refused a worker's lost: " + clusterops.RefusedNotLost, "refused a worker's checkpoint: " + clusterops.RefusedNotHolder,
		`Publish Violation - Subject "ws.rec.w1.result"`, `Publish Violation - Subject "` + claim + `"`} {
		if !strings.Contains(logs(), want) {
			t.Errorf("serve logged no %q in %q", want, logs())
		}
	}
}
