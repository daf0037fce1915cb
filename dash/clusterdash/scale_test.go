package clusterdash_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/worksteal/worksteal/dash"
	"github.com/worksteal/worksteal/internal/clusterobs"
	"github.com/worksteal/worksteal/internal/clusterwire"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// synthetic returns a source of a large cluster: 100 workers of 8 slots,
// each with 32 finished tasks on its timeline and 8 running, 10 jobs, and
// 20 stragglers; each snapshot moves every job forward, and its Time is
// the snapshot's (so the page's clock shows which one it drew).
func synthetic() (dash.Source, *atomic.Int64) {
	var n atomic.Int64
	return dash.SourceFunc(func() any {
		k := int(n.Add(1))
		now := time.Now()
		st := clusterobs.State{Kind: "cluster", Time: now, Stream: "ws", Ready: true, StragglerFactor: 2}
		for w := range 100 {
			ws := clusterobs.WorkerState{Name: fmt.Sprintf("w%03d", w), Status: "up", Slots: 8, Running: 8, Handlers: []string{"render", "encode"},
				Labels: map[string]string{"zone": "z" + strconv.Itoa(w%3)}, LastSeen: now, Executed: int64(100*k + w), Utilization: 0.9}
			if w%17 == 0 {
				ws.Status = "lost"
			}
			for i := range 32 {
				ws.Timeline = append(ws.Timeline, clusterobs.Span{Job: "j" + strconv.Itoa(i%10), Task: strconv.Itoa(i), StartMs: now.Add(-time.Duration(60-i) * time.Second).UnixMilli(), Ms: 900, OK: i%13 != 0})
			}
			for i := range 8 {
				ws.Tasks = append(ws.Tasks, clusterwire.StatusTask{Job: "j" + strconv.Itoa(i), Task: strconv.Itoa(w*8 + i), Attempt: 1, Start: now.Add(-time.Duration(i) * time.Second)})
			}
			st.Workers = append(st.Workers, ws)
		}
		for j := range 10 {
			st.Jobs = append(st.Jobs, clusterobs.JobState{ID: "j" + strconv.Itoa(j), Total: 100000, Succeeded: min(100000, 50*k+j), Running: 80, Queued: 5000,
				Rate: 1000, ETASec: 60, MedianSec: 1, ElapsedSec: float64(k)})
		}
		for s := range 20 {
			st.Stragglers = append(st.Stragglers, clusterobs.Straggler{Job: "j1", Task: strconv.Itoa(s), Worker: fmt.Sprintf("w%03d", s), Attempt: 1, RunningSec: 9, MedianSec: 1, Ratio: 9})
		}
		return st
	}), &n
}

// TestPageDrawsALargeCluster: with 100 workers and 10 jobs sent every
// 100ms, the page draws every row, and goes on drawing newer states. How
// far behind the server it is depends on the machine's load: that is
// BenchmarkPageDraw's lag-ms, not an assertion here.
func TestPageDrawsALargeCluster(t *testing.T) {
	browser := chromium(t)
	src, _ := synthetic()
	d := dash.New(src, dash.Config{Interval: 100 * time.Millisecond})
	web := httptest.NewServer(d)
	defer web.Close()
	defer d.Close() // the page's event stream, else web.Close waits for it
	within(t, browser, "the large cluster",
		chromedp.Navigate(web.URL), visible(`tr[data-worker="w099"]`), visible(`tr[data-job="j9"]`))
	rows := read(t, browser, "the rows", chromedp.Evaluate[int](`document.querySelectorAll("tr[data-worker]").length`))
	jobs := read(t, browser, "the jobs", chromedp.Evaluate[int](`document.querySelectorAll("tr[data-job]").length`))
	lost := read(t, browser, "the lost workers", chromedp.Evaluate[int](`document.querySelectorAll("tr[data-status=lost]").length`))
	if rows != 100 || jobs != 10 || lost != 6 {
		t.Errorf("the page shows %d workers, %d jobs, %d lost; want 100, 10, 6", rows, jobs, lost)
	}
	shownAt := func() time.Time {
		shown := read(t, browser, "the state's time", chromedp.Evaluate[string](`document.body.dataset.time`))
		at, err := time.Parse(time.RFC3339Nano, shown)
		if err != nil {
			t.Fatalf("the page's state time %q: %v", shown, err)
		}
		return at
	}
	first := shownAt()
	deadline := time.Now().Add(testdeadline.Left(t))
	for !shownAt().After(first) {
		if time.Now().After(deadline) {
			t.Fatalf("the page still shows the state of %v as the test's deadline nears: it draws no newer state", first)
		}
		time.Sleep(100 * time.Millisecond)
	}
	updates := read(t, browser, "the update count", chromedp.Evaluate[string](`document.body.dataset.updates`))
	drawMs := read(t, browser, "the draw time", chromedp.Evaluate[string](`document.body.dataset.drawMs`))
	t.Logf("%s updates drawn, %s ms drawing in all", updates, drawMs)
}

// BenchmarkPageDraw measures the browser's time to draw one state of 100
// workers and 10 jobs (from the page's own timing), the size of one state
// message, and how far behind the server the page is at the end (lag-ms:
// the age of the state it shows, with one state sent every 50ms; it keeps
// up when this stays near the interval plus a draw).
//
//	go test -run '^$' -bench PageDraw -benchtime 20x ./dash/clusterdash
func BenchmarkPageDraw(b *testing.B) {
	browser := chromium(b)
	src, _ := synthetic()
	d := dash.New(src, dash.Config{Interval: 50 * time.Millisecond})
	web := httptest.NewServer(d)
	defer web.Close()
	defer d.Close()
	within(b, browser, "the large cluster", chromedp.Navigate(web.URL), visible(`tr[data-worker="w099"]`))
	count := func() (n, ms float64) {
		v, err := chromedp.Run(browser, chromedp.Evaluate[[]float64](`[Number(document.body.dataset.updates), Number(document.body.dataset.drawMs)]`))
		if err != nil {
			b.Fatal(err)
		}
		return v[0], v[1]
	}
	n0, ms0 := count()
	for b.Loop() {
		time.Sleep(50 * time.Millisecond)
	}
	n1, ms1 := count()
	b.ReportMetric((ms1-ms0)/(n1-n0), "ms/draw")
	shown, err := chromedp.Run(browser, chromedp.Evaluate[string](`document.body.dataset.time`))
	if err != nil {
		b.Fatal(err)
	}
	if at, err := time.Parse(time.RFC3339Nano, shown); err == nil {
		b.ReportMetric(float64(time.Since(at).Milliseconds()), "lag-ms")
	}
	msg, _ := json.Marshal(src.Snapshot())
	b.ReportMetric(float64(len(msg))/1024, "KiB/state")
}
