package worksteal

import (
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/policy"
)

// parkModes lists the idle workers of p by how they wait (park.go,
// parkMode): on their wake channel, and on their futex word.
func parkModes(p *Pool) (chans, futexes []int) {
	p.sleep.mu.Lock()
	defer p.sleep.mu.Unlock()
	for _, w := range p.sleep.idle {
		if w.parkMode == parkChan {
			chans = append(chans, w.id)
		} else {
			futexes = append(futexes, w.id)
		}
	}
	return chans, futexes
}

// TestParkModes checks the wake-up side of park.go's parkMode on a pool
// whose workers park on futexes while computations are in flight
// (futexAfter < 0): a worker that parks while a task still runs waits on
// its futex word, the one that parks once the pool is idle on its channel;
// a wake from outside the pool (Run's caller, Submit) takes the channel
// sleeper, so that it runs at once on the caller's P; a wake from a
// worker that goes on running takes a futex sleeper and asks for no yield.
func TestParkModes(t *testing.T) {
	if !futexParks {
		t.Skip("workers park on futexes on Linux only")
	}
	// One round, then an untimed park: no sleeps of the schedule, in which
	// a worker would leave the idle list and come back on its own.
	p := newTestPool(t, Config{Workers: 2, Idle: policy.Idle{Rounds: 1}, futexParkAny: true, futexAfter: -1})
	for round := range 20 {
		// Two tasks that wait for each other, so one runs on each worker;
		// then a finishes, and b waits until a's worker has parked.
		waitAllParked(p)
		var started atomic.Int32
		aWorker, bWorker := make(chan int, 1), make(chan int, 1)
		done := make(chan struct{})
		task := func(first bool) func(*Worker) {
			return func(w *Worker) {
				started.Add(1)
				for started.Load() < 2 {
					runtime.Gosched()
				}
				if first {
					aWorker <- w.ID()
					return
				}
				for {
					if sleepers, _ := counts(p.sleep.state.Load()); sleepers == 1 {
						break
					}
					runtime.Gosched()
				}
				bWorker <- w.ID()
				close(done)
			}
		}
		if err := p.Submit(task(true)); err != nil {
			t.Fatal(err)
		}
		if err := p.Submit(task(false)); err != nil {
			t.Fatal(err)
		}
		<-done
		a, b := <-aWorker, <-bWorker
		waitAllParked(p)
		chans, futexes := parkModes(p)
		if !slices.Equal(chans, []int{b}) || !slices.Equal(futexes, []int{a}) {
			t.Fatalf("round %d: parked on channels %v and on futexes %v; want [%d] (parked once the pool was idle) and [%d] (parked while a task ran)", round, chans, futexes, b, a)
		}
		// A wake from outside takes the channel sleeper, which runs the task.
		got := make(chan int, 1)
		if err := p.Submit(func(w *Worker) { got <- w.ID() }); err != nil {
			t.Fatal(err)
		}
		if id := <-got; id != b {
			t.Fatalf("round %d: Submit's task ran on worker %d; want %d, the one parked on its channel", round, id, b)
		}
		// A wake from a worker takes the futex sleeper and asks for no yield.
		waitAllParked(p)
		if chans, _ := parkModes(p); !slices.Contains(chans, b) {
			t.Fatalf("round %d: worker %d parked on %v after its task; want its channel", round, b, chans)
		}
		if _, yield := p.sleep.wakeOne(true); yield {
			t.Fatalf("round %d: wakeOne(fromWorker) asked for a yield: it woke the channel sleeper, not the futex sleeper %d", round, a)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestParkModeRule checks when a worker parks on its futex
// (parkModeLocked): only while a computation has been in flight for
// futexAfter, never for a spare, and never where futexes are off.
func TestParkModeRule(t *testing.T) {
	if !futexParks {
		t.Skip("workers park on futexes on Linux only")
	}
	p := newTestPool(t, Config{Workers: 2, futexParkAny: true})
	mode := func(w *Worker, inflight int64, busy time.Duration) parkMode {
		p.sleep.mu.Lock()
		defer p.sleep.mu.Unlock()
		saved := p.inflight.Load()
		p.inflight.Store(inflight)
		p.busySince.Store(int64(now() - busy))
		defer p.inflight.Store(saved)
		return p.sleep.parkModeLocked(w)
	}
	w := p.workers[0]
	for _, c := range []struct {
		inflight int64
		busy     time.Duration
		want     parkMode
	}{
		{0, 0, parkChan},
		{0, time.Second, parkChan},
		{1, 0, parkChan},
		{1, futexAfter / 2, parkChan},
		{1, futexAfter + time.Millisecond, parkFutex},
		{3, time.Second, parkFutex},
	} {
		if got := mode(w, c.inflight, c.busy); got != c.want {
			t.Errorf("inflight %d, busy for %v: mode %d; want %d", c.inflight, c.busy, got, c.want)
		}
	}
	spare := &Worker{pool: p, spare: true}
	if got := mode(spare, 1, time.Second); got != parkChan {
		t.Errorf("a spare: mode %d; want %d (channel)", got, parkChan)
	}
	off := newTestPool(t, Config{Workers: 2, chanParkOnly: true})
	off.sleep.mu.Lock()
	off.inflight.Add(1)
	off.busySince.Store(int64(now() - time.Second))
	got := off.sleep.parkModeLocked(off.workers[0])
	off.inflight.Add(-1)
	off.sleep.mu.Unlock()
	if got != parkChan {
		t.Errorf("chanParkOnly pool: mode %d; want %d (channel)", got, parkChan)
	}
}
