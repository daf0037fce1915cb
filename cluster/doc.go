// Package cluster runs batches of tasks on many machines, with NATS
// JetStream as the engine: an embedded server (worksteal serve) or an
// existing NATS cluster.
//
// A worker registers named handlers and serves them; a submitter submits a
// job of tasks and follows its results:
//
//	nc, _ := nats.Connect(url)
//	node, _ := cluster.New(nc, cluster.WithSlots(8))
//	node.Handle("render", func(ctx context.Context, frame []byte) ([]byte, error) {
//		pool := cluster.PoolFrom(ctx) // fine-grained work: the local work-stealing pool
//		...
//	})
//	go node.Serve(ctx)
//
//	sub, _ := node.Submit(ctx, cluster.Job{ID: "film", Tasks: tasks})
//	results, _ := sub.Wait(ctx)
//
// # Where things live
//
// Everything is named after WithStream's name, "ws" by default:
//
//   - ws_tasks: a work-queue stream of task messages, subject
//     ws.task.<job>.<handler>, with one durable pull consumer, ws_workers,
//     shared by all workers (a work-queue stream cannot have two consumers
//     on the same subjects, so speculative copies are published again, not
//     consumed twice);
//   - ws_results: a key-value bucket, one key <job>.<task> per task, written
//     once with a create (the exactly-once record);
//   - ws_jobs: a record per job (its task count, how many are published),
//     so a restarted submitter resumes and anyone can Open a job;
//   - ws_checkpoints: handlers' progress (SaveCheckpoint), per task;
//   - ws_workers: live workers, their slots and handlers (with a TTL);
//   - core subjects ws.started.<job> (start notices) and
//     ws.cancel.<job>.<task> (stop a copy that lost its race).
//
// # Semantics
//
// Execution is at least once; result recording is exactly once. A worker
// asks for a task only when a slot is free (see puller), so a worker with
// more slots or faster handlers takes more of the job, and none hoards the
// queue. While a handler runs, the worker sends in-progress acks every
// heartbeat; if the worker dies, the server delivers the task again after
// the ack wait, and later redeliveries wait longer (1, 2, 4, 8 × the ack
// wait). A handler's error makes the task run again after a backoff, until
// the job's attempts are spent; then the failure is recorded. Every result
// is written with a create on the task's key, so a duplicate run (a
// redelivery whose ack was lost, a speculative copy) finds the key taken
// and its result is discarded. A task whose deliveries are all spent
// without an answer stays in a work-queue stream, and only an advisory
// says so: every node listens for it and records the failure.
//
// Near the end of a job that asks for it (Job.Speculate), a submitter
// publishes a copy of each straggler once every unfinished task runs; the
// first copy to record a result wins and the other's handler is cancelled.
//
// # Costs
//
// About 90 µs of CPU per trivial task, end to end (submit, pull, run,
// record, ack, see the result), server included: about 20,000 tasks a
// second on two idle cores; see BenchmarkThroughput in cluster/test.
package cluster
