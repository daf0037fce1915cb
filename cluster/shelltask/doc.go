// Package shelltask is the wire format of a shell task: the payload a
// submitter puts in a [cluster.Task] for the handler named [HandlerName],
// the [Result] that handler writes back, and the handler itself, which
// "worksteal worker" registers. "worksteal run --nats" submits these tasks;
// any other program can submit them too, to workers it did not start:
//
//	p, _ := json.Marshal(shelltask.Task{Cmd: "gzip -9 big.log", Seq: 1})
//	job.Tasks = append(job.Tasks, cluster.Task{ID: "1", Handler: shelltask.HandlerName, Payload: p})
//
// and decode each [cluster.Result]'s Output as a [Result]. A command that
// succeeds gives its standard output as the task's value (what the job's
// reduction sees), so its Result leaves Stdout empty; a failed one keeps
// both streams.
package shelltask
