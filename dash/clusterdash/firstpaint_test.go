package clusterdash_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/worksteal/worksteal/dash"
)

// The page draws the state as soon as it loads, from /api/state, without
// waiting for the first server-sent event: here the event stream never
// delivers one (a proxy that buffers it, a server slow to take the first
// snapshot), and the page still shows every worker and job.
func TestFirstPaintDoesNotWaitForTheEventStream(t *testing.T) {
	browser := chromium(t)
	src, _ := synthetic()
	d := dash.New(src, dash.Config{Interval: 100 * time.Millisecond})
	stuck := make(chan struct{})
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/events" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			select { // open, and silent
			case <-r.Context().Done():
			case <-stuck:
			}
			return
		}
		d.ServeHTTP(w, r)
	}))
	defer web.Close()
	defer close(stuck)
	defer d.Close()
	within(t, browser, "the workers and jobs of /api/state (no event came)",
		chromedp.Navigate(web.URL), visible(`tr[data-worker="w099"]`), visible(`tr[data-job="j9"]`))
}
