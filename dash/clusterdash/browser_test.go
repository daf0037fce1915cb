package clusterdash_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/worksteal/worksteal/internal/testdeadline"
)

// chromium returns a headless Chromium's context for the test, or skips the
// test when Chromium is not installed (it fails instead under CI, which
// sets WORKSTEAL_CI=1 and installs Debian's chromium package).
func chromium(t testing.TB) context.Context {
	t.Helper()
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("WORKSTEAL_CI") == "1" {
			t.Fatal("chromium is not installed, and WORKSTEAL_CI=1: CI must install it (apt-get install -y chromium)")
		}
		t.Skip("chromium is not installed (apt-get install -y chromium): skipping the browser test")
	}
	// No network on the test machines: nothing that phones home.
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// within runs the actions until they are done or the test's deadline nears
// (testdeadline.Left: go test's -timeout, not a fixed few seconds, which a
// loaded machine can spend before the browser draws), failing the test with
// what was awaited.
func within(t testing.TB, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	d := testdeadline.Left(t)
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := chromedp.Do(tctx, actions...); err != nil {
		t.Fatalf("the page does not show %s (waited %v, until the test's deadline neared): %v", what, d.Round(time.Second), err)
	}
}

// read runs one action that returns a value, bounded as within is.
func read[T any](t testing.TB, ctx context.Context, what string, action chromedp.Action[T]) T {
	t.Helper()
	d := testdeadline.Left(t)
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	v, err := chromedp.Run(tctx, action)
	if err != nil {
		t.Fatalf("the page does not show %s (waited %v, until the test's deadline neared): %v", what, d.Round(time.Second), err)
	}
	return v
}

// visible waits until the CSS selector matches an element that is drawn
// (its box has a size). It polls with querySelector rather than tracking a
// DOM node, because the page replaces its rows at every update.
func visible(sel string) chromedp.Action[chromedp.Void] {
	expr := `(() => { const e = document.querySelector(` + strconv.Quote(sel) + `); return !!e && e.getClientRects().length > 0; })()`
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		for {
			ok, err := chromedp.Evaluate[bool](expr)(ctx, tg)
			if err != nil || ok {
				return chromedp.Void{}, err
			}
			select {
			case <-ctx.Done():
				return chromedp.Void{}, ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}

// text reads the text of the element the CSS selector matches.
func text(sel string) chromedp.Action[string] {
	return chromedp.Evaluate[string](`(() => { const e = document.querySelector(` + strconv.Quote(sel) + `); if (!e) throw new Error("no element"); return e.innerText; })()`)
}

// doneCount reads a job's "done/total" cell as the page shows it.
func doneCount(t *testing.T, ctx context.Context, job string) (done, total int) {
	t.Helper()
	cell := read(t, ctx, "job "+job, text(`tr[data-job="`+job+`"] td.done`))
	a, b, ok := strings.Cut(strings.ReplaceAll(cell, ",", ""), "/")
	done, err1 := strconv.Atoi(a)
	total, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("job %s: done cell %q is not N/TOTAL", job, cell)
	}
	return done, total
}

// TestDashboardInBrowser runs serve --http, three workers and a job as real
// processes, and checks in headless Chromium what an operator sees: the
// worker rows, the job's progress moving, a straggler flagged, and a
// worker killed with SIGKILL shown as lost.
//
// WORKSTEAL_DASH_SCREENSHOT=FILE.png saves the page at the end (the README's
// screenshot: docs/dashboard.png).
func TestDashboardInBrowser(t *testing.T) {
	browser := chromium(t)
	dir := t.TempDir()
	serve := start(t, "serve", "--listen", "127.0.0.1:0", "--store", filepath.Join(dir, "js"), "--http", "127.0.0.1:0")
	natsURL := serve.wait(t, `JetStream on (nats://\S+)`)[1]
	dashURL := serve.wait(t, `dashboard on (http://\S+)`)[1]

	workers := map[string]*process{}
	for _, w := range []struct{ name, slots, zone string }{{"alpha", "2", "eu"}, {"bravo", "2", "us"}, {"victim", "1", "eu"}} {
		workers[w.name] = start(t, "worker", "--nats", natsURL, "-j", w.slots, "--name", w.name, "--ack-wait", "5s", "--label", "zone="+w.zone)
	}
	for _, p := range workers {
		p.wait(t, "serving sh")
	}

	// The worker rows.
	within(t, browser, "three live workers",
		chromedp.Navigate(dashURL),
		visible(`tr[data-worker="alpha"][data-status="up"]`),
		visible(`tr[data-worker="bravo"][data-status="up"]`),
		visible(`tr[data-worker="victim"][data-status="up"]`))
	if row := read(t, browser, "bravo's row", text(`tr[data-worker="bravo"]`)); !strings.Contains(row, "zone=us") || !strings.Contains(row, "sh") {
		t.Errorf("bravo's row %q does not show its label zone=us and its handler sh", row)
	}

	// A job of 80 short tasks and one long one (task 2): 5 slots take about
	// 4 s for the short ones, while the long one runs on.
	var cmds strings.Builder
	for i := 1; i <= 81; i++ {
		if i == 2 {
			cmds.WriteString("sleep 60\n")
		} else {
			cmds.WriteString("sleep 0.25\n")
		}
	}
	tasks := filepath.Join(dir, "tasks.txt")
	if err := os.WriteFile(tasks, []byte(cmds.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	start(t, "run", "--nats", natsURL, "--job", "browser", "--ack-wait", "5s", "-a", tasks)

	// Its progress moves: two readings, the second further along.
	within(t, browser, "job browser", visible(`tr[data-job="browser"]`))
	first, total := doneCount(t, browser, "browser")
	if total != 81 {
		t.Fatalf("job browser shows %d tasks; want 81", total)
	}
	var later int
	for deadline := time.Now().Add(testdeadline.Left(t)); ; {
		later, _ = doneCount(t, browser, "browser")
		if later > first || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if later <= first {
		t.Fatalf("job browser's progress did not move: %d/81, then still %d/81", first, later)
	}
	t.Logf("progress moved from %d/81 to %d/81", first, later)

	// The long task is flagged as a straggler, with its worker.
	within(t, browser, "the long task as a straggler", visible(`tr[data-straggler="browser/2"]`))
	straggler := read(t, browser, "the straggler row", text(`tr[data-straggler="browser/2"]`))
	if !strings.Contains(straggler, "alpha") && !strings.Contains(straggler, "bravo") && !strings.Contains(straggler, "victim") {
		t.Errorf("the straggler row %q names no worker", straggler)
	}

	// A worker killed without warning is shown as lost (silent for 3 s).
	workers["victim"].kill()
	killed := time.Now()
	within(t, browser, "the killed worker as lost", visible(`tr[data-worker="victim"][data-status="lost"]`))
	badge := read(t, browser, "the lost badge", text(`tr[data-worker="victim"] .badge`))
	if badge != "lost" {
		t.Errorf("the killed worker's badge reads %q; want lost", badge)
	}
	t.Logf("killed worker shown as lost after %v", time.Since(killed).Round(100*time.Millisecond))
	within(t, browser, "the other workers still up",
		visible(`tr[data-worker="alpha"][data-status="up"]`),
		visible(`tr[data-worker="bravo"][data-status="up"]`))

	if file := os.Getenv("WORKSTEAL_DASH_SCREENSHOT"); file != "" {
		png := read(t, browser, "a screenshot", chromedp.FullScreenshot(100))
		if err := os.WriteFile(file, png, 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Println("screenshot written to", file)
	}
}
