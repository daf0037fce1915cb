package attacktest

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestServeRestartedMidJobRebindsItsDeliveries: the recorder's holder
// table lives in serve's memory. serve is restarted (same address, same
// store) while two workers with keys of their own hold four tasks that
// wait for a gate, and the ack wait is 30 minutes: the deliveries made
// before the restart are in no table; the recorder binds each again on
// the word of its holder (its own held list, heard on its own subject).
// Every task runs exactly once (each appends a line to a file of its
// own), its output is printed once, and the job exits 0 long before the
// ack wait; meanwhile w2's key, naming w1's deliveries (from the held
// lists every worker hears), records nothing and hands nothing back.
func TestServeRestartedMidJobRebindsItsDeliveries(t *testing.T) {
	secrets := e2e.InitSecrets(t, []string{"--mtls", "--workers", "w1,w2"})
	dir := secrets.Dir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	store := filepath.Join(t.TempDir(), "js")
	startServe := func() *e2e.Proc {
		p := e2e.Start(t, "", nil, "serve", "--config", filepath.Join(dir, "server.conf"), "--listen", addr, "--store", store, "-v", "--ack-wait", "30m")
		e2e.WaitFor(t, p.Stdout, `JetStream on (\S+)`)
		return p
	}
	serve := startServe()
	url := "tls://" + addr
	creds := secrets.Flags
	work := t.TempDir()
	gate := filepath.Join(work, "go")
	var cmds strings.Builder
	const tasks = 6
	for i := range tasks {
		cmds.WriteString("echo run >> " + filepath.Join(work, "runs"+strconv.Itoa(i)) + "; while [ ! -e " + gate + " ]; do sleep 0.05; done; echo real" + strconv.Itoa(i) + "\n")
	}
	sub := e2e.Start(t, cmds.String(), nil, append([]string{"run", "--nats", url, "--job", "restarted", "-k", "--ack-wait", "30m"}, creds("admin")...)...)
	for _, w := range []string{"w1", "w2"} {
		p := e2e.Start(t, "", nil, append([]string{"worker", "--nats", url, "-j", "2"}, creds(w)...)...)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("%s's stderr:\n%s", w, p.Stderr)
			}
		})
	}
	started := func() int {
		k := 0
		for i := range tasks {
			if _, err := os.Stat(filepath.Join(work, "runs"+strconv.Itoa(i))); err == nil {
				k++
			}
		}
		return k
	}
	testdeadline.Until(t, "four tasks held by w1 and w2", 20*time.Millisecond, func() bool { return started() >= 4 })

	serve.Cmd.Process.Signal(syscall.SIGTERM)
	<-serve.Done
	serve = startServe()

	// w2's key, after the restart, on w1's deliveries from w1's held lists.
	a := connectNamed(t, url, dir, "w2")
	var mu sync.Mutex
	var theirs []string // "<delivery>\t<task>"
	if _, err := a.nc.Subscribe("ws.held.w1.*", func(m *nats.Msg) {
		mu.Lock()
		defer mu.Unlock()
		for _, line := range strings.Split(string(m.Data), "\n") {
			if f := strings.Split(line, "\t"); len(f) == 3 && strings.HasPrefix(f[0], "$JS.ACK.") && strings.HasPrefix(f[1], "restarted.") {
				theirs = append(theirs, f[0]+"\t"+strings.TrimPrefix(f[1], "restarted."))
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	testdeadline.Until(t, "a held list naming a delivery", 20*time.Millisecond, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(theirs) > 0
	})
	mu.Lock()
	named := append([]string(nil), theirs...)
	mu.Unlock()
	for _, l := range named {
		ack, task, _ := strings.Cut(l, "\t")
		if st, body := a.ask(t, "result", ack, nil, forgedResult("restarted", task, "")); st != "refused" {
			t.Errorf("w2 recording for delivery %s after the restart: %q %q; want a refusal", ack, st, body)
		}
	}

	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sub.Done:
	case <-time.After(testdeadline.Left(t)):
		t.Fatalf("run did not end (the ack wait is 30 minutes); stderr %q; serve's log %q", sub.Stderr, serve.Stdout.String()+serve.Stderr.String())
	}
	want := ""
	for i := range tasks {
		want += "real" + strconv.Itoa(i) + "\n"
	}
	if code, out := sub.Cmd.ProcessState.ExitCode(), sub.Stdout.String(); code != 0 || out != want {
		t.Errorf("run: exit %d, stdout %q, stderr %q; want each real output once", code, out, sub.Stderr)
	}
	for i := range tasks {
		data, _ := os.ReadFile(filepath.Join(work, "runs"+strconv.Itoa(i)))
		if n := strings.Count(string(data), "run\n"); n != 1 {
			t.Errorf("task %d ran %d times; want once (serve's log %q)", i, n, serve.Stdout.String()+serve.Stderr.String())
		}
	}
	code, out, errs := e2e.Run(t, "", nil, append([]string{"job", "results", "restarted", "--json", "--nats", url}, creds("admin")...)...)
	if code != 0 || strings.Count(out, `"task":`) != tasks || strings.Contains(out, "FORGED") || strings.Contains(out, `"worker":"evil"`) {
		t.Errorf("job results: exit %d, %q, %q; want %d results, none forged", code, out, errs, tasks)
	}
}
