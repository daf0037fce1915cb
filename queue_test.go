package worksteal

import "testing"

// The queue's ring gives memory back: after a burst of pushes is popped,
// its array is small again (a pool's injector after a large submission,
// a worker's inbox), and FIFO order holds across every resize.
func TestQueueShrinksAfterABurst(t *testing.T) {
	var q queue
	jobs := make([]job, 10000)
	next := 0
	for round := range 3 {
		for i := range jobs {
			q.push(&jobs[i])
		}
		for i := range jobs {
			if j := q.pop(); j != &jobs[next%len(jobs)] {
				t.Fatalf("round %d: pop %d out of order", round, i)
			}
			next++
		}
		if q.pop() != nil || q.len() != 0 {
			t.Fatal("the queue is not empty")
		}
		if len(q.items) > 64 {
			t.Errorf("round %d: the ring still has %d slots after every job was popped; want 64 at most", round, len(q.items))
		}
	}
}
