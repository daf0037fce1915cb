package worksteal

import (
	"sync"
	"testing"
)

// SubmitSpread keeps dealing tasks round-robin after 2^31 calls: the
// cursor is a uint32, and on 32-bit platforms (int of 32 bits) turning it
// into an int before the modulo made the index negative there (run this
// test with GOARCH=386, as .ci/run does).
func TestSubmitSpreadPastTwoToThe31Calls(t *testing.T) {
	defer watchdog(t)()
	const n = 3
	p := newTestPool(t, Config{Workers: n})
	// Hold every worker so that the tasks stay in the inboxes.
	release := make(chan struct{})
	var held sync.WaitGroup
	held.Add(n)
	for range n {
		mustSubmit(t, p, func(*Worker) { held.Done(); <-release })
	}
	held.Wait()
	defer close(release)
	p.rr.Store(1<<31 - 1) // the next calls are the 2^31st and later
	var done sync.WaitGroup
	for i := range 2 * n {
		done.Add(1)
		if err := p.SubmitSpread(func(*Worker) { done.Done() }); err != nil {
			done.Done()
			t.Fatalf("SubmitSpread number 2^31-1+%d: %v", i, err)
		}
	}
	for i, w := range p.workers {
		if got := w.inbox.len(); got != 2 {
			t.Errorf("worker %d inbox holds %d tasks after %d SubmitSpread on %d workers; want 2", i, got, 2*n, n)
		}
	}
}
