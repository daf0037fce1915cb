// Package cluster runs batches of tasks on many machines, with NATS
// JetStream as the engine: an embedded server (worksteal serve, or package
// cluster/embedded inside a Go program) or an existing NATS cluster.
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
//	results, err := sub.Wait(ctx) // err wraps ErrTasksFailed if some failed
//
// # Where things live (the data model)
//
// Everything is named after WithStream's name, "ws" by default. Other
// programs (the dashboard, operators' scripts) may read all of it; only
// nodes write it.
//
//   - ws_tasks: a work-queue stream of task messages, subject
//     ws.task.<job>.<handler>.<req> (<req>: "any", or a digest of the
//     task's label requirements), with one durable pull consumer per route
//     (job, handler, requirements): ws_r_<digest>, filtered on the route's
//     subject, its metadata ws_job, ws_handler and ws_require (k=v,...)
//     saying who may pull from it. Routes never overlap (a work-queue
//     stream allows several consumers only on disjoint subjects), so a
//     speculative copy is published again, not consumed twice. The
//     consumer ws_workers filters a subject no task has and only keeps the
//     deployment's ack wait (see WithAckWait), which the routes' consumers
//     get; none has a delivery limit or a backoff of its own: redelivery
//     follows the state machine below. A submitter makes a job's routes
//     before publishing its tasks and deletes them (and purges the job's
//     subjects) once every task has a result. Headers: Ws-Job, Ws-Task,
//     Ws-Index (position in the job), Ws-Max-Attempts, Ws-Retry-Delay (ns),
//     Ws-Speculative (a copy), Ws-Notify (report the start at once). The
//     payload is the task's. (Tasks that a version without routes
//     queued, on ws.task.<job>.<handler>, reach no worker: let such jobs
//     finish, or delete them, before upgrading.)
//   - ws_results: a key-value bucket, one key <job>.<task> per task, written
//     once with a create (the exactly-once record; by the recorder for
//     workers of the worker role, see "Authority"); the value is a Result
//     as JSON (see Result.MarshalJSON: times in ns). Its outcome never
//     changes; a worker whose run of the task ends after it, its result
//     discarded, adds one to its discarded count (a compare-and-set on
//     the revision), so that the record is the one count of extra runs.
//   - ws_jobs: one key per job, a JSON record: id, total, published (tasks
//     [0, published) are in the stream or done), fingerprint of the tasks,
//     created, done, cancelled; so a restarted submitter resumes and anyone
//     can Open, list or cancel a job.
//   - ws_failures: key <job>.<task>, {"failures": k, "error": last}: how
//     many attempts the task's handler has failed. Only a handler's failure
//     writes it; it is purged when the result is recorded.
//   - ws_checkpoints: handlers' progress (SaveCheckpoint), per task.
//   - ws_workers: live workers, key = worker name, its registration as JSON
//     (name, slots, handlers, tasks running, start), refreshed every 5 s,
//     gone 15 s after the last refresh; a worker that stops writes its
//     entry once more, marked stopped, so that its handlers stay known to
//     Submit for those 15 s (an unknown handler is refused alike just
//     before and just after it stops).
//   - core subjects: ws.started.<job>, a worker's report that a task runs,
//     "task<TAB>attempt<TAB>start-unix-ns<TAB>worker", sent at every
//     heartbeat while the task runs (and at its start when the job
//     speculates); ws.routes, a submitter's notice that tasks wait in new
//     routes (workers look at the consumers at once, not at their next
//     look a second later); ws.cancel.<job>.<task> stops the local copies of a task
//     (a speculative race was decided), ws.cancel.<job> those of a job;
//     ws.ran.<job>: unused since discarded runs are counted in their
//     task's result (Result.Discarded); kept in the roles' permissions for
//     workers of earlier versions.
//   - core subject ws.status.<worker>: a serving worker's status (JSON),
//     every second (what it runs, its counters, its submit-to-start
//     latency histogram, the results it recorded since the last one:
//     early when a thousand wait), for observers; a worker silent for 3 s
//     is lost. Observers read it, nothing else depends on it.
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
//	              (not an attempt); sooner when a watcher finds W lost
//	              (failover.go: its connection gone, or 3 s silent) and
//	              naks what W held (through the recorder, which checks
//	              that W is lost, for workers of the worker role)
//	queued ──delivered with d−1−k ≥ the max-deliver lost deliveries──▶
//	              record errMaxDeliveries (a poison task), ack ──▶ failed
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
// queue. A slot is a handler running: it is free again when the handler
// returns, while the outcome is still being written and acked (at most
// slots outcomes at once, four times that through the recorder;
// serving.settling), so the round trips of one
// task's settlement overlap the next task's run. Every result is written
// with a create on the task's key, so a
// duplicate run (a redelivery whose ack was lost, a speculative copy)
// finds the key taken and its result is discarded. Result.Reruns (from
// Deliveries and Discarded) and Progress.Reruns say how often tasks ran
// again; worksteal run's summary, job status and job results all read
// them from the records.
//
// A duplicate after an outage: a worker that finished a task while the
// server was away keeps retrying its record; if the outage outlasted the
// ack wait, the server meanwhile delivered the task again (or, restarted,
// forgot the delivery), so the task ran twice, and the record counts the
// second run (Discarded). To make such duplicates rare, set the ack wait
// (WithAckWait, --ack-wait) longer than the outages to ride out: the
// worker's heartbeats resume when the server is back, before the task is
// delivered again.
//
// # Trees: tasks that spawn tasks
//
// A handler adds child tasks to its own job with Spawn(ctx, handler,
// payload) (a shell task with worksteal spawn -- CMD ARGS..., through the
// environment its worker sets: SpawnEnv). A delivered task and the
// children it spawns, and theirs, form a unit: the children run on the
// same worker, on up to its slots of runner goroutines, newest first
// (depth first), with no message per child. A worker with nothing to run
// says so on ws.idle.<name> ("id<TAB>free slots<TAB>name"; every 10 ms while idle,
// backing off to 500 ms, none while busy: a few messages a second per
// idle worker, whatever the number of tasks); a worker holding two or more
// pending children hands half of them over, oldest first (the biggest
// subtrees, as a thief steals the top of a deque), at most the idle
// worker's free slots: each is published as a task of its own in its
// unit's route (so only children with their unit's handler are handed
// over), with the headers of its unit plus Ws-Parent (the unit's task)
// and a JetStream message id of the job's nonce (the first part of its
// unit's message id, which the submitter set) and its own id. The hearer
// answers each sender (the subject's name, which must be the body's) at
// most once per 50 ms and all senders together at most 8 times per 50 ms,
// and counts the signals it discards (its IdleRefused counter).
//
// A child's id is its spawner's id, '=', and its index among its
// siblings: "root=2=0" is the first child of the third child of root.
// A handler that runs again spawns the same children under the same ids,
// provided it spawns them in the same order.
//
// Reductions, one meaning whatever form the tree takes (Spawn, worksteal
// spawn, Then with ChildResults, or a mix): every node has a value, its
// output or what it set with ReduceValue, and each value is counted once,
// either by the continuation that reads it or by the job's reduction,
// never by both. So the job's value (Submission.Value, run --reduce) is
// the reduction of the values of the nodes whose values no continuation
// reads: a child of a task with a continuation gives its output to that
// continuation (ChildResults) and not to the reduction; a task with a
// continuation gives none of its own (its continuation's value stands for
// it). A fib tree written with Spawn (leaves print n, inner nodes
// nothing) and one written with Then (continuations add their children's
// outputs) both reduce with "sum" to fib(n); with the default reduction a
// Then tree's value is its root's output. count counts those values.
//
// Results: a unit's Result carries Value, the job's reduction (Job.Reduce)
// of its own value and those of the children it ran, and Spawned, the ids
// of the children it handed over, which record results of their own
// (Parent names the unit). A child's failure fails its unit (which is
// retried whole, with its attempts). The submitter folds the values of
// the results as they arrive (Submission.Value).
//
// Continuations: a task that calls Then(ctx, handler, payload) before its
// first Spawn gets a continuation, queued on its worker once its handler
// and all its children (their continuations included) have completed; it
// reads their outputs with ChildResults and its output stands for its
// task's (a delivered task's Result.Output is its root's continuation's).
// Nothing waits meanwhile: a counter per task (its own handler + its
// children not complete) queues the continuation when it reaches zero.
// The children of a task with a continuation stay on its worker: their
// outputs must reach the continuation, which waits in that worker's
// memory (a counter and the outputs in spawn order); handing them over
// would need the outputs routed back and the counter to survive the
// worker's death, a distributed join. Spawn without Then to spread a
// tree, and let the job's reduction combine it.
//
// # Quiescence: when a job of spawning tasks is done
//
// The job counts its own tasks, plus every child listed in the Spawned of
// a counted result; it is done when every counted task has a result. A
// result whose parent's recorded result does not list it is not counted
// (kept aside until the listing arrives, and never counted if none does).
// This cannot end a job early:
//
//   - A unit's result is written only when none of its nodes is open: its
//     handler has returned, every child it kept has finished, and every
//     child it hands over is stored in the stream (a durable work queue:
//     the message stays until its result is recorded) and listed in the
//     result. So when the result that lists a child is recorded, the child
//     is counted and queued, in that order, and cannot be missed: a child
//     spawned while its parent's result is being recorded belongs to that
//     result (it holds the unit open) or to no counted result.
//   - The count uses the one recorded result of each task (a create on
//     its key): a redelivered parent, or a speculative copy, whose result
//     is refused lists nothing, and the children it handed over are not
//     counted, even if they record results (their values are already in
//     the recorded parent's, which ran them itself, or listed them). A
//     child's result that arrives before its parent's is not counted until
//     the parent's arrives, and all the children a result lists are
//     counted before any of them is taken, so the count never reaches the
//     results while a listed sibling is missing.
//   - So "every counted task has a result" means: no task is pending or
//     running that the job depends on, and none can be spawned (a task can
//     only be spawned by a running task, whose own result is missing).
//
// Checkpoint rule: what a worker holds locally (pending and running
// children) is recovered by its unit's redelivery: the unit's handler
// runs again and spawns the same children under the same ids. Before a
// child is handed over, its id is appended to the unit's checkpoint
// (<job>.<task>.handed in ws_checkpoints, dropped once the unit's result
// is recorded; with the worker role the recorder appends it, in the same
// request that publishes the child); a re-run of the unit publishes those children again under
// the same message ids (a copy JetStream drops, or one that finds the
// result recorded) instead of running them. So a worker killed mid-tree
// costs the ack wait plus the part of the subtree it held, not what it had
// handed over.
//
// Limits: a child handed over after its unit's result was recorded (a
// copy of the unit that lost the race) may stay queued in a route that is
// gone (purged when the job is deleted); values are combined in the order
// subtrees finish, so Combine must be associative (concat's order is not
// deterministic).
//
// # Routing: each task goes to a worker that can run it
//
// A worker pulls only from the routes it can serve: it has the route's
// handler, and its labels (WithLabels, worksteal worker --label k=v)
// include every requirement of the route (Job.Require and Task.Require,
// run --require k=v; equal values, no ranges). It learns the routes by
// listing the stream's consumers every second, and at once from a
// submitter's ws.routes notice. So no delivery is ever spent on a worker
// that cannot run the task (a worker counts its deliveries),
// and a task's delivery limit counts only deliveries to capable workers.
//
// A task that no live worker can run is refused at Submit: a handler none
// has (ErrUnknownHandler) or requirements that no worker with the handler
// meets (ErrNoCapableWorker, naming the labels the candidates have). With
// no live worker registered at all Submit cannot tell and accepts: the
// tasks wait in their route, without using deliveries, until a capable
// worker starts (the documented wait; Progress shows them queued). So do
// tasks whose only capable worker is lost after Submit, or just before
// (its registry entry lives 15 s): worksteal run --nats says what they
// wait for ("no live worker has gpu=1 (handler sh) since 12:03:04", on
// stderr; --wait-timeout bounds the wait), and so do job status and the
// dashboard.
//
// Capacity-weighted pulling stays: a worker asks for as many tasks as it
// has free slots (one request per route at a time, for the slots freed
// meanwhile), so a worker with more slots or faster handlers takes more.
// worksteal worker --speed only advertises a speed in the registry.
// A route stays known until a listing of the worker's routes no longer
// shows it, or its consumer answers "409 Consumer Deleted": a "503 no
// responders" (its consumer between leaders after a server of the
// JetStream cluster died) only marks it empty until the next pause, so a
// worker keeps pulling while the cluster elects, however long the
// listings fail meanwhile (puller.run; TestClusterLosesStreamLeader).
//
// # Fair share between jobs
//
// Policy (a soft quota, kept by each worker for its own slots; see
// puller.pick): a free slot asks the route, among those known to hold
// waiting tasks, whose job has the fewest tasks running (or asked for) on
// this worker. So while k jobs have tasks waiting for a worker, each gets
// at most its 1/k of the worker's slots, and a job submitted behind a long
// one starts as soon as a slot frees, not when the first job's queue is
// drained; a job alone gets every slot. Tasks already running are never
// preempted, and the share is counted in tasks, not in their durations.
// Across the cluster, each job gets about 1/k of the slots of the workers
// that can run both.
//
// Measured (BenchmarkFairShare in cluster: two jobs of 1,000 tasks of
// 20 ms, submitted 1 s apart, 2 workers of 4 slots, in one process with
// the server, on the loaded 2-core machine, 5 runs): the second job's first
// result came 41-92 ms after its Submit began (2-4.6 task durations; Submit
// itself, publishing 1,000 tasks, took 27-34 ms), when the first job still
// had 632-640 tasks to run; while both had tasks waiting the second got
// 0.498-0.501 of the tasks run. Before routes (one consumer for all), the
// same two jobs gave the second job's first result after 1,767 ms, once
// the first job had ended.
//
// Near the end of a job that asks for it (Job.Speculate), a submitter
// publishes a copy of each straggler once every unfinished task runs; the
// first copy to record a result wins and the other's handler is cancelled.
//
// # Costs
//
// About 90 µs of CPU per trivial task, end to end (submit, pull, run,
// record, ack, see the result), server included: about 20,000 tasks a
// second on two idle cores; see BenchmarkThroughput in cluster.
//
// # Security
//
// A server reachable from the network authenticates every client and
// encrypts every connection; worksteal serve refuses to listen on such an
// address otherwise, unless given --insecure (and then says so on every
// start). On loopback it needs nothing.
//
// Authentication is NATS's own: one nkey user per role, written by
// worksteal serve init into a nats-server configuration with the role's
// permissions, each role's seed in its own file. Nkeys rather than
// user/password: the server's configuration holds public keys only, and a
// client proves it has the seed by signing the server's nonce, so no secret
// crosses the wire or sits in the server's files (a password is sent on
// every connect and its hash is kept in the configuration). Rather than
// JWTs (operator mode): those add expiry and revocation but need an
// operator, an account resolver and the nsc tool, more than one team's
// cluster needs; ConnectOptions also takes a NATS .creds file, so a tier can
// run on an operator-mode NATS whose user JWTs carry the permissions below.
//
// Secrets are only ever read from files: --creds FILE (or the file named by
// $WORKSTEAL_CREDS), --tls-key FILE. A flag or an environment variable would
// show in ps; a file name does not give the secret away. No error or log
// line quotes a credentials file, and the nkey seed is read again to sign
// each connect rather than kept in memory. A credentials or key file that
// group or others may read is refused, as ssh refuses such a private key
// (chmod 600; serve init writes them so), and a value of --creds or
// $WORKSTEAL_CREDS that is a seed or a key rather than a file name is
// refused without being printed.
//
// TLS covers clients (server certificate; client certificates too with
// serve --tls-verify or serve init --mtls) and the routes between the
// servers of a JetStream cluster, which are always mutual TLS: serve init
// gives routes a CA of their own, so a client's certificate cannot open a
// route.
//
// Roles and their permissions (worksteal serve init writes them into the
// server's users.json; stream prefix "ws"; "*"
// is one subject token, ">" the rest; "the buckets" are the streams
// KV_ws_results, KV_ws_jobs, KV_ws_checkpoints, KV_ws_workers and
// KV_ws_failures). Everything not listed is refused, and the listed
// refusals are tested one by one against a real server:
//
//	every role   publish  $JS.API.INFO, $JS.API.STREAM.INFO of ws_tasks and
//	                      the buckets, $JS.API.CONSUMER.INFO.ws_tasks.*
//	                      (state and counts, no payloads)
//	             receive  _INBOX_<role>.> only: its own replies (other roles'
//	                      inboxes and _INBOX.> are refused)
//	worker       publish  $JS.API.CONSUMER.MSG.NEXT.ws_tasks.* (pull),
//	                      $JS.API.CONSUMER.LIST.ws_tasks (find its routes),
//	                      ws.rec.<name>.* (ask the recorder, as itself:
//	                      record a result, count a failure or a discarded
//	                      run, save a checkpoint, hand a child over (and
//	                      list it), ack, nak, in progress, term, hand a
//	                      lost peer's tasks back; any name with the shared
//	                      worker key; read a held task's checkpoint,
//	                      failures, whether its result is in),
//	                      $KV.ws_workers.> (register), DIRECT.GET of
//	                      KV_ws_workers, ws.started.>,
//	                      ws.status.*, ws.ran.>, ws.idle.>,
//	                      ws.held.<name>.*, ws.hello.<name> (failover, as
//	                      itself; any name with the shared key),
//	                      ws.alive.*.* (ping a peer)
//	             receive  ws.dlv.<name>.> (its deliveries; any with the
//	                      shared key), ws.cancel.>, ws.routes, ws.idle.>,
//	                      ws.held.*.*, ws.hello.*, ws.alive.<name>.* (its
//	                      own pings; any with the shared key)
//	             refused  $JS.ACK.> (settling directly: the server takes an
//	                      ack for any pending sequence it names),
//	                      ws.task.> (submit, hand over), $KV.ws_results.>
//	                      and $KV.ws_failures.> (put, overwrite, purge),
//	                      $KV.ws_jobs.>, reading a task by
//	                      sequence (STREAM.MSG.GET, DIRECT.GET of ws_tasks),
//	                      reading job records, creating, changing, purging
//	                      or deleting any stream or consumer, ws.task.> as a
//	                      subscription (hearing tasks as they are published)
//	person alice publish  (a submitter key with a name)
//	                      only under alice.: ws.task.alice.>, ws.cancel.alice.>,
//	                      $KV.ws_jobs.alice.>, DIRECT.GET and filtered
//	                      CONSUMER.CREATE of her records and results,
//	                      ws.routes, ws.own.alice.* (the owner service:
//	                      purge, end, cancel, delete, make a route, say
//	                      what a job waits for)
//	             receive  _INBOX_submitter_alice.>, ws.started.alice.>, ws.ran.alice.>
//	             refused  every other job's subjects and keys, any purge,
//	                      any CONSUMER.CREATE, LIST, NAMES or DELETE of
//	                      ws_tasks and the INFO of a route (their names,
//	                      metadata and counts name every job), setting
//	                      the tier up
//	admin        publish  (and a submitter key of no name)
//	submitter             STREAM.CREATE/UPDATE of ws_tasks and the buckets,
//	                      CONSUMER.CREATE.ws_tasks.ws_workers (set up),
//	                      CONSUMER.CREATE.ws_tasks.*.ws.task.> (a route:
//	                      filtered on task subjects only), CONSUMER.LIST
//	                      and CONSUMER.DELETE.ws_tasks.* (a job's routes
//	                      once it ends), ws.routes (announce them),
//	                      ws.task.> (submit), ws.cancel.>, $KV.ws_jobs.>,
//	                      DIRECT.GET of KV_ws_jobs, KV_ws_results,
//	                      KV_ws_workers, CONSUMER.CREATE/INFO/DELETE and
//	                      $JS.FC on those three (watches, listings),
//	                      STREAM.PURGE of ws_tasks, KV_ws_results,
//	                      KV_ws_checkpoints, KV_ws_failures (Delete)
//	             receive  ws.started.>, ws.ran.>
//	             refused  $JS.API.CONSUMER.MSG.NEXT.> (pull), $JS.ACK.> (settle),
//	                      STREAM.DELETE, ws.cancel.> as a subscription
//	observer     publish  read requests only: DIRECT.GET of KV_ws_jobs and
//	                      KV_ws_workers, CONSUMER.LIST/NAMES of ws_tasks
//	                      (the dashboard's permissions are a subset)
//	             receive  ws.started.>, ws.ran.>, ws.status.*
//	             refused  every subject a worker or a submitter may publish to,
//	                      any CONSUMER.CREATE (durable or not, push or pull),
//	                      reading results (DIRECT.GET, STREAM.MSG.GET of
//	                      KV_ws_results: they hold the outputs), ws.task.> as
//	                      a subscription, checkpoints
//
// A node told its role (WithRole) does only what the role may: a worker or
// observer never creates or changes the stream, consumer or buckets (a
// worker started first waits for a submitter to set them up).
//
// docs/cluster-security.md has the same permissions as a role × action
// table that TestRoleTableMatchesThePermissions checks against the
// permissions serve init writes, and what a stolen key can and cannot do.
//
// # Authority: the recorder
//
// NATS permissions see a subject, not a body: a role that may write one
// key of a bucket may overwrite or purge any. So no client role writes
// results or failure counts, and no worker publishes a task. The recorder
// (worksteal serve runs it in-process, with an identity of its
// own) alone does, for workers of the worker role, which ask it on
// ws.rec.<name>.<op> naming the delivery they act for by its reply
// subject; it also settles their deliveries (they may not ack or nak).
//
// Who holds what: a worker's Serve says hello (ws.rec.<name>.hello, its
// Serve id) before it pulls, and its pull requests reply on
// ws.dlv.<name>.<id>.<n>; the recorder subscribes there too, so the server
// delivers each task to the worker and to the recorder in one step. A
// worker with a key of its own may receive only ws.dlv.<its name>.> and ask
// only on ws.rec.<its name>.*, so the recorder's holder table (by stream
// sequence: worker, Serve, delivery count, the delivered subject and
// headers) says which worker holds each delivery. A request must name the
// message's latest delivery, made to the asking worker and not settled
// through the recorder since: another worker's delivery (learnt from the
// held lists, or guessed), a lease lost to a redelivery, and a second
// record are refused. Then it
// checks that its job's record exists, is not cancelled and has the
// message's nonce (a new job purges its subjects and keys, and a message
// or result from before it is not its own), that the request's job, task,
// index, parent and handler are the message's, and that each child listed
// or handed over is a descendant of the task (<task>=<i>...); then it
// creates the result (once) and acks the task, counts the failure, or
// publishes the child with the unit's route and headers as delivered
// (refused for a job with NoSpawn). Results go in batches: while two
// requests are out, the results that finish meanwhile go together in the
// next, and a worker keeps up to four outcomes per slot on their way
// (recorderWindow) while its slots take new tasks. The recorder checks a
// batch's entries in order, sends their creates together and acks each
// task when its own create is answered. A watcher that finds a peer lost asks the recorder
// (ws.rec.<name>.lost), which pings the peer itself (no responders: its
// connection is gone) or finds it silent for (aliveMisses-1) heartbeats, and naks what its table
// says that Serve holds. Refusals are counted by reason
// and reported (serve logs each). The submitter, for its part, counts no
// parentless result outside its task list and no listed child that is not
// a descendant of its parent. So a forged message cannot record an outcome
// for a task the sender does not hold, replay a settled one, pre-seed a
// job, overwrite or purge a result, or make another worker run a command
// outside a held task of a job that allows hand-overs; the argument,
// message by message, is in docs/cluster-security.md.
//
// # Ownership: a job is its submitter's
//
// A person's node (WithOwner; its key a submitter's with a name) gives
// its jobs the id "<owner>.<id>", so the owner is the first token of
// every subject and key the job has, and the server lets the person's key
// use only its own (see the table above): that is where the authority
// sits for everything a subject names. What no subject bounds -- purging
// the task stream or a bucket (the filter is in the body), deleting a
// route consumer (its name is a digest) -- the owner service does, which
// Record runs beside the recorder on <stream>.own.<owner>.<op>: a subject
// only that owner may publish; it checks the job id's owner token against
// it and refuses (RefusedNotOwner) and reports anything else. An admin
// (RoleAdmin) sees and cancels every job; an observer sees every job's
// record and counts, no result.
//
// A person learns nothing of other people's jobs from JetStream either.
// A stream info request may carry a subjects_filter, answered with every
// matching subject and its count (every job's id and task ids), and NATS
// permissions cannot see a request's body; so a person's key may send no
// stream info at all, nor account info or a bucket consumer's info (its
// filter names a job). A person's node binds without them (personkv.go):
// it reads its keys by direct gets that name them (the server refuses a
// body asking for a sequence or another subject in that form), writes
// them by publishing on their subjects, and watches them with ordered
// consumers whose filter is in the create request's subject (the server
// checks the body's against it). Its job list is a watch of its own job
// records; its progress, the watch of its own results; what its queued
// tasks wait for, the owner service's answer (stalls). What it still
// reads of the tier: the worker registry, and the deployment consumer's
// info (the ack wait; its counts are of a filter no task matches).
// TestAPersonLearnsNoOtherPersonsJobs (cmd/worksteal/internal/attacktest)
// tries each with a real person's key.
//
// The recorder also sets the tier up, with its storage limits
// (serve --max-tasks, --max-task-mib, --max-result-mib): a full task stream refuses a submit
// (ErrStorageFull) and drops nothing waiting.
//
// Limits, by design: roles are not tenants. A person can make every
// worker run any command of its own jobs, and can create a push consumer
// on its own tasks whose deliver subject is one that workers hear (the
// server does not check a deliver subject against permissions): give
// person keys to people trusted to run commands on the workers. A worker
// reads no result, checkpoint or failure count directly: the recorder
// answers for the tasks it holds. A worker records, through the
// recorder, the outcome of any task it holds: like a node's kubelet, it is
// trusted with the tasks it pulls, and (with a key of its own) with no
// other worker's; the shared worker key may ask under any name. Failover
// speaks under the worker's own name too (held lists on
// <stream>.held.<name>.<id>, hellos on <stream>.hello.<name>, pings on
// <stream>.alive.<name>.<id>, which only that worker's key may publish,
// publish and hear): the recorder takes a Serve's silence and held list
// only from the Serve itself, so no key keeps a frozen peer's tasks from
// failing over. The holder table is in the recorder's memory: a delivery
// made before serve (re)started is not in it; the recorder binds it on
// the word of its holder (its own last held list names it exactly, and no
// other worker's list claims its message), so it runs once; a request
// naming another worker's such delivery is refused and hands nothing
// back; two claims of one message are a conflict, handed back and logged
// (a second run, one outcome). The
// checkpoints bucket (checkpoints, hand-over lists, failover's claims) is
// written by the recorder only, for a delivery the asking worker holds.
// Workers still send idle signals (any name with the shared worker key)
// directly, and write registry
// entries (any name with the shared worker key; only its own with a key
// of its own: serve credentials add). Tasks do not inherit the
// credential variables of their worker (worksteal worker drops them from
// the environment), but a task runs as its worker's user and can read
// what that user can, the worker's credentials file included: run workers
// as a user that holds nothing else.
//
// An observer writes nothing and reads no task's output. NATS permissions
// see a request's subject, not its body, and a consumer's config (durable
// or not, its deliver subject) is in the body; nor does the server check a
// push consumer's deliver subject against its creator's permissions. So a
// role allowed to create a read cursor could also create a durable
// consumer, or one that makes the server deliver a bucket's records onto
// ws.routes, which workers receive. The observer role is therefore allowed
// no CONSUMER.CREATE at all: it lists a bucket's keys from the stream's
// per-subject counts (stream info) and reads job records and live workers
// by direct gets. Results are the submitter's: following a job's results
// (job status, job results, Node.Open) takes a submitter's credentials;
// the dashboard does without them (see package clusterdash for what it shows).
//
// Cost (BenchmarkThroughputSecurity in cluster: 10,000 trivial tasks,
// two workers and the submitter in one process, the server in another, a
// shared 2-core machine; CPU per task, then the rate that CPU allows on two
// idle cores): without security the server spends 44-45 µs and the clients
// 50-52 (20.9-21.1 k tasks/s); nkeys with the role permissions, 48 and
// 52-53 (19.8-19.9 k/s, -5 %); TLS with nkeys and client certificates,
// 57-58 and 57-58 (17.4 k/s, -17 %). Almost all of it is TLS: the server
// writes each outbound buffer as its own TLS record and system call (no
// writev under TLS). Wall-clock rates on that loaded machine were 8.6-10.7
// k/s without security and 8.3-8.8 k/s with it.
package cluster
