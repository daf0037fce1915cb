package deque_test

import (
	"testing"

	"github.com/worksteal/worksteal/deque"
)

// FuzzSequential decodes the input into operations on one goroutine, on a
// victim deque and a second deque that StealHalf fills, and checks both
// against slice models after every operation. One byte is one operation:
//
//	b%10 in 0..3  Push the next item on the victim
//	       4      Pop the victim
//	       5      Steal from the victim
//	       6      StealHalf from the victim into dst
//	       7      Pop dst
//	       8      Steal from dst
//	       9      Push b/10 (0..25) items on the victim at once
//
// With no concurrency a steal never returns Retry, and StealHalf takes
// exactly min(32, (Len+1)/2) items.
func FuzzSequential(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 2, 4, 4, 4, 4})                         // push 3, pop past empty
	f.Add([]byte{0, 1, 2, 5, 5, 5, 5})                         // push 3, steal past empty
	f.Add([]byte{0, 1, 2, 5, 4, 4, 4})                         // the example: steal 1, pop 3, pop 2
	f.Add([]byte{0, 5, 0, 5, 0, 5, 0, 5, 0, 5, 0, 5, 0, 5, 4}) // wrap round a 2-slot buffer
	f.Add([]byte{249, 249, 249, 6, 6, 7, 8, 6, 7, 7, 8, 4, 5}) // 72 items: StealHalf capped at 32
	f.Add([]byte{0, 1, 2, 3, 0, 6, 8, 7, 7, 6, 6, 4})          // StealHalf then drain dst
	f.Add([]byte{99, 5, 4, 199, 5, 5, 4, 6, 249, 6, 8, 8, 7, 0, 4})

	f.Fuzz(func(t *testing.T, data []byte) {
		w, s := deque.New[int](2)
		dst, dsts := deque.New[int](2)
		var model, dmodel []int
		maxLen, dmaxLen := 0, 0 // the most items each has held
		next := 1
		pushOne := func() {
			v := next
			next++
			w.Push(&v)
			model = append(model, v)
		}
		for i, b := range data {
			switch op := b % 10; op {
			case 0, 1, 2, 3:
				pushOne()
			case 9:
				for range b / 10 {
					pushOne()
				}
			case 4:
				v, ok := w.Pop()
				if len(model) == 0 {
					if ok || v != nil {
						t.Fatalf("op %d: Pop on empty = %s, %v", i, show(v), ok)
					}
					break
				}
				want := model[len(model)-1]
				if !ok || *v != want {
					t.Fatalf("op %d: Pop = %s, %v; want %d", i, show(v), ok, want)
				}
				model = model[:len(model)-1]
			case 5:
				v, r := s.Steal()
				if len(model) == 0 {
					if r != deque.Empty || v != nil {
						t.Fatalf("op %d: Steal on empty = %s, %v", i, show(v), r)
					}
					break
				}
				if r != deque.Success || *v != model[0] {
					t.Fatalf("op %d: Steal = %s, %v; want %d", i, show(v), r, model[0])
				}
				model = model[1:]
			case 6:
				first, moved, r := s.StealHalf(dst)
				if len(model) == 0 {
					if r != deque.Empty || first != nil || moved != 0 {
						t.Fatalf("op %d: StealHalf on empty = %s, %d, %v", i, show(first), moved, r)
					}
					break
				}
				want := min((len(model)+1)/2, 32)
				if r != deque.Success || moved != want || *first != model[0] {
					t.Fatalf("op %d: StealHalf = %s, %d, %v; want %d, %d, Success", i, show(first), moved, r, model[0], want)
				}
				dmodel = append(dmodel, model[1:moved]...)
				model = model[moved:]
			case 7:
				v, ok := dst.Pop()
				if len(dmodel) == 0 {
					if ok || v != nil {
						t.Fatalf("op %d: dst Pop on empty = %s, %v", i, show(v), ok)
					}
					break
				}
				want := dmodel[len(dmodel)-1]
				if !ok || *v != want {
					t.Fatalf("op %d: dst Pop = %s, %v; want %d", i, show(v), ok, want)
				}
				dmodel = dmodel[:len(dmodel)-1]
			case 8:
				v, r := dsts.Steal()
				if len(dmodel) == 0 {
					if r != deque.Empty || v != nil {
						t.Fatalf("op %d: dst Steal on empty = %s, %v", i, show(v), r)
					}
					break
				}
				if r != deque.Success || *v != dmodel[0] {
					t.Fatalf("op %d: dst Steal = %s, %v; want %d", i, show(v), r, dmodel[0])
				}
				dmodel = dmodel[1:]
			}
			maxLen, dmaxLen = max(maxLen, len(model)), max(dmaxLen, len(dmodel))
			checkLens(t, i, "victim", w, s, len(model), maxLen)
			checkLens(t, i, "dst", dst, dsts, len(dmodel), dmaxLen)
		}
		// Drain both and compare what is left, oldest first.
		for _, tc := range []struct {
			name  string
			s     deque.Stealer[int]
			model []int
		}{{"victim", s, model}, {"dst", dsts, dmodel}} {
			for _, want := range tc.model {
				v, r := tc.s.Steal()
				if r != deque.Success || *v != want {
					t.Fatalf("draining %s: Steal = %s, %v; want %d", tc.name, show(v), r, want)
				}
			}
			if v, r := tc.s.Steal(); r != deque.Empty {
				t.Fatalf("%s not empty after draining the model: %s, %v", tc.name, show(v), r)
			}
		}
	})
}

// checkLens checks Len on both handles, and that Cap is exactly the smallest
// power of two (at least 2) that held the most items so far: without
// concurrency the buffer grows only when a push finds it full.
func checkLens(t *testing.T, i int, name string, w *deque.Worker[int], s deque.Stealer[int], want, maxLen int) {
	t.Helper()
	if w.Len() != want || s.Len() != want {
		t.Fatalf("op %d: %s Len: worker %d, stealer %d; want %d", i, name, w.Len(), s.Len(), want)
	}
	wantCap := 2
	for wantCap < maxLen {
		wantCap *= 2
	}
	if c := w.Cap(); c != wantCap {
		t.Fatalf("op %d: %s Cap %d, want %d (most items held: %d)", i, name, c, wantCap, maxLen)
	}
}
