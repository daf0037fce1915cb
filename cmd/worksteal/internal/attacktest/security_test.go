package attacktest

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/joblog"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// secrets returns the secret parts of the files serve init wrote: each
// seed, and each private key's base64 lines.
func secrets(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		if !strings.HasSuffix(f, ".nk") && !strings.HasSuffix(f, "-key.pem") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "-----") {
				out = append(out, line)
			}
		}
	}
	if len(out) < 3 {
		t.Fatalf("found %d secrets in %s", len(out), dir)
	}
	return out
}

// TestSecureDeployment is a deployment as an operator makes it, through
// the binary: serve init, serve with its configuration, a worker and
// submitters with their credentials. The secrets never show in any
// process's output, in an error, or in ps (the command lines and the
// environment name files only).
func TestSecureDeployment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secrets")
	code, initOut, initErr := e2e.Run(t, "", nil, "serve", "init", "--dir", dir, "--host", "127.0.0.1", "--shared-worker-key")
	if code != 0 {
		t.Fatalf("serve init: exit %d, %s", code, initErr)
	}
	for _, f := range []string{"worker.nk", "submitter.nk", "observer.nk", "server-key.pem", "ca-key.pem", "route-key.pem"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want a file only its owner reads", f, err, st.Mode())
		}
	}
	if code, _, errs := e2e.Run(t, "", nil, "serve", "init", "--dir", dir); code != 2 || !strings.Contains(errs, "exists; keeping it") {
		t.Errorf("serve init again: exit %d, %q; want a refusal to overwrite", code, errs)
	}
	secret := secrets(t, dir)
	creds := func(role string) string { return filepath.Join(dir, role+".nk") }
	ca := filepath.Join(dir, "ca.pem")

	serve, url := e2e.Secrets(dir).Serve(t, "-v", "--http", "127.0.0.1:0")
	e2e.WaitFor(t, serve.Stdout, `authentication \d+ nkey users; TLS on`)
	dashURL := e2e.WaitFor(t, serve.Stdout, `dashboard on (http://\S+/)`)[1]

	// The worker gets its credentials from the environment, the submitter
	// from flags.
	worker := e2e.Start(t, "", []string{"WORKSTEAL_CREDS=" + creds("worker"), "WORKSTEAL_TLS_CA=" + ca},
		"worker", "--nats", url, "-j", "2", "--name", "w1", "--ack-wait", "5s")
	// A worker cannot set the tier up: it says it waits for a submitter
	// (or, if the tier is up, that it serves).
	e2e.WaitForEither(t, worker, "serving sh", "not set up yet")
	logPath := filepath.Join(t.TempDir(), "jobs.tsv")
	code, out, errs := e2e.Run(t, "echo one\necho two\n", nil, "run", "--nats", url, "--creds", creds("submitter"), "--tls-ca", ca, "-k", "--joblog", logPath)
	if code != 0 || out != "one\ntwo\n" {
		t.Fatalf("run with a submitter's credentials: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// The joblog's Receive column is the job's stdout bytes, as with a
	// local run and GNU parallel.
	if recs, err := joblog.ReadFile(logPath); err != nil || len(recs) != 2 {
		t.Errorf("run --nats --joblog: %d rows, %v; want 2", len(recs), err)
	} else {
		for _, r := range recs {
			if r.Receive != 4 {
				t.Errorf("run --nats --joblog: row %+v: Receive %d; want 4 (\"one\\n\" or \"two\\n\")", r, r.Receive)
			}
		}
	}
	outputs := []string{initOut, initErr, out, errs}

	// The dashboard that serve --http runs is let in as an observer.
	workers := getWorkers(t, dashURL)
	if !strings.Contains(workers, `"w1"`) {
		t.Errorf("serve --http: /api/workers = %q; want worker w1", workers)
	}
	// worksteal dash connects as an observer.
	dash := e2e.Start(t, "", []string{"WORKSTEAL_CREDS=" + creds("observer")}, "dash", "--nats", url, "--tls-ca", ca, "--http", "127.0.0.1:0")
	if got := getWorkers(t, e2e.WaitFor(t, dash.Stdout, `dashboard on (http://\S+/)`)[1]); !strings.Contains(got, `"w1"`) {
		t.Errorf("dash with an observer's credentials: /api/workers = %q (stderr %q); want worker w1", got, dash.Stderr)
	}

	// ps shows command lines and environments that name files only.
	for _, p := range []*e2e.Proc{serve, worker} {
		for _, f := range []string{"cmdline", "environ"} {
			data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.Cmd.Process.Pid), f))
			if err != nil {
				t.Fatal(err)
			}
			outputs = append(outputs, string(data))
		}
	}

	// Clients that may not, get clear errors.
	refusals := []struct {
		what string
		env  []string
		args []string
		want string
	}{
		{"no credentials", nil, []string{"--tls-ca", ca}, "requires credentials: give --creds FILE"},
		{"a worker's credentials", nil, []string{"--tls-ca", ca, "--creds", creds("worker")}, "the server refused the submitter"},
		{"an observer's credentials", []string{"WORKSTEAL_CREDS=" + creds("observer")}, []string{"--tls-ca", ca}, "the server refused the submitter"},
		{"no trust in the server's certificate", nil, []string{"--creds", creds("submitter")}, "certificate signed by unknown authority"},
	}
	for _, r := range refusals {
		args := append([]string{"run", "--nats", url, "--job", "refused"}, r.args...)
		code, out, errs := e2e.Run(t, "echo never\n", r.env, args...)
		if code == 0 || out != "" || !strings.Contains(errs, r.want) {
			t.Errorf("run with %s: exit %d, stdout %q, stderr %q; want an error saying %q", r.what, code, out, errs, r.want)
		}
		outputs = append(outputs, out, errs)
	}
	// A damaged credentials file is named, not quoted.
	bad := filepath.Join(t.TempDir(), "bad.nk")
	seed, _ := os.ReadFile(creds("submitter"))
	damaged := bytes.ReplaceAll(seed, []byte("\nSU"), []byte("\nSX"))
	os.WriteFile(bad, damaged, 0o600)
	secret = append(secret, strings.Fields(string(damaged[bytes.Index(damaged, []byte("\nSX")):]))[0])
	code, _, errs = e2e.Run(t, "echo never\n", nil, "run", "--nats", url, "--creds", bad, "--tls-ca", ca)
	if code == 0 || !strings.Contains(errs, "credentials "+bad+": no valid nkey seed") {
		t.Errorf("run with a damaged seed file: exit %d, stderr %q", code, errs)
	}
	outputs = append(outputs, errs)

	// SIGTERM is how the services end: they stop cleanly and exit 0
	// (docs/cli.md).
	for _, p := range []struct {
		name string
		p    *e2e.Proc
	}{{"dash", dash}, {"worker", worker}, {"serve", serve}} {
		p.p.Cmd.Process.Signal(syscall.SIGTERM)
		<-p.p.Done
		if code := p.p.Cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("%s after SIGTERM: exit %d (stderr %q); want 0", p.name, code, p.p.Stderr.String())
		}
	}
	outputs = append(outputs, serve.Stdout.String(), serve.Stderr.String(), worker.Stdout.String(), worker.Stderr.String())
	if !strings.Contains(serve.Stdout.String()+serve.Stderr.String(), "TLS required for client connections") {
		t.Errorf("serve -v did not log; the check for secrets in its log would be empty")
	}
	for _, o := range outputs {
		for _, s := range secret {
			if strings.Contains(o, s) {
				t.Errorf("a secret (%.6s...) shows in output or ps: %q", s, o)
			}
		}
	}
}

// TestServeRefusesAnExposedServerWithoutSecurity: a server (or dashboard)
// reachable from the network starts only with authentication and TLS, or
// with --insecure, which it announces on stderr; loopback needs nothing.
func TestServeRefusesAnExposedServerWithoutSecurity(t *testing.T) {
	store := filepath.Join(t.TempDir(), "js")
	code, _, errs := e2e.Run(t, "", nil, "serve", "--listen", "0.0.0.0:0", "--store", store)
	if code != 2 || !strings.Contains(errs, "--listen 0.0.0.0:0 is reachable from the network, and the server has no authentication and no TLS") {
		t.Errorf("exposed without security: exit %d, stderr %q; want exit 2 naming the flag and what is missing", code, errs)
	}
	code, _, errs = e2e.Run(t, "", nil, "serve", "--listen", "127.0.0.1:0", "--cluster-listen", "0.0.0.0:0", "--store", store)
	if code != 2 || !strings.Contains(errs, "--cluster-listen 0.0.0.0:0 is reachable from the network, and its routes are not mutual TLS") {
		t.Errorf("exposed routes: exit %d, stderr %q", code, errs)
	}
	// The dashboard has no authentication of its own: an exposed --http is
	// refused too, by serve and by dash, before anything starts.
	code, _, errs = e2e.Run(t, "", nil, "serve", "--listen", "127.0.0.1:0", "--store", store, "--http", "0.0.0.0:0")
	if code != 2 || !strings.Contains(errs, "--http 0.0.0.0:0 is reachable from the network, and the dashboard has no authentication") {
		t.Errorf("serve with an exposed dashboard: exit %d, stderr %q", code, errs)
	}
	code, _, errs = e2e.Run(t, "", nil, "dash", "--nats", "nats://127.0.0.1:1", "--http", ":8222")
	if code != 2 || !strings.Contains(errs, "--http :8222 is reachable from the network") {
		t.Errorf("dash on every interface: exit %d, stderr %q", code, errs)
	}
	p := e2e.Start(t, "", nil, "serve", "--listen", "0.0.0.0:0", "--store", store, "--insecure", "--http", "0.0.0.0:0")
	e2e.WaitFor(t, p.Stdout, "JetStream on")
	e2e.WaitFor(t, p.Stdout, `worksteal dashboard on http://`)
	e2e.WaitFor(t, p.Stderr, `WARNING: --insecure: 0\.0\.0\.0:\d+ is reachable from the network without authentication or TLS`)
	p.Cmd.Process.Signal(syscall.SIGTERM)
	<-p.Done
	p = e2e.Start(t, "", nil, "serve", "--listen", "127.0.0.1:0", "--store", store)
	e2e.WaitFor(t, p.Stdout, "authentication none \\(loopback only\\); TLS off")
	if p.Stderr.String() != "" {
		t.Errorf("loopback: stderr %q; want nothing", p.Stderr)
	}
}

// getWorkers polls a dashboard's /api/workers until it lists a worker, or
// the test's deadline nears, and returns the last answer.
func getWorkers(t *testing.T, dashURL string) string {
	t.Helper()
	var workers string
	deadline := time.Now().Add(testdeadline.Left(t))
	for !strings.Contains(workers, `"name"`) && time.Now().Before(deadline) {
		if resp, err := http.Get(dashURL + "api/workers"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			workers = string(b)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return workers
}
