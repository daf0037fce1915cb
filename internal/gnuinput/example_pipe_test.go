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

// GNU parallel's --pipe -N2 --header :: the header goes before the
// records of every chunk.
func ExamplePipe_Chunks() {
	p := gnuinput.Pipe{Records: 2, Header: `.*\n`}
	p.Chunks(strings.NewReader("name\na\nb\nc\n"), func(chunk []byte) error {
		fmt.Printf("%q\n", chunk)
		return nil
	})
	// Output:
	// "name\na\nb\n"
	// "name\nc\n"
}

// --pipepart cuts a file in place: a chunk ends at the first record end
// after each multiple of the block.
func ExamplePipe_Parts() {
	dir, _ := os.MkdirTemp("", "parts")
	defer os.RemoveAll(dir)
	f := filepath.Join(dir, "f")
	os.WriteFile(f, []byte("1\n2\n3\n4\n5\n6\n7\n"), 0o644)
	parts, _ := gnuinput.Pipe{Block: 5}.Parts(f, 1)
	for _, p := range parts {
		fmt.Println(p.Off, p.Len)
	}
	// Output:
	// 0 6
	// 6 6
	// 12 2
}

// seq 10 | worksteal run --pipe -N3 -k wc -l: a job per chunk, started
// as the input is read.
func ExamplePipeJobs_Stream() {
	pj := gnuinput.PipeJobs{Pipe: gnuinput.Pipe{Records: 3}, Template: []string{"wc", "-l"}}
	jobs := make(chan runner.Job)
	go pj.Stream(context.Background(), strings.NewReader("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"), jobs)
	sum, _ := runner.RunStream(context.Background(), runner.Config{Slots: 2, KeepOrder: true, Stdout: os.Stdout}, jobs)
	fmt.Println(sum.Jobs, "jobs")
	// Output:
	// 3
	// 3
	// 3
	// 1
	// 4 jobs
}

// --pipepart -a FILE: the jobs read their parts of the file themselves.
func ExamplePipeJobs_Parts() {
	dir, _ := os.MkdirTemp("", "parts")
	defer os.RemoveAll(dir)
	f := filepath.Join(dir, "f")
	os.WriteFile(f, []byte("a\nb\nc\nd\n"), 0o644)
	pj := gnuinput.PipeJobs{Pipe: gnuinput.Pipe{Block: 3}, Template: []string{"echo {#}: $(cat)"}}
	jobs, _ := pj.Parts([]string{f}, 1)
	runner.Run(context.Background(), runner.Config{Slots: 1, Stdout: os.Stdout}, jobs)
	// Output:
	// 1: a b
	// 2: c d
}

// --round-robin: two jobs share the chunks; together they see every line.
func ExamplePipeJobs_RoundRobin() {
	pj := gnuinput.PipeJobs{Pipe: gnuinput.Pipe{Records: 1}, Template: []string{"wc", "-l"}}
	jobs := make(chan runner.Job)
	go pj.RoundRobin(context.Background(), strings.NewReader(strings.Repeat("x\n", 100)), 2, jobs)
	var out strings.Builder
	sum, _ := runner.RunStream(context.Background(), runner.Config{Slots: 2, Stdout: &out}, jobs)
	lines := 0
	for _, f := range strings.Fields(out.String()) {
		var n int
		fmt.Sscan(f, &n)
		lines += n
	}
	fmt.Println(sum.Jobs, "jobs,", lines, "lines")
	// Output: 2 jobs, 100 lines
}

func ExampleParseSize() {
	for _, s := range []string{"1M", "10k", "1.5K"} {
		v, _ := gnuinput.ParseSize("--block", s)
		fmt.Println(v)
	}
	// Output:
	// 1.048576e+06
	// 10000
	// 1536
}

// GNU parallel's --pipe --regexp --recstart '>[0-9]+' -N1
// --remove-rec-sep: records start where the regular expression matches,
// and the separators are cut out of each chunk.
func ExamplePipe_Chunks_regexp() {
	p := gnuinput.Pipe{RecStart: `>[0-9]+`, Records: 1, Regexp: true, RemoveRecSep: true}
	p.Chunks(strings.NewReader(">1 a\nb\n>22 c\n"), func(chunk []byte) error {
		fmt.Printf("%q\n", chunk)
		return nil
	})
	// Output:
	// " a\nb\n"
	// " c\n"
}
