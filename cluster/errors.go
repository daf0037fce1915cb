package cluster

import (
	"errors"

	"github.com/worksteal/worksteal/balance"
)

// Errors returned by this package. Errors about a job or an option wrap one
// of these and name the field or value at fault.
var (
	// ErrInvalidOption: an option of New has a bad value.
	ErrInvalidOption = errors.New("cluster: invalid option")
	// ErrInvalidJob: a job or one of its tasks is malformed (an empty or
	// repeated task id, a name with characters NATS does not allow, a
	// payload over the server's limit).
	ErrInvalidJob = errors.New("cluster: invalid job")
	// ErrUnknownHandler: a task names a handler that no live worker has
	// registered (checked at Submit when workers are known), or that the
	// worker it reached does not have.
	ErrUnknownHandler = errors.New("cluster: unknown handler")
	// ErrJobNotFound: no job with that id is recorded.
	ErrJobNotFound = errors.New("cluster: job not found")
	// ErrJobMismatch: a job with that id is recorded with different tasks,
	// so resuming it would mix two batches.
	ErrJobMismatch = errors.New("cluster: job exists with different tasks")
	// errNoHandlers: Serve was called before any Handle.
	errNoHandlers = errors.New("cluster: no handlers registered")
	// ErrNoMoreResults: Submission.Next has returned every result.
	ErrNoMoreResults = errors.New("cluster: no more results")
	// errMaxDeliveries: the recorded error of a poison task, one whose
	// deliveries ended without an outcome from its handler (its workers
	// died, hung, stopped or lost the server) more often than WithMaxDeliver
	// allows.
	errMaxDeliveries = errors.New("cluster: poison task: delivered the maximum number of times without an outcome")
	// ErrTasksFailed: Submission.Wait's error when some tasks of the job
	// failed; it says how many, and Wait returns every result with it
	// (see Result.Failure for what each failure was).
	ErrTasksFailed = errors.New("cluster: tasks failed")
	// ErrJobCancelled: the job was cancelled (Node.Cancel) while it was
	// followed; its unfinished tasks will not run.
	ErrJobCancelled = errors.New("cluster: job cancelled")
	// ErrJetStream: the server does not offer JetStream, or its streams and
	// buckets could not be set up.
	ErrJetStream = errors.New("cluster: JetStream unavailable")
)

// Causes of a running task's cancellation, as context.Cause of its ctx.
var (
	// errStopping: the worker is stopping; the task goes back to the queue.
	errStopping = errors.New("cluster: worker stopping")
	// errJobCancelled: the task's job was cancelled (Node.Cancel).
	errJobCancelled = ErrJobCancelled
	// errSuperseded: another copy of the task recorded its result first.
	errSuperseded = errors.New("cluster: result already recorded by another copy")
)

// Permanent wraps a handler's error so that the task is recorded as failed
// at once, without the retries an ordinary error gets. Permanent(nil) is
// nil. It is balance.Permanent: an error marked for balance.Retry is marked
// here too, and the other way round.
func Permanent(err error) error { return balance.Permanent(err) }

func isPermanent(err error) bool { return balance.IsPermanent(err) }
