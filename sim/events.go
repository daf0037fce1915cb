package sim

import (
	"time"
)

// Event kinds.
const (
	evWorker uint8 = iota // a worker's timer (valid while gen matches)
	evArrive              // root tasks arrive (arg: batch index, -1 for Poisson)
	evStart               // every worker looks for work at time 0
	evFault               // a fault begins, ends or is detected (arg: index*4 + phase)
	evPoll                // a poll point inside a running piece (valid while gen matches the worker's pollTok)
)

// event is one entry of the event heap. Events at the same time are
// processed in the order they were scheduled (seq), so a run never depends
// on heap layout.
type event struct {
	at   time.Duration
	seq  uint64
	w    int32
	arg  int32
	gen  uint32
	kind uint8
}

// evHeap is a 4-ary min-heap of events ordered by (at, seq): half the
// levels of a binary heap, and sifting moves a hole instead of swapping,
// so an event costs fewer cache lines touched. (at, seq) is unique, so the
// order of events never depends on the heap's layout.
type evHeap []event

func evLess(a, b *event) bool { return a.at < b.at || (a.at == b.at && a.seq < b.seq) }

func (h *evHeap) push(ev event) {
	*h = append(*h, ev)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !evLess(&ev, &a[p]) {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = ev
}

func (h *evHeap) pop() event {
	a := *h
	top := a[0]
	n := len(a) - 1
	last := a[n]
	a = a[:n]
	*h = a
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		end := min(c+4, n)
		for k := c + 1; k < end; k++ {
			if evLess(&a[k], &a[m]) {
				m = k
			}
		}
		if !evLess(&a[m], &last) {
			break
		}
		a[i] = a[m]
		i = m
	}
	a[i] = last
	return top
}

// queue is a double-ended queue of task ids: the owner's end is the back,
// thieves and FIFO schedulers take from the front.
type queue struct {
	buf  []int32
	head int
}

func (q *queue) len() int { return len(q.buf) - q.head }

func (q *queue) pushBack(t int32) { q.buf = append(q.buf, t) }

func (q *queue) popBack() int32 {
	t := q.buf[len(q.buf)-1]
	q.buf = q.buf[:len(q.buf)-1]
	if q.head == len(q.buf) {
		q.buf, q.head = q.buf[:0], 0
	}
	return t
}

// front is the task popFront would return (q not empty).
func (q *queue) front() int32 { return q.buf[q.head] }

func (q *queue) popFront() int32 {
	t := q.buf[q.head]
	q.head++
	if q.head == len(q.buf) {
		q.buf, q.head = q.buf[:0], 0
	} else if q.head >= 1024 && q.head*2 >= len(q.buf) {
		n := copy(q.buf, q.buf[q.head:])
		q.buf, q.head = q.buf[:n], 0
	}
	return t
}
