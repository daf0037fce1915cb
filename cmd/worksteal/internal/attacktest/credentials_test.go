package attacktest

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// Credentials files are refused, as ssh refuses a private key, when group
// or others may read them; an environment variable that holds a seed
// rather than a file name is refused without printing it.
func TestCredentialsAreKeptSecret(t *testing.T) {
	secrets := e2e.InitSecrets(t, []string{"--no-tls"})
	dir := secrets.Dir()
	creds := filepath.Join(dir, "worker1.nk") // serve init's default: a key of its own per worker
	seedBytes, err := os.ReadFile(creds)
	if err != nil {
		t.Fatal(err)
	}
	var seed string
	for _, l := range strings.Fields(string(seedBytes)) {
		if strings.HasPrefix(l, "SU") {
			seed = l
		}
	}
	if seed == "" {
		t.Fatalf("no seed in %s", creds)
	}

	loose := filepath.Join(t.TempDir(), "loose.nk")
	os.WriteFile(loose, seedBytes, 0o644)
	os.Chmod(loose, 0o644)
	code, out, errs := e2e.Run(t, "", nil, "worker", "--nats", "nats://127.0.0.1:1", "--creds", loose)
	if code == 0 || !strings.Contains(errs, loose) || !strings.Contains(errs, "readable by") || !strings.Contains(errs, "chmod 600") {
		t.Errorf("worker with a credentials file of mode 0644: exit %d, stderr %q; want a refusal naming the file and the fix", code, errs)
	}
	for _, o := range []string{out, errs} {
		if strings.Contains(o, seed) {
			t.Errorf("the seed was printed: %q", o)
		}
	}

	for _, env := range []string{"WORKSTEAL_CREDS=" + seed, "WORKSTEAL_CREDS=" + string(seedBytes)} {
		code, out, errs := e2e.Run(t, "", []string{env}, "worker", "--nats", "nats://127.0.0.1:1")
		if code == 0 || !strings.Contains(errs, "WORKSTEAL_CREDS") {
			t.Errorf("worker with a seed in $WORKSTEAL_CREDS: exit %d, stderr %q; want a refusal that names the variable", code, errs)
		}
		for _, o := range []string{out, errs} {
			if strings.Contains(o, seed) || strings.Contains(o, seed[:12]) {
				t.Errorf("the seed given in $WORKSTEAL_CREDS was printed: %q", o)
			}
		}
	}
}

// serve --insecure with a configuration that authenticates but has no TLS
// says exactly what is missing: TLS, not authentication.
func TestInsecureServeNamesWhatIsMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secrets")
	if code, _, errs := e2e.Run(t, "", nil, "serve", "init", "--dir", dir, "--no-tls"); code != 0 {
		t.Fatalf("serve init: %s", errs)
	}
	p := e2e.Start(t, "", nil, "serve", "--config", filepath.Join(dir, "server.conf"), "--listen", "0.0.0.0:0", "--store", t.TempDir(), "--insecure")
	e2e.WaitFor(t, p.Stdout, `authentication 4 nkey users; TLS off`)
	e2e.WaitFor(t, p.Stderr, `WARNING: --insecure`)
	if errs := p.Stderr.String(); strings.Contains(errs, "without authentication") || !strings.Contains(errs, "without TLS") {
		t.Errorf("serve --insecure with nkeys and no TLS: stderr %q; want a warning about TLS only", errs)
	}
}

// A submitter follows its own jobs with its own credentials: job list,
// status and results with --role submitter (an observer's credentials are
// not needed), and without --role the refusal says to give it.
func TestSubmitterFollowsItsJobsWithItsCredentials(t *testing.T) {
	url, creds := nkeysWithAWorker(t)
	if code, out, errs := e2e.Run(t, "echo one\n", nil, "run", "--nats", url, "--creds", creds("submitter"), "--job", "mine"); code != 0 || out != "one\n" {
		t.Fatalf("run: exit %d, %q, %q", code, out, errs)
	}
	for _, verb := range [][]string{{"list"}, {"status", "mine"}, {"results", "mine"}} {
		args := append([]string{"job"}, verb...)
		args = append(args, "--nats", url, "--creds", creds("submitter"), "--role", "submitter")
		code, out, errs := e2e.Run(t, "", nil, args...)
		if code != 0 || !strings.Contains(out+errs, "mine") && verb[0] == "list" || code == 0 && verb[0] == "status" && !strings.Contains(out, "1 succeeded") {
			t.Errorf("job %s with a submitter's credentials: exit %d, %q, %q", verb[0], code, out, errs)
		}
	}
	// The key's file names its holder (serve init's submitter.nk is the
	// person "submitter"): job list lists that person's jobs.
	code, out, errs := e2e.Run(t, "", nil, "job", "list", "--nats", url, "--creds", creds("submitter"))
	if code != 0 || !strings.Contains(out, "submitter.mine") {
		t.Errorf("job list with a submitter's credentials and no --role: exit %d, %q, %q; want the person's job submitter.mine", code, out, errs)
	}
	if code, out, errs := e2e.Run(t, "", nil, "job", "status", "mine", "--nats", url, "--creds", creds("submitter")); code != 0 || !strings.Contains(out, "1 succeeded") {
		t.Errorf("job status with a submitter's credentials and no --role: exit %d, %q, %q; want 1 succeeded", code, out, errs)
	}
}

// An observer's credentials list jobs but read no task's output: job
// status and job results (which read the results) are refused by the
// server, with or without --role observer, and print nothing of the
// output; the dashboard, with the same credentials, shows the job done.
func TestObserverReadsNoOutput(t *testing.T) {
	url, creds := nkeysWithAWorker(t)
	if code, out, errs := e2e.Run(t, "echo top-secret\n", nil, "run", "--nats", url, "--creds", creds("submitter"), "--job", "mine"); code != 0 || out != "top-secret\n" {
		t.Fatalf("run: exit %d, %q, %q", code, out, errs)
	}
	if code, out, errs := e2e.Run(t, "", nil, "job", "list", "--nats", url, "--creds", creds("observer")); code != 0 || !strings.Contains(out, "mine") {
		t.Errorf("job list with an observer's credentials: exit %d, %q, %q; want job mine", code, out, errs)
	}
	for _, args := range [][]string{{"status", "mine"}, {"results", "mine"}, {"results", "mine", "--json"}} {
		args = append(append([]string{"job"}, args...), "--nats", url, "--creds", creds("observer"))
		code, out, errs := e2e.Run(t, "", nil, args...)
		if code == 0 || strings.Contains(out+errs, "top-secret") || !strings.Contains(errs, "submitter") {
			t.Errorf("%v with an observer's credentials: exit %d, %q, %q; want a refusal that names the submitter's credentials, and no output", args, code, out, errs)
		}
		code, out, errs = e2e.Run(t, "", nil, append(args, "--role", "observer")...)
		if code == 0 || strings.Contains(out+errs, "top-secret") {
			t.Errorf("%v --role observer: exit %d, %q, %q; want a refusal, and no output", args, code, out, errs)
		}
	}
	dash := e2e.Start(t, "", []string{"WORKSTEAL_CREDS=" + creds("observer")}, "dash", "--nats", url, "--http", "127.0.0.1:0")
	page := e2e.WaitFor(t, dash.Stdout, `dashboard on (http://\S+/)`)[1]
	var body string
	shows := func() bool {
		var jobs []struct {
			ID        string `json:"id"`
			Succeeded int    `json:"succeeded"`
			Finished  bool   `json:"finished"`
		}
		return json.Unmarshal([]byte(body), &jobs) == nil && len(jobs) == 1 && jobs[0].ID == "submitter.mine" && jobs[0].Succeeded == 1 && jobs[0].Finished
	}
	for deadline := time.Now().Add(testdeadline.Left(t)); time.Now().Before(deadline) && !shows(); time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(page + "api/jobs"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
		}
	}
	if !shows() || strings.Contains(body, "top-secret") {
		t.Errorf("dash with an observer's credentials: /api/jobs = %q (stderr %q); want job submitter.mine with 1 succeeded", body, dash.Stderr)
	}
}

// nkeysWithAWorker starts serve with nkeys and no TLS, as serve init
// --no-tls configures it, and a worker with worker1's key; it returns
// serve's URL and the path of each holder's key.
func nkeysWithAWorker(t *testing.T) (string, func(holder string) string) {
	t.Helper()
	secrets := e2e.InitSecrets(t, []string{"--no-tls"})
	_, url := secrets.Serve(t)
	creds := func(holder string) string { return e2e.HolderCreds(secrets.Dir(), holder).Creds }
	worker := e2e.Start(t, "", []string{"WORKSTEAL_CREDS=" + creds("worker1")}, "worker", "--nats", url, "-j", "2")
	e2e.WaitForEither(t, worker, "serving sh", "not set up yet")
	return url, creds
}
