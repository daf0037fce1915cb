package attacktest

import (
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

// attacker is a client with a worker's real credentials (its nkey and its
// client certificate), as one who stole them from a worker's machine would
// connect, and what the server refused it.
type attacker struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	name string // the worker name it asks the recorder as (ws.rec.<name>.<op>)

	mu        sync.Mutex
	refused   []string
	sentinels int
}

func connectAttacker(t *testing.T, url, dir string) *attacker {
	return connectNamed(t, url, dir, "worker")
}

// connectNamed connects with the worker credential name (files name.nk,
// name-cert.pem, name-key.pem in dir: serve init's "worker", or one that
// serve credentials add made).
func connectNamed(t *testing.T, url, dir, name string) *attacker {
	t.Helper()
	a := &attacker{name: name}
	a.nc = e2e.Connect(t, url, cluster.RoleWorker, e2e.HolderCreds(dir, name), a.refuse)
	a.js, _ = jetstream.New(a.nc)
	return a
}

// refuse records a refusal the server sent.
func (a *attacker) refuse(err string) {
	a.mu.Lock()
	a.refused = append(a.refused, err)
	a.mu.Unlock()
}

// wasRefused says the server refused the publishes to subject made so
// far: it publishes a sentinel that the worker's permissions refuse and
// waits for that refusal (the server answers a connection's messages in
// order).
func (a *attacker) wasRefused(t *testing.T, subject string) bool {
	t.Helper()
	a.mu.Lock()
	a.sentinels++
	sentinel := "$KV.ws_jobs.sentinel" + strconv.Itoa(a.sentinels)
	a.mu.Unlock()
	a.nc.Publish(sentinel, nil)
	has := func(s string) bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		for _, e := range a.refused {
			if strings.Contains(e, "Permissions Violation") && strings.Contains(e, `"`+s+`"`) {
				return true
			}
		}
		return false
	}
	testdeadline.Until(t, "the server's refusal of "+sentinel, 10*time.Millisecond, func() bool { return has(sentinel) })
	return has(subject)
}

// ask sends a request to the recorder as a worker would, and returns its
// answer's status and body.
func (a *attacker) ask(t *testing.T, op, ack string, hdr map[string]string, data []byte) (string, string) {
	t.Helper()
	m := nats.NewMsg("ws.rec." + a.name + "." + op)
	if ack != "" {
		m.Header.Set("Ws-Ack", ack)
	}
	for k, v := range hdr {
		m.Header.Set(k, v)
	}
	m.Data = data
	reply, err := a.nc.RequestMsg(m, testdeadline.Left(t))
	for errors.Is(err, nats.ErrNoResponders) { // the recorder binds once the tier is set up
		time.Sleep(50 * time.Millisecond)
		reply, err = a.nc.RequestMsg(m, testdeadline.Left(t))
	}
	if err != nil {
		t.Fatalf("request to the recorder (%s): %v", op, err)
	}
	return reply.Header.Get("Ws-Status"), string(reply.Data)
}

// hold takes one task of route (a consumer of ws_tasks) as a worker
// does: it tells the recorder it serves (hello, as Serve id) and pulls with
// the reply subject the recorder hears, ws.dlv.<name>.<id>.1. It returns
// the delivery.
func (a *attacker) hold(t *testing.T, route, id string) *nats.Msg {
	t.Helper()
	if st, body := a.ask(t, "hello", "", nil, []byte(id)); st != "ok" {
		t.Fatalf("hello to the recorder: %q %q", st, body)
	}
	sub, err := a.nc.SubscribeSync("ws.dlv." + a.name + "." + id + ".*")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	// The route may exist before its tasks do: pull again while the
	// server answers "No Messages" (404).
	var m *nats.Msg
	for {
		if err := a.nc.PublishRequest("$JS.API.CONSUMER.MSG.NEXT.ws_tasks."+route, "ws.dlv."+a.name+"."+id+".1", []byte(`{"batch":1,"no_wait":true}`)); err != nil {
			t.Fatal(err)
		}
		m, err = sub.NextMsg(testdeadline.Left(t))
		if err != nil || m.Reply != "" || m.Header.Get("Status") != "404" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil || m.Reply == "" {
		t.Fatalf("the attacker got no task: %v %v", m, err)
	}
	return m
}

// settle sends an ack (body: +ACK, -NAK, +TERM) of a delivery through
// the recorder, as a worker does (the recorder answers nothing).
func (a *attacker) settle(ack, body string) {
	m := nats.NewMsg("ws.rec." + a.name + ".ack")
	m.Header.Set("Ws-Ack", ack)
	m.Data = []byte(body)
	a.nc.PublishMsg(m)
}

// forgedResult is a result as a worker encodes it (see Result's codec),
// for task of job.
func forgedResult(job, task, parent string, spawned ...string) []byte {
	r := cluster.Result{Job: job, Task: task, Handler: "sh", Parent: parent, Worker: "evil", Attempt: 1, Deliveries: 1,
		Output: []byte(`{"exit":0,"stdout":"Rk9SR0VE"}`), Spawned: spawned}
	b, _ := r.MarshalJSON()
	return b
}

// TestStolenWorkerKeyChangesNoOutcome attacks a deployment made as an
// operator makes it (serve init --mtls, serve with its configuration, a
// worker process, run) with a worker's real credentials, through the
// server, and checks that every attack is refused (by the server's
// permissions, or by the recorder, which logs it) and changes no outcome:
// the job prints its real outputs and exits 0, nothing the attacker
// published ran, and a shell task sees none of the worker's credential
// variables.
func TestStolenWorkerKeyChangesNoOutcome(t *testing.T) {
	secrets := e2e.InitSecrets(t, []string{"--mtls", "--shared-worker-key"})
	dir := secrets.Dir()
	serve, url := secrets.Serve(t, "-v")
	creds := secrets.Flags
	a := connectAttacker(t, url, dir)
	marker := filepath.Join(t.TempDir(), "pwned")
	gate := filepath.Join(t.TempDir(), "go")

	// Pre-seeding: before job "victim" exists, a result and a task for it.
	a.nc.Publish("$KV.ws_results.victim.0", forgedResult("victim", "0", ""))
	a.nc.Publish("ws.task.victim.sh.any", []byte(`{"cmd":"touch `+marker+`"}`))
	for _, s := range []string{"$KV.ws_results.victim.0", "ws.task.victim.sh.any"} {
		if !a.wasRefused(t, s) {
			t.Errorf("pre-seeding job victim: the server did not refuse a worker's publish to %s", s)
		}
	}

	// The job: its first task waits for the gate, so the attacks happen
	// while it runs; no worker runs yet, so the attacker can take a task.
	cmds := "while [ ! -e " + gate + " ]; do sleep 0.05; done; echo real0\necho real1\nenv\n"
	sub := e2e.Start(t, cmds, []string{"WORKSTEAL_CREDS=" + filepath.Join(dir, "admin.nk")},
		append([]string{"run", "--nats", url, "--job", "victim", "-k"}, creds("admin")[2:]...)...)
	ctx := testdeadline.Context(t)
	var cons jetstream.Consumer
	for cons == nil {
		if st, err := a.js.Stream(ctx, "ws_tasks"); err == nil {
			names := st.ListConsumers(ctx)
			for c := range names.Info() {
				if strings.HasPrefix(c.Config.FilterSubject, "ws.task.victim.") {
					cons, _ = a.js.Consumer(ctx, "ws_tasks", c.Name)
				}
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("no route of job victim; run's stderr %q", sub.Stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The attacker holds one delivery of the job, as any worker may.
	held := a.hold(t, cons.CachedInfo().Name, "evil1")
	heldTask := held.Header.Get("Ws-Task")
	md, _ := held.Metadata()
	ack := held.Reply
	otherAck := withSeq(ack, md.Sequence.Stream+1000)

	// 1. Commands onto the job's task subject, and onto a job not yet made.
	for _, s := range []string{"ws.task.victim.sh.any", "ws.task.future.sh.any"} {
		a.nc.Publish(s, []byte(`{"cmd":"touch `+marker+`"}`))
		if !a.wasRefused(t, s) {
			t.Errorf("the server did not refuse a worker's task on %s", s)
		}
	}
	// 3. Putting and purging results directly.
	purge := nats.NewMsg("$KV.ws_results.victim.1")
	purge.Header.Set("KV-Operation", "PURGE")
	a.nc.PublishMsg(purge)
	a.nc.Publish("$KV.ws_results.victim.x", forgedResult("victim", "x", ""))
	for _, s := range []string{"$KV.ws_results.victim.1", "$KV.ws_results.victim.x", "$KV.ws_failures.victim.1"} {
		if s == "$KV.ws_failures.victim.1" {
			a.nc.Publish(s, []byte(`{"failures":99}`))
		}
		if !a.wasRefused(t, s) {
			t.Errorf("the server did not refuse a worker's write to %s", s)
		}
	}
	// 2. Through the recorder: forged results, children and replays.
	type try struct {
		what, op, ack string
		hdr           map[string]string
		data          []byte
		reason        string
	}
	tries := []try{
		{"a result for a task not in the job, under the held delivery", "result", ack, nil, forgedResult("victim", "x", ""), clusterops.RefusedMismatch},
		{"a result for another task of the job, under the held delivery", "result", ack, nil, forgedResult("victim", otherTask(heldTask), ""), clusterops.RefusedMismatch},
		{"a result for a delivery not held (a guessed sequence)", "result", otherAck, nil, forgedResult("victim", otherTask(heldTask), ""), clusterops.RefusedNotHeld},
		{"a result for a child never handed over", "result", ack, nil, forgedResult("victim", heldTask+"=5", heldTask), clusterops.RefusedMismatch},
		{"a result of the held task listing another task's child", "result", ack, nil, forgedResult("victim", heldTask, "", otherTask(heldTask)+"=0"), clusterops.RefusedBadChild},
		{"a child whose id claims another parent", "spawn", ack, map[string]string{"Ws-Task": otherTask(heldTask) + "=0"}, []byte(`{"cmd":"touch ` + marker + `"}`), clusterops.RefusedBadChild},
		{"a child of a delivery not held", "spawn", otherAck, map[string]string{"Ws-Task": otherTask(heldTask) + "=0"}, []byte(`{"cmd":"touch ` + marker + `"}`), clusterops.RefusedNotHeld},
		{"a failure count for a delivery not held", "failure", otherAck, map[string]string{"Ws-Seen": "98"}, []byte("forged"), clusterops.RefusedNotHeld},
	}
	for _, tr := range tries {
		st, body := a.ask(t, tr.op, tr.ack, tr.hdr, tr.data)
		if st != "refused" || !strings.HasPrefix(body, tr.reason) {
			t.Errorf("%s: the recorder answered %q %q; want a refusal, %s", tr.what, st, body, tr.reason)
		}
	}
	// The attacker hands its task back; a real worker runs the job.
	a.settle(ack, "-NAK")
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e2e.Start(t, "", []string{"WORKSTEAL_CREDS=" + filepath.Join(dir, "worker.nk"), "WORKSTEAL_TLS_KEY=" + filepath.Join(dir, "worker-key.pem")},
		append([]string{"worker", "--nats", url, "-j", "2", "--name", "w1"}, creds("worker")[2:]...)...)
	select {
	case <-sub.Done:
	case <-ctx.Done():
		t.Fatalf("run did not end; stderr %q", sub.Stderr)
	}
	out := sub.Stdout.String()
	if code := sub.Cmd.ProcessState.ExitCode(); code != 0 || !strings.HasPrefix(out, "real0\nreal1\n") || strings.Contains(out, "FORGED") {
		t.Errorf("run: exit %d, stdout %q, stderr %q; want the real outputs", code, out, sub.Stderr)
	}
	// 3. Tasks do not inherit the worker's credentials.
	for _, v := range []string{"WORKSTEAL_CREDS", "WORKSTEAL_TLS_KEY", "NATS_CREDS"} {
		if strings.Contains(out, v+"=") {
			t.Errorf("a shell task's environment has %s", v)
		}
	}
	if !strings.Contains(out, "WORKSTEAL_TASK=") {
		t.Errorf("the env task's output %q has no WORKSTEAL_TASK: did it run?", out)
	}
	// A replay of the recorded result, under its (settled) delivery.
	if st, body := a.ask(t, "result", ack, nil, forgedResult("victim", otherTask(heldTask), "")); st == "ok" {
		t.Errorf("a replayed delivery recorded a result: %q %q", st, body)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a command the attacker published ran (%s exists)", marker)
	}
	// The refusals are logged by serve.
	logs := serve.Stdout.String() + serve.Stderr.String()
	for _, want := range []string{"refused a worker's result: mismatch", "refused a worker's result: not-held", "refused a worker's spawn: bad-child", "Publish Violation - Subject \"ws.task.victim.sh.any\"", "Publish Violation - Subject \"$KV.ws_results.victim.1\""} {
		if !strings.Contains(logs, want) {
			t.Errorf("serve logged no %q in %q", want, logs)
		}
	}
}

// otherTask is a task id of the 3-task job other than id.
func otherTask(id string) string {
	if id == "1" {
		return "2"
	}
	return "1"
}

// withSeq is a delivery's reply subject with another stream sequence.
func withSeq(ack string, seq uint64) string {
	t := strings.Split(ack, ".")
	i := 5 // $JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>...
	if len(t) >= 11 {
		i = 7 // with a domain and an account hash
	}
	t[i] = strconv.FormatUint(seq, 10)
	return strings.Join(t, ".")
}
