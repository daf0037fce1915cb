package worksteal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/policy"
)

// TestStressMixedForkJoin runs random task trees that mix Join, JoinFunc,
// Scope/Spawn, SpawnValue and Blocking, under every victim policy and both
// steal amounts, and checks that every node ran exactly once and every
// result came back.
func TestStressMixedForkJoin(t *testing.T) {
	defer watchdog(t)()
	reps := 30
	if testing.Short() || raceEnabled {
		reps = 5
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	for _, victim := range []policy.Victim{policy.Random, policy.RoundRobin, policy.Largest, policy.TwoChoices, policy.Locality} {
		for _, amount := range []policy.Amount{policy.StealOne, policy.StealHalf} {
			t.Run(fmt.Sprintf("%v/%v", victim, amount), func(t *testing.T) {
				p := newTestPool(t, Config{Workers: 4, Victim: victim, Steal: amount, Groups: policy.EvenGroups(4, 2),
					Idle: policy.Idle{Rounds: 2, Base: 100 * time.Nanosecond, Cap: 5 * time.Microsecond}})
				for rep := 0; rep < reps; rep++ {
					var ran atomic.Int64
					tr := &tree{seed: seed + uint64(rep), ran: &ran}
					got, err := Run(p, func(w *Worker) int64 { return tr.node(w, 0, 1) })
					if err != nil {
						t.Fatal(err)
					}
					if got != ran.Load() {
						t.Fatalf("rep %d: tree returned %d nodes but %d ran", rep, got, ran.Load())
					}
				}
			})
		}
	}
}

// tree is a random task tree: node (depth, id) decides from a hash of its
// id how many children it has and how it forks them.
type tree struct {
	seed uint64
	ran  *atomic.Int64
}

func (tr *tree) node(w *Worker, depth int, id uint64) int64 {
	tr.ran.Add(1)
	h := mix(tr.seed ^ id)
	if depth >= 9 || h%100 < 25 {
		return 1
	}
	switch h % 5 {
	case 0: // JoinFunc of two children
		a, b := JoinFunc(w, tr.child, childArg{depth + 1, id * 3}, tr.child, childArg{depth + 1, id*3 + 1})
		return 1 + a + b
	case 1: // closure Join
		a, b := Join(w,
			func(w *Worker) int64 { return tr.node(w, depth+1, id*3) },
			func(w *Worker) int64 { return tr.node(w, depth+1, id*3+2) })
		return 1 + a + b
	case 2: // scope with 1–4 spawned children
		k := 1 + int(h>>8)%4
		var sum atomic.Int64
		err := w.Scope(context.Background(), func(w *Worker, s *Scope) error {
			for i := 0; i < k; i++ {
				s.Spawn(w, func(w *Worker) { sum.Add(tr.node(w, depth+1, id*7+uint64(i))) })
			}
			return nil
		})
		if err != nil {
			panic(err)
		}
		return 1 + sum.Load()
	case 3: // futures
		var total int64
		w.Scope(context.Background(), func(w *Worker, s *Scope) error {
			f1 := SpawnValue(s, w, func(w *Worker) int64 { return tr.node(w, depth+1, id*5) })
			f2 := SpawnValue(s, w, func(w *Worker) int64 { return tr.node(w, depth+1, id*5+1) })
			total = f1.Wait(w) + f2.Wait(w)
			return nil
		})
		return 1 + total
	default: // a child that blocks briefly
		var r int64
		w.Blocking(func() { time.Sleep(time.Duration(h>>16%20) * time.Microsecond) })
		r = tr.node(w, depth+1, id*11)
		return 1 + r
	}
}

type childArg struct {
	depth int
	id    uint64
}

func (tr *tree) child(w *Worker, a childArg) int64 { return tr.node(w, a.depth, a.id) }

func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// TestStressManyExternalCallers: many goroutines call Run and Pool.Scope on
// one pool at once.
func TestStressManyExternalCallers(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 3})
	callers, iters := 16, 200
	if testing.Short() || raceEnabled {
		iters = 30
	}
	errs := make(chan error, callers)
	for c := 0; c < callers; c++ {
		go func() {
			for i := 0; i < iters; i++ {
				n := 5 + (c+i)%10
				if got, _ := Run(p, func(w *Worker) int { return fibJoin(w, n) }); got != fibSeq(n) {
					errs <- fmt.Errorf("fib(%d) = %d", n, got)
					return
				}
				var cnt atomic.Int64
				if err := p.Scope(context.Background(), func(w *Worker, s *Scope) error {
					for k := 0; k < 10; k++ {
						s.Spawn(w, func(*Worker) { cnt.Add(1) })
					}
					return nil
				}); err != nil || cnt.Load() != 10 {
					errs <- fmt.Errorf("scope: %v, count %d", err, cnt.Load())
					return
				}
			}
			errs <- nil
		}()
	}
	for c := 0; c < callers; c++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
