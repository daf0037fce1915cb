package deque_test

import (
	"fmt"

	"github.com/worksteal/worksteal/deque"
)

// The owner pushes and pops at the bottom (newest first); a thief steals from
// the top (oldest first).
func ExampleNew() {
	w, s := deque.New[int](4)
	for _, v := range []int{1, 2, 3} {
		w.Push(&v)
	}

	v, r := s.Steal()
	fmt.Println("Steal:", *v, r)
	p, ok := w.Pop()
	fmt.Println("Pop:", *p, ok)
	p, ok = w.Pop()
	fmt.Println("Pop:", *p, ok)

	_, ok = w.Pop()
	fmt.Println("Pop on empty:", ok)
	_, r = s.Steal()
	fmt.Println("Steal on empty:", r)
	// Output:
	// Steal: 1 Success
	// Pop: 3 true
	// Pop: 2 true
	// Pop on empty: false
	// Steal on empty: Empty
}

// The Worker stays with its owner; its buffer doubles when a push finds it
// full. Thieves use the Stealer, which may be copied and shared.
func ExampleWorker() {
	w, s := deque.New[string](2)
	for _, v := range []string{"a", "b", "c"} {
		w.Push(&v)
	}
	fmt.Println("Len", w.Len(), "Cap", w.Cap())

	done := make(chan string)
	go func() { // a thief on another goroutine
		v, r := s.Steal()
		for r == deque.Retry { // lost a race: look again
			v, r = s.Steal()
		}
		done <- *v
	}()
	fmt.Println("stolen:", <-done)

	for {
		v, ok := w.Pop()
		if !ok {
			break
		}
		fmt.Println("popped:", *v)
	}
	// Output:
	// Len 3 Cap 4
	// stolen: a
	// popped: c
	// popped: b
}

// StealHalf moves about half of a victim's items, oldest first, into the
// thief's own deque, and hands back the oldest to run at once.
func ExampleStealer_StealHalf() {
	victim, s := deque.New[int](8)
	for _, v := range []int{1, 2, 3, 4, 5, 6} {
		victim.Push(&v)
	}

	mine, _ := deque.New[int](8)
	first, moved, r := s.StealHalf(mine)
	fmt.Println("first:", *first, "moved:", moved, r)
	fmt.Println("victim keeps", victim.Len(), "and I hold", mine.Len())

	for { // the thief works its own deque newest first, like any owner
		v, ok := mine.Pop()
		if !ok {
			break
		}
		fmt.Println("mine:", *v)
	}
	// Output:
	// first: 1 moved: 3 Success
	// victim keeps 3 and I hold 2
	// mine: 3
	// mine: 2
}

func ExampleResult() {
	_, s := deque.New[int](2)
	if _, r := s.Steal(); r == deque.Empty {
		fmt.Println("nothing to steal:", r)
	}
	// Output:
	// nothing to steal: Empty
}

// An owner that recycles its items can skip clearing popped slots.
func ExampleNewRetaining() {
	w, s := deque.NewRetaining[int](4)
	items := []int{1, 2}
	w.Push(&items[0])
	w.Push(&items[1])
	v, _ := w.Pop()
	x, r := s.Steal()
	fmt.Println(*v, *x, r)
	// Output: 2 1 Success
}

// StealHalfUnless takes an oldest item alone when the predicate says it
// holds as much as the rest: here, the outer of nested tasks, each the
// parent of all younger ones.
func ExampleStealer_StealHalfUnless() {
	type task struct {
		name  string
		outer bool
	}
	victim, s := deque.New[task](8)
	for _, t := range []task{{"whole left subtree", true}, {"left of it", false}, {"leaf", false}} {
		victim.Push(&t)
	}
	mine, _ := deque.New[task](8)
	first, moved, _ := s.StealHalfUnless(mine, func(t *task) bool { return t.outer })
	fmt.Println("first:", first.name, "moved:", moved, "victim keeps", victim.Len())
	// Output:
	// first: whole left subtree moved: 1 victim keeps 2
}
