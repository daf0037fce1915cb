package clusterops

import "fmt"

// StorageLimits bound what the tier keeps: the task stream (the tasks
// waiting, by count and by bytes) and the results bucket (by bytes). A
// stream at its limit refuses a new task (JetStream's discard-new policy)
// rather than dropping a waiting one, so a submitter sees cluster.ErrStorageFull
// and nothing queued is lost; a full results bucket refuses the
// recorder's write, which the worker retries until there is room (delete
// finished jobs). Zero is no limit.
type StorageLimits struct {
	Tasks       int64 // task messages in the stream
	TaskBytes   int64 // bytes of the task stream
	ResultBytes int64 // bytes of the results bucket
}

// DefaultStorageLimits are worksteal serve's defaults (--max-tasks,
// --max-task-bytes, --max-result-bytes).
var DefaultStorageLimits = StorageLimits{Tasks: 10_000_000, TaskBytes: 4 << 30, ResultBytes: 16 << 30}

// String says the limits as serve reports them.
func (l StorageLimits) String() string {
	n := func(v int64, unit string) string {
		if v <= 0 {
			return "no limit"
		}
		if unit == "B" {
			return fmt.Sprintf("%.1f MiB", float64(v)/(1<<20))
		}
		return fmt.Sprintf("%d %s", v, unit)
	}
	return fmt.Sprintf("task stream %s and %s (a submit past them is refused), results %s", n(l.Tasks, "tasks"), n(l.TaskBytes, "B"), n(l.ResultBytes, "B"))
}
