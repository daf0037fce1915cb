package clusterops

import (
	"fmt"
	"time"

	"github.com/worksteal/worksteal/internal/clusterwire"
)

// Stall is a route of a job whose queued tasks no live worker can run: no
// live worker has the route's handler with labels that meet its
// requirements (the only one that did was lost, say). The tasks wait,
// without using deliveries, until such a worker starts.
type Stall struct {
	Job     string
	Handler string
	Require map[string]string
	// Queued is the number of the route's tasks waiting for a worker.
	Queued int
	// Since is when the route last delivered a task (when it was made, if
	// never): the tasks have waited since then at least.
	Since time.Time
}

// String says what the tasks wait for, as a user reads it:
// "no live worker has gpu=1 (handler sh) since 12:03:04: 3 tasks wait".
func (s Stall) String() string {
	what := "handler " + s.Handler
	if len(s.Require) > 0 {
		what = clusterwire.LabelString(s.Require) + " (handler " + s.Handler + ")"
	}
	tasks := "tasks wait"
	if s.Queued == 1 {
		tasks = "task waits"
	}
	return fmt.Sprintf("no live worker has %s since %s: %d %s", what, s.Since.Format("15:04:05"), s.Queued, tasks)
}
