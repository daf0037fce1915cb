package runner_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/worksteal/worksteal/runner"
)

// OutputLatestLine paints each job's latest line on a row of its own of a
// terminal (here one 30 columns wide, whose cursor-up is ESC [ A): "\r",
// the line and " " (">" when cut to the width), then newlines below the
// last row. A job is painted when it starts, at each read of its output,
// and three times as it ends, as GNU parallel: its last paint, its colour
// for --color-failed, the rows of the finished jobs at the top.
func ExampleScreen() {
	jobs := []runner.Job{{Seq: 1, Command: `printf 'one\ntwo\n'`}, {Seq: 2, Command: `printf '%040d\n' 7`}}
	var out bytes.Buffer
	cfg := runner.Config{Slots: 1, KeepOrder: true, Output: runner.OutputLatestLine,
		Screen: runner.Screen{Up: "\x1b[A", Rows: 24, Cols: 30}, Stdout: &out}
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
