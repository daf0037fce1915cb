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
// # Where things live (the data model)
//
// Everything is named after WithStream's name, "ws" by default. Other
// programs (the dashboard, operators' scripts) may read all of it; only
// nodes write it.
//
//   - ws_tasks: a work-queue stream of task messages, subject
//     ws.task.<job>.<handler>, with one durable pull consumer, ws_workers,
//     shared by all workers (a work-queue stream cannot have two consumers
//     on the same subjects, so speculative copies are published again, not
//     consumed twice). Headers: Ws-Job, Ws-Task, Ws-Index (position in the
//     job), Ws-Max-Attempts, Ws-Retry-Delay (ns), Ws-Speculative (a copy),
//     Ws-Notify (report the start at once). The payload is the task's.
//     The consumer's ack wait is the deployment's (see WithAckWait); it has
//     no delivery limit and no backoff of its own: redelivery follows the
//     state machine below.
//   - ws_results: a key-value bucket, one key <job>.<task> per task, written
//     once with a create (the exactly-once record); the value is a Result
//     as JSON (see Result.MarshalJSON: times in ns).
//   - ws_jobs: one key per job, a JSON record: id, total, published (tasks
//     [0, published) are in the stream or done), fingerprint of the tasks,
//     created, done, cancelled; so a restarted submitter resumes and anyone
//     can Open, list or cancel a job.
//   - ws_failures: key <job>.<task>, {"failures": k, "error": last}: how
//     many attempts the task's handler has failed. Only a handler's failure
//     writes it; it is purged when the result is recorded.
//   - ws_checkpoints: handlers' progress (SaveCheckpoint), per task.
//   - ws_workers: live workers, key = worker name, a WorkerInfo as JSON
//     (name, slots, handlers, tasks running, start), refreshed every 5 s,
//     gone 15 s after the last refresh.
//   - core subjects: ws.started.<job>, a worker's report that a task runs,
//     "task<TAB>attempt<TAB>start-unix-ns<TAB>worker", sent at every
//     heartbeat while the task runs (and at its start when the job
//     speculates); ws.cancel.<job>.<task> stops the local copies of a task
//     (a speculative race was decided), ws.cancel.<job> those of a job.
//   - core subject ws.status.<worker>: a serving worker's WorkerStatus,
//     every second (what it runs, its counters, its submit-to-start
//     latency histogram), for observers; a worker silent for 3 s is lost.
//
// # The state machine of a task
//
// A task's state is its message in ws_tasks (with the server's delivery
// count d), its key in ws_results and its key in ws_failures (k, the
// handler's failures so far). Attempts are what handlers did; deliveries
// are what the infrastructure did, and only the first are counted against
// Job.MaxAttempts:
//
//	queued ──delivered to W (d+1)──▶ running on W
//	running on W ──handler ok──▶ record result, ack ──▶ succeeded
//	running on W ──handler error, k+1 < attempts──▶ k+1 in ws_failures,
//	              nak after the job's retry delay ──▶ queued
//	running on W ──handler error, last attempt or Permanent──▶
//	              record failure, ack ──▶ failed
//	running on W ──W stops (SIGTERM, ctx done)──▶ handler cancelled,
//	              nak at once ──▶ queued (not an attempt)
//	running on W ──W dies, is partitioned, or the server restarts──▶
//	              no heartbeat for the ack wait: redelivered ──▶ queued
//	              (not an attempt)
//	queued ──delivered with d−1−k ≥ the max-deliver lost deliveries──▶
//	              record ErrMaxDeliveries (a poison task), ack ──▶ failed
//	any ──a result is already recorded──▶ ack, nothing runs
//
// While W holds a task it sends an in-progress ack every heartbeat (a
// third of the ack wait), from delivery until the outcome is recorded; if
// the server is away, W keeps retrying the record and the count, so that
// finished work is not run again when it returns. A failure is counted
// (ws_failures) before the nak, so a worker that dies between the two
// loses nothing: the redelivery sees k and runs attempt k+1, or records
// the last failure. The attempt a delivery makes is k+1; the lost
// deliveries of a task are d−1−k (a hand-back by a stopping worker counts
// as lost too: the limit is generous, 10 by default).
//
// # Semantics
//
// Execution is at least once; result recording is exactly once. A worker
// asks for a task only when a slot is free (see puller), so a worker with
// more slots or faster handlers takes more of the job, and none hoards the
// queue. Every result is written with a create on the task's key, so a
// duplicate run (a redelivery whose ack was lost, a speculative copy)
// finds the key taken and its result is discarded. Result.Deliveries and
// Progress.Redeliveries say how often tasks ran again.
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
