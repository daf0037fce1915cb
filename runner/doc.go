// Package runner runs a batch of shell commands on the slots of one machine,
// as GNU parallel and xargs -P do, and reports how well the batch was
// balanced.
//
// A batch is a slice of Jobs, each a shell command line, run with Run (or
// a channel of them, with RunStream):
//
//	jobs := []runner.Job{{Seq: 1, Command: "gzip -9 a.log"}, {Seq: 2, Command: "gzip -9 b.log"}}
//	sum, err := runner.Run(ctx, runner.Config{Slots: 8, Stdout: os.Stdout}, jobs)
//	fmt.Print(sum)
//
// Run follows GNU parallel 20221122's rules; `worksteal run` reads GNU
// parallel's inputs (replacement strings, ::: sources, --pipe and the
// rest) into Jobs and gives Run GNU's printing, logging and throttling
// options (--tag, --joblog, --load ...: internal/runopts), and a
// differential test (cmd/worksteal/internal/gnutest) runs both programs.
// Run stops a batch early under a Halt (GNU's --halt), writes output whole,
// a line at a time or as it comes (OutputMode), or hands each result to a
// Results hook.
//
// Balancing: jobs start as slots free up (dynamic), longest first when their
// costs are known (Job.Weight, or run times remembered in Config.History:
// LPT, Graham's longest processing time rule), which shortens the
// makespan of skewed batches. Stragglers are cut by a timeout, absolute or
// relative to the median of the jobs that succeeded (GNU parallel's rule),
// retried at once or with backoff (balance.Backoff), and, near the end of
// the batch, copied: the first copy to succeed wins and the other is killed
// (balance.Hedge's threshold).
//
// Bookkeeping: each finished job's Result is in the Summary (and handed to
// Config.Results as it finishes); an interrupted job is neither, so a rerun
// of what an interrupted or failed batch left runs it, and never twice what
// succeeded (worksteal run keeps GNU parallel's joblog for --resume). Each
// job runs in a process group of its own, and stopping a job stops the
// whole group.
//
// The Summary gives the makespan and the balance package's metrics of the
// run: utilization, load imbalance (per slot busy time) and straggler ratio
// (per job run time), and how much longest-first ordering saved.
package runner
