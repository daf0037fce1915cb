package worksteal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/internal/testdeadline"
	"github.com/worksteal/worksteal/policy"
)

// onceTree is a complete binary tree of JoinFuncs over node ids (heap
// numbering: node i has children 2i and 2i+1). Every node counts how often
// it ran, and which worker ran it; leaves do a little uneven work, and
// every so often a leaf goes quiet for a moment so that workers go idle,
// search and park while others hold latent frames.
type onceTree struct {
	depth int
	ran   []atomic.Uint32
	owner []atomic.Int32 // worker that ran the node
	// at is the frame depth (w.depth) the node started at: node i's Join
	// opened a frame — its second half could be offered — iff its first
	// half 2i started one level deeper (a plain call leaves depth as it is).
	at   []atomic.Int32
	seed uint64
}

// frameJoin reports whether node i's Join opened a frame.
func (t *onceTree) frameJoin(i int) bool { return t.at[2*i].Load() == t.at[i].Load()+1 }

type onceArg struct {
	id    int
	depth int
}

func (t *onceTree) node(w *Worker, a onceArg) int {
	t.ran[a.id].Add(1)
	t.owner[a.id].Store(int32(w.ID()))
	t.at[a.id].Store(int32(w.depth))
	if a.depth == 0 {
		h := mix(t.seed ^ uint64(a.id))
		for i := uint64(0); i < h%64; i++ {
			h = mix(h)
		}
		if h%4096 == 0 {
			time.Sleep(20 * time.Microsecond) // the others run dry meanwhile
		}
		return 1
	}
	l, r := JoinFunc(w, t.node, onceArg{2 * a.id, a.depth - 1}, t.node, onceArg{2*a.id + 1, a.depth - 1})
	return l + r
}

// TestJoinExactlyOnce: every Join half runs exactly once while idle
// workers keep making poll points promote latent frames and thieves keep
// taking them: millions of Joins (without -race) on pools of 4 workers
// under every victim policy and both steal amounts, with two computations
// at a time so that workers go busy and idle at random moments. With
// steal one it also checks whom a half went to (checkHandOver): never a
// plain call's, and a frame's only after every older frame of its owner —
// with policyrt.LatentFrames latent frames (the runtime's) and with 3, where
// one promotion pushes several frames and their order matters.
func TestJoinExactlyOnce(t *testing.T) {
	defer watchdog(t)()
	depth, trees := 19, 2
	if testing.Short() || raceEnabled {
		depth, trees = 12, 1
	}
	seed := rand.Uint64()
	t.Logf("seed %d, %d trees of 2^%d leaves per configuration", seed, trees, depth)
	for _, latent := range []int{policyrt.LatentFrames, 3} {
		for _, victim := range []policy.Victim{policy.Random, policy.Locality} {
			for _, amount := range []policy.Amount{policy.StealOne, policy.StealHalf} {
				if latent != policyrt.LatentFrames && (amount != policy.StealOne || victim != policy.Random) {
					continue
				}
				t.Run(fmt.Sprintf("latent%d/%v/%v", latent, victim, amount), func(t *testing.T) {
					p := newTestPool(t, Config{Workers: 4, Victim: victim, Steal: amount, Groups: policy.EvenGroups(4, 2),
						Idle: policy.Idle{Rounds: 2, Base: 100 * time.Nanosecond, Cap: 5 * time.Microsecond}, latentFrames: latent})
					var wg sync.WaitGroup
					for k := 0; k < trees; k++ {
						wg.Add(1)
						go func() {
							defer wg.Done()
							checkOnceTree(t, p, depth, seed+uint64(k), amount == policy.StealOne)
						}()
					}
					wg.Wait()
					if st := p.Stats().Total(); st.Stolen == 0 {
						t.Logf("no steals: the test did not exercise the hand-over (stats %+v)", st)
					}
				})
			}
		}
	}
}

// checkOnceTree runs one tree and checks that every node ran exactly once.
// With handOver (steal one: a thief runs what it took, so the worker that
// ran a half is the one that took it) it checks whom halves went to too
// (checkHandOver).
func checkOnceTree(t *testing.T, p *Pool, depth int, seed uint64, handOver bool) {
	tr := &onceTree{depth: depth, seed: seed, ran: make([]atomic.Uint32, 2<<depth),
		owner: make([]atomic.Int32, 2<<depth), at: make([]atomic.Int32, 2<<depth)}
	got, err := Run(p, func(w *Worker) int { return tr.node(w, onceArg{1, depth}) })
	if err != nil {
		t.Error(err)
		return
	}
	if got != 1<<depth {
		t.Errorf("tree of 2^%d leaves returned %d", depth, got)
	}
	bad := 0
	for id := 1; id < len(tr.ran); id++ {
		if n := tr.ran[id].Load(); n != 1 {
			if bad++; bad <= 5 {
				t.Errorf("node %d ran %d times; want exactly once", id, n)
			}
		}
	}
	if bad > 5 {
		t.Errorf("... %d nodes in all did not run exactly once", bad)
	}
	if handOver && bad == 0 {
		checkHandOver(t, tr)
	}
}

// checkHandOver checks what a user of Join relies on about which halves
// other workers get, knowing which Joins opened a frame (onceTree.at):
//
//   - a Join that made a plain call (no frame) keeps its second half: it
//     runs on the worker that ran the Join;
//   - the half a thief takes is the oldest offerable one: for every second
//     half R = 2i+1 that a thief ran, walk up from i while the ancestors
//     ran on i's worker o; the nearest ancestor A whose first half holds i
//     and whose Join opened a frame had its second half 2A+1 on o's frame
//     stack, older than R, when R was taken. Frames go public oldest first
//     and thieves take the oldest public one, so 2A+1 must have been taken
//     too: run by a worker other than o. (Ancestors that made plain calls
//     are skipped: nobody could take their halves.)
func checkHandOver(t *testing.T, tr *onceTree) {
	bad, frames, plain := 0, 0, 0
	for i := 1; 2*i+1 < len(tr.ran); i++ {
		o := tr.owner[i].Load()
		if !tr.frameJoin(i) {
			plain++
			if tr.owner[2*i+1].Load() != o {
				if bad++; bad <= 5 {
					t.Errorf("node %d's Join made a plain call (no frame), but worker %d ran its second half, not its owner %d",
						i, tr.owner[2*i+1].Load(), o)
				}
			}
			continue
		}
		frames++
		if tr.owner[2*i+1].Load() == o {
			continue
		}
		for cur := i; cur > 1; cur /= 2 {
			a := cur / 2
			if tr.owner[a].Load() != o {
				break
			}
			if cur == 2*a && tr.frameJoin(a) {
				if tr.owner[2*a+1].Load() == o {
					if bad++; bad <= 5 {
						t.Errorf("node %d's second half was taken (worker %d ran it) while the older frame's second half %d stayed with owner %d",
							i, tr.owner[2*i+1].Load(), 2*a+1, o)
					}
				}
				break
			}
		}
	}
	if bad > 5 {
		t.Errorf("... %d hand-overs in all went wrong", bad)
	}
	if frames == 0 || plain == 0 {
		t.Logf("%d frame Joins, %d plain calls: the check saw only one kind", frames, plain)
	}
}

// TestHeartbeatHandsOverWithoutTheOwner: a long first half's old second
// half goes to a worker that runs dry even when the owner can no longer
// answer (it waits, off its CPU, as a descheduled or collector-preempted
// goroutine does): the heartbeat made it public earlier, while every other
// worker was busy and no poll point had a reason to offer it. The first
// half forks many Joins (the Join heartbeat) or polls (the Poll
// heartbeat), then waits for the second half without polling, which only
// a thief can now run. Red with either heartbeat removed (the wait times
// out and the owner runs the half itself afterwards).
func TestHeartbeatHandsOverWithoutTheOwner(t *testing.T) {
	for _, tc := range []struct {
		name string
		busy func(w *Worker)
	}{
		{"joins", func(w *Worker) {
			for range 2 * policyrt.HeartbeatJoins / 600 { // fib(13) makes 376 Joins: > 2 heartbeats in all
				fibJoin(w, 13)
			}
		}},
		{"polls", func(w *Worker) {
			for range 2 * policyrt.HeartbeatPolls {
				w.Poll()
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPool(t, Config{Workers: 2})
			// Keep the other worker busy until the owner waits, so that no
			// poll point finds a worker idle.
			release, running := make(chan struct{}), make(chan struct{})
			p.Submit(func(*Worker) { close(running); <-release })
			<-running
			ran := make(chan struct{})
			var owner, thief int
			got, err := Run(p, func(w *Worker) int {
				a, b := Join(w, func(w *Worker) int {
					owner = w.ID()
					tc.busy(w)
					close(release) // the other worker runs dry now
					select {
					case <-ran:
						return 1
					case <-time.After(testdeadline.Left(t)):
						return 0 // never handed over: the owner runs the half after this
					}
				}, func(w *Worker) int {
					thief = w.ID()
					close(ran)
					return 1
				})
				return a + b
			})
			if err != nil || got != 2 || thief == owner {
				t.Fatalf("result %d (%v); the second half ran on worker %d, the owner is %d: want 2, another worker", got, err, thief, owner)
			}
		})
	}
}

// TestHeartbeatEveryHeartbeatJoins: the heartbeat promotes one latent frame
// at every policyrt.HeartbeatJoins-th Join, counting every Join, plain calls
// included, and Joins only — a scope Spawn just before a beat's Join
// neither counts nor moves the beat. One worker: nobody is ever idle, so
// only the heartbeat promotes (beyond the eager Joins at the top, counted
// out). Each step is a Join that opens the latent frame (policyrt.LatentFrames
// is 1: the window is at its depth) around a plain-call Join, so at every
// beat an older latent frame than the beat's own is open. Red when Spawn
// counts toward the beat (each Spawn then lands the count on the multiple
// and the Join after it skips the beat), when a beat is dropped, and when
// the fast path stops counting (a plain call that is not counted).
func TestHeartbeatEveryHeartbeatJoins(t *testing.T) {
	const (
		nest  = policyrt.EagerDepth // the top Joins are eager; the loop's outer Joins open the latent frame
		beats = 3
	)
	if policyrt.LatentFrames != 1 {
		t.Skip("the loop below keeps one latent frame open")
	}
	p := newTestPool(t, Config{Workers: 1})
	var promoted, joins uint64
	_, err := Run(p, func(w *Worker) int {
		err := w.Scope(context.Background(), func(w *Worker, s *Scope) error {
			var nestJoin func(w *Worker, k int) int
			nestJoin = func(w *Worker, k int) int {
				if k == 0 {
					n := nest           // Joins so far, all on this worker
					p0 := w.st.promoted // the eager Joins' frames
					zero := func(*Worker) int { return 0 }
					for n < beats*policyrt.HeartbeatJoins+10 {
						// Joins n+1 (latent frame) and n+2 (inside it, a
						// plain call): n is even, so a beat is always an
						// inner Join, with the outer frame older than its own.
						Join(w, func(w *Worker) int {
							if w.depth < w.gate {
								t.Errorf("inner Join at depth %d < gate %d: not a plain call", w.depth, w.gate)
							}
							if (n+2)%policyrt.HeartbeatJoins == 0 {
								s.Spawn(w, func(*Worker) {})
							}
							a, _ := Join(w, zero, zero)
							return a
						}, zero)
						n += 2
					}
					promoted, joins = w.st.promoted-p0, uint64(n)
					return 0
				}
				a, _ := Join(w, func(w *Worker) int { return nestJoin(w, k-1) }, func(*Worker) int { return 0 })
				return a
			}
			nestJoin(w, nest)
			return nil
		})
		if err != nil {
			t.Error(err)
		}
		return 0
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := joins / policyrt.HeartbeatJoins; promoted != want {
		t.Fatalf("after %d Joins (and a Spawn before every beat's Join) %d frames were promoted, want one per %d Joins: %d",
			joins, promoted, policyrt.HeartbeatJoins, want)
	}
}
