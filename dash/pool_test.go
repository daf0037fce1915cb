package dash_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/dash"
)

// poolState is what these tests read of a pool's JSON state (the
// package doc's keys).
type poolState struct {
	Kind    string `json:"kind"`
	Workers []struct {
		Worker      int     `json:"worker"`
		Executed    uint64  `json:"executed"`
		Utilization float64 `json:"utilization"`
	} `json:"workers"`
}

func getState(t *testing.T, url string) poolState {
	t.Helper()
	resp, err := http.Get(url + "/api/state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st poolState
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestPoolDashboard: the page, its script and the state of a pool that
// has worked are served; the counters are the pool's Stats.
func TestPoolDashboard(t *testing.T) {
	pool, err := worksteal.New(worksteal.Config{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	web := httptest.NewServer(dash.New(dash.Pool(pool), dash.Config{}))
	defer web.Close()

	for _, c := range []struct{ path, ctype, contains string }{
		{"/", "text/html", `<script src="dash.js">`},
		{"/dash.js", "text/javascript", "EventSource"},
		{"/dash.css", "text/css", ".badge"},
		{"/api/config", "application/json", `"title": "worksteal"`},
	} {
		resp, err := http.Get(web.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		buf := make([]byte, 1<<16)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), c.ctype) || !strings.Contains(b.String(), c.contains) {
			t.Errorf("GET %s: %s %s, body has %q: %v", c.path, resp.Status, resp.Header.Get("Content-Type"), c.contains, strings.Contains(b.String(), c.contains))
		}
	}

	st := getState(t, web.URL)
	if st.Kind != "pool" || len(st.Workers) != 3 {
		t.Fatalf("state: kind %q, %d workers; want pool, 3", st.Kind, len(st.Workers))
	}
	if n, _ := worksteal.Run(pool, func(w *worksteal.Worker) int { return fibT(w, 22) }); n != 17711 {
		t.Fatalf("fib(22) = %d", n)
	}
	st = getState(t, web.URL)
	want := pool.Stats().Total().Executed // read after: counters only grow
	var executed uint64
	for _, w := range st.Workers {
		executed += w.Executed
		if w.Utilization < 0 || w.Utilization > 1 {
			t.Errorf("worker %d utilization %v; want within [0, 1]", w.Worker, w.Utilization)
		}
	}
	if executed == 0 || executed > want {
		t.Errorf("the dashboard shows %d jobs executed; the pool's Stats read next show %d (want 0 < shown <= stats)", executed, want)
	}
}

func fibT(w *worksteal.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := worksteal.Join(w,
		func(w *worksteal.Worker) int { return fibT(w, n-1) },
		func(w *worksteal.Worker) int { return fibT(w, n-2) })
	return a + b
}
