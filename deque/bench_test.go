package deque_test

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/worksteal/worksteal/deque"
)

// mutexDeque is the naive baseline: a slice guarded by one mutex. The owner
// pushes and pops at the end, thieves take from the front.
type mutexDeque struct {
	mu    sync.Mutex
	items []*int
	head  int // items[head:] are live
}

func (d *mutexDeque) Push(v *int) {
	d.mu.Lock()
	if d.head > 0 && d.head >= len(d.items)/2 { // compact so the slice does not creep
		n := copy(d.items, d.items[d.head:])
		clear(d.items[n:])
		d.items = d.items[:n]
		d.head = 0
	}
	d.items = append(d.items, v)
	d.mu.Unlock()
}

func (d *mutexDeque) Pop() (*int, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.items) == d.head {
		return nil, false
	}
	v := d.items[len(d.items)-1]
	d.items[len(d.items)-1] = nil
	d.items = d.items[:len(d.items)-1]
	return v, true
}

func (d *mutexDeque) Steal() (*int, deque.Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.items) == d.head {
		return nil, deque.Empty
	}
	v := d.items[d.head]
	d.items[d.head] = nil
	d.head++
	return v, deque.Success
}

func (d *mutexDeque) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.items) - d.head
}

// BenchmarkPushPop is the owner's uncontended fast path: one Push and one Pop
// per op, no thieves.
func BenchmarkPushPop(b *testing.B) {
	w, _ := deque.New[int](64)
	x := new(int)
	b.ReportAllocs()
	for b.Loop() {
		w.Push(x)
		w.Pop()
	}
}

// BenchmarkMutexPushPop is BenchmarkPushPop on the mutex baseline.
func BenchmarkMutexPushPop(b *testing.B) {
	d := &mutexDeque{items: make([]*int, 0, 64)}
	x := new(int)
	b.ReportAllocs()
	for b.Loop() {
		d.Push(x)
		d.Pop()
	}
}

// benchDeque is what the contended benchmark needs of either implementation.
type benchDeque struct {
	push  func(*int)
	pop   func() (*int, bool)
	steal func() (*int, deque.Result)
	len   func() int
}

// BenchmarkSteal: the owner pushes b.N items (one per op) and runs every
// fourth one itself (Pop), as a scheduler's worker would; thieves steal the
// rest continuously. The owner never lets the deque get deeper than 64 (it
// yields until the thieves catch up), so thieves contend with each other on
// a short deque, and with the owner for the last item. steals/op is the share
// of items thieves took; retries/op counts their lost races per item.
func BenchmarkSteal(b *testing.B) {
	for _, n := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("thieves=%d", n), func(b *testing.B) {
			w, s := deque.New[int](64)
			benchSteal(b, n, benchDeque{push: w.Push, pop: w.Pop, steal: s.Steal, len: w.Len})
		})
	}
}

// BenchmarkMutexSteal is BenchmarkSteal on the mutex baseline.
func BenchmarkMutexSteal(b *testing.B) {
	for _, n := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("thieves=%d", n), func(b *testing.B) {
			d := &mutexDeque{items: make([]*int, 0, 64)}
			benchSteal(b, n, benchDeque{push: d.Push, pop: d.Pop, steal: d.Steal, len: d.Len})
		})
	}
}

func benchSteal(b *testing.B, thieves int, d benchDeque) {
	const deep = 64 // the owner waits for the thieves beyond this depth
	x := new(int)
	var (
		done    atomic.Bool
		steals  atomic.Int64
		retries atomic.Int64
		wg      sync.WaitGroup
		ready   sync.WaitGroup
	)
	ready.Add(thieves)
	for range thieves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var st, rt, empty int64
			ready.Done()
			for {
				fin := done.Load() // read before the steal: Empty after fin is final
				_, r := d.steal()
				switch r {
				case deque.Success:
					st++
				case deque.Retry:
					rt++
				case deque.Empty:
					if fin {
						steals.Add(st)
						retries.Add(rt)
						return
					}
					if empty++; empty&63 == 0 {
						runtime.Gosched() // let the owner run on small machines
					}
				}
			}
		}()
	}
	ready.Wait()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.push(x)
		if i&3 == 3 {
			d.pop()
		}
		for d.len() > deep {
			runtime.Gosched()
		}
	}
	for d.len() > 0 { // the thieves take what is left
		runtime.Gosched()
	}
	done.Store(true)
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(steals.Load())/float64(b.N), "steals/op")
	b.ReportMetric(float64(retries.Load())/float64(b.N), "retries/op")
}
