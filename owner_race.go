//go:build race

package worksteal

import (
	"strconv"
	"sync/atomic"
)

// Under -race, forks check that the *Worker they are given belongs to the
// goroutine that calls them: a handle kept after its task returned, or
// captured from an enclosing task and used in a closure that runs on
// another worker, is reported by a panic instead of silently corrupting
// the worker's deque. A fork through the handle of a worker that runs no
// task at all is always caught (after a task's runtime.Goexit too: the
// replacement goroutine starts with no task). Reading the goroutine's id costs
// microseconds (a stack trace header), so otherwise one fork in
// ownerSample is checked, per worker, beginning with the first.

var ownerSample uint32 = 64 // a variable so that a test can check every fork

// ownerState is the per-worker state of the check.
type ownerState struct {
	gid    atomic.Uint64 // goroutine running the worker's main loop
	tasks  atomic.Int32  // jobs the worker is running (nested while it helps)
	checks atomic.Uint32 // forks seen, for sampling
}

// ownerStart records the worker's goroutine (main calls it first) and
// that it runs no task. A goroutine that replaces one that exited through
// runtime.Goexit starts here too: the jobs the old one was running (their
// ownerLeave never ran) have all ended.
func (w *Worker) ownerStart() {
	w.owner.gid.Store(goid())
	w.owner.tasks.Store(0)
}

// ownerEnter and ownerLeave bracket every job the worker runs.
func (w *Worker) ownerEnter() { w.owner.tasks.Add(1) }
func (w *Worker) ownerLeave() { w.owner.tasks.Add(-1) }

// checkOwner panics if w is not the calling goroutine's worker handle.
func checkOwner(w *Worker) {
	if w.owner.tasks.Load() == 0 {
		panic(errForeignWorker(w))
	}
	if c := w.owner.checks.Add(1) - 1; c%ownerSample != 0 {
		return
	}
	if goid() != w.owner.gid.Load() {
		panic(errForeignWorker(w))
	}
}

// errForeignWorker is the panic of a fork through another task's handle.
func errForeignWorker(w *Worker) string {
	return "worksteal: *Worker " + strconv.Itoa(w.id) + " used on a goroutine that is not running its task: " +
		"a handle kept after its task returned, or captured from an enclosing task. " +
		"Use the *Worker your function received (each Join half and spawned task gets its own)"
}
