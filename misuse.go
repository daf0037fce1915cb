package worksteal

import (
	"reflect"
	"runtime"
	"sync"
)

// Misuse that would otherwise hang or crash without a word is caught here
// and reported by a panic that says what to do instead.

// errNilWorker is the panic of a fork through a nil *Worker.
const errNilWorker = "worksteal: nil *Worker: call inside a task, passing the *Worker of the running task (the w its function received)"

// errNestedRun is the panic of Run, Pool.Scope or Profile called from a task.
const errNestedRun = "worksteal: Run, Pool.Scope or Profile called from inside a task running on a pool. " +
	"It would block that worker while it waits, and deadlock any pool whose workers all do so (every 1-worker pool). " +
	"Inside a task, call the function directly with the task's *Worker (f(w), or w.Scope); " +
	"to wait for a different pool, wrap the call in w.Blocking"

// checkWorker is the check at every entry point that takes a *Worker: it
// panics with errNilWorker if w is nil and, in -race builds, if w belongs
// to another goroutine (checkOwner).
func checkWorker(w *Worker) {
	if w == nil {
		panic(errNilWorker)
	}
	checkOwner(w)
}

var (
	entriesOnce   sync.Once
	mainEntry     uintptr // entry PC of (*Worker).main
	blockingEntry uintptr // entry PC of (*Worker).Blocking
)

var pcBufs = sync.Pool{New: func() any { return new([64]uintptr) }}

func funcEntry(f any) uintptr {
	return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Entry()
}

// checkNotInTask panics with errNestedRun if the calling goroutine runs a
// task of some pool outside a Blocking region: a worker goroutine's stack
// starts in (*Worker).main, and Blocking's frame is on it while the task
// blocks with compensation. It costs one walk of the caller's stack
// (about half a microsecond from a shallow goroutine), next to the
// wake-up and channel wait a Run costs anyway.
//
// No goroutine can tell which pool a worker goroutine belongs to, so this
// rejects a Run of any pool from a task, unless inside Blocking.
func checkNotInTask() {
	entriesOnce.Do(func() {
		mainEntry = funcEntry((*Worker).main)
		blockingEntry = funcEntry((*Worker).Blocking)
	})
	buf := pcBufs.Get().(*[64]uintptr) // runtime.Callers makes a local buffer escape
	defer pcBufs.Put(buf)
	pcs := buf[:]
	n := runtime.Callers(2, pcs)
	for n == len(pcs) { // deeper than the buffer: take the whole stack
		pcs = make([]uintptr, 2*len(pcs))
		n = runtime.Callers(2, pcs)
	}
	pcs = pcs[:n]
	// The bottom of a worker goroutine: (*Worker).main, then runtime.goexit.
	worker := false
	for i := max(0, n-3); i < n; i++ {
		if f := runtime.FuncForPC(pcs[i] - 1); f != nil && f.Entry() == mainEntry {
			worker = true
		}
	}
	if !worker {
		return
	}
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if f.Entry == blockingEntry {
			return
		}
		if !more {
			break
		}
	}
	panic(errNestedRun)
}
