package gnuinput

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/internal/runopts"
	"github.com/worksteal/worksteal/runner"
)

// chunks cuts in with p, as strings.
func chunks(t *testing.T, p Pipe, in string) []string {
	t.Helper()
	var out []string
	if err := p.Chunks(strings.NewReader(in), func(c []byte) error {
		out = append(out, string(c))
		return nil
	}); err != nil {
		t.Fatalf("Chunks: %v", err)
	}
	return out
}

// The chunks GNU parallel 20221122 gives its jobs for the same input and
// options (seq 10 | parallel --pipe --block 5 -k 'echo ---; cat', ...).
func TestPipeChunksAsGNU(t *testing.T) {
	seq10 := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	cases := []struct {
		name string
		p    Pipe
		in   string
		want []string
	}{
		{"--block 5", Pipe{Block: 5}, seq10, []string{"1\n2\n", "3\n4\n", "5\n6\n", "7\n8\n", "9\n10\n"}},
		{"-N3", Pipe{Records: 3}, seq10, []string{"1\n2\n3\n", "4\n5\n6\n", "7\n8\n9\n", "10\n"}},
		{"default block: one chunk", Pipe{}, seq10, []string{seq10}},
		{"empty input: no chunk", Pipe{}, "", nil},
		{"-N1 joins an empty first record to the next", Pipe{Records: 1}, "\n\na\nb\n", []string{"\n\n", "a\n", "b\n"}},
		{"last record without its end", Pipe{}, "a\nb", []string{"a\nb"}},
		{"--recstart a -N1", Pipe{RecStart: "a", Records: 1}, "a1\nb\na2\nc\na3\n", []string{"a1\nb\n", "a2\nc\n", "a3\n"}},
		{"--recend ; -N1", Pipe{RecEnd: ";", Records: 1}, "x;y;z;", []string{"x;", "y;", "z;"}},
		{"--recend \\n --recstart S -N1", Pipe{RecEnd: "\n", RecStart: "S", Records: 1}, "e1\nSe2\nS", []string{"e1\n", "Se2\n", "S"}},
		{"--header : -N2", Pipe{Header: `.*\n`, Records: 2}, "h1\nh2\n1\n2\n3\n4\n", []string{"h1\nh2\n1\n", "h1\n2\n3\n", "h1\n4\n"}},
		{"--header 2 lines -N1", Pipe{Header: `(.*\n)(.*\n)`, Records: 1}, "h1\nh2\n1\n2\n", []string{"h1\nh2\n1\n", "h1\nh2\n2\n"}},
		{"a record longer than the block grows it", Pipe{Block: 2}, "abcdef\ng\n", []string{"abcdef\n", "g\n"}},
		{"binary: blocks of exactly Block", Pipe{Block: 4, Binary: true}, "abcdefghij", []string{"abcd", "efgh", "ij"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := chunks(t, c.p, c.in); !slices.Equal(got, c.want) {
				t.Errorf("chunks %q, want %q", got, c.want)
			}
		})
	}
}

// Whatever the block, the separators and how the input arrives, the
// chunks are the input, in order, cut only after a record end (but the
// last), each within a record of the block unless a record is longer.
func TestPipeChunksCoverTheInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		var in strings.Builder
		for range rng.IntN(200) {
			in.WriteString(strings.Repeat("x", 1+rng.IntN(12))) // GNU joins an empty first record to the next
			in.WriteByte("\n;"[rng.IntN(2)])
		}
		p := Pipe{Block: int64(1 + rng.IntN(40))}
		if i%3 == 1 {
			p.RecEnd = ";"
		}
		if i%3 == 2 {
			p.Records = 1 + rng.IntN(5)
		}
		_, recend := p.seps()
		var got []string
		r := iotest.HalfReader(strings.NewReader(in.String())) // short reads, as from a pipe
		if err := p.Chunks(r, func(c []byte) error { got = append(got, string(c)); return nil }); err != nil {
			t.Fatal(err)
		}
		if s := strings.Join(got, ""); s != in.String() {
			t.Fatalf("%+v: chunks join to %q, want %q", p, s, in.String())
		}
		for k, c := range got {
			if c == "" {
				t.Fatalf("%+v: chunk %d is empty", p, k)
			}
			if k < len(got)-1 && !strings.HasSuffix(c, recend) {
				t.Fatalf("%+v: chunk %d %q does not end a record", p, k, c)
			}
			if p.Records > 0 && k < len(got)-1 && strings.Count(c, recend) != p.Records {
				t.Fatalf("%+v: chunk %d %q holds %d records", p, k, c, strings.Count(c, recend))
			}
		}
	}
}

// --pipepart cuts as GNU parallel does (parallel --pipepart -a f --block 5,
// and --block -2 -j2).
func TestPipePartsAsGNU(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	os.WriteFile(f, []byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"), 0o644)
	read := func(parts []jobio.Part) []string {
		var out []string
		for _, p := range parts {
			var b bytes.Buffer
			b.ReadFrom(p.Reader())
			out = append(out, b.String())
		}
		return out
	}
	cases := []struct {
		p     Pipe
		slots int
		want  []string
	}{
		{Pipe{Block: 5}, 1, []string{"1\n2\n3\n", "4\n5\n6\n", "7\n8\n9\n", "10\n"}},
		{Pipe{Block: -2}, 2, []string{"1\n2\n3\n4\n", "5\n6\n7\n8\n", "9\n10\n"}},
		{Pipe{Block: 5, Header: `.*\n`}, 1, []string{"1\n2\n3\n4\n", "1\n5\n6\n7\n", "1\n8\n9\n10\n"}},
	}
	for _, c := range cases {
		parts, err := c.p.Parts(f, c.slots)
		if err != nil {
			t.Fatal(err)
		}
		if got := read(parts); !slices.Equal(got, c.want) {
			t.Errorf("%+v on %d slots: parts %q, want %q", c.p, c.slots, got, c.want)
		}
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	if parts, err := (Pipe{}).Parts(empty, 2); err != nil || len(parts) != 0 {
		t.Errorf("empty file: %v parts, %v; want none", parts, err)
	}
	if _, err := (Pipe{}).Parts(dir, 2); err == nil {
		t.Error("a directory was cut into parts")
	}
}

// Through Run: each job reads its chunk on stdin (or as $PARALLEL_TMP
// with Cat and Fifo), the joblog's Send is its size, and no temporary file
// is left.
func TestPipeJobsRun(t *testing.T) {
	for _, mode := range []string{"stdin", "cat", "fifo"} {
		t.Run(mode, func(t *testing.T) {
			tmp := t.TempDir()
			pj := PipeJobs{Pipe: Pipe{Records: 2}, Template: []string{"echo {#}:; cat"}, TempDir: tmp}
			switch mode {
			case "cat":
				pj.Template = []string{"echo {#}:; cat {}; test -f {}"}
				pj.Cat = true
			case "fifo":
				pj.Template = []string{"echo {#}:; cat < {}; test -p {}"}
				pj.Fifo = true
			}
			jobs := make(chan runner.Job)
			go pj.Stream(context.Background(), strings.NewReader("a\nb\nc\nd\ne\n"), jobs)
			var out bytes.Buffer
			sum, err := runner.RunStream(context.Background(), runner.Config{Slots: 2, KeepOrder: true, Stdout: &out}, jobs)
			if err != nil {
				t.Fatal(err)
			}
			if want := "1:\na\nb\n2:\nc\nd\n3:\ne\n"; out.String() != want || sum.Jobs != 3 || sum.Failed != 0 {
				t.Errorf("output %q (%d jobs, %d failed), want %q", out.String(), sum.Jobs, sum.Failed, want)
			}
			for i, want := range []int64{4, 4, 2} {
				if got := runopts.Record(sum.Results[i], ":").Send; got != want {
					t.Errorf("job %d: Send %d, want %d", i+1, got, want)
				}
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("left in the temporary directory: %v", left)
			}
		})
	}
}

// A job that never opens its fifo does not hang the run (GNU's would).
func TestPipeFifoNotOpened(t *testing.T) {
	pj := PipeJobs{Template: []string{"true"}, Fifo: true, TempDir: t.TempDir()}
	jobs := make(chan runner.Job)
	go pj.Stream(context.Background(), strings.NewReader(strings.Repeat("x\n", 100000)), jobs)
	sum, err := runner.RunStream(context.Background(), runner.Config{Slots: 1}, jobs)
	if err != nil || sum.Succeeded != 1 {
		t.Fatalf("%v, %+v", err, sum)
	}
}

// Round robin: n jobs share every chunk, each whole; fewer chunks than
// slots start fewer jobs (GNU's).
func TestPipeRoundRobin(t *testing.T) {
	var in strings.Builder
	for i := range 1000 {
		in.WriteString(strings.Repeat("y", 1+i%7) + "\n")
	}
	pj := PipeJobs{Pipe: Pipe{Records: 10}, Template: []string{"wc -l"}}
	run := func(input string, n int) (*runner.Summary, string) {
		jobs := make(chan runner.Job)
		go pj.RoundRobin(context.Background(), strings.NewReader(input), n, jobs)
		var out bytes.Buffer
		sum, err := runner.RunStream(context.Background(), runner.Config{Slots: n, Stdout: &out}, jobs)
		if err != nil {
			t.Fatal(err)
		}
		return sum, out.String()
	}
	sum, out := run(in.String(), 3)
	if sum.Succeeded != 3 {
		t.Fatalf("%+v", sum)
	}
	total, sent := 0, int64(0)
	for _, f := range strings.Fields(out) {
		n := 0
		for _, c := range f {
			n = 10*n + int(c-'0')
		}
		if n%10 != 0 {
			t.Errorf("a job got %d lines: not whole chunks of 10", n)
		}
		total += n
	}
	for _, r := range sum.Results {
		sent += runopts.Record(r, ":").Send // the bytes the job was given
	}
	if total != 1000 || sent != int64(in.Len()) {
		t.Errorf("jobs got %d lines, %d bytes; want 1000, %d", total, sent, in.Len())
	}
	if sum, out := run("a\nb\n", 4); sum.Jobs != 1 || strings.TrimSpace(out) != "2" {
		t.Errorf("one chunk on 4 slots: %d jobs, output %q; want 1 job, 2", sum.Jobs, out)
	}
	if sum, _ := run("", 4); sum.Jobs != 0 {
		t.Errorf("empty input: %d jobs", sum.Jobs)
	}
}

// RunStream's results keep no output once it is written: a stream's
// output may be larger than memory.
func TestRunStreamKeepsNoOutput(t *testing.T) {
	pj := PipeJobs{Pipe: Pipe{Block: 1000}, Template: []string{"cat"}}
	input := strings.Repeat("0123456789\n", 10000)
	jobs := make(chan runner.Job)
	go pj.Stream(context.Background(), strings.NewReader(input), jobs)
	var out bytes.Buffer
	sum, err := runner.RunStream(context.Background(), runner.Config{Slots: 2, KeepOrder: true, Stdout: &out}, jobs)
	if err != nil || out.String() != input {
		t.Fatalf("%v; output of %d bytes, want the input's %d", err, out.Len(), len(input))
	}
	for _, r := range sum.Results {
		if r.Stdout != nil || r.Stdin != nil {
			t.Fatalf("job %d keeps %d bytes of output, %d of input", r.Seq, len(r.Stdout), len(r.Stdin))
		}
	}
}
