// Package runner runs a batch of shell commands on the slots of one machine,
// as GNU parallel and xargs -P do, and reports how well the batch was
// balanced.
//
// A batch is read with Input (one command per line, or a template with
// GNU parallel's replacement strings filled from its input sources: lines,
// files, ":::" arguments, combined or linked) and run with Run. Input and
// the joblog follow GNU parallel 20221122's rules (template.go lists
// them); a differential test (cmd/worksteal/internal/gnutest) runs both programs:
//
//	jobs, err := runner.Input{Template: []string{"gzip", "-9", "{}"}, Lines: os.Stdin}.Jobs()
//	sum, err := runner.Run(ctx, runner.Config{Slots: 8, Stdout: os.Stdout}, jobs)
//	fmt.Print(sum)
//
// Input also takes GNU parallel's other input forms: delimiters (-0,
// -d), several records per job (-n, -N, -X, -m, --xargs, with GNU's
// spreading of the last ones over the slots), --trim, --header column
// names, --plus replacement strings, --shuf, and the templates of --tag
// and --results names. Run stops a batch early under a Halt (GNU's
// --halt, ParseHalt; HaltTracker for results that come from elsewhere),
// writes output whole, a line at a time or as it comes (OutputMode),
// tags its lines, or hands each result to a Results hook.
//
// Balancing: jobs start as slots free up (dynamic), longest first when their
// costs are known (a weight column, or run times remembered by an earlier
// joblog: LPT, Graham's longest processing time rule), which shortens the
// makespan of skewed batches. Stragglers are cut by a timeout, absolute or
// relative to the median of the jobs that succeeded (GNU parallel's rule),
// retried at once or with backoff (balance.Backoff), and, near the end of
// the batch, copied: the first copy to succeed wins and the other is killed
// (balance.Hedge's threshold).
//
// Bookkeeping: every finished job is appended to a joblog with GNU parallel's
// columns as its output is written, so Resume can run what an interrupted
// or failed batch left (matching jobs by number, as GNU parallel does), and
// never twice what succeeded. Every read is bounded (MaxLineBytes a line),
// whatever the file. Each job runs in a process group of its own, and
// stopping a job stops the whole group.
//
// The Summary gives the makespan and the balance package's metrics of the
// run: utilization, load imbalance (per slot busy time) and straggler ratio
// (per job run time), and how much longest-first ordering saved.
package runner
