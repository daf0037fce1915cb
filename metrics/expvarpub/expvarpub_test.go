package expvarpub

import (
	"encoding/json"
	"expvar"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

func TestTake(t *testing.T) {
	s := worksteal.Stats{Workers: []worksteal.WorkerStats{
		{Executed: 10, Spawned: 7, Stolen: 1, StolenFrom: 3, StealAttempts: 5, FailedSteals: 4, Parks: 2, Busy: 3 * time.Second, Idle: time.Second},
		{Executed: 20, Spawned: 9, Stolen: 3, StolenFrom: 1, StealAttempts: 8, FailedSteals: 5, Parks: 6, Busy: time.Second, Idle: 1500 * time.Millisecond},
	}}
	got := take(s)
	want := counters{TasksExecuted: 30, TasksSpawned: 16, Steals: 4, StolenFrom: 4, StealAttempts: 13, FailedSteals: 9, Parks: 8, BusySeconds: 4, IdleSeconds: 2.5}
	if got.Total != want {
		t.Errorf("Total = %+v; want %+v", got.Total, want)
	}
	if got.Workers != 2 || len(got.PerWorker) != 2 || got.PerWorker[1].IdleSeconds != 1.5 {
		t.Errorf("per worker: %+v", got)
	}
	if got.Imbalance != 1.5 || got.StealRate != 4.0/30 || got.Utilization != 4/6.5 {
		t.Errorf("derived: utilization %v imbalance %v steal rate %v", got.Utilization, got.Imbalance, got.StealRate)
	}
	b, _ := json.Marshal(got)
	for _, key := range []string{`"workers":2`, `"per_worker":[`, `"tasks_executed":30`, `"busy_seconds":4`, `"steal_rate":`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s: %s", key, b)
		}
	}
}

// A published pool shows up in /debug/vars, read fresh on every request.
func TestPublishServesDebugVars(t *testing.T) {
	p, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	name := fmt.Sprintf("worksteal_test_pool_%d", runs.Add(1)) // unique under -count
	Publish(name, p)
	read := func() snapshot {
		rec := httptest.NewRecorder()
		expvar.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/debug/vars", nil))
		var vars map[string]json.RawMessage
		if err := json.Unmarshal(rec.Body.Bytes(), &vars); err != nil {
			t.Fatalf("/debug/vars is not JSON: %v", err)
		}
		var s snapshot
		if err := json.Unmarshal(vars[name], &s); err != nil {
			t.Fatalf("%s: %v in %s", name, err, vars[name])
		}
		return s
	}
	before := read()
	if before.Workers != 2 {
		t.Fatalf("workers = %d; want 2", before.Workers)
	}
	for i := 0; i < 4; i++ {
		worksteal.Run(p, func(w *worksteal.Worker) int { return 1 })
	}
	// A worker publishes its counters right after the job that ended Run
	// returns, a moment after Run's caller resumes: poll until it has.
	after := read()
	for deadline := time.Now().Add(testdeadline.Left(t)); after.Total.TasksExecuted < before.Total.TasksExecuted+4 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Microsecond)
		after = read()
	}
	if after.Total.TasksExecuted < before.Total.TasksExecuted+4 {
		t.Errorf("executed %d then %d; want 4 more after 4 Runs", before.Total.TasksExecuted, after.Total.TasksExecuted)
	}
	defer func() {
		if recover() == nil {
			t.Error("publishing the same name twice did not panic")
		}
	}()
	Publish(name, p)
}

var runs atomic.Int64

func TestFuncNilPoolPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "expvarpub:") {
			t.Errorf("recover() = %v; want an expvarpub: panic", r)
		}
	}()
	Func(nil)
}
