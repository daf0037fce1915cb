// Package workercmd is "worksteal worker" (a cluster node that runs shell
// tasks, cluster/shelltask, and the built-in handlers), its process-group
// reaper ("worksteal reap") and "worksteal spawn", which a task's command
// runs to add children to its job.
package workercmd
