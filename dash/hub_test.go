package dash

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestEventRateIsBounded: however often the state changes, a page gets at
// most one message per interval (here the state changes at every read, as
// with thousands of tasks a second), and nobody reads the source once no
// page listens.
func TestEventRateIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var reads atomic.Int64
		src := SourceFunc(func() any { return reads.Add(1) }) // a new state at every read
		h := &hub{src: src, every: 500 * time.Millisecond, clients: map[chan []byte]struct{}{}}

		ch, leave := h.subscribe()
		got := 0
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-ch:
					got++
				case <-stop:
					return
				}
			}
		}()
		time.Sleep(10 * time.Second)
		synctest.Wait()
		// The first message at once, then one per 500ms: 21 in 10 s.
		if got != 21 {
			t.Errorf("%d messages in 10 s at a 500ms interval; want 21 (1 + 10s/500ms)", got)
		}
		leave()
		before := reads.Load()
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if after := reads.Load(); after > before+1 {
			t.Errorf("the source was read %d times after the last page left; want at most 1", after-before)
		}
		h.mu.Lock()
		looping := h.looping
		h.mu.Unlock()
		if looping {
			t.Error("the event loop still runs with no page listening")
		}
		close(stop)
		<-done
	})
}
