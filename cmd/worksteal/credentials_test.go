package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Credentials files are refused, as ssh refuses a private key, when group
// or others may read them; an environment variable that holds a seed
// rather than a file name is refused without printing it.
func TestCredentialsAreKeptSecret(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secrets")
	if code, _, errs := run(t, "", nil, "serve", "init", "--dir", dir, "--host", "127.0.0.1", "--no-tls"); code != 0 {
		t.Fatalf("serve init: %s", errs)
	}
	creds := filepath.Join(dir, "worker.nk")
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
	code, out, errs := run(t, "", nil, "worker", "--nats", "nats://127.0.0.1:1", "--creds", loose)
	if code == 0 || !strings.Contains(errs, loose) || !strings.Contains(errs, "readable by") || !strings.Contains(errs, "chmod 600") {
		t.Errorf("worker with a credentials file of mode 0644: exit %d, stderr %q; want a refusal naming the file and the fix", code, errs)
	}
	for _, o := range []string{out, errs} {
		if strings.Contains(o, seed) {
			t.Errorf("the seed was printed: %q", o)
		}
	}

	for _, env := range []string{"WORKSTEAL_CREDS=" + seed, "WORKSTEAL_CREDS=" + string(seedBytes)} {
		code, out, errs := run(t, "", []string{env}, "worker", "--nats", "nats://127.0.0.1:1")
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
	if code, _, errs := run(t, "", nil, "serve", "init", "--dir", dir, "--no-tls"); code != 0 {
		t.Fatalf("serve init: %s", errs)
	}
	p := start(t, "", nil, "serve", "--config", filepath.Join(dir, "server.conf"), "--listen", "0.0.0.0:0", "--store", t.TempDir(), "--insecure")
	waitFor(t, p.stdout, `authentication 3 nkey users; TLS off`)
	waitFor(t, p.stderr, `WARNING: --insecure`)
	if errs := p.stderr.String(); strings.Contains(errs, "without authentication") || !strings.Contains(errs, "without TLS") {
		t.Errorf("serve --insecure with nkeys and no TLS: stderr %q; want a warning about TLS only", errs)
	}
}
