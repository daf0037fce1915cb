// Package gnuinput turns GNU parallel's inputs into runner jobs: the
// arguments of :::, ::::, -a and stdin with their replacement strings,
// columns, CSV, -X/-m/-N packing and --plus (Input); the chunks of --pipe,
// --pipepart, --round-robin, --tee, --shard and --bin (Pipe, PipeJobs);
// and the values of GNU's options (ParseSize, ParseHalt, ParseOrder). It
// is the input side of `worksteal run`; a Go program gives runner.Run its
// own jobs.
//
// A job made here carries what runner.Run needs beyond its command line
// (the command cut at {%}, --tag, --results, --template, its input) as a
// jobio.State, set through jobio.With.
package gnuinput

import (
	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/runner"
)

// with returns j carrying st (see jobio.With).
func with(j runner.Job, st jobio.State) runner.Job { return jobio.With(j, st).(runner.Job) }
