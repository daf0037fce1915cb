package worksteal

import (
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

// TestParkModes checks the rule of park.go's parkMode on an idle pool
// whose workers may park on futexes: exactly one worker waits on its
// channel, the one a wake from outside the pool (Run's caller, Submit)
// takes, so that it runs at once on the caller's P; the others wait on
// their futex words, and a wake from a worker that goes on running takes
// one of those and asks for no yield.
func TestParkModes(t *testing.T) {
	if !futexParks {
		t.Skip("workers park on futexes on Linux only")
	}
	// One round, then an untimed park: no sleeps of the schedule, in which
	// a worker would leave the idle list and come back on its own.
	p := newTestPool(t, Config{Workers: 3, Idle: policy.Idle{Rounds: 1}, futexParkAny: true})
	// Until every worker has run a job: each has then parked at least once
	// by the rule, not in the start-up park (on its channel).
	for i := 0; ; i++ {
		Run(p, func(w *Worker) int { return fibJoin(w, 20) })
		all := true
		for _, ws := range p.Stats().Workers[:3] {
			all = all && ws.Executed > 0
		}
		if all {
			break
		}
		if i == 10_000 {
			t.Fatal("10,000 Runs of fib 20 on 3 workers and one worker never ran a job")
		}
	}
	for round := range 20 {
		waitAllParked(p)
		chans, futexes := parkModes(p)
		if len(chans) != 1 || len(futexes) != 2 {
			t.Fatalf("round %d: idle pool: workers %v park on their channels and %v on futexes; want exactly one on its channel", round, chans, futexes)
		}
		// A wake from outside takes the channel sleeper, which runs the task.
		got := make(chan int, 1)
		if err := p.Submit(func(w *Worker) { got <- w.ID() }); err != nil {
			t.Fatal(err)
		}
		if id := <-got; id != chans[0] {
			t.Fatalf("round %d: Submit's task ran on worker %d; want %d, the one parked on its channel (futexes: %v)", round, id, chans[0], futexes)
		}
		// A wake from a worker takes a futex sleeper and asks for no yield.
		waitAllParked(p)
		chans, futexes = parkModes(p)
		woke, yield := p.sleep.wakeOne(true)
		if !woke || yield {
			t.Fatalf("round %d: wakeOne(fromWorker) = %v, %v; want a futex sleeper woken without a yield (channel %v, futexes %v)", round, woke, yield, chans, futexes)
		}
		if c, _ := parkModes(p); len(c) != 1 || c[0] != chans[0] {
			t.Fatalf("round %d: after a worker's wake, channel sleepers %v; want %v still parked", round, c, chans)
		}
		time.Sleep(time.Millisecond)
	}
}
