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

// errNestedRun is the panic of Run, Pool.Do, Pool.DoErr, Pool.Scope or
// Profile called from a task.
const errNestedRun = "worksteal: Run, Pool.Do, Pool.DoErr, Pool.Scope or Profile called from inside a task running on a pool. " +
	"It would block that worker while it waits, and deadlock any pool whose workers all do so (every 1-worker pool). " +
	"Inside a task, call the function directly with the task's *Worker (f(w), or w.Scope); " +
	"to wait for a different pool, wrap the call in w.Blocking"

// errCloseInOwnTask is the panic of Close called from a task of the pool.
const errCloseInOwnTask = "worksteal: Pool.Close called from a task of the same pool. " +
	"Close waits until every task has finished, the calling one included, so it would never return (Blocking does not change that). " +
	"Close the pool from plain code, after the computations you wait for (Run returns when its task has finished)"

// errCloseInTask is the panic of Close of another pool from a task.
const errCloseInTask = "worksteal: Pool.Close called from inside a task running on a pool. " +
	"It would block that worker while the closed pool drains, and deadlock a pool whose workers all do so. " +
	"Close from plain code, or wrap the call in w.Blocking"

// checkCloseNotInTask is Close's check: it panics if the calling goroutine
// is a worker of p (errCloseInOwnTask: Close would wait for itself, inside
// Blocking too), or runs a task of another pool outside Blocking
// (errCloseInTask, as a nested Run). Close is rare: reading the
// goroutine's id (a stack trace header) costs nothing that matters here.
func (p *Pool) checkCloseNotInTask() {
	g := goid()
	own := false
	for _, w := range p.workers {
		own = own || w.gid.Load() == g
	}
	p.spares.each(func(w *Worker) { own = own || w.gid.Load() == g })
	if own {
		panic(errCloseInOwnTask)
	}
	if inTaskOutsideBlocking() {
		panic(errCloseInTask)
	}
}

// goid returns the calling goroutine's id from the header of its stack
// trace ("goroutine 123 [running]:").
func goid() uint64 {
	var buf [32]byte
	n := runtime.Stack(buf[:], false)
	const prefix = len("goroutine ")
	var id uint64
	for _, c := range buf[prefix:n] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

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
	if inTaskOutsideBlocking() {
		panic(errNestedRun)
	}
}

// inTaskOutsideBlocking reports whether the calling goroutine runs a task
// of some pool outside a Blocking region (see checkNotInTask).
func inTaskOutsideBlocking() bool {
	entriesOnce.Do(func() {
		mainEntry = funcEntry((*Worker).main)
		blockingEntry = funcEntry((*Worker).Blocking)
	})
	buf := pcBufs.Get().(*[64]uintptr) // runtime.Callers makes a local buffer escape
	defer pcBufs.Put(buf)
	pcs := buf[:]
	n := runtime.Callers(3, pcs)
	for n == len(pcs) { // deeper than the buffer: take the whole stack
		pcs = make([]uintptr, 2*len(pcs))
		n = runtime.Callers(3, pcs)
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
		return false
	}
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if f.Entry == blockingEntry {
			return false
		}
		if !more {
			break
		}
	}
	return true
}
