package worksteal

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestCloseKeepsWorkersForComputationsInFlight: a computation that is
// running when Close begins still has the whole pool. The Run below waits
// until Close has begun and the other worker has gone idle (parked, or
// exited), then forks; its first half waits until the second half has
// started — on another worker — or until the other worker's goroutine has
// exited. Only the first is allowed: a Close that let workers leave while
// a computation was in flight would turn the rest of it serial.
func TestCloseKeepsWorkersForComputationsInFlight(t *testing.T) {
	defer watchdog(t, time.Minute)()
	for rep := 0; rep < 20; rep++ {
		p, err := New(Config{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		running := make(chan struct{})
		type result struct{ a, b int }
		res := make(chan result, 1)
		go func() {
			r, _ := Run(p, func(w *Worker) result {
				close(running)
				for !p.closed.Load() {
					runtime.Gosched()
				}
				for {
					if _, searching := counts(p.sleep.state.Load()); searching == 0 {
						break // the other worker parked or left
					}
					runtime.Gosched()
				}
				var bOn atomic.Int32
				bOn.Store(-1)
				a, b := Join(w, func(w *Worker) int {
					for bOn.Load() < 0 && p.live.Load() == 2 {
						runtime.Gosched()
					}
					return w.ID()
				}, func(w *Worker) int { bOn.Store(int32(w.ID())); return w.ID() })
				return result{a, b}
			})
			res <- r
		}()
		<-running
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		r := <-res
		if r.a == r.b {
			t.Fatalf("rep %d: after Close began, both halves ran on worker %d: the other worker left while the computation was in flight", rep, r.a)
		}
		if n := p.live.Load(); n != 0 {
			t.Fatalf("after Close %d workers still live", n)
		}
	}
}
