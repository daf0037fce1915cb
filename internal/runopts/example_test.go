package runopts_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/worksteal/worksteal/internal/runopts"
	"github.com/worksteal/worksteal/runner"
)

// LatestLine paints each job's latest line on a row of its own of a
// terminal (here one 30 columns wide, whose cursor-up is ESC [ A): "\r",
// the line and " " (">" when cut to the width), then newlines below the
// last row. A job is painted when it starts, at each read of its output,
// and three times as it ends, as GNU parallel: its last paint, its colour
// for --color-failed, the rows of the finished jobs at the top.
func ExampleScreen() {
	jobs := []runner.Job{{Seq: 1, Command: `printf 'one\ntwo\n'`}, {Seq: 2, Command: `printf '%040d\n' 7`}}
	var out bytes.Buffer
	cfg := runner.Config{Slots: 1, KeepOrder: true, Stdout: &out}
	o := runopts.Of(&cfg)
	o.LatestLine, o.Screen = true, runopts.Screen{Up: "\x1b[A", Rows: 24, Cols: 30}
	if _, err := runner.Run(context.Background(), cfg, jobs); err != nil {
		panic(err)
	}
	for _, paint := range strings.SplitAfter(out.String(), "\n") {
		if paint != "" {
			fmt.Printf("%q\n", paint)
		}
	}
	// Output:
	// "\r \n"
	// "\x1b[A\rtwo \n"
	// "\x1b[A\rtwo \n"
	// "\x1b[A\rtwo \n"
	// "\x1b[A\rtwo \n"
	// "\r \n"
	// "\x1b[A\r00000000000000000000000000000>\n"
	// "\x1b[A\r00000000000000000000000000000>\n"
	// "\x1b[A\r00000000000000000000000000000>\n"
	// "\x1b[A\r00000000000000000000000000000>\n"
}

// A HaltTracker applies GNU parallel's --halt to results that come from
// elsewhere: here, stop at the second failure.
func ExampleNewHaltTracker() {
	t := runopts.NewHaltTracker(runner.Halt{When: runner.HaltSoon, Why: runner.HaltOnFail, Count: 2}, 4)
	for seq, code := range []int{0, 3, 0, 5} {
		if t.Observe(runner.Result{Job: runner.Job{Seq: seq + 1}, Exit: runner.Exit{Code: code}}) {
			fmt.Printf("halt after job %d, exit status %d\n", seq+1, t.ExitStatus(seq+1))
			break
		}
	}
	// Output: halt after job 4, exit status 2
}
