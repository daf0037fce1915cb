package main

// The differential cases of the pipe-mode options that spread or time
// their input (issue 29, 29.9): --tee, --shard, --bin, --group-by,
// --block-timeout and --csv, in the shape of GNU parallel's man page;
// TestGNUParallel runs them with the rest.

import "fmt"

func init() { gnuCases = append(gnuCases, gnuSpreadCases...) }

// slowProducer writes 1 2 3 (-N2: the block-timeout case) or 1 2, then
// waits until a job has touched d1 (bounded: 60 s), then writes the rest:
// without --block-timeout no job runs before the input ends, and the data
// says so.
const slowProducer = `(printf '%s'; w=0; while [ ! -e d1 ] && [ $w -lt 1200 ]; do sleep 0.05; w=$((w+1)); done; [ -e d1 ] || echo no job ran first; printf '%s') | $P `

var gnuSpreadCases = []gnuCase{
	// --block-timeout (man parallel: "--block-timeout duration"): a
	// block that takes too long to read is cut from what was read. The
	// first job can only start once the time is up (the producer waits
	// for it), so the chunks do not depend on timing.
	{name: "29.9 --block-timeout cuts a slow block", sh: fmt2(slowProducer, `1\n2\n`, `3\n4\n`) + `--pipe --block-timeout 1 -k 'echo ---; cat; touch d1'`},
	{name: "29.9 --bt keeps a half record for the next chunk", sh: fmt2(slowProducer, `1\n2`, `3\n4\n`) + `--pipe --bt 1 -k 'echo ---; cat; echo; touch d1'`},
	{name: "29.9 --blocktimeout with -N", sh: fmt2(slowProducer, `1\n2\n3\n`, `4\n5\n`) + `--pipe -N2 --blocktimeout 1s -k 'echo ---; cat; touch d1'`},
	{name: "29.9 --bt 1m with a fast producer", args: []string{"--pipe", "--bt", "1m", "-k", "wc", "-l"}, stdin: seq10},
	{name: "29.9 --bt under 1 second is refused", args: []string{"--pipe", "--bt", "0.5", "cat"}, stdin: "1\n", onlyStatus: true, refused: true},
	{name: "29.9 --bt foo is refused", args: []string{"--pipe", "--bt", "foo", "cat"}, stdin: "1\n", onlyStatus: true, refused: true},
	{name: "29.9 --bt without --pipe is ignored", args: []string{"--bt", "1", "-k", "echo", ":::", "a"}},

	// --tee (man parallel: "--tee"): all of the input to every job.
	{name: "29.9 --pipe --tee", args: []string{"--pipe", "--tee", "-k", "echo {}; wc {}", ":::", "-l", "-c"}, stdin: seq10},
	{name: "29.9 --tee --tag over two sources", args: []string{"--pipe", "--tee", "--tag", "-k", "grep {1} | wc {2}", ":::", "1", "2", ":::", "-l", "-c"}, stdin: seqLines(20)},
	{name: "29.9 --tee {#} {%} and the joblog", args: []string{"--pipe", "--tee", "-k", "--joblog", "-", "echo {#} {%}; wc -l", ":::", "a", "b"}, stdin: seq10, joblog: "-"},
	{name: "29.9 --tee a job that stops reading", args: []string{"--pipe", "--tee", "-k", "{}", ":::", "head -1", "wc -l"}, stdin: seqLines(100000)},
	{name: "29.9 --tee exit status counts the failed", args: []string{"--pipe", "--tee", "cat >/dev/null; exit {}", ":::", "1", "2", "0"}, stdin: seq10},
	{name: "29.9 --tee without ::: runs nothing", args: []string{"--pipe", "--tee", "wc"}, stdin: seq10},
	{name: "29.9 --tee with -a values", args: []string{"--pipe", "--tee", "-a", "af", "-k", "echo {}; wc -l"}, stdin: "1\n2\n3\n", files: map[string]string{"af": "x\ny\n"}},
	{name: "29.9 --pipepart --tee", args: []string{"--pipepart", "-a", "f", "--tee", "-k", "--joblog", "-", "wc {}", ":::", "-l", "-c"}, files: map[string]string{"f": seq10}, joblog: "-"},
	{name: "29.9 --tee alone is ignored", args: []string{"--tee", "-k", "echo", ":::", "a", "b"}},
}

// fmt2 fills the two %s of a producer.
func fmt2(f, a, b string) string { return fmt.Sprintf(f, a, b) }
