package worksteal

import (
	"sync"
	"sync/atomic"
)

// queue is a FIFO of jobs that any goroutine may push to and pop from: the
// pool's injection queue and each worker's inbox. External submission is not
// the fork-join hot path, so a mutex is the honest choice; n lets idle workers
// check for work without taking the lock.
type queue struct {
	mu    sync.Mutex
	items []*job // ring buffer, len is a power of two (or 0)
	head  int    // index of the oldest item
	count int
	n     atomic.Int64 // == count, readable without mu ([Q1]: stored under mu after the push)
}

// minQueue is the ring's smallest size once it has grown.
const minQueue = 16

// resize moves the queued jobs, oldest first, to a ring of size slots.
// Called with q.mu held.
func (q *queue) resize(size int) {
	items := make([]*job, size)
	for i := 0; i < q.count; i++ {
		items[i] = q.items[(q.head+i)&(len(q.items)-1)]
	}
	q.items, q.head = items, 0
}

func (q *queue) push(j *job) {
	q.mu.Lock()
	if q.count == len(q.items) {
		q.resize(max(minQueue, 2*len(q.items)))
	}
	q.items[(q.head+q.count)&(len(q.items)-1)] = j
	q.count++
	q.n.Store(int64(q.count)) // [Q1] the push is visible to lock-free readers of n
	q.mu.Unlock()
}

func (q *queue) pop() *job {
	if q.n.Load() == 0 {
		return nil
	}
	q.mu.Lock()
	if q.count == 0 {
		q.mu.Unlock()
		return nil
	}
	j := q.items[q.head]
	q.items[q.head] = nil
	q.head = (q.head + 1) & (len(q.items) - 1)
	q.count--
	q.n.Store(int64(q.count))
	// The ring shrinks by half when a quarter full, so a burst of
	// submissions does not hold its memory for the pool's life (the
	// hysteresis keeps a steady queue from resizing back and forth).
	if len(q.items) > minQueue && q.count <= len(q.items)/4 {
		q.resize(len(q.items) / 2)
	}
	q.mu.Unlock()
	return j
}

func (q *queue) len() int { return int(q.n.Load()) }
