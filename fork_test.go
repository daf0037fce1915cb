package worksteal

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
)

// TestThiefTakesAForkAlone: a thief takes the oldest of a worker's Join
// halves by itself — it holds about as much work as all the younger ones
// — while spawned tasks, siblings, go by half (policy.StealHalf, the
// default). Owner A spawns a task T that the other worker, B, takes; while
// T holds B, A forks three Joins at the root of its job (eager: their
// second halves fb1, fb2, fb3 are in its deque at once); then T ends and
// B, idle, steals. Taking forks by half, B would take fb1 and fb2, and A,
// its own fb2 gone, would take it back: four jobs stolen in all instead of
// two (T and fb1). Red with job.fork left unset in newFrame.
func TestThiefTakesAForkAlone(t *testing.T) {
	p, err := New(Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	before := p.Stats().Total().StolenFrom
	var tStarted, pushed, fb1Started, fa1Done atomic.Bool
	err = p.Do(func(w *Worker) {
		w.Scope(context.Background(), func(w *Worker, s *Scope) error {
			s.Spawn(w, func(*Worker) {
				tStarted.Store(true)
				spinUntil(&pushed)
			})
			spinUntil(&tStarted) // T is on the other worker: A's deque is empty
			Join(w, func(w *Worker) int {
				Join(w, func(w *Worker) int {
					Join(w, func(*Worker) int {
						pushed.Store(true) // fb1, fb2, fb3 wait in A's deque
						for !fb1Started.Load() {
							runtime.Gosched()
						}
						return 0
					}, func(*Worker) int { return 3 })
					return 0
				}, func(*Worker) int { return 2 })
				fa1Done.Store(true)
				return 0
			}, func(*Worker) int {
				fb1Started.Store(true)
				spinUntil(&fa1Done) // fb2 and fb3 are back with A by now
				return 1
			})
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Stats().Total().StolenFrom - before; got != 2 {
		t.Fatalf("%d jobs stolen; want 2: the task T, then the oldest Join half alone", got)
	}
}
