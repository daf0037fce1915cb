package gnutest

// The differential cases of the pipe-mode options that spread or time
// their input (issue 29, 29.9): --tee, --shard, --bin, --group-by,
// --block-timeout and --csv, in the shape of GNU parallel's man page;
// TestGNUParallel runs them with the rest.

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
)

func init() { gnuCases = append(gnuCases, gnuSpreadCases...) }

// slowProducer writes 1 2 3 (-N2: the block-timeout case) or 1 2, then
// waits until a job has touched d1 (bounded: 120 s), then writes the rest:
// without --block-timeout no job runs before the input ends, and the data
// says so.
const slowProducer = `(printf '%s'; w=0; while [ ! -e d1 ] && [ $w -lt 2400 ]; do sleep 0.05; w=$((w+1)); done; [ -e d1 ] || echo no job ran first; printf '%s') | $P `

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
	{name: "29.9 --pipepart --tee :::: FILE is the data", args: []string{"--pipepart", "--tee", "-k", "wc {}", "::::", "f", ":::", "-l", "-c"}, files: map[string]string{"f": seq10}},
	{name: "29.9 --tee alone is ignored", args: []string{"--tee", "-k", "echo", ":::", "a", "b"}},

	// --shard (man parallel: "--shard shardexpr"): -j jobs, lines of one
	// value to one job. Which job is not defined (GNU seeds its hash
	// afresh each run): each job prints its lines on one line, and the
	// comparison is of the lines and of which values were split.
	{name: "29.9 --shard by column number", args: []string{"--pipe", "--shard", "1", "-j3", `echo "[$(sort | paste -sd' ')]"`}, stdin: shardInput, norm: shardNorm(",")},
	{name: "29.9 --shard {#} {%} {} and the exit status", args: []string{"--pipe", "--shard", "2", "-j2", "-k", "cat >/dev/null; echo {#} {%} {}; exit {#}"}, stdin: shardInput},
	{name: "29.9 --shard an empty input starts every job", args: []string{"--pipe", "--shard", "1", "-j2", "echo x; cat"}},
	{name: "29.9 --shard by column name drops the header", args: []string{"--pipe", "--colsep", ",", "--shard", "Key", "-j2", `echo "[$(sort | paste -sd' ')]"`}, stdin: "Key,V\n" + shardInput, norm: shardNorm(",")},
	{name: "29.9 --shard column name of one letter without --colsep", args: []string{"--pipe", "--shard", "K", "-j2", `echo "[$(sort | paste -sd' ')]"`}, stdin: "K,V\n" + shardInput, norm: shardNorm(",")},
	{name: "29.9 --shard an unknown column name", args: []string{"--pipe", "--colsep", ",", "--shard", "Nope", "-j2", "cat"}, stdin: "Key,V\na,1\n", onlyStatus: true, refused: true},
	{name: "29.9 --shard with --header splits at tabs", args: []string{"--pipe", "--header", ":", "--shard", "1", "-j2", `echo "[$(sort | paste -sd' ')]"`}, stdin: "K\tV\na\t1\nb\t2\na\t3\na\t4\na\t5\nb\t6\na\t7\n", norm: shardNorm("\t")},
	{name: "29.9 --shard with a Perl expression is refused", args: []string{"--pipe", "--shard", "1 $_%=100", "-j2", "cat"}, stdin: "1\n", onlyStatus: true, wsRefuses: true},

	// --bin (man parallel: "--bin binexpr"): the value is the job.
	{name: "29.9 --bin by number", args: []string{"--pipe", "--bin", "1", "-j3", "-k", `echo {%} {#}; paste -sd' '`}, stdin: "1\n2\n3\n4\n5\n6\n7\n"},
	{name: "29.9 --bin --colsep ' ' second column", args: []string{"--pipe", "--colsep", " ", "--bin", "2", "-j2", "-k", `echo {%}; paste -sd,`}, stdin: "x 1\ny 2\nz 3\nw 5\n"},
	{name: "29.9 --bin Perl numbers: 0, negative, fractions, words", args: []string{"--pipe", "--bin", "1", "-j3", "-k", `echo {%}; paste -sd' '`}, stdin: "0\n-1\n2.7\n-2.5\nx\n 4\n5abc\n1e1\n"},
	{name: "29.9 --bin with a Perl expression is refused", args: []string{"--pipe", "--colsep", ",", "--bin", `Address s/\D//g`, "-j2", "cat"}, stdin: "Address,x\nA1,a\n", onlyStatus: true, wsRefuses: true},
	{name: "29.9 --shard and --bin without --pipe are ignored", sh: `$P --shard 1 -k echo ::: a b; $P --bin 1 -k echo ::: c`},
	{name: "29.9 --bin joblog: Send 0", args: []string{"--pipe", "--bin", "1", "-j2", "-k", "--joblog", "-", "cat >/dev/null"}, stdin: "1\n2\n3\n4\n", joblog: "-"},
	{name: "29.9 --bin by column name", args: []string{"--pipe", "--colsep", ",", "--bin", "N", "-j2", "-k", "echo ---; cat"}, stdin: "N,V\n1,a\n2,b\n3,c\n"},

	// --group-by (man parallel: "--group-by val", its table.csv
	// examples): a record is a run of lines of one value.
	{name: "29.9 --group-by column -N1", sh: `tail -n +2 table.csv | $P --pipe --colsep , --group-by 1 -kN1 'echo ---; cat'`, files: map[string]string{"table.csv": tableCSV}},
	{name: "29.9 --group-by column name", sh: `$P --pipe --colsep , --header : --group-by UserID -kN1 'echo ---; cat' < table.csv`, files: map[string]string{"table.csv": tableCSV}},
	{name: "29.9 --group-by column name without --header", sh: `$P --pipe --colsep , --group-by UserID -kN1 wc < table.csv`, files: map[string]string{"table.csv": tableCSV}},
	{name: "29.9 --group-by with --header : gives the header to each", sh: `$P --pipe --colsep , --header : --group-by 1 -kN1 'echo ---; cat' < table.csv`, files: map[string]string{"table.csv": tableCSV}, norm: dropGroupSep},
	{name: "29.9 --group-by joblog: Send without the separators", args: []string{"--pipe", "--colsep", ",", "--group-by", "1", "-kN2", "--joblog", "-", "cat >/dev/null"}, stdin: tableCSV[19:], joblog: "-"},
	{name: "29.9 --group-by -N2", sh: `tail -n +2 table.csv | $P --pipe --colsep , --group-by 1 -kN2 'echo ---; cat'`, files: map[string]string{"table.csv": tableCSV}},
	{name: "29.9 --groupby --block cuts between groups", args: []string{"--pipe", "--groupby", "1", "--block", "50", "-k", "echo ---; wc -l"}, stdin: groupLines},
	{name: "29.9 --group-by --block grows past a long group", args: []string{"--pipe", "--colsep", ",", "--group-by", "1", "--block", "10", "-k", "echo ---; cat"}, stdin: tableCSV[19:]},
	{name: "29.9 --group-by splits at tabs by default", args: []string{"--pipe", "--group-by", "1", "-kN1", "echo ---; cat"}, stdin: "a\tx\na\ty\nb\tz\n"},
	{name: "29.9 --group-by last column, last line without newline", args: []string{"--pipe", "--colsep", ",", "--group-by", "2", "-kN1", "echo ---; cat; echo"}, stdin: "x,a\ny,a\nz,b\nw,b"},
	{name: "29.9 --group-by --round-robin", args: []string{"--pipe", "--colsep", ",", "--group-by", "1", "--round-robin", "-N1", "-j2", "cat"}, stdin: tableCSV[19:]},
	{name: "29.9 --pipepart --group-by --block", args: []string{"--pipepart", "-a", "f", "--group-by", "1", "--block", "50", "-k", "echo ---; wc -l"}, files: map[string]string{"f": groupLines}},
	{name: "29.9 --pipepart --group-by --block 300", args: []string{"--pipepart", "-a", "f", "--group-by", "1", "--block", "300", "-k", "echo ---; wc -l"}, files: map[string]string{"f": groupLines}},
	{name: "29.9 --pipepart --group-by groups of growing size", args: []string{"--pipepart", "-a", "f", "--group-by", "1", "--block", "10", "-k", "echo ---; wc -l"}, files: map[string]string{"f": sqrtGroups}},
	{name: "29.9 --pipepart --group-by --block -1", args: []string{"--pipepart", "-a", "f", "--colsep", ",", "--group-by", "1", "--block", "-1", "-j2", "-k", "echo ---; cat"}, files: map[string]string{"f": tableCSV[19:]}},
	{name: "29.9 --pipepart --group-by --header :", args: []string{"--pipepart", "-a", "f", "--header", ":", "--colsep", ",", "--group-by", "1", "--block", "10", "-k", "echo ---; cat"}, files: map[string]string{"f": tableCSV}},
	// --csv (man parallel: "--csv"; GNU needs Perl's Text::CSV, the
	// cases skip without it): each record read as CSV.
	{name: "29.9 --csv quoted fields, \"\" and the separator", args: []string{"--csv", "echo", "{1}", "of", "{2}", "at", "{3}"}, stdin: `"1 big, 2 small","2""x4"" plank",12.34` + "\n"},
	{name: "29.9 --csv --colsep ';' a quoted newline", args: []string{"--csv", "--colsep", ";", "echo", "Field 1: {1} Field 2: {2}"}, stdin: "\"Start of field 1 with newline\nLine 2 in field 1\";value 2\n"},
	{name: "29.9 --csv --header : names the fields", args: []string{"--csv", "--header", ":", "-k", "echo", "{b}-{a}"}, stdin: "a,b\n1,\"x,y\"\n2,z\n"},
	{name: "29.9 --csv empty fields, a missing one, an empty line", args: []string{"--csv", "-k", `echo "[{1}][{2}][{3}]"`}, stdin: ",,\n\"\",a\n\nc\n"},
	{name: "29.9 --csv trims only with --colsep", args: []string{"--csv", "--colsep", ",", "-k", `echo "[{1}][{2}]"`, ":::", " a , b ", `" a ", b`, "c,d"}},
	{name: "29.9 --csv without --colsep keeps spaces, {} --tag -N2", args: []string{"--csv", "-N2", "--tag", "-k", `echo "[{1}][{2}][{3}][{}]"`}, stdin: " a , b \nc,\"d e\"\n"},
	{name: "29.9 --csv with -a and :::", args: []string{"--csv", "-a", "f", "-k", `echo "[{1}][{2}][{3}]"`, ":::", "x,y"}, files: map[string]string{"f": "a,\"b\nc\"\n"}},
	{name: "29.9 --csv --colsep a tab", args: []string{"--csv", "--colsep", "\t", "-k", `echo "[{1}][{2}]"`}, stdin: "a\t\"b\tc\"\n"},
	{name: "29.9 --pipe --csv cuts after whole records", args: []string{"--csv", "--pipe", "--block", "5", "-k", "echo ---; cat"}, stdin: "a,\"x\ny\"\nb,c\nd,e\nf,g\n"},
	{name: "29.9 --pipepart --csv cuts at lines", args: []string{"--pipepart", "-a", "f", "--csv", "--block", "10", "-k", "echo ---; cat"}, files: map[string]string{"f": tableCSV[19:]}},
	{name: "29.9 --pipe --csv ignores -N", args: []string{"--csv", "--pipe", "-N1", "-k", "echo ---; cat"}, stdin: "a,\"x\ny\"\nb,c\nd,e\n"},
	{name: "29.9 --pipe --csv an open quote at the end", args: []string{"--csv", "--pipe", "--block", "3", "-k", "echo ---; cat"}, stdin: "a,\"x\ny\"\nb,c\nd,\"e\n"},
	{name: "29.9 --group-by a Perl expression alone is refused", args: []string{"--pipe", "--group-by", `s/\D//g`, "-kN1", "cat"}, stdin: "1\n", onlyStatus: true, wsRefuses: true},
	{name: "29.9 --group-by with a Perl expression is refused", args: []string{"--pipe", "--group-by", `1 s/\D//g`, "-kN1", "cat"}, stdin: "1\n", onlyStatus: true, wsRefuses: true},
}

// tableCSV is the man page's table.csv (--group-by).
const tableCSV = "UserID,Consumption\n123,1\n123,2\n12-3,1\n221,3\n221,1\n2/21,5\n"

// groupLines are 200 lines in groups of 7 by their first column.
var groupLines = func() string {
	var b strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&b, "%d\t%d\n", i/7, i)
	}
	return b.String()
}()

// sqrtGroups are 200 lines grouped by the square root of their number
// (groups of 3, 5, 7, ...): cuts where a block's end falls in a new group.
var sqrtGroups = func() string {
	var b strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&b, "%d\t%d\n", int(math.Sqrt(float64(i))), i)
	}
	return b.String()
}()

// shardInput has lines of 4 values in the first column, 6 lines of "a"
// (a hash of the whole line would split them).
const shardInput = "a,1\nb,2\nc,3\na,4\nb,5\nd,6\na,7\nb,8\na,9\nc,10\na,11\nb,12\na,13\n"

// shardNorm keeps, of jobs that each print "[their lines]", the lines,
// the number of jobs, and the values of the first column that more than
// one job got (none, for --shard).
func shardNorm(sep string) func(string) string {
	return func(s string) string {
		all, n, split := jobsByKey(s, func(l string) string { k, _, _ := strings.Cut(l, sep); return k })
		return fmt.Sprintf("jobs %d, lines %q, values in more than one job %q\n", n, all, split)
	}
}

// jobsByKey reads the output of jobs that each print "[their lines]" on
// a line: it returns every job's lines and the number of jobs, and the
// keys (key of a line) that more than one job got, each sorted.
func jobsByKey(s string, key func(line string) string) (all []string, n int, split []string) {
	jobs := map[string]map[int]bool{}
	for _, job := range strings.Split(strings.TrimSpace(s), "\n") {
		n++
		body := strings.TrimSuffix(strings.TrimPrefix(job, "["), "]")
		for _, l := range strings.Fields(body) {
			all = append(all, l)
			k := key(l)
			if jobs[k] == nil {
				jobs[k] = map[int]bool{}
			}
			jobs[k][n] = true
		}
	}
	for k, js := range jobs {
		if len(js) > 1 {
			split = append(split, k)
		}
	}
	slices.Sort(all)
	slices.Sort(split)
	return all, n, split
}

// dropGroupSep drops the random record separator (20 letters and digits)
// that GNU parallel 20221122 leaves before the header of --group-by with
// --header : (docs/gnu-compat.md).
func dropGroupSep(s string) string {
	return regexp.MustCompile(`(?m)^[0-9A-Za-z]{20}(UserID)`).ReplaceAllString(s, "$1")
}

// fmt2 fills the two %s of a producer.
func fmt2(f, a, b string) string { return fmt.Sprintf(f, a, b) }
