package deque

import "testing"

// Stealer.Len with pushes and steals between its two loads: the deque never
// holds more than 4 items, and Len must not report more (loading top before
// bottom reported every item pushed meanwhile: 4,000 here).
func TestStealerLenBetweenLoads(t *testing.T) {
	w, s := New[int](8)
	x := 1
	testHookLen = func() {
		for range 1000 {
			for range 4 {
				w.Push(&x)
			}
			for range 4 {
				s.Steal()
			}
		}
	}
	defer func() { testHookLen = nil }()
	w.Push(&x)
	if n := s.Len(); n > 4 {
		t.Fatalf("Stealer.Len = %d; the deque never held more than 4 items", n)
	}
}
