package gnuinput_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/worksteal/worksteal/internal/gnuinput"
	"github.com/worksteal/worksteal/runner"
)

// seq 3 | worksteal run --pipe --tee -k 'wc {}' ::: -l -c: every job gets
// all of the input.
func ExampleTee() {
	jobs, _ := gnuinput.Input{Template: []string{"wc", "{}"}, Sources: []gnuinput.Source{{Args: []string{"-l", "-c"}}}}.Jobs()
	jobs = gnuinput.Tee(strings.NewReader("1\n2\n3\n"), jobs)
	runner.Run(context.Background(), runner.Config{Slots: len(jobs), KeepOrder: true, Stdout: os.Stdout}, jobs)
	// Output:
	// 3
	// 6
}

// worksteal run --pipepart -a FILE --tee -k 'wc {}' ::: -l -w: every job
// reads all of FILE.
func ExampleTeeFile() {
	dir, _ := os.MkdirTemp("", "tee")
	defer os.RemoveAll(dir)
	f := filepath.Join(dir, "f")
	os.WriteFile(f, []byte("a b\nc\n"), 0o644)
	jobs, _ := gnuinput.Input{Template: []string{"wc", "{}"}, Sources: []gnuinput.Source{{Args: []string{"-l", "-w"}}}}.Jobs()
	jobs, _ = gnuinput.TeeFile(f, jobs)
	runner.Run(context.Background(), runner.Config{Slots: len(jobs), KeepOrder: true, Stdout: os.Stdout}, jobs)
	// Output:
	// 2
	// 3
}

// worksteal run --pipe --bin 1 -j3 -k 'paste -sd" "': the first column's
// number names the job (modulo 3, 0 the last); --shard (Bin false) keeps
// the lines of one value together instead.
func ExamplePipeJobs_Spread() {
	pj := gnuinput.PipeJobs{Template: []string{`paste -sd" "`}}
	jobs := make(chan runner.Job)
	go pj.Spread(context.Background(), strings.NewReader("1\n2\n3\n4\n5\n6\n7\n"), 3, gnuinput.Spread{Column: gnuinput.Column{Col: 1, ColSep: ","}, Bin: true}, jobs)
	runner.RunStream(context.Background(), runner.Config{Slots: 3, KeepOrder: true, Stdout: os.Stdout}, jobs)
	// Output:
	// 1 4 7
	// 2 5
	// 3 6
}

// worksteal run --pipe --colsep , --group-by 1 -kN1 'paste -sd" "': a
// record is a run of lines of one value in column 1.
func ExamplePipeJobs_GroupBy() {
	pj := gnuinput.PipeJobs{Pipe: gnuinput.Pipe{Records: 1}, Template: []string{`paste -sd" "`}}
	pj, in, _ := pj.GroupBy(strings.NewReader("a,1\na,2\nb,3\na,4\n"), gnuinput.GroupBy{Column: gnuinput.Column{Col: 1, ColSep: ","}})
	jobs := make(chan runner.Job)
	go pj.Stream(context.Background(), in, jobs)
	runner.RunStream(context.Background(), runner.Config{Slots: 2, KeepOrder: true, Stdout: os.Stdout}, jobs)
	// Output:
	// a,1 a,2
	// b,3
	// a,4
}

// worksteal run --pipepart -a FILE --group-by 1 --block 4: each part
// ends where the first column's value changes, near a block's end (as GNU
// parallel's search finds it: b and c share a part here, as in GNU's).
func ExamplePipeJobs_GroupParts() {
	dir, _ := os.MkdirTemp("", "group")
	defer os.RemoveAll(dir)
	f := filepath.Join(dir, "f")
	os.WriteFile(f, []byte("a\t1\na\t2\na\t3\nb\t4\nc\t5\n"), 0o644)
	pj, _ := gnuinput.PipeJobs{Pipe: gnuinput.Pipe{Block: 4}, Template: []string{`paste -sd" "`}}.GroupParts(gnuinput.Column{Col: 1, ColSep: "\t"})
	jobs, _ := pj.Parts([]string{f}, 1)
	runner.Run(context.Background(), runner.Config{Slots: 1, KeepOrder: true, Stdout: os.Stdout}, jobs)
	// Output:
	// a	1 a	2 a	3
	// b	4 c	5
}

// GNU parallel's --shard NAME: the column a header line names (split at
// the separator, or into its characters without one).
func ExampleHeaderColumn() {
	col, _ := gnuinput.HeaderColumn("id,name,size\n", "name", ",")
	fmt.Println(col)
	// Output: 2
}
