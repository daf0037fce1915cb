package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// Concurrent writers and readers: every write lands whole (run under -race).
func TestConcurrentWritesAndReads(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("ab"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := b.String(); len(got) != 800 || strings.Count(got, "ab") != 400 {
		t.Fatalf("len %d, %d pairs; want 800 bytes of 400 \"ab\"", len(got), strings.Count(got, "ab"))
	}
}
