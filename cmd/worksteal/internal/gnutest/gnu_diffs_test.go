package gnutest

import "strings"

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
}
