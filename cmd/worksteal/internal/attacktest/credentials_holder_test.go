package attacktest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestOneCredentialPerHolder: serve init, then a credential per person and
// per worker (serve credentials add); each works with its own key; a
// worker's key registers only under its own name; revoking one person's
// credential locks that person out after serve restarts, and touches no
// one else's.
func TestOneCredentialPerHolder(t *testing.T) {
	secrets := e2e.InitSecrets(t, []string{"--mtls"})
	dir := secrets.Dir()
	for _, h := range [][2]string{{"worker", "w1"}, {"worker", "w2"}, {"submitter", "alice"}, {"submitter", "bob"}} {
		if code, out, errs := e2e.Run(t, "", nil, "serve", "credentials", "add", "--dir", dir, "--role", h[0], "--name", h[1]); code != 0 || !strings.Contains(out, h[1]+".nk") {
			t.Fatalf("credentials add %s: exit %d, %q, %q", h[1], code, out, errs)
		}
	}
	if code, _, errs := e2e.Run(t, "", nil, "serve", "credentials", "add", "--dir", dir, "--role", "worker", "--name", "w1"); code != 2 || !strings.Contains(errs, "w1 has a credential already") {
		t.Errorf("adding w1 again: exit %d, %q; want a refusal", code, errs)
	}
	creds := secrets.Flags
	store := filepath.Join(t.TempDir(), "js")
	startServe := func() (*e2e.Proc, string) {
		p := e2e.Start(t, "", nil, "serve", "--config", filepath.Join(dir, "server.conf"), "--listen", "127.0.0.1:0", "--store", store)
		return p, e2e.WaitFor(t, p.Stdout, `JetStream on (\S+)`)[1]
	}
	serve, url := startServe()
	e2e.WaitFor(t, serve.Stdout, `authentication 8 nkey users`)
	runJob := func(who, url, id string) (int, string, string) {
		return e2e.Run(t, "echo "+id+"\n", nil, append([]string{"run", "--nats", url, "--job", id}, creds(who)...)...)
	}
	e2e.Start(t, "", nil, append([]string{"worker", "--nats", url, "--name", "w1"}, creds("w1")...)...)
	if code, out, errs := runJob("alice", url, "a1"); code != 0 || out != "a1\n" {
		t.Fatalf("alice's job: exit %d, %q, %q", code, out, errs)
	}
	// A worker whose key is w2's cannot register as w1 (the tier is set
	// up now: it registers at once).
	impostor := e2e.Start(t, "", nil, append([]string{"worker", "--nats", url, "--name", "w1"}, creds("w2")...)...)
	select {
	case <-impostor.Done:
	case <-time.After(testdeadline.Left(t)):
		t.Fatalf("a worker with w2's key registering as w1 still runs: stderr %q", impostor.Stderr)
	}
	// Refused at its first subject in w1's name: the pings it would
	// hear (ws.alive.w1.<id>) or its registry entry.
	if code, errs := impostor.Cmd.ProcessState.ExitCode(), impostor.Stderr.String(); code == 0 || !strings.Contains(errs, "ws_workers.w1") && !strings.Contains(errs, `"ws.alive.w1.`) {
		t.Errorf("a worker with w2's key registering as w1: exit %d, stderr %q; want a refusal naming the entry or w1's pings", code, impostor.Stderr)
	}
	// Nor can it say it is idle as w1, to lure w1's work away: the server
	// refuses that subject to w2's key, and lets it say so as itself.
	w2 := connectNamed(t, url, dir, "w2")
	w2.nc.Publish("ws.idle.w1", []byte("x\t1\tw1"))
	w2.nc.Publish("ws.idle.w2", []byte("x\t1\tw2"))
	if !w2.wasRefused(t, "ws.idle.w1") || w2.wasRefused(t, "ws.idle.w2") {
		t.Errorf("w2's key: idle signals refused %q; want ws.idle.w1 refused, ws.idle.w2 not", w2.refused)
	}
	// Alice keeps copies of her files; the server no longer lets them in.
	kept := t.TempDir()
	for _, f := range []string{"alice.nk", "alice-cert.pem", "alice-key.pem"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(kept, f), data, 0o600)
	}
	if code, out, _ := e2e.Run(t, "", nil, "serve", "credentials", "revoke", "--dir", dir, "--name", "alice"); code != 0 || !strings.Contains(out, "revoked alice") {
		t.Fatalf("revoke alice: exit %d, %q", code, out)
	}
	serve.Cmd.Process.Signal(syscall.SIGTERM)
	<-serve.Done
	serve, url2 := startServe()
	e2e.WaitFor(t, serve.Stdout, `authentication 7 nkey users`)
	if url2 != url {
		// Port 0: the restarted server listens elsewhere; w1 reconnects
		// only to the old address, so start it again.
		e2e.Start(t, "", nil, append([]string{"worker", "--nats", url2, "--name", "w1"}, creds("w1")...)...)
	}
	if code, out, errs := e2e.Run(t, "echo never\n", nil, append([]string{"run", "--nats", url2, "--job", "a2"}, append(creds("w2")[:2:2], creds("bob")[2:]...)...)...); code == 0 || out != "" {
		t.Errorf("a worker's key as a submitter: exit %d, %q, %q; want a refusal", code, out, errs)
	}
	if code, out, errs := e2e.Run(t, "echo never\n", nil, "run", "--nats", url2, "--job", "a3", "--creds", filepath.Join(kept, "alice.nk"), "--tls-ca", filepath.Join(dir, "ca.pem"),
		"--tls-cert", filepath.Join(kept, "alice-cert.pem"), "--tls-key", filepath.Join(kept, "alice-key.pem")); code == 0 || out != "" || !strings.Contains(errs, "refused the credentials") {
		t.Errorf("alice after her credential was revoked: exit %d, %q, %q; want a refusal", code, out, errs)
	}
	if code, out, errs := runJob("bob", url2, "b1"); code != 0 || out != "b1\n" {
		t.Errorf("bob's job after alice was revoked: exit %d, %q, %q", code, out, errs)
	}
}
