package clusterdash_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The dashboard says what a job waits for when no live worker can run its
// queued tasks: here the only worker with gpu=1 was killed just before the
// batch that requires it was submitted.
func TestDashboardSaysWhatAJobWaitsFor(t *testing.T) {
	browser := chromium(t)
	dir := t.TempDir()
	serve := start(t, "serve", "--listen", "127.0.0.1:0", "--store", filepath.Join(dir, "js"), "--http", "127.0.0.1:0")
	natsURL := serve.wait(t, `JetStream on (nats://\S+)`)[1]
	dashURL := serve.wait(t, `dashboard on (http://\S+)`)[1]
	gpu := start(t, "worker", "--nats", natsURL, "-j", "1", "--name", "gpu", "--label", "gpu=1")
	gpu.wait(t, "serving sh")
	within(t, browser, "the gpu worker", chromedp.Navigate(dashURL), visible(`tr[data-worker="gpu"][data-status="up"]`))
	gpu.kill()
	start(t, "run", "--nats", natsURL, "--require", "gpu=1", "--job", "needsgpu", "echo", ":::", "a", "b", "c")
	within(t, browser, "what job needsgpu waits for", visible(`[data-waiting="needsgpu"]`))
	if got := read(t, browser, "the job's wait", text(`[data-waiting="needsgpu"]`)); !strings.Contains(got, "no live worker has gpu=1") || !strings.Contains(got, "3 tasks wait") {
		t.Errorf("the job's row says %q; want what it waits for", got)
	}
}
