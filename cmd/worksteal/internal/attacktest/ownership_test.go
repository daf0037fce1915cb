package attacktest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/syncbuf"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// connectHolder connects as the holder name of role with its real
// credentials (name.nk and its client certificate in dir).
func connectHolder(t *testing.T, url, dir, name string, role cluster.Role) *attacker {
	t.Helper()
	a := &attacker{}
	a.nc = e2e.Connect(t, url, role, e2e.HolderCreds(dir, name), a.refuse)
	return a
}

// TestAJobBelongsToItsSubmitter: alice and bob each hold a submitter
// credential of their own (serve credentials add), an admin the key serve
// init wrote. Bob, with his real key, through the binary and as raw NATS
// messages, tries to list, read the outputs of, watch, cancel, overwrite
// and resubmit over alice's jobs: each is refused by the server or by the
// owner service (which logs it), and alice's outcomes do not change. The
// admin sees and cancels alice's job; the observer sees every job's
// progress and no output.
func TestAJobBelongsToItsSubmitter(t *testing.T) {
	secrets := e2e.InitSecrets(t, []string{"--mtls"})
	dir := secrets.Dir()
	secrets.Add(t, "submitter", "alice", "bob")
	creds := secrets.Flags
	serve, url := secrets.Serve(t, "--http", "127.0.0.1:0")
	dashURL := e2e.WaitFor(t, serve.Stdout, `dashboard on (http://\S+/)`)[1]
	e2e.Start(t, "", nil, append([]string{"worker", "--nats", url, "-j", "2"}, creds("worker1")...)...)
	as := func(who, stdin string, args ...string) (int, string, string) {
		return secrets.As(t, url, who, stdin, args...)
	}

	if code, out, errs := as("alice", "echo secret-of-alice\n", "run", "--job", "a1"); code != 0 || out != "secret-of-alice\n" {
		t.Fatalf("alice's job: exit %d, %q, %q", code, out, errs)
	}
	secret := base64.StdEncoding.EncodeToString([]byte("secret-of-alice\n")) // as job results --json shows it
	// A job of alice's that waits: its one task sleeps.
	waiting := e2e.Start(t, "sleep 600\n", nil, append([]string{"run", "--job", "a2", "--nats", url}, creds("alice")...)...)
	testdeadline.Until(t, "alice's job a2 is recorded", 20*time.Millisecond, func() bool {
		_, out, _ := as("alice", "", "job", "list")
		return strings.Contains(out, "alice.a2")
	})

	// Bob, through the binary.
	if code, out, errs := as("bob", "", "job", "list"); code != 0 || strings.Contains(out, "alice") {
		t.Errorf("bob's job list: exit %d, %q, %q; want none of alice's jobs", code, out, errs)
	}
	for _, verb := range []string{"status", "results", "cancel", "delete"} {
		code, out, errs := as("bob", "", "job", verb, "alice.a1")
		if code == 0 || strings.Contains(out, secret) || !strings.Contains(errs, "belongs to alice") {
			t.Errorf("bob's job %s alice.a1: exit %d, %q, %q; want a refusal saying the job is alice's", verb, code, out, errs)
		}
	}
	if code, out, errs := as("bob", "echo forged\n", "run", "--job", "alice.a1"); code == 0 || out != "" || !strings.Contains(errs, "belongs to alice") {
		t.Errorf("bob submitting over alice.a1: exit %d, %q, %q; want a refusal", code, out, errs)
	}
	// The same id is bob's own job, apart from alice's.
	if code, out, errs := as("bob", "echo bobs\n", "run", "--job", "a1"); code != 0 || out != "bobs\n" {
		t.Errorf("bob's own job a1: exit %d, %q, %q", code, out, errs)
	}

	// Bob, as raw messages with his key: every subject and key of
	// alice's jobs is refused by the server.
	bob := connectHolder(t, url, dir, "bob", cluster.RoleSubmitter)
	for _, subj := range []string{
		"$JS.API.DIRECT.GET.KV_ws_results.$KV.ws_results.alice.a1.0", // read her output
		"$JS.API.DIRECT.GET.KV_ws_jobs.$KV.ws_jobs.alice.a1",         // read her record
		"$JS.API.CONSUMER.CREATE.KV_ws_results.spy.$KV.ws_results.alice.a1.*",
		"$JS.API.CONSUMER.CREATE.KV_ws_results.spy", // a watch whose filter the subject does not name
		"$JS.API.CONSUMER.CREATE.KV_ws_results",
		"$KV.ws_jobs.alice.a1",          // overwrite her record
		"$KV.ws_results.alice.a1.0",     // overwrite her result
		"ws.task.alice.a2.sh.any",       // a task in her job
		"ws.cancel.alice.a2",            // stop her tasks
		"$JS.API.STREAM.PURGE.ws_tasks", // purge her tasks
		"$JS.API.STREAM.PURGE.KV_ws_results",
		"$JS.API.CONSUMER.DELETE.ws_tasks.ws_r_x", // delete a route
		"$JS.API.STREAM.UPDATE.ws_tasks",
		"ws.own.alice.cancel", // the owner service, as alice
	} {
		bob.nc.Publish(subj, nil)
		if !bob.wasRefused(t, subj) {
			t.Errorf("bob's key: %s was not refused", subj)
		}
	}
	for _, subj := range []string{"_INBOX_submitter_alice.>", "_INBOX_submitter.>", "_INBOX_admin.>", "ws.started.alice.>"} {
		bob.nc.Subscribe(subj, func(*nats.Msg) {})
		if !bob.wasRefused(t, subj) {
			t.Errorf("bob's key: subscribing to %s was not refused", subj)
		}
	}
	// The owner service, on bob's own subject, for alice's job: refused
	// and logged.
	reply, err := bob.nc.Request("ws.own.bob.cancel", []byte("alice.a2"), testdeadline.Left(t))
	if err != nil || reply.Header.Get("Ws-Status") == "ok" || !strings.Contains(string(reply.Data), clusterops.RefusedNotOwner) {
		t.Fatalf("owner service asked by bob to cancel alice.a2: %v, %v; want a refusal", reply, err)
	}
	e2e.WaitFor(t, serve.Stderr, `refused a person's own.cancel: not-owner: bob asked to cancel job alice.a2`)
	// The dashboard counts it, by role and reason.
	waitRefusals(t, dashURL, map[string]int64{"person/not-owner": 1})

	bobCannotSeeOrStallAlicesRoutes(t, url, dir, serve.Stderr, bob, as)

	// Alice's outcomes are hers: her output, her job still waiting.
	if code, out, errs := as("alice", "", "job", "results", "a1", "--json"); code != 0 || !strings.Contains(out, secret) {
		t.Errorf("alice's results after bob's tries: exit %d, %q, %q", code, out, errs)
	}
	select {
	case <-waiting.Done:
		t.Fatalf("alice's waiting job ended: stdout %q, stderr %q", waiting.Stdout, waiting.Stderr)
	default:
	}

	// The observer sees every job's progress, no output.
	if code, out, errs := as("observer", "", "job", "list"); code != 0 || !strings.Contains(out, "alice.a2") || !strings.Contains(out, "bob.a1") {
		t.Errorf("observer's job list: exit %d, %q, %q; want every job", code, out, errs)
	}
	obs := connectHolder(t, url, dir, "observer", cluster.RoleObserver)
	obs.nc.Publish("$JS.API.DIRECT.GET.KV_ws_results.$KV.ws_results.alice.a1.0", nil)
	if !obs.wasRefused(t, "$JS.API.DIRECT.GET.KV_ws_results.$KV.ws_results.alice.a1.0") {
		t.Error("the observer read an output")
	}

	// The admin sees everyone's jobs and outputs, and cancels alice's.
	if code, out, errs := as("admin", "", "job", "list"); code != 0 || !strings.Contains(out, "alice.a2") || !strings.Contains(out, "bob.a1") {
		t.Errorf("admin's job list: exit %d, %q, %q; want every job", code, out, errs)
	}
	if code, out, errs := as("admin", "", "job", "results", "alice.a1", "--json"); code != 0 || !strings.Contains(out, secret) {
		t.Errorf("admin's job results alice.a1: exit %d, %q, %q", code, out, errs)
	}
	if code, out, errs := as("admin", "", "job", "cancel", "alice.a2"); code != 0 {
		t.Errorf("admin's job cancel alice.a2: exit %d, %q, %q", code, out, errs)
	}
	select {
	case <-waiting.Done:
		if waiting.Cmd.ProcessState.ExitCode() == 0 || !strings.Contains(waiting.Stderr.String(), "cancelled") {
			t.Errorf("alice's cancelled job: exit %d, stderr %q; want it to say it was cancelled", waiting.Cmd.ProcessState.ExitCode(), waiting.Stderr)
		}
	case <-time.After(testdeadline.Left(t)):
		t.Fatalf("alice's job did not end after the admin cancelled it: stderr %q", waiting.Stderr)
	}
}

// bobCannotSeeOrStallAlicesRoutes: bob, with his real key, tries to learn
// alice's job ids and counts from the routes (list, info, names) and to
// create or re-filter the route consumer of her waiting job a2 (its name
// is a digest of job, handler and requirements anyone can compute): the
// server refuses each, the owner service refuses to make or describe a
// route of her job for him (not-owner, logged), her route keeps its
// filter, and a job of hers run afterwards has each task succeed once.
func bobCannotSeeOrStallAlicesRoutes(t *testing.T, url, dir string, serveLog *syncbuf.Buffer, bob *attacker, as func(string, string, ...string) (int, string, string)) {
	t.Helper()
	h := sha256.Sum256([]byte("alice.a2\x00sh\x00any"))
	route := "ws_r_" + hex.EncodeToString(h[:10])
	for _, subj := range []string{
		"$JS.API.CONSUMER.LIST.ws_tasks",                                         // every route: its job's id in its metadata, its counts
		"$JS.API.CONSUMER.NAMES.ws_tasks",                                        // every route's name
		"$JS.API.CONSUMER.INFO.ws_tasks." + route,                                // her route's counts
		"$JS.API.CONSUMER.CREATE.ws_tasks." + route + ".ws.task.alice.a2.sh.any", // re-create her route
		"$JS.API.CONSUMER.CREATE.ws_tasks." + route + ".ws.task.bob.x.sh.any",    // re-filter it onto nothing of hers
		"$JS.API.CONSUMER.CREATE.ws_tasks.ws_r_bob.ws.task.bob.x.sh.any",         // a route of his own, made directly
	} {
		bob.nc.Publish(subj, []byte(`{"stream_name":"ws_tasks","config":{"durable_name":"`+route+`","filter_subject":"ws.task.bob.x.sh.any","ack_policy":"explicit"}}`))
		if !bob.wasRefused(t, subj) {
			t.Errorf("bob's key: %s was not refused", subj)
		}
	}
	for _, op := range []string{"route", "stalls"} {
		body := []byte("alice.a2")
		if op == "route" {
			body = []byte(`{"job":"alice.a2","handler":"sh"}`)
		}
		reply, err := bob.nc.Request("ws.own.bob."+op, body, testdeadline.Left(t))
		if err != nil || reply.Header.Get("Ws-Status") == "ok" || !strings.Contains(string(reply.Data), clusterops.RefusedNotOwner) {
			t.Fatalf("owner service asked by bob for the %s of alice.a2: %v, %v; want a refusal", op, reply, err)
		}
		e2e.WaitFor(t, serveLog, `refused a person's own.`+op+`: not-owner: bob asked to `+op+` job alice.a2`)
	}
	// Her route is as her submit made it.
	admin := connectHolder(t, url, dir, "admin", cluster.RoleAdmin)
	js, err := jetstream.New(admin.nc)
	if err != nil {
		t.Fatal(err)
	}
	cons, err := js.Consumer(t.Context(), "ws_tasks", route)
	if err != nil {
		t.Fatalf("alice's route %s: %v", route, err)
	}
	if cfg := cons.CachedInfo().Config; cfg.FilterSubject != "ws.task.alice.a2.sh.any" || cfg.Metadata["ws_job"] != "alice.a2" {
		t.Errorf("alice's route after bob's tries: filter %q, job %q", cfg.FilterSubject, cfg.Metadata["ws_job"])
	}
	// What her job waits for (job status asks the owner service for its
	// stalls: she may not list the routes).
	if code, out, errs := as("alice", "", "job", "status", "a2"); code != 0 || !strings.Contains(out, "1 running") {
		t.Errorf("alice's job status a2: exit %d, %q, %q; want it running", code, out, errs)
	}
	// A job of hers made after them: each task succeeds once.
	code, out, errs := as("alice", "echo t1\necho t2\necho t3\n", "run", "--job", "a3")
	lines := strings.Fields(out)
	slices.Sort(lines)
	if code != 0 || strings.Join(lines, " ") != "t1 t2 t3" {
		t.Errorf("alice's job a3 after bob's tries: exit %d, %q, %q; want t1 t2 t3 once each", code, out, errs)
	}
	if code, out, errs := as("alice", "", "job", "status", "a3"); code != 0 || !strings.Contains(out, "3 succeeded") {
		t.Errorf("alice's job status a3: exit %d, %q, %q; want 3 succeeded", code, out, errs)
	}
}
