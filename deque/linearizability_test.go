package deque_test

import (
	"flag"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/worksteal/worksteal/deque"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

var linSeed = flag.Uint64("deque.linseed", 0, "seed for TestLinearizable (0: pick one and log it)")

// Operations of the sequential specification.
type linKind uint8

const (
	linPush  linKind = iota // owner: append at the bottom
	linPop                  // owner: remove the bottom item, or report empty
	linLen                  // owner: Worker.Len, exact
	linSteal                // thief: remove the top item, report Empty, or Retry (no-op)
	// linHalfPart is one constituent single steal of a StealHalf. StealHalf
	// is not atomic: it claims items one CAS at a time, and the owner may
	// push and pop between two claims, so the items it returns need never
	// have been the top k items of one state. Each claim is therefore its own
	// operation. The claims happened, in order, somewhere inside the
	// StealHalf call, so each gets the call's whole [call, return] interval;
	// their order is enforced through prev: the claim of item v is legal only
	// if the previous claim's item, prev, was pushed before v. Because every
	// item is pushed once and a steal takes the oldest item, that forces the
	// claim of prev to be linearized before the claim of v.
	linHalfPart
)

// A linInput is the input of one operation. Item ids start at 1 and the owner
// pushes them in increasing order; 0 means none.
type linInput struct {
	kind linKind
	item int // linPush: the item pushed
	prev int // linHalfPart: item of the previous claim in the same StealHalf (0 for the first)
}

// A linOutput is the observed result.
type linOutput struct {
	item int          // the item taken (0: none)
	r    deque.Result // linSteal, linHalfPart: Success, Empty or Retry; linPop: Success or Empty
	n    int          // linLen
}

// The model state is the deque's contents, top first, one byte per item id
// (histories push fewer than 256 items). A string is immutable, so Step
// stays pure, and comparable, so porcupine's default == works as Equal.
var hashSeed = maphash.MakeSeed()

var dequeModel = porcupine.Model{
	Init: func() interface{} { return "" },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		st := state.(string)
		in := input.(linInput)
		out := output.(linOutput)
		switch in.kind {
		case linPush:
			return true, st + string([]byte{byte(in.item)})
		case linPop:
			if out.r == deque.Empty {
				return st == "", st
			}
			return st != "" && int(st[len(st)-1]) == out.item, trimBottom(st)
		case linLen:
			return len(st) == out.n, st
		case linSteal, linHalfPart:
			switch out.r {
			case deque.Retry:
				// A lost race: legal at any time, and it took nothing.
				return true, st
			case deque.Empty:
				return st == "", st
			case deque.Success:
				if in.kind == linHalfPart && in.prev != 0 && in.prev >= out.item {
					return false, st // claims out of push order
				}
				return st != "" && int(st[0]) == out.item, trimTop(st)
			}
		}
		return false, st
	},
	Hash: func(state interface{}) uint64 { return maphash.String(hashSeed, state.(string)) },
	DescribeOperation: func(input, output interface{}) string {
		in, out := input.(linInput), output.(linOutput)
		switch in.kind {
		case linPush:
			return fmt.Sprintf("Push(%d)", in.item)
		case linPop:
			if out.r == deque.Empty {
				return "Pop() -> empty"
			}
			return fmt.Sprintf("Pop() -> %d", out.item)
		case linLen:
			return fmt.Sprintf("Len() -> %d", out.n)
		case linSteal:
			if out.r == deque.Success {
				return fmt.Sprintf("Steal() -> %d", out.item)
			}
			return fmt.Sprintf("Steal() -> %v", out.r)
		case linHalfPart:
			if out.r == deque.Success {
				return fmt.Sprintf("StealHalf claim (after %d) -> %d", in.prev, out.item)
			}
			return fmt.Sprintf("StealHalf -> %v", out.r)
		}
		return "?"
	},
	DescribeState: func(state interface{}) string {
		var parts []string
		for _, c := range []byte(state.(string)) {
			parts = append(parts, fmt.Sprint(c))
		}
		return "[" + strings.Join(parts, " ") + "]"
	},
}

func trimBottom(st string) string {
	if st == "" {
		return st
	}
	return st[:len(st)-1]
}

func trimTop(st string) string {
	if st == "" {
		return st
	}
	return st[1:]
}

// recorder collects the operations of one goroutine, timestamped with the
// monotonic clock (time.Since on a time.Time from time.Now).
type recorder struct {
	start  time.Time
	client int
	ops    []porcupine.Operation
}

func (r *recorder) now() int64 { return int64(time.Since(r.start)) }

func (r *recorder) add(call int64, in linInput, out linOutput, ret int64) {
	r.ops = append(r.ops, porcupine.Operation{ClientId: r.client, Input: in, Call: call, Output: out, Return: ret})
}

// runHistory runs one short concurrent history on a fresh New(2) deque: the
// owner does ownerOps random Push/Pop/Len, each of thieves goroutines does
// thiefOps random Steal/StealHalf; before an operation each yields the
// processor with probability 1/yieldOneIn (never if 0), which varies the
// interleavings. It returns all recorded operations.
func runHistory(t *testing.T, seed uint64, thieves, ownerOps, thiefOps, yieldOneIn int) []porcupine.Operation {
	w, s := deque.New[int](2)
	items := make([]int, 2*ownerOps+1) // ids stay below 256: the model keeps one byte per item
	for i := range items {
		items[i] = i
	}
	start := time.Now()
	var (
		gate  atomic.Bool // released once every goroutine is ready, so they overlap
		ready sync.WaitGroup
		wg    sync.WaitGroup
	)
	recs := make([]*recorder, thieves+1)
	for i := range recs {
		recs[i] = &recorder{start: start, client: i}
	}
	ready.Add(thieves + 1)
	wg.Add(thieves + 1)

	go func() { // the owner
		defer wg.Done()
		rec := recs[0]
		rng := rand.New(rand.NewPCG(seed, 0))
		next := 1
		ready.Done()
		for !gate.Load() {
			runtime.Gosched() // spinning without yielding starves the gate on 2 cores
		}
		for range ownerOps {
			if yieldOneIn > 0 && rng.IntN(yieldOneIn) == 0 {
				runtime.Gosched()
			}
			switch k := rng.IntN(10); {
			case k < 6 && next < len(items): // push one, sometimes a burst (growth)
				burst := 1
				if rng.IntN(4) == 0 {
					burst = 2 + rng.IntN(4)
				}
				for ; burst > 0 && next < len(items); burst-- {
					c := rec.now()
					w.Push(&items[next])
					rec.add(c, linInput{kind: linPush, item: next}, linOutput{}, rec.now())
					next++
				}
			case k < 9: // pop one, sometimes several in a row
				for range 1 + rng.IntN(2)*rng.IntN(4) {
					c := rec.now()
					v, ok := w.Pop()
					ret := rec.now()
					out := linOutput{r: deque.Empty}
					if ok {
						out = linOutput{r: deque.Success, item: itemOf(t, v)}
					} else if v != nil {
						t.Errorf("Pop returned %d with ok=false", *v)
					}
					rec.add(c, linInput{kind: linPop}, out, ret)
				}
			default:
				c := rec.now()
				n := w.Len()
				rec.add(c, linInput{kind: linLen}, linOutput{n: n}, rec.now())
			}
		}
	}()

	for i := 1; i <= thieves; i++ {
		go func() {
			defer wg.Done()
			rec := recs[i]
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			dst, _ := deque.New[int](2) // this thief's own deque, for StealHalf
			ready.Done()
			for !gate.Load() {
				runtime.Gosched()
			}
			for range thiefOps {
				if yieldOneIn > 0 && rng.IntN(yieldOneIn) == 0 {
					runtime.Gosched()
				}
				if rng.IntN(3) != 0 {
					c := rec.now()
					v, r := s.Steal()
					ret := rec.now()
					out := linOutput{r: r}
					if r == deque.Success {
						out.item = itemOf(t, v)
					} else if v != nil {
						t.Errorf("Steal returned %d with %v", *v, r)
					}
					rec.add(c, linInput{kind: linSteal}, out, ret)
					continue
				}
				// Half the batches with StealHalfUnless, whose first item,
				// if a multiple of 3, is taken alone: a batch cut short is
				// still claims of single steals in order.
				unless := rng.IntN(2) == 0
				c := rec.now()
				var first *int
				var moved int
				var r deque.Result
				if unless {
					first, moved, r = s.StealHalfUnless(dst, aloneThirds)
				} else {
					first, moved, r = s.StealHalf(dst)
				}
				ret := rec.now()
				if unless && r == deque.Success && aloneThirds(first) && moved != 1 {
					t.Errorf("StealHalfUnless took %d with %d, which alone holds", moved, *first)
				}
				if r != deque.Success {
					if first != nil || moved != 0 {
						t.Errorf("StealHalf = %v, %d, %v", first, moved, r)
					}
					rec.add(c, linInput{kind: linHalfPart}, linOutput{r: r}, ret)
					continue
				}
				if moved < 1 || moved > 32 || dst.Len() != moved-1 {
					t.Errorf("StealHalf moved %d, dst holds %d", moved, dst.Len())
				}
				// Claims in order: first, then dst's items top to bottom.
				// Drain dst with Pop (newest first) and reverse.
				claims := []int{itemOf(t, first)}
				rest := make([]int, 0, moved-1)
				for {
					v, ok := dst.Pop()
					if !ok {
						break
					}
					rest = append(rest, itemOf(t, v))
				}
				for j := len(rest) - 1; j >= 0; j-- {
					claims = append(claims, rest[j])
				}
				prev := 0
				for _, it := range claims {
					rec.add(c, linInput{kind: linHalfPart, prev: prev}, linOutput{r: deque.Success, item: it}, ret)
					prev = it
				}
			}
		}()
	}
	ready.Wait()
	gate.Store(true)
	wg.Wait()

	var ops []porcupine.Operation
	for _, r := range recs {
		ops = append(ops, r.ops...)
	}
	return ops
}

// itemOf returns the id of an item a successful operation returned. A nil
// item is an error; it becomes id 0, which the model never accepts.
func itemOf(t *testing.T, v *int) int {
	if v == nil {
		t.Errorf("an operation reported success with a nil item")
		return 0
	}
	return *v
}

func describeHistory(ops []porcupine.Operation) string {
	sorted := append([]porcupine.Operation(nil), ops...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Call < sorted[j].Call })
	var b strings.Builder
	for _, op := range sorted {
		fmt.Fprintf(&b, "  client %d [%8d, %8d] %s\n", op.ClientId, op.Call, op.Return,
			dequeModel.DescribeOperation(op.Input, op.Output))
	}
	return b.String()
}

// TestLinearizable runs many short concurrent histories (one owner, several
// thieves, a New(2) deque so it grows and wraps) and checks each with
// porcupine against the sequential double-ended queue.
func TestLinearizable(t *testing.T) {
	histories := 8000 // ~1 s plain
	switch {
	case testing.Short():
		histories = 300
	case raceEnabled:
		histories = 5000 // ~3 s on 2 idle cores
	}
	seed := *linSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -deque.linseed=%d)", seed, seed)
	master := rand.New(rand.NewPCG(seed, 0x5eed))
	var (
		ops, steals, successes, retries, halves int
		checkTime                               time.Duration
	)
	for h := 0; h < histories; h++ {
		hseed := master.Uint64()
		thieves := 1 + master.IntN(4)
		yield := []int{0, 2, 8}[master.IntN(3)]
		history := runHistory(t, hseed, thieves, 20+master.IntN(20), 8+master.IntN(16), yield)
		for _, op := range history {
			in, out := op.Input.(linInput), op.Output.(linOutput)
			if in.kind == linSteal || in.kind == linHalfPart {
				steals++
				switch out.r {
				case deque.Success:
					successes++
				case deque.Retry:
					retries++
				}
				if in.kind == linHalfPart && in.prev != 0 {
					halves++
				}
			}
		}
		ops += len(history)
		t0 := time.Now()
		res, info := porcupine.CheckOperationsVerbose(dequeModel, history, 20*time.Second)
		checkTime += time.Since(t0)
		switch res {
		case porcupine.Illegal:
			viz := filepath.Join(os.TempDir(), fmt.Sprintf("deque-linearizability-%d.html", hseed))
			if err := porcupine.VisualizePath(dequeModel, info, viz); err != nil {
				viz = "(visualization failed: " + err.Error() + ")"
			}
			t.Fatalf("history %d (seed %d, history seed %d) is not linearizable; visualization: %s\n%s",
				h, seed, hseed, viz, describeHistory(history))
		case porcupine.Unknown:
			t.Logf("history %d (history seed %d): checker timed out; counted as passing", h, hseed)
		}
	}
	t.Logf("%d histories, %d ops: %d steal attempts (%d took an item, %d Retry, %d extra StealHalf claims); checking took %v",
		histories, ops, steals, successes, retries, halves, checkTime)
}

// op builds a hand-made history entry.
func op(client int, call, ret int64, in linInput, out linOutput) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
}

var (
	pushOp = func(c int, call, ret int64, item int) porcupine.Operation {
		return op(c, call, ret, linInput{kind: linPush, item: item}, linOutput{})
	}
	stealOp = func(c int, call, ret int64, item int) porcupine.Operation {
		return op(c, call, ret, linInput{kind: linSteal}, linOutput{r: deque.Success, item: item})
	}
	stealRes = func(c int, call, ret int64, r deque.Result) porcupine.Operation {
		return op(c, call, ret, linInput{kind: linSteal}, linOutput{r: r})
	}
	popOp = func(c int, call, ret int64, item int) porcupine.Operation {
		out := linOutput{r: deque.Success, item: item}
		if item == 0 {
			out = linOutput{r: deque.Empty}
		}
		return op(c, call, ret, linInput{kind: linPop}, out)
	}
	halfOp = func(c int, call, ret int64, prev, item int) porcupine.Operation {
		return op(c, call, ret, linInput{kind: linHalfPart, prev: prev}, linOutput{r: deque.Success, item: item})
	}
	lenOp = func(c int, call, ret int64, n int) porcupine.Operation {
		return op(c, call, ret, linInput{kind: linLen}, linOutput{n: n})
	}
)

// TestLinearizabilityCheckerRejects is the negative control: hand-made
// histories that no correct deque can produce must be rejected, proving the
// checker and model can fail. Each comes with a near-identical legal history
// that must be accepted, so a model that rejects everything cannot pass.
func TestLinearizabilityCheckerRejects(t *testing.T) {
	tests := []struct {
		name    string
		illegal []porcupine.Operation
		legal   []porcupine.Operation
	}{
		{
			name: "two steals return the same item",
			illegal: []porcupine.Operation{
				pushOp(0, 0, 1, 1), pushOp(0, 2, 3, 2),
				stealOp(1, 4, 10, 1), stealOp(2, 5, 11, 1),
			},
			legal: []porcupine.Operation{
				pushOp(0, 0, 1, 1), pushOp(0, 2, 3, 2),
				stealOp(1, 4, 10, 1), stealOp(2, 5, 11, 2),
			},
		},
		{
			name: "steal and pop return the same last item",
			illegal: []porcupine.Operation{
				pushOp(0, 0, 1, 1),
				popOp(0, 2, 10, 1), stealOp(1, 3, 9, 1),
			},
			legal: []porcupine.Operation{
				pushOp(0, 0, 1, 1),
				popOp(0, 2, 10, 0), stealOp(1, 3, 9, 1),
			},
		},
		{
			name: "steal takes the newest item",
			illegal: []porcupine.Operation{
				pushOp(0, 0, 1, 1), pushOp(0, 2, 3, 2),
				stealOp(1, 4, 5, 2),
			},
			legal: []porcupine.Operation{
				pushOp(0, 0, 1, 1), pushOp(0, 2, 3, 2),
				stealOp(1, 4, 5, 1),
			},
		},
		{
			name: "pop takes the oldest item",
			illegal: []porcupine.Operation{
				pushOp(0, 0, 1, 1), pushOp(0, 2, 3, 2),
				popOp(0, 4, 5, 1),
			},
			legal: []porcupine.Operation{
				pushOp(0, 0, 1, 1), pushOp(0, 2, 3, 2),
				popOp(0, 4, 5, 2),
			},
		},
		{
			name: "Empty while an item sits untouched",
			illegal: []porcupine.Operation{
				pushOp(0, 0, 1, 1),
				stealRes(1, 2, 3, deque.Empty),
				popOp(0, 4, 5, 1),
			},
			legal: []porcupine.Operation{ // Empty overlapping the push is fine
				pushOp(0, 0, 3, 1),
				stealRes(1, 1, 2, deque.Empty),
				popOp(0, 4, 5, 1),
			},
		},
		{
			name: "item taken before it was pushed",
			illegal: []porcupine.Operation{
				stealOp(1, 0, 1, 1),
				pushOp(0, 2, 3, 1),
			},
			legal: []porcupine.Operation{
				stealOp(1, 0, 3, 1),
				pushOp(0, 1, 2, 1),
			},
		},
		{
			name: "StealHalf claims out of order",
			// Same interval for both claims: only the prev link orders them.
			illegal: []porcupine.Operation{
				pushOp(0, 0, 1, 1), pushOp(0, 2, 3, 2), pushOp(0, 4, 5, 3),
				halfOp(1, 6, 7, 0, 2), halfOp(1, 6, 7, 2, 1),
			},
			legal: []porcupine.Operation{
				pushOp(0, 0, 1, 1), pushOp(0, 2, 3, 2), pushOp(0, 4, 5, 3),
				halfOp(1, 6, 7, 0, 1), halfOp(1, 6, 7, 1, 2),
			},
		},
		{
			name: "StealHalf skips an item nobody else took",
			illegal: []porcupine.Operation{
				pushOp(0, 0, 1, 1), pushOp(0, 2, 3, 2), pushOp(0, 4, 5, 3),
				halfOp(1, 6, 7, 0, 1), halfOp(1, 6, 7, 1, 3),
				popOp(0, 8, 9, 2),
			},
			// Legal: between the claims the owner popped 2 and 3 and pushed
			// 4, so the second claim took an item that was never next to 1.
			legal: []porcupine.Operation{
				pushOp(0, 0, 1, 1), pushOp(0, 2, 3, 2), pushOp(0, 4, 5, 3),
				halfOp(1, 6, 14, 0, 1), halfOp(1, 6, 14, 1, 4),
				popOp(0, 7, 8, 3), popOp(0, 9, 10, 2), pushOp(0, 11, 12, 4),
			},
		},
		{
			name: "Len wrong",
			illegal: []porcupine.Operation{
				pushOp(0, 0, 1, 1), pushOp(0, 2, 3, 2), stealOp(1, 4, 5, 1),
				lenOp(0, 6, 7, 2),
			},
			legal: []porcupine.Operation{ // the steal may come after Len
				pushOp(0, 0, 1, 1), pushOp(0, 2, 3, 2), stealOp(1, 4, 8, 1),
				lenOp(0, 6, 7, 2),
			},
		},
		{
			name: "Retry does not remove anything",
			illegal: []porcupine.Operation{
				pushOp(0, 0, 1, 1),
				stealRes(1, 2, 3, deque.Retry),
				popOp(0, 4, 5, 0),
			},
			legal: []porcupine.Operation{
				pushOp(0, 0, 1, 1),
				stealRes(1, 2, 3, deque.Retry),
				popOp(0, 4, 5, 1),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if res := porcupine.CheckOperationsTimeout(dequeModel, tc.illegal, testdeadline.Left(t)); res != porcupine.Illegal {
				t.Errorf("illegal history checked as %v:\n%s", res, describeHistory(tc.illegal))
			}
			if res := porcupine.CheckOperationsTimeout(dequeModel, tc.legal, testdeadline.Left(t)); res != porcupine.Ok {
				t.Errorf("legal history checked as %v:\n%s", res, describeHistory(tc.legal))
			}
		})
	}
}

// aloneThirds is the linearizability check's StealHalfUnless predicate.
func aloneThirds(v *int) bool { return *v%3 == 0 }
