package hwcount

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestThreadCounts: every event is either counted (work done on the thread
// shows up) or named unavailable with a reason, never a silent zero.
func TestThreadCounts(t *testing.T) {
	if runtime.GOOS != "linux" {
		if _, missing, err := Open(0); err == nil || len(missing) != int(NumEvents) {
			t.Fatalf("Open off Linux: %v, %v; want every event unavailable", missing, err)
		}
		return
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, missing, err := Open(0)
	if err != nil {
		t.Skipf("perf_event_open unavailable here: %v", err)
	}
	defer s.Close()
	before := s.Read()
	touch(16)
	time.Sleep(2 * time.Millisecond) // the locked thread blocks: a context switch
	got := s.Read().Sub(before)
	for e := range NumEvents {
		if why, gone := missing[e]; gone {
			if why == "" {
				t.Errorf("%v is unavailable without a reason", e)
			}
			if got[e] != 0 {
				t.Errorf("%v is unavailable (%s) but reads %d", e, why, got[e])
			}
			t.Logf("%v: unavailable: %s", e, why)
			continue
		}
		t.Logf("%v: %d", e, got[e])
		if (e == Instructions || e == Cycles || e == PageFaults || e == ContextSwitches) && got[e] == 0 {
			t.Errorf("%v = 0 after touching 16 MiB and sleeping on the counted thread", e)
		}
	}
	if missing[PageFaults] != "" {
		t.Errorf("page faults, a software event every Linux kernel counts for a process itself, is unavailable: %s", missing[PageFaults])
	}
	if got[PageFaults] < 16<<20/4096/2 {
		t.Errorf("page faults = %d after touching 16 MiB of fresh memory; want about %d", got[PageFaults], 16<<20/4096)
	}
}

func TestProcessCountsOtherThreads(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("perf_event_open is Linux only")
	}
	p, missing, err := OpenProcess()
	if err != nil {
		t.Skipf("perf_event_open unavailable here: %v", err)
	}
	defer p.Close()
	before := p.Read()
	// Four goroutines locked to their threads at once, blocked until all
	// are: at least some of those threads are created after OpenProcess.
	const n = 4
	var ready, done sync.WaitGroup
	ready.Add(n)
	done.Add(n)
	start, finish := make(chan struct{}), make(chan struct{})
	for range n {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ready.Done()
			<-start
			touch(16)
			done.Done()
			<-finish // the thread lives until the reading
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
	got := p.Read().Sub(before)
	close(finish)
	if got[PageFaults] < n*16<<20/4096/2 {
		t.Errorf("process page faults = %d after %d threads, some of them new, touched 16 MiB each", got[PageFaults], n)
	}
	if why := missing[Instructions]; why != "" && !strings.Contains(why, "PMU") && !strings.Contains(why, "paranoid") {
		t.Errorf("instructions unavailable without a plain reason: %q", why)
	}
	t.Logf("bandwidth: %s", MemoryBandwidthReason())
}
