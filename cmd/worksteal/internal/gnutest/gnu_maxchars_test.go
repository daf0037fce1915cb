package gnutest

// The differential cases of -s (--max-chars) with -X, -m, -N, -n and -l
// (issue 29): GNU parallel 20221122 packs the records by its own
// reckoning of a command line's length (runner/gnulen.go), not by the
// filled command's, and worksteal must cut the same jobs. Each case runs
// a few -s values in one shell, as dry runs of one slot: nothing depends
// on timing.

func init() { gnuCases = append(gnuCases, gnuMaxCharsCases...) }

// sizes runs "$P ARGS" once per -s value, each run's status after it.
func sizes(values, args string) string {
	return "for s in " + values + "; do $P -k -j1 --dry-run -s $s " + args + "; echo status $?; done"
}

var gnuMaxCharsCases = []gnuCase{
	{name: "29.11 -s -X: the words and a space between values", sh: sizes("12 15 20 25 30", "-X echo ::: 1 2 3 4 5 6 7 8 9 10 11 12")},
	{name: "29.11 -s -X: a one-string command's context group", sh: sizes("10 12 20 30", "-X 'rm -f {}' ::: 1 2 3 4 5 6 7 8 9 10 11 12")},
	{name: "29.11 -s -X: a group's text counts once per value", sh: sizes("14 20 28", "-X echo pre{}post ::: a b c d e f g h i j") + "; " +
		sizes("16 25", "-X echo x{}y{.}z ::: a.b c.d e f.g h i")},
	{name: "29.11 -s -m: each {} counts a space per value", sh: sizes("16 22 30", "-m echo {} {} ::: 1 2 3 4 5 6 7 8 9 10")},
	{name: "29.11 -s counts values quoted", sh: sizes("16 20 24", `-m echo {} ::: 'x y' z 'p q' r s "it's" t`) + "; " +
		sizes("10 14 25", "-X echo 'a b' {} ::: 'x y' z 'p q' r s t")},
	{name: "29.11 -s -X with two sources, positions and columns", sh: sizes("14 18 25", "-X echo {1} {2} ::: a b c d ::: x y") + "; " +
		sizes("12 16", "-X --colsep , echo {2} ::: a,b c,d e,f g,h i,j")},
	{name: "29.11 -s with -N, -n and their mixes with -X and -m", sh: sizes("10 12", "-N2 echo x{}y ::: 1 2 3 4 5 6 7 8 9 10 11") + "; " +
		sizes("14 18", "-X -N4 echo x{}y ::: 1 2 3 4 5 6 7 8 9 10 11") + "; " + sizes("10 12", "-m -n4 echo x{}y ::: 1 2 3 4 5 6 7 8 9 10 11")},
	{name: "29.11 -s -X --tag counts {} twice", sh: "for s in 12 14 18; do $P -k -j1 -s $s -X --tag echo ::: 1 2 3 4 5 6 7 8 9; done"},
	{name: "29.11 -s -X --tagstring counts its own strings", sh: "for s in 12 16; do $P -k -j1 -s $s -X --tagstring {.} echo {} ::: 1 2 3 4 5 6 7 8 9; done"},
	{name: "29.11 -s -q triples the reckoning", sh: sizes("30 45 60", "-X -q echo {} ::: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20")},
	{name: "29.11 -s -X {#} counts the job's number", sh: sizes("12 20", "-X echo {#} {} ::: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15")},
	{name: "29.11 -s: a first value too long runs nothing", args: []string{"-s", "10", "-X", "echo", "pre{}post", ":::", "a", "b"}, refused: true},
	{name: "29.11 -l and --max-lines take records without context", args: []string{"-k", "-j1", "--dry-run", "-l", "2", "echo", "{}x", ":::", "1", "2", "3"}},
	{name: "29.11 --max-lines without context, -L with it", sh: "$P -k -j1 --dry-run --max-lines 2 echo {}x ::: 1 2 3; $P -k -j1 --dry-run -L 2 echo {}x ::: 1 2 3"},
	{name: "29.11 --dry-run --tag tags the commands", args: []string{"-k", "--dry-run", "--tag", "echo {}\necho b", ":::", "1", "a b"}},
}
