package attacktest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestAPersonLearnsNoOtherPersonsJobs: bob, with his real person key,
// asks JetStream what it tells of every job whatever a request's
// subject says: stream info with a subjects_filter naming alice's jobs
// (on the task stream and on each bucket), account info, a read cursor's
// info, a message or a direct get by sequence, a direct get of his own key
// with a body asking for a sequence, and watches of his own keys whose
// body filters on hers. The server refuses each or answers only with bob's
// own; his node works without any of them. Alice's jobs still work end to
// end through the binary: submit, watch (results), status, resume.
func TestAPersonLearnsNoOtherPersonsJobs(t *testing.T) {
	secrets := e2e.InitSecrets(t, []string{"--mtls"})
	dir := secrets.Dir()
	secrets.Add(t, "submitter", "alice", "bob")
	creds := secrets.Flags
	_, url := secrets.Serve(t)
	e2e.Start(t, "", nil, append([]string{"worker", "--nats", url, "-j", "2"}, creds("worker1")...)...)
	as := func(who, stdin string, args ...string) (int, string, string) {
		return secrets.As(t, url, who, stdin, args...)
	}

	// Alice: a job that ends, and one that waits (its task sleeps).
	if code, out, errs := as("alice", "echo secret-a1-x\necho secret-a1-y\n", "run", "--job", "secret-a1"); code != 0 || !strings.Contains(out, "secret-a1-x") {
		t.Fatalf("alice's job: exit %d, %q, %q", code, out, errs)
	}
	e2e.Start(t, "sleep 600\n", nil, append([]string{"run", "--job", "secret-a2", "--nats", url}, creds("alice")...)...)
	testdeadline.Until(t, "alice's job secret-a2 is recorded", 20*time.Millisecond, func() bool {
		_, out, _ := as("alice", "", "job", "list")
		return strings.Contains(out, "alice.secret-a2")
	})
	// Bob's own job, so that his keys exist.
	if code, out, errs := as("bob", "echo bobs\n", "run", "--job", "b1"); code != 0 || out != "bobs\n" {
		t.Fatalf("bob's job: exit %d, %q, %q", code, out, errs)
	}

	bob := connectHolder(t, url, dir, "bob", cluster.RoleSubmitter)
	leaks := func(what string, data []byte) {
		t.Helper()
		if strings.Contains(string(data), "secret-a") || strings.Contains(string(data), "alice") {
			t.Errorf("bob's key: %s answered with alice's jobs: %.300s", what, data)
		}
	}
	// Stream info with a subjects_filter: every subject of every job,
	// with its count. Refused on every stream.
	for stream, filter := range map[string]string{
		"ws_tasks":          "ws.task.alice.>",
		"KV_ws_results":     "$KV.ws_results.alice.>",
		"KV_ws_jobs":        "$KV.ws_jobs.>",
		"KV_ws_checkpoints": "$KV.ws_checkpoints.>",
		"KV_ws_failures":    "$KV.ws_failures.>",
		"KV_ws_workers":     "$KV.ws_workers.>",
	} {
		subj := "$JS.API.STREAM.INFO." + stream
		body := []byte(`{"subjects_filter":"` + filter + `"}`)
		if m, err := bob.nc.Request(subj, body, 200*time.Millisecond); err == nil {
			leaks(subj, m.Data)
		}
		if !bob.wasRefused(t, subj) {
			t.Errorf("bob's key: %s with a subjects_filter was not refused", subj)
		}
	}
	// Account info, a read cursor's info (its filter names its job),
	// reads by sequence.
	for subj, body := range map[string]string{
		"$JS.API.INFO":                           ``,
		"$JS.API.CONSUMER.INFO.KV_ws_results.c1": ``,
		"$JS.API.CONSUMER.INFO.KV_ws_jobs.c1":    ``,
		"$JS.API.CONSUMER.LIST.KV_ws_jobs":       ``,
		"$JS.API.CONSUMER.NAMES.KV_ws_results":   ``,
		"$JS.API.STREAM.MSG.GET.KV_ws_jobs":      `{"seq":1}`,
		"$JS.API.STREAM.MSG.GET.ws_tasks":        `{"seq":1}`,
		"$JS.API.DIRECT.GET.KV_ws_jobs":          `{"seq":1}`,
		"$JS.API.DIRECT.GET.KV_ws_results":       `{"next_by_subj":"$KV.ws_results.alice.>"}`,
		"$JS.API.STREAM.LIST":                    ``,
		"$JS.API.STREAM.NAMES":                   ``,
	} {
		if m, err := bob.nc.Request(subj, []byte(body), 200*time.Millisecond); err == nil {
			leaks(subj, m.Data)
		}
		if !bob.wasRefused(t, subj) {
			t.Errorf("bob's key: %s was not refused", subj)
		}
	}
	// What his key may send, with a body asking for more: answered with
	// nothing of alice's.
	for subj, body := range map[string]string{
		// A direct get of his own key asking for a sequence, a batch or
		// another subject instead.
		"$JS.API.DIRECT.GET.KV_ws_jobs.$KV.ws_jobs.bob.b1":         `{"seq":1}`,
		"$JS.API.DIRECT.GET.KV_ws_results.$KV.ws_results.bob.b1.0": `{"batch":100,"next_by_subj":"$KV.ws_results.>"}`,
		"$JS.API.DIRECT.GET.KV_ws_jobs.$KV.ws_jobs.bob.>":          `{"multi_last":["$KV.ws_jobs.>"]}`,
		// Watches of his own keys whose body filters on everyone's.
		"$JS.API.CONSUMER.CREATE.KV_ws_jobs.spy.$KV.ws_jobs.bob.>": `{"stream_name":"KV_ws_jobs","config":{"name":"spy","filter_subject":"$KV.ws_jobs.>","deliver_subject":"_INBOX_submitter_bob.spy","ack_policy":"none"}}`,
		"$JS.API.CONSUMER.CREATE.KV_ws_results.spy.$KV.ws_results.bob.>": `{"stream_name":"KV_ws_results","config":{"name":"spy","filter_subject":"$KV.ws_results.bob.>",` +
			`"filter_subjects":["$KV.ws_results.alice.>"],"deliver_subject":"_INBOX_submitter_bob.spy","ack_policy":"none"}}`,
		// The deployment's consumer, which binding the tier reads.
		"$JS.API.CONSUMER.INFO.ws_tasks.ws_workers": ``,
	} {
		m, err := bob.nc.Request(subj, []byte(body), testdeadline.Left(t))
		if err != nil {
			t.Errorf("bob's key: %s: %v; want an answer", subj, err)
			continue
		}
		leaks(subj, m.Data)
		if strings.Contains(subj, "CONSUMER.CREATE") && !strings.Contains(string(m.Data), `"error"`) {
			t.Errorf("bob's key: %s made a consumer: %.300s", subj, m.Data)
		}
		if strings.Contains(subj, "DIRECT.GET") && m.Header.Get("Status") == "" {
			t.Errorf("bob's key: %s with body %s was answered with a message: %q %.200s", subj, body, m.Header, m.Data)
		}
	}

	// Bob's node works without any of it; it shows only his.
	if code, out, errs := as("bob", "", "job", "list"); code != 0 || !strings.Contains(out, "bob.b1") || strings.Contains(out, "alice") {
		t.Errorf("bob's job list: exit %d, %q, %q; want his job only", code, out, errs)
	}
	if code, out, errs := as("bob", "", "job", "status", "b1"); code != 0 || !strings.Contains(out, "1 succeeded") {
		t.Errorf("bob's job status b1: exit %d, %q, %q", code, out, errs)
	}

	// Alice's jobs, end to end: results (a watch of her keys), status
	// (of the waiting one: the owner service's stalls), a resume of the
	// finished job (its results, nothing run again) and a new job.
	if code, out, errs := as("alice", "", "job", "results", "secret-a1", "--json"); code != 0 || strings.Count(out, "\n") != 2 {
		t.Errorf("alice's job results secret-a1: exit %d, %q, %q; want her 2 results", code, out, errs)
	}
	if code, out, errs := as("alice", "", "job", "status", "secret-a2"); code != 0 || !strings.Contains(out, "1 running") {
		t.Errorf("alice's job status secret-a2: exit %d, %q, %q; want it running", code, out, errs)
	}
	code, out, errs := as("alice", "echo secret-a1-x\necho secret-a1-y\n", "run", "--job", "secret-a1")
	lines := strings.Fields(out)
	slices.Sort(lines)
	if code != 0 || strings.Join(lines, " ") != "secret-a1-x secret-a1-y" {
		t.Errorf("alice resuming secret-a1: exit %d, %q, %q", code, out, errs)
	}
	if code, out, errs := as("alice", "", "job", "status", "secret-a1"); code != 0 || !strings.Contains(out, "2 succeeded") || !strings.Contains(out, "extra executions: 0") {
		t.Errorf("alice's job status secret-a1 after the resume: exit %d, %q, %q; want 2 succeeded, nothing run again", code, out, errs)
	}
	if code, out, errs := as("alice", "", "job", "list"); code != 0 || !strings.Contains(out, "alice.secret-a1") || !strings.Contains(out, "alice.secret-a2") || strings.Contains(out, "bob") {
		t.Errorf("alice's job list: exit %d, %q, %q; want her two jobs", code, out, errs)
	}
}
