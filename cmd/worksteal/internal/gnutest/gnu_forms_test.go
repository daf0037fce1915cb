package gnutest

// The differential cases of issue 29 that give each form of an option
// that man parallel (GNU parallel 20221122) documents, by every name its
// heading gives (long, short, alias) and with and without an optional
// value, where no case gave that form before: TestGNUCoverage wants a
// case per name of each row of docs/gnu-coverage.md.

func init() { gnuCases = append(gnuCases, gnuFormsCases...) }

var gnuFormsCases = []gnuCase{
	// --eof[=eof-str], -e[eof-str]: the value is optional; without one,
	// GNU's Getopt takes the next word that does not begin with "-".
	{name: "29.17 --eof=b ends the input at b", args: []string{"-k", "--eof=b", "echo"}, stdin: "a\nb\nc\n"},
	{name: "29.17 --eof without a value takes the next word", args: []string{"-k", "--eof", "echo"}, stdin: "echo a\necho\necho c\n"},
	{name: "29.17 -eb and -e alone", sh: `printf 'a\nb\nc\n' | $P -k -eb echo; printf 'echo a\necho\necho c\n' | $P -k -e echo`},
	// -h is --help: GNU's usage on stdout, exit 0 (the texts differ).
	{name: "29.17 -h", args: []string{"-h"}, onlyStatus: true},
	// -j's forms by each of its names.
	{name: "29.17 --jobs +N, --max-procs +N, -P +N", sh: `$P -k --jobs +0 echo ::: a b; $P -k --max-procs +1 echo ::: c; $P -k -P +0 echo ::: d`},
	{name: "29.17 --jobs -N, --max-procs -N, -P -N", sh: `$P -k --jobs -1 echo ::: a b; $P -k --max-procs -1 echo ::: c; $P -k -P -1 echo ::: d`},
	{name: "29.17 --jobs N%, --max-procs N%, -P N%", sh: `$P -k --jobs 50% echo ::: a b; $P -k --max-procs 100% echo ::: c; $P -k -P 150% echo ::: d`},
	{name: "29.17 --jobs procfile, -P procfile", sh: `echo 2 > pf; $P -k --jobs pf echo ::: a b; $P -k -P pf echo ::: c`},
	{name: "29.17 --jobs N, --max-procs N, -P N", sh: `$P -k --jobs 2 echo ::: a b; $P -k --max-procs 1 echo ::: c; $P -k -P 3 echo ::: d`},
	{name: "29.17 --keep-order", args: []string{"--keep-order", "-j2", "sleep {}; echo {}", ":::", "0.5", "0"}},
	{name: "29.17 --max-args", args: []string{"-k", "--max-args", "2", "echo", ":::", "a", "b", "c"}},
	{name: "29.17 --max-replace-args", args: []string{"-k", "--max-replace-args", "2", "echo", "{1}-{2}", ":::", "a", "b", "c", "d"}},
	{name: "29.17 --outputasfiles", sh: "mkdir td; $P -k --outputasfiles --tmpdir td 'echo {}' ::: a b" + filesShown},
	{name: "29.17 --removerecsep", args: []string{"--pipe", "-k", "-N2", "--removerecsep", "echo ---; od -c"}, stdin: recText},
	// --replace [replace-str], -i [replace-str]: the value is optional
	// (GNU's "replace|i:s"): -iSTR, or the next word when it does not
	// begin with "-"; without one, {} stays.
	{name: "29.17 -iXX", args: []string{"-k", "-iXX", "echo", "XX", ":::", "a", "b"}},
	{name: "29.17 -i takes the next word", args: []string{"-k", "-i", "XX", "echo", "XX", ":::", "a"}},
	{name: "29.17 -i before an option: {} stays", args: []string{"-i", "-k", "echo", "[{}]", ":::", "a", "b"}},
	{name: "29.17 -ki bundled", args: []string{"-ki", "XX", "echo", "XX", ":::", "a", "b"}},
	{name: "29.17 --replace before an option: {} stays", args: []string{"--replace", "-k", "echo", "[{}]", ":::", "a"}},
	{name: "29.17 --res", args: []string{"--res", "out", "echo", ":::", "a", "b"}},
	{name: "29.17 --round", args: []string{"--pipe", "--round", "-j2", "-N1", "cat"}, stdin: "a\nb\nc\nd\n"},
	{name: "29.17 --semaphore-name", args: []string{"--semaphore", "--semaphore-name", "dsn", "--fg", "echo", "s"}},
	{name: "29.17 --st", args: []string{"--semaphore", "--fg", "--st", "1", "--id", "dst2", "echo", "t"}},
	// --interactive, -p: off a terminal there is no one to ask (GNU dies
	// at its first question, 255); TestGNUInteractiveOnATerminal answers.
	{name: "29.17 -p off a terminal", args: []string{"-p", "echo", ":::", "a"}, refused: true},
	{name: "29.17 --interactive off a terminal", args: []string{"--interactive", "echo", ":::", "a"}, refused: true},
	// A replacement string given another text (GNU's rpl()) loses its
	// own name: -I XX makes {} text, --er XX {.}, and so on.
	{name: "29.17 -I XX: {} is then text", args: []string{"-k", "-I", "XX", "echo", "XX", "{}", "{.}", ":::", "a.b"}},
	{name: "29.17 --er, --bnr, --dnr, --bner, --seqreplace, --slotreplace: the old names are text", args: []string{"-k", "-j1", "--er", "E", "--bnr", "B", "--dnr", "D", "--bner", "BE", "--seqreplace", "N", "--slotreplace", "S",
		"echo", "E", "B", "D", "BE", "N", "S", "{.}", "{/}", "{//}", "{/.}", "{#}", "{%}", "{}", ":::", "x/y.z"}},
	{name: "29.17 -I {x} with --tag, --tagstring and --results", sh: `$P -k -I '{x}' --tag echo '{x}' {} ::: a b; $P -k -I XX --tagstring 'XX-{}' echo XX ::: c; $P -I XX --results r echo XX ::: d; ls r/1`},
	{name: "29.17 -iXX and -l without a value in $PARALLEL", args: []string{"echo", "XX", "{}"}, stdin: "1\n2\n", env: []string{"PARALLEL=-iXX -k -l"}},
}
