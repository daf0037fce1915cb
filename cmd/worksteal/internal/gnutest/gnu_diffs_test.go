package gnutest

import (
	"fmt"
	"strings"
)

// The differential cases of issue 29 for what docs/gnu-compat.md listed
// as differences in the stop before: each now as GNU parallel 20221122
// does it.

func init() { gnuCases = append(gnuCases, gnuDiffsCases...) }

var gnuDiffsCases = []gnuCase{
	// (a) -X, -m and --xargs fill a command line to GNU's usable length
	// of this machine ((longest - 3000) / 2, the longest found by GNU's
	// search), not to a fixed 64,035; -s above it is it, and a single
	// command over it is "too long".
	{name: "29.16 -X fills to the usable length GNU finds", sh: `seq 30000 | $P -kX -j1 echo | awk '{print NF}'`},
	{name: "29.16 -m and --xargs fill to it too", sh: `seq 30000 | $P -km -j1 echo | awk '{print NF}'; seq 30000 | $P -k --xargs echo | awk '{print NF}'`},
	{name: "29.16 -s over the usable length is that length", sh: `seq 30000 | $P -kX -j1 -s 100000 echo | awk '{print NF}'`},
	{name: "29.16 a command between the usable length and 64,035 is too long", args: []string{"echo", ":::", strings.Repeat("x", 63700)}, refused: true},

	// (d) --bar: GNU's length of a command counts a {} of its own.
	{name: "29.16 -s -X --bar counts {} beside a plain command", sh: `seq 300 | $P -kX -j1 -s 200 --bar echo 2>/dev/null | awk '{print NF}'`},
	{name: "29.16 -s -X --bar with {} in the command counts it once", sh: `seq 300 | $P -kX -j1 -s 200 --bar echo x{}y 2>/dev/null | awk '{print NF}'; seq 300 | $P -km -j1 -s 150 --bar --tag echo 2>/dev/null | awk '{print NF}'`},

	// (c) --csv --colsep of several characters: Text::CSV separates at
	// its first byte.
	{name: "29.16 --csv --colsep '::' separates at ':'", args: []string{"--csv", "--colsep", "::", "-k", `echo "[{1}][{2}][{3}][{4}]"`}, stdin: "a::b::c\n\"x::y\"::z\na:b\n"},
	{name: "29.16 --csv --colsep of a multibyte character: its first byte", args: []string{"--csv", "--colsep", "→;", "-k", `printf "[%s]" {1} {2}; echo`}, stdin: "a→b\nc;d\n"},
	{name: "29.16 --csv --colsep '; ' with --header : names", args: []string{"--csv", "--colsep", "; ", "--header", ":", "-k", `echo "{b}-{a}"`}, stdin: "a;b\n1;\"x;y\"\n"},
	// (b) --shard and --bin take $F[COL-1] of Perl's split(COLSEP, line,
	// COL+1): 0 and negative numbers are indexes from the end; and "0" is
	// false to Perl, so --shard 0, --bin 0 and --group-by 0 are not given.
	{name: "29.16 --bin 0, --shard 0, --group-by 0 are not given", sh: `for o in --bin --shard --group-by; do printf '1,2,3\n4,5,\n' | $P --pipe $o 0 -j3 -k 'echo job{#}; cat'; done`},
	{name: "29.16 --bin -1, -2, -3, -5, 00: Perl indexes from the end", sh: `for c in -1 -2 -3 -5 00; do echo "== $c"; printf '1,2,3\n4,5,\n7,8,9,\n1\n,\n' | $P --pipe --bin $c -j3 -k 'echo job{#}; cat'; done`},
	{name: "29.16 --bin -1 and -2 with --colsep ' ' (Perl's awk split)", sh: `for c in -1 -2; do printf '  1 2 3 \n4 5\n 7 8 9 \n2\n' | $P --pipe --colsep ' ' --bin $c -j3 -k 'echo job{#}; cat'; done`},
	{name: "29.16 --shard -1 groups by the field before the last", args: []string{"--pipe", "--shard", "-1", "-j3", `echo "[$(sort | paste -sd' ')]"`},
		stdin: "a,p,1\nb,p,2\na,q,3\nb,q,4\nc,r,5\nd,r,6\na,s,7\nb,s,8\nc,p,9\nd,q,10\n", norm: shardNormCol(1)},
}

// shardNormCol is shardNorm by the column col (from 0) of "," lines.
func shardNormCol(col int) func(string) string {
	return func(s string) string {
		all, _, split := jobsByKey(s, func(l string) string { return strings.Split(l, ",")[col] })
		return fmt.Sprintf("lines %q, values in more than one job %q\n", all, split)
	}
}
