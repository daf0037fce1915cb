package worksteal

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/policy"
)

func TestJoinComputesFibUnderEveryVictimAndAmount(t *testing.T) {
	defer watchdog(t)()
	n := 25
	if testing.Short() || raceEnabled {
		n = 20
	}
	want := fibSeq(n)
	for _, workers := range []int{1, 2, 3, 8} {
		for _, amount := range []policy.Amount{policy.StealOne, policy.StealHalf} {
			for _, victim := range []policy.Victim{policy.Random, policy.RoundRobin, policy.Largest, policy.TwoChoices, policy.Locality} {
				name := fmt.Sprintf("workers=%d/%v/%v", workers, amount, victim)
				t.Run(name, func(t *testing.T) {
					p := newTestPool(t, Config{Workers: workers, Steal: amount, Victim: victim, Groups: policy.EvenGroups(workers, 2)})
					got, err := Run(p, func(w *Worker) int { return fibJoin(w, n) })
					if err != nil || got != want {
						t.Fatalf("fib(%d) = %d, %v; want %d", n, got, err, want)
					}
				})
			}
		}
	}
}

func TestJoinClosures(t *testing.T) {
	p := newTestPool(t, Config{Workers: 4})
	var sum func(w *Worker, lo, hi int) int
	sum = func(w *Worker, lo, hi int) int {
		if hi-lo <= 4 {
			s := 0
			for i := lo; i < hi; i++ {
				s += i
			}
			return s
		}
		mid := (lo + hi) / 2
		a, b := Join(w,
			func(w *Worker) int { return sum(w, lo, mid) },
			func(w *Worker) int { return sum(w, mid, hi) })
		return a + b
	}
	got, _ := Run(p, func(w *Worker) int { return sum(w, 0, 60000) }) // the sum fits a 32-bit int
	if want := 60000 * 59999 / 2; got != want {
		t.Fatalf("sum = %d; want %d", got, want)
	}
}

// Different result types at the same depth must not share a frame.
func TestJoinMixedTypesAtOneDepth(t *testing.T) {
	p := newTestPool(t, Config{Workers: 2})
	got, _ := Run(p, func(w *Worker) string {
		out := ""
		for i := 0; i < 100; i++ {
			a, b := Join(w, func(*Worker) int { return i }, func(*Worker) string { return "x" })
			c, d := Join(w, func(*Worker) string { return "y" }, func(*Worker) float64 { return 0.5 })
			if i == 99 {
				out = fmt.Sprintln(a, b, c, d)
			}
		}
		return out
	})
	if got != "99 x y 0.5\n" {
		t.Fatalf("got %q", got)
	}
}

// fib(35) with a join at every call: 14,930,351 nested joins complete.
func TestJoinDeepFib35(t *testing.T) {
	if testing.Short() {
		t.Skip("fib(35) takes seconds")
	}
	// Under -race fib(35) took 9 s on an idle 2-core box and over the
	// watchdog's 2 minutes on a loaded one: -race runs fib(30) (1.3 million
	// joins) instead; the full size runs without it (.ci/run).
	n, want := 35, 9227465
	if raceEnabled {
		n, want = 30, 832040
	}
	defer watchdog(t)()
	p := newTestPool(t, Config{})
	got, _ := Run(p, func(w *Worker) int { return fibJoin(w, n) })
	if got != want {
		t.Fatalf("fib(%d) = %d; want %d", n, got, want)
	}
}

// A deep left spine: nesting depth 10,000 on one worker.
func TestJoinDepth(t *testing.T) {
	p := newTestPool(t, Config{Workers: 2})
	var down func(w *Worker, d int) int
	down = func(w *Worker, d int) int {
		if d == 0 {
			return 0
		}
		a, b := JoinFunc(w, down, d-1, func(*Worker, int) int { return 1 }, 0)
		return a + b
	}
	got, _ := Run(p, func(w *Worker) int { return down(w, 10000) })
	if got != 10000 {
		t.Fatalf("got %d", got)
	}
}

type errPanic struct{ s string }

func (e errPanic) Error() string { return e.s }

func panicky(msg string) func(*Worker) int {
	return func(*Worker) int { panic(errPanic{msg}) }
}

// TestJoinPanics: a panic reaches the caller of Join once, with the stack
// of its site, after the other half has finished or when it provably
// never started: a panic in a drops a b that nobody took (always on 1
// worker, where the depth-0 Join's b is popped back and dropped), and
// waits for a b that a thief runs; a panic in b comes after a returned;
// when both halves panic, the first half's panic wins — with b run inline
// and run by a thief (a then waits until b has started, which only
// another worker can do). Red when joinUnwind runs a b it took back after
// a panicked (1 worker: b ran), and when it does not wait for a stolen b.
func TestJoinPanics(t *testing.T) {
	defer watchdog(t)()
	cases := []struct {
		name          string
		aPanics, bPan bool
		wantPanic     string
	}{
		{"panic in a still runs b", true, false, "A"},
		{"panic in b still runs a", false, true, "B"},
		{"panic in both: a wins", true, true, "A"},
	}
	for _, workers := range []int{1, 2, 4} {
		for _, tc := range cases {
			for _, stolen := range []bool{false, true} {
				if stolen && workers == 1 {
					continue
				}
				t.Run(fmt.Sprintf("%s/workers=%d/stolen=%v", tc.name, workers, stolen), func(t *testing.T) {
					p := newTestPool(t, Config{Workers: workers})
					for rep := 0; rep < 20; rep++ {
						var ranA, finishedB, startedB atomic.Bool
						var aOn, bOn atomic.Int32
						pe := runExpectPanic(t, p, func(w *Worker) int {
							a, b := Join(w, func(w *Worker) int {
								for stolen && !startedB.Load() {
									w.Poll() // b is offered at poll points
									runtime.Gosched()
								}
								aOn.Store(int32(w.ID()))
								ranA.Store(true)
								if tc.aPanics {
									return panicky("A")(w)
								}
								return 1
							}, func(w *Worker) int {
								defer finishedB.Store(true) // when b has finished, by a panic or not
								bOn.Store(int32(w.ID()))
								startedB.Store(true)
								if stolen {
									// A Join that did not wait for its
									// stolen half returns meanwhile.
									time.Sleep(2 * time.Millisecond)
								}
								if tc.bPan {
									return panicky("B")(w)
								}
								return 2
							})
							return a + b
						})
						if !ranA.Load() || startedB.Load() && !finishedB.Load() {
							t.Fatalf("ranA=%v startedB=%v finishedB=%v when Join panicked; want a run, and b finished or never started", ranA.Load(), startedB.Load(), finishedB.Load())
						}
						if (stolen || !tc.aPanics) && !finishedB.Load() {
							t.Fatalf("a panicked=%v, b stolen=%v: b never ran; want it finished", tc.aPanics, stolen)
						}
						if workers == 1 && tc.aPanics && startedB.Load() {
							t.Fatalf("a panicked with b in w's own hands: b ran; want it dropped, never run")
						}
						if stolen && aOn.Load() == bOn.Load() {
							t.Fatalf("both halves ran on worker %d; the second was to be stolen", aOn.Load())
						}
						var ep errPanic
						if !errors.As(pe, &ep) || ep.s != tc.wantPanic {
							t.Fatalf("panic value %v; want errPanic{%q}", pe.Value, tc.wantPanic)
						}
						if !strings.Contains(string(pe.Stack), "panicky") {
							t.Fatalf("stack does not show the panic site:\n%s", pe.Stack)
						}
					}
					// The pool is still healthy.
					if got, _ := Run(p, func(w *Worker) int { return fibJoin(w, 15) }); got != 610 {
						t.Fatalf("after panics fib(15) = %d", got)
					}
				})
			}
		}
	}
}

// A panic deep in a join tree — at one leaf, whichever worker runs it —
// reaches the caller once, with the original stack, and every frame is
// freed (the pool keeps working).
func TestJoinPanicDeepTree(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 4})
	type node struct{ depth, index int }
	var tree func(w *Worker, n node) int
	tree = func(w *Worker, n node) int {
		if n.depth == 0 {
			if n.index == 1234 {
				panic(errPanic{"deep"})
			}
			return 1
		}
		a, b := JoinFunc(w, tree, node{n.depth - 1, 2 * n.index}, tree, node{n.depth - 1, 2*n.index + 1})
		return a + b
	}
	for rep := 0; rep < 20; rep++ {
		pe := runExpectPanic(t, p, func(w *Worker) int { return tree(w, node{12, 0}) })
		var ep errPanic
		if !errors.As(pe, &ep) || ep.s != "deep" {
			t.Fatalf("panic value %v; want errPanic{deep}", pe.Value)
		}
		if !strings.Contains(string(pe.Stack), "TestJoinPanicDeepTree") {
			t.Fatalf("stack lacks the panic site:\n%s", pe.Stack)
		}
		if got, _ := Run(p, func(w *Worker) int { return fibJoin(w, 15) }); got != 610 {
			t.Fatalf("after panics fib(15) = %d", got)
		}
	}
}

func runExpectPanic(t *testing.T, p *Pool, f func(w *Worker) int) (pe *PanicError) {
	t.Helper()
	defer func() {
		r := recover()
		var ok bool
		if pe, ok = r.(*PanicError); !ok {
			t.Fatalf("recovered %T %v; want *PanicError", r, r)
		}
	}()
	Run(p, f)
	return nil
}

// TestWorkerJoinPanics: Worker.Join, the unit form, keeps Join's panic
// contract: a panic in a drops a b that nobody took, a panic in b comes
// after a returned, the first half's panic wins, and the pool stays
// healthy — at depth 0 (an eager Join), deeper (a plain call), on 1 and
// 2 workers. Red when the unit form's fast path runs b after a panicked
// (a deferred b), and when joinUnwind leaves the frame taken (the fib
// after it sees a stale depth: TestJoinPanicsRecoveredInTask).
func TestWorkerJoinPanics(t *testing.T) {
	defer watchdog(t)()
	for _, workers := range []int{1, 2} {
		for _, depth := range []int{0, policyrt.EagerDepth + 2} {
			for _, tc := range []struct {
				a, b bool
				want string
			}{{true, false, "A"}, {false, true, "B"}, {true, true, "A"}} {
				p := newTestPool(t, Config{Workers: workers})
				var ranB, startedB atomic.Bool
				var nest func(w *Worker, k int)
				nest = func(w *Worker, k int) {
					if k > 0 {
						w.Join(func(w *Worker) { nest(w, k-1) }, func(*Worker) {})
						return
					}
					w.Join(func(w *Worker) {
						if tc.a {
							panicky("A")(w)
						}
					}, func(w *Worker) {
						startedB.Store(true)
						defer ranB.Store(true)
						if tc.b {
							panicky("B")(w)
						}
					})
				}
				pe := runExpectPanic(t, p, func(w *Worker) int { nest(w, depth); return 0 })
				var ep errPanic
				// b runs to its end unless a panicked first; then b runs
				// only if another worker took it (an eager Join's b).
				wantB := !tc.a
				if !errors.As(pe, &ep) || ep.s != tc.want || startedB.Load() != ranB.Load() ||
					(workers == 1 || depth > 0 || !tc.a) && ranB.Load() != wantB {
					t.Fatalf("workers %d, depth %d, panics a=%v b=%v: b started %v, finished %v, panic %v; want b run %v and %q",
						workers, depth, tc.a, tc.b, startedB.Load(), ranB.Load(), pe.Value, wantB, tc.want)
				}
				if got, _ := Run(p, func(w *Worker) int { return fibJoin(w, 15) }); got != 610 {
					t.Fatalf("after the panic fib(15) = %d", got)
				}
			}
		}
	}
}
