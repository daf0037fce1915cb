package gnutest

import (
	"fmt"
	"regexp"
	"strings"
)

// The differential cases of issue 29: what a script met that GNU parallel
// 20221122 does otherwise, most dangerous first. TestGNUParallel runs them
// with the rest.

func init() { gnuCases = append(gnuCases, gnuCompatCases...) }

// tmpName blanks the temporary file names of --cat and --fifo (GNU's
// /tmp/parXXXXX, worksteal's own) at the ends of lines.
const tmpName = ` | sed -E 's, /[^ ]+$, TMPFILE,'`

// recText is the records of the --regexp and --remove-rec-sep cases.
const recText = "a1\nb\na2\nc\nd\na3\n"

// filesShown prints the files --files left in td, then removes them: the
// names are random (parXXXXX.par), the contents and their count are not.
const filesShown = ` | sed -E 's,par[^/]*[.]par$,parX.par,'; echo status $?; ls td | wc -l; for f in td/*; do [ -e "$f" ] && echo "[$(tr '\n' '|' < "$f")] $(stat -c %a "$f")"; done | sort; rm -rf td`

// jlHead is a joblog's header line.
const jlHead = "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n"

var gnuCompatCases = []gnuCase{
	// 1. -X, -m, -N with the command as one quoted string: the context
	// group holding {} is the text around it up to white space, in the
	// whole command line (rm -f {} must not become rm -f 1 rm -f 2).
	{name: "29.1 -X with a one-string command", args: []string{"-X", "-j1", "--dry-run", "rm -f {}"}, stdin: "1\n2\n3\n"},
	{name: "29.1 -X one string, context in the middle", args: []string{"-X", "-j1", "--dry-run", "echo pre-{}-post x", ":::", "a", "b"}},
	{name: "29.1 -X one string runs", args: []string{"-X", "-j1", "echo pre-{}-post x", ":::", "a", "b"}},
	{name: "29.1 -X one string, quotes are not words", args: []string{"-X", "-j1", "--dry-run", `echo "a {}b" c`, ":::", "a", "b"}},
	{name: "29.1 -X a word of two groups", args: []string{"-X", "-j1", "--dry-run", "echo", "pre{}  post{}x", ":::", "a", "b"}},
	{name: "29.1 -X tabs begin the next group", args: []string{"-X", "-j1", "--dry-run", "echo\tpre{}\tx{1}", ":::", "a", "b"}},
	{name: "29.1 -X a newline does not end a group", args: []string{"-X", "-j1", "--dry-run", "echo a{}\nb", ":::", "1", "2"}},
	{name: "29.1 -X {#} in the group is repeated", args: []string{"-X", "-j1", "--dry-run", "echo x{}y {#}{}", ":::", "a", "b", "c"}},
	{name: "29.1 -N2 one string", args: []string{"-N2", "-j1", "-k", "echo x{}y z", ":::", "a", "b", "c"}},
	{name: "29.1 -m one string", args: []string{"-m", "-j1", "--dry-run", "rm -f {}", ":::", "a", "b"}},
	{name: "29.1 -q -X one word with spaces", args: []string{"-q", "-X", "-j1", "--dry-run", "echo", "a{}  b", ":::", "1", "2"}},
	{name: "29.1 -X one string deletes only the named files", sh: "touch rm 1 2 3 keep; seq 3 | $P -X -j1 'rm -f {}'; ls"},

	// 2. --cat and --fifo without {}: the file's name is appended.
	{name: "29.2 --pipe --cat appends the file", sh: "seq 10 | $P --pipe -N5 --cat -k wc" + tmpName},
	{name: "29.2 --pipe --fifo appends the fifo", sh: "seq 10 | $P --pipe -N5 --fifo -k wc -l" + tmpName},
	{name: "29.2 --pipepart --cat appends the file", sh: "seq 10 > f; $P --pipepart -a f --block 5 --cat -k wc -l" + tmpName},
	{name: "29.2 --pipepart --fifo appends the fifo", sh: "seq 10 > f; $P --pipepart -a f --block 5 --fifo -k wc -l" + tmpName},
	{name: "29.2 --cat --dry-run", args: []string{"--pipe", "-N5", "--cat", "--dry-run", "wc"}, stdin: seq10},
	{name: "29.2 --cat with {#} appends nothing", args: []string{"--pipe", "-N5", "-k", "--cat", "echo {#}"}, stdin: seq10},

	// 3. ::: with no arguments.
	{name: "29.3 ::: with nothing after it reads stdin", args: []string{"echo", ":::"}, stdin: "x\n"},
	{name: "29.3 ::: with nothing after it, no input", args: []string{"gzip", ":::"}},
	{name: "29.3 :::: with nothing after it", args: []string{"echo", "::::"}, stdin: "x\n"},
	{name: "29.3 two empty ::: run nothing", args: []string{"echo", ":::", ":::"}, stdin: "x\n"},
	{name: "29.3 an empty ::: beside others is one empty value", args: []string{"-k", "echo", ":::", "a", "b", ":::", ":::", "c"}},
	{name: "29.3 an empty ::: last", args: []string{"-k", "echo", ":::", "a", ":::"}},
	{name: "29.3 an empty ::: first", args: []string{"-k", "echo", ":::", ":::", "a"}},
	{name: "29.3 no command, an empty :::", args: []string{":::"}, stdin: "echo hi\n"},

	// 4. Silent wrong outputs.
	{name: "29.4 ::::+ links every file", args: []string{"-k", "echo", ":::", "x", "y", "::::+", "f1", "f2"}, files: map[string]string{"f1": "1\n2\n", "f2": "a\nb\n"}},
	{name: "29.4 joblog: a newline in a command is NUL", args: []string{"--joblog", "jl", "echo a\necho b", ":::", "1"}, joblog: "jl"},
	{name: "29.4 --tagstring escapes", args: []string{"--tagstring", `I{1}\tB{2}`, "echo", ":::", "a", ":::", "b"}},
	{name: "29.4 --results names over 255 bytes are cut", args: []string{"--results", "out", "echo", ":::", strings.Repeat("a", 300), "short"}},
	{name: "29.4 --pipe --round-robin --header once per job", args: []string{"--pipe", "--round-robin", "--header", ":", "-N2", "-j2", "echo ---; cat"}, stdin: seq10},
	{name: "29.4 a command line too long runs nothing", sh: "{ head -c 300000 /dev/zero | tr '\\0' x; echo; echo b; } | $P echo; echo status $?"},

	{name: "29.4 --plus {uniq} skips the jobs whose values repeat", args: []string{"-k", "--plus", "--joblog", "jl", "echo", "{#}", "{uniq}", ":::", "A", "B", ":::", "A", "B", "C"}, joblog: "jl"},
	{name: "29.4 --plus {uniq} with a position and --colsep", args: []string{"-k", "--plus", "--colsep", ",", "echo", "{2uniq}", ":::", "1,1", "1,2", "2,x,2"}},
	{name: "29.4 --plus {uniq} with -n2", args: []string{"-k", "--plus", "-n2", "echo", "{uniq}", ":::", "a", "a", "b", "c"}},
	{name: "29.4 --plus {choose_k} compares strings", args: []string{"-k", "--plus", "echo", "{choose_k}", ":::", "1", "10", ":::", "1", "10", "9"}},
	{name: "29.4 --plus {uniq} -v", args: []string{"-k", "--plus", "-v", "echo", "{uniq}", ":::", "1", "2", ":::", "1"}},
	{name: "29.4 --plus {uniq} --results", args: []string{"-k", "--plus", "--results", "r", "echo", "{uniq}", ":::", "1", "2", ":::", "1"}},
	{name: "29.4 --plus {uniq} --dry-run shows every job", args: []string{"--plus", "--dry-run", "-j1", "echo", "{uniq}", ":::", "1", "2", ":::", "1"}},
	{name: "29.5 -v with --results saves the command as output", args: []string{"-k", "-v", "--results", "r", "--joblog", "jl", "echo", ":::", "a", "b c"}, joblog: "jl"},
	{name: "29.5 -v with --results FILE.csv", args: []string{"-k", "-v", "--results", "r.csv", "echo", ":::", "a"}},
	{name: "29.4 --plus {uniq} meets --halt now,fail=1: 254", args: []string{"-j1", "--plus", "--halt", "now,fail=1", "echo", "{uniq}", ":::", "1", "2", ":::", "1", "2"}},
	{name: "29.4 --plus {uniq} is not retried", args: []string{"--plus", "--retries", "3", "--joblog", "jl", "echo", "{uniq}", ":::", "1", ":::", "1"}, joblog: "jl"},

	// 5. GNU's options and names that scripts use.
	{name: "29.5 --pipepart -a FILE ignores ::: values", args: []string{"--pipepart", "-a", "f", "-k", `echo "[{}]" "<{1}>" $(wc -l)`, ":::", "a", "b"}, files: map[string]string{"f": seq10}},
	{name: "29.5 --pipepart :::: FILE beside :::", args: []string{"--pipepart", "--block", "4", "-k", "wc -l", "::::", "f", ":::", "a"}, files: map[string]string{"f": seq10}},
	{name: "29.5 --pipepart ::: values count in the default block", args: []string{"--pipepart", "-j2", "-k", "wc -l", ":::", strings.Repeat("a", 60), "::::", "f"}, files: map[string]string{"f": seq10}},
	{name: "29.5 --pipepart two files share the default block", args: []string{"--pipepart", "-j2", "-a", "f", "-a", "g", "-k", "wc -l"}, files: map[string]string{"f": seq10, "g": seqLines(5)}},
	{name: "29.5 --pipepart ::: alone runs nothing", args: []string{"--pipepart", "wc -l", ":::", "a"}},
	{name: "29.5 --pipepart --dry-run with :::", args: []string{"--pipepart", "--dry-run", "-j2", "wc -l", "::::", "f", ":::", "a"}, files: map[string]string{"f": seq10}},
	{name: "29.5 --remove-rec-sep with --recstart", args: []string{"--pipe", "-k", "--recstart", "a", "-N1", "--remove-rec-sep", "echo ---; cat"}, stdin: recText},
	{name: "29.5 --rrs of newlines", args: []string{"--pipe", "-k", "-N2", "--rrs", "echo ---; od -c"}, stdin: recText},
	{name: "29.5 --rrs with --recend and --recstart", args: []string{"--pipe", "-k", "--recend", `\n`, "--recstart", "a", "--rrs", "echo ---; cat"}, stdin: recText},
	{name: "29.5 --rrs keeps the header's", args: []string{"--pipe", "--header", ":", "-k", "-N2", "--rrs", "echo ---; cat; echo"}, stdin: recText},
	{name: "29.5 --rrs --round-robin removes the header's", args: []string{"--pipe", "--round-robin", "-j1", "--header", ":", "-N2", "--rrs", "echo ---; cat; echo"}, stdin: recText},
	{name: "29.5 --rrs is not for --pipepart", args: []string{"--pipepart", "-a", "f", "--block", "3", "-k", "--rrs", "echo ---; od -c"}, files: map[string]string{"f": recText}},
	{name: "29.5 --regexp --recstart -N1", args: []string{"--pipe", "-k", "--regexp", "--recstart", "[ac].", "-N1", "echo ---; cat"}, stdin: recText},
	{name: "29.5 --regexp by block", args: []string{"--pipe", "-k", "--regexp", "--recstart", "[ac].", "--block", "8", "echo ---; cat"}, stdin: recText},
	{name: "29.5 --regexp text before the first record", args: []string{"--pipe", "-k", "--regexp", "--recstart", "b", "-N1", "echo ---; cat"}, stdin: recText},
	{name: "29.5 --regex --recend --rrs", args: []string{"--pipe", "-k", "--regex", "--recend", `\n[bd]`, "--rrs", "-N1", "echo ---; cat"}, stdin: recText},
	{name: "29.5 --regexp --recend '' cuts anywhere", args: []string{"--pipe", "-k", "--regexp", "--recend", "", "--block", "4", "echo ---; cat"}, stdin: recText},
	{name: "29.5 --regexp with ^ and |", args: []string{"--pipe", "-k", "--regexp", "--recend", `\n`, "--recstart", "^a|^d", "--rrs", "-N1", "echo ---; cat"}, stdin: recText},
	{name: "29.5 --rrs: a chunk left empty runs nothing", args: []string{"--pipe", "-k", "--recend", `\n`, "--recstart", "d", "--rrs", "-N1", "--joblog", "jl", "echo ---; cat"}, stdin: "a\nd\nd\n", joblog: "jl"},
	{name: "29.5 --pipepart --regexp", args: []string{"--pipepart", "-a", "f", "--block", "3", "-k", "--regexp", "--recstart", "a.", "echo ---; cat"}, files: map[string]string{"f": recText}},
	{name: "29.5 --regexp outside pipe mode is ignored", args: []string{"-k", "--regexp", "--rrs", "echo", ":::", "a"}},
	{name: "29.5 --retry-failed runs the joblog's failed commands", args: []string{"-k", "--retry-failed", "--joblog", "jl", "echo", "ignored", ":::", "x"}, joblog: "jl",
		files: map[string]string{"jl": jlHead + "1\t:\t1.000\t0.500\t0\t2\t0\t0\techo a\n2\t:\t1.000\t0.500\t0\t2\t1\t0\techo b; exit 1\n" +
			"4\t:\t1.000\t0.500\t0\t2\t0\t9\techo d\n2\t:\t1.000\t0.500\t0\t2\t0\t0\techo b2\n5\t:\t1.000\t0.500\t0\t2\t3\t0\techo e; exit 3\n"}},
	{name: "29.5 --retry-failed a command with a newline", args: []string{"-k", "--retry-failed", "--joblog", "jl"}, joblog: "jl",
		files: map[string]string{"jl": jlHead + "2\t:\t1\t1\t0\t0\t1\t0\techo a\x00echo b\n"}},
	{name: "29.5 --retry-failed without a joblog file runs the command line", args: []string{"-k", "--retry-failed", "--joblog", "jl", "echo", ":::", "a", "b"}, joblog: "jl"},
	{name: "29.5 --retry-failed with an empty joblog reads commands", args: []string{"-k", "--retryfailed", "--joblog", "jl", "echo", ":::", "a"}, stdin: "echo x\n", joblog: "jl", files: map[string]string{"jl": jlHead}},
	{name: "29.5 --files", sh: "mkdir td; $P -k --files --tmpdir td 'echo out{}; echo err{} >&2' ::: a b" + filesShown},
	{name: "29.5 --files with --tag, -v and a joblog", sh: "mkdir td; $P -k --output-as-files --tmpdir td --tag -v --joblog jl 'echo {}' ::: a b" + filesShown, joblog: "jl"},
	{name: "29.5 --files in $TMPDIR with no output", sh: "mkdir td; { TMPDIR=$PWD/td $P --files true ::: a" + filesShown + "; } | sed \"s,^$PWD/,,\""},
	{name: "29.5 --files is ignored under -u", sh: "mkdir td; $P -u --files --tmpdir td echo ::: a" + filesShown},
	{name: "29.5 --limit: 1 holds the start back", sh: "$P -j1 -k --limit 'echo >> calls; [ $(wc -l < calls) -ne 2 ]' echo ::: a b c; echo status $?; rm calls"},
	{name: "29.5 --limit exit 0", args: []string{"-k", "--limit", "exit 0", "echo", ":::", "a", "b"}},
	{name: "29.5 --limit 'mem 1k'", args: []string{"-k", "--limit", "mem 1k", "echo", ":::", "a", "b"}},
	{name: "29.5 --limit 'load 100'", args: []string{"-k", "--limit", "load 100", "echo", ":::", "a", "b"}},
	// One slot: the job --limit's 2 kills is the one running (GNU asks
	// again for each running job, youngest first, so with two a race
	// decides which).
	{name: "29.5 --limit: 2 kills the youngest job", args: []string{"-j1", "--joblog", "jl", "--limit", "if [ -e stop ] && [ ! -e killed ]; then touch killed; exit 2; fi; exit 0",
		"{}", ":::", "touch stop; sleep 30", "echo two"}, joblog: "jl"},
	{name: "29.5 --limit gets $SSHLOGIN", sh: "$P -j1 --limit 'echo \"[$SSHLOGIN]\" > who' echo ::: a; cat who; rm who"},
	{name: "29.5 --rpl s///g, positions", args: []string{"-k", "--rpl", "{o} s/a/X/g", "echo", "{o}", "{2o}", "{}", ":::", "banana", ":::", "ab"}},
	{name: "29.5 --rpl statements (the man page's {..})", args: []string{"-k", "--rpl", `{..} s:\.[^/.]+$::;s:\.[^/.]+$::;`, "echo", "{..}", "{1..}", ":::", "a.b.c", "d.e"}},
	{name: "29.5 --rpl redefines {#} and {}", args: []string{"-k", "--rpl", "{#} s/a/X/", "--rpl", "{} s/b/Y/", "echo", "{#}", "{}", ":::", "ab"}},
	{name: "29.5 --rpl groups", args: []string{"-k", "--rpl", "{x} s/(a)(b)/$2${1}/", "--rpl", "{i} s/B/<$&>/i", "echo", "{x}", "{i}", ":::", "abab"}},
	{name: "29.5 --rpl alternatives with ||", args: []string{"-k", "--rpl", "{y} s/a/X/ || s/b/Y/", "echo", "{y}", ":::", "b", "ab"}},
	{name: "29.5 --rpl a GNU definition is an alias", args: []string{"-k", "--rpl", "{n} 1 $_=$job->seq()", "--rpl", "{d} $Global::use{\"File::Basename\"} ||= eval \"use File::Basename; 1;\"; $_ = dirname($_);", "--rpl", "{b} s:.*/::", "echo", "{n}", "{d}", "{b}", ":::", "a/b/c", "d"}},
	{name: "29.5 --rpl {uniq}'s definition", args: []string{"-k", "--rpl", "{u} if(::uniq(@arg) != @arg) { skip(); }", "echo", "{u}", ":::", "a", "b", ":::", "a"}},
	{name: "29.5 --rpl another delimiter and an escaped one", args: []string{"-k", "--rpl", `{z} s:x:\::g`, "--rpl", "{w} s|a|\\t|", "echo", "{z}", "{w}", ":::", "axbx"}},
	{name: "29.5 --rpl with Perl is refused", args: []string{"--rpl", "{s} $_=uc($_)", "echo", "{s}", ":::", "a"}, onlyStatus: true, wsRefuses: true},
	{name: "29.5 --dryrun", args: []string{"--dryrun", "echo", ":::", "a"}},
	{name: "29.5 --xapply is --link", args: []string{"-k", "--xapply", "echo", ":::", "a", "b", ":::", "1", "2"}},
	{name: "29.5 --no-notice", args: []string{"--no-notice", "echo", ":::", "a"}},
	{name: "29.5 --tmpdir", args: []string{"--tmpdir", ".", "echo", ":::", "a"}},
	{name: "29.5 --tempdir", args: []string{"--tempdir", ".", "echo", ":::", "a"}},
	{name: "29.5 -I", args: []string{"-k", "-I", ",,", "echo", "x,,", ":::", "a", "b"}},
	{name: "29.5 --replace=", args: []string{"-k", "--replace=,,", "echo", "x,,", ":::", "a"}},
	{name: "29.5 --arg-sep", args: []string{"-k", "--arg-sep", ",,", "echo", ",,", "a", "b"}},
	{name: "29.5 -v prints the command", args: []string{"-k", "-v", "echo", ":::", "a", "b"}},
	{name: "29.5 -v with --line-buffer", args: []string{"-j1", "--lb", "-v", "echo", ":::", "a", "b"}},
	{name: "29.5 -t prints the command on stderr", args: []string{"-k", "-t", "echo", ":::", "a", "b"}, stderr: true},
	{name: "29.5 --verbose", args: []string{"-k", "--verbose", "echo", ":::", "a"}, stderr: true},
	{name: "29.5 -n with --pipe is -N", args: []string{"--pipe", "-n2", "-k", "wc", "-l"}, stdin: "1\n2\n3\n4\n5\n"},
	{name: "29.5 -l is -N", args: []string{"-k", "-l", "2", "echo"}, stdin: "1\n2\n3\n4\n5\n"},
	{name: "29.5 -L is -N", args: []string{"-k", "-L", "2", "echo"}, stdin: "1\n2\n3\n"},
	{name: "29.5 --max-lines", args: []string{"-k", "--max-lines", "2", "echo"}, stdin: "1\n2\n3\n"},
	{name: "29.5 -E ends the input", args: []string{"-k", "-E", "END", "echo"}, stdin: "a\nb\nEND\nc\n"},
	{name: "29.5 -s limits the line", args: []string{"-k", "-j1", "-s", "20", "-X", "echo", ":::", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}},
	{name: "29.5 --max-chars", args: []string{"-k", "-j1", "--max-chars", "12", "-m", "echo", ":::", "1", "2", "3", "4", "5"}},
	{name: "29.5 --line-buf is --line-buffer", args: []string{"--line-buf", "-k", "echo", ":::", "a", "b"}},
	{name: "29.5 --keep is --keep-order", args: []string{"--keep", "-j2", "sleep {}; echo {}", ":::", "0.3", "0"}},
	{name: "29.5 --tagst is --tagstring", args: []string{"-k", "--tagst", "T", "echo", ":::", "a"}},

	// 6. Values GNU accepts, and one it refuses.
	{name: "29.6 -n -1", args: []string{"-k", "-n", "-1", "echo", ":::", "a", "b", "c"}},
	{name: "29.6 --retries -1", args: []string{"--retries", "-1", "echo", ":::", "a"}},
	{name: "29.6 --delay -1", args: []string{"-k", "--delay", "-1", "echo", ":::", "a", "b"}},
	{name: "29.6 --memfree -1G", args: []string{"--memfree", "-1G", "echo", ":::", "a"}},
	{name: "29.6 --nice 50", args: []string{"--nice", "50", "echo", ":::", "a"}},
	{name: "29.6 --halt soon,fail=200%", args: []string{"-j1", "--halt", "soon,fail=200%", "echo {}; exit {}", ":::", "0", "1", "0"}},
	{name: "29.6 -j 99999999999999999999", args: []string{"-k", "-j", "99999999999999999999", "echo", ":::", "a", "b"}},
	{name: "29.6 -j -5 on fewer cores runs nothing", args: []string{"-j", "-500", "echo", ":::", "a"}, onlyStatus: true, refused: true},
	{name: "29.6 -a DIR", args: []string{"-a", "d", "echo"}, files: map[string]string{"d/x": ""}},
	{name: "29.6 --colsep '\\xff' matches a raw byte", args: []string{"-k", "--colsep", `\xff`, "echo", "{2}", ":::", "a\xffb"}},
	{name: "29.6 --colsep with a raw 0xFF byte", args: []string{"-k", "--colsep", "\xff", "echo", "{2}", ":::", "a\xffb"}},

	// 7. Every option of GNU parallel's man page has a case
	// (docs/gnu-coverage.md, checked by TestGNUCoverage): these are the
	// forms that had none.
	{name: "29.7 -r skips rows of white space", args: []string{"-k", "-r", "echo", "[{}]"}, stdin: "a\n  \n\nb\n"},
	{name: "29.7 --no-run-if-empty with ::: and sources", args: []string{"-k", "--no-run-if-empty", "echo", "[{1}]", "[{2}]", ":::", "a", "", " ", ":::", "", "b"}},
	{name: "29.7 -r with only white space runs nothing", args: []string{"-r", "echo", "x"}, stdin: " \n\t\n"},
	// -r skips a value as GNU reads it: before --colsep splits it, and
	// in each source before the sources are linked or combined.
	{name: "29.7 -r keeps a line whose columns are empty", args: []string{"-k", "-r", "--colsep", ",", "echo", "{1}-{2}", ":::", "a,", "b,c", ",", " "}},
	{name: "29.7 -r before --link pairs the sources", args: []string{"-k", "-r", "--link", "echo", "{1}-{2}", "::::", "-", ":::", "1", "2", "3"}, stdin: "a\n\n  \nb\n"},
	{name: "29.7 -r before :::+ pairs a source", args: []string{"-k", "-r", "echo", "{1}-{2}", ":::", "x", "y", ":::+", "", "7", "\t", "8"}},
	// -L, -l and --max-lines: a value ending in white space goes on
	// with the next, as xargs -L (GNU's "trailing space => continued").
	{name: "29.7 -L joins a line ending in white space with the next", args: []string{"-k", "-L", "2", "echo", "[{}]"}, stdin: "a \nb\nc\t\n\nd\ne\nf \n"},
	{name: "29.7 --max-lines with -r and linked sources", args: []string{"-k", "--max-lines", "1", "-r", "echo", "[{1}]", "[{2}]", ":::", "a ", "  ", "", "b", ":::+", "c ", "d", "e"}},
	// --group-by implies --pipe, and refuses other record separators.
	{name: "29.7 --group-by alone is pipe mode", args: []string{"-k", "--colsep", ",", "--group-by", "1", "--block", "6", "echo ---; cat"}, stdin: "1,a\n1,b\n2,c\n2,d\n3,e\n"},
	{name: "29.7 --group-by with --recstart is refused", args: []string{"--pipe", "--group-by", "1", "--recstart", ">", "cat"}, stdin: "1\n", onlyStatus: true, refused: true},
	{name: "29.7 --group-by with --recend is refused", args: []string{"--pipe", "--group-by", "1", "--recend", ";", "cat"}, stdin: "1\n", onlyStatus: true, refused: true},
	{name: "29.7 --group-by with --remove-rec-sep is refused", args: []string{"--pipe", "--group-by", "1", "--rrs", "cat"}, stdin: "1\n", onlyStatus: true, refused: true},
	// --results names and saves the columns of --colsep.
	{name: "29.7 --results DIR with --colsep", args: []string{"-k", "--colsep", ",", "--results", "res", "echo", "x", ":::", "x,y", "a", ":::", "p,q"}},
	{name: "29.7 --results DIR with --colsep and --header", args: []string{"-k", "--colsep", ",", "--header", ":", "--results", "res", "echo", "x", ":::", "h1,h2", "x,y", "a"}},
	{name: "29.7 --results FILE.csv with --colsep", args: []string{"-k", "--colsep", ",", "--results", "res.csv", "echo", "x", ":::", "x,y", "a"}},
	// --results names a file source by its file's name under any
	// --header (GNU's input_source_header, its count of file sources
	// only included), and a -N 0 value as GNU's \0noarg.
	{name: "29.7 --results DIR, --header : and a file source", args: []string{"-k", "-j1", "--results", "res", "--header", ":", "echo", "{}", "::::", "f0"}, files: map[string]string{"f0": "h\nx;y\n/a/b\n"}},
	{name: "29.7 --results DIR, --header : and ::: before a file source", args: []string{"-k", "-j1", "--results", "res", "--header", ":", "echo", ":::", "h1", "a", "b", "::::", "f2"}, files: map[string]string{"f2": "h2\n*\n--\n"}},
	{name: "29.7 --results DIR: a later job of the same arguments replaces the files", args: []string{"-k", "-j1", "--results", "res", "echo", ":::", "a", "b", "a"}},
	{name: "29.7 --results DIR names the values as read: --trim", args: []string{"-k", "-j1", "--trim", "lr", "--results", "res", "echo", "[{}]", ":::", " a ", "b "}},
	{name: "29.7 --results DIR names the columns as read: --colsep", args: []string{"-k", "-j1", "--colsep", ",", "--results", "res", "echo", "[{1}]", ":::", " a , b", "c"}},
	{name: "29.7 --tagstring repeats its words under -N", args: []string{"-k", "-N2", "--tagstring", "T{} U", "echo", ":::", "a", "b", "c"}},
	{name: "29.7 --tagstring repeats its words under -X", args: []string{"-k", "-j1", "-X", "--tagstring", "T{}x", "echo", ":::", "a", "b"}},
	{name: "29.7 --results DIR with -N 0", args: []string{"-k", "-j1", "-N0", "--results", "res", "echo", "x", ":::", "a", "b"}},
	// An empty batch still writes its joblog's header and --results table.
	{name: "29.7 an empty batch writes the joblog's header", args: []string{"--joblog", "jl", "echo"}, joblog: "jl"},
	{name: "29.7 an empty batch with --joblog - and --resume", args: []string{"--joblog", "-", "--resume", "echo", ":::"}, joblog: "-"},
	{name: "29.7 an empty batch makes the --results table", args: []string{"--results", "r.tsv", "--skip-first-line", "echo", ":::", "a"}},
	// -v's line is part of the job's output: tagged, coloured, counted.
	{name: "29.7 -v with --tag", args: []string{"-k", "--tag", "-v", "echo", ":::", "a", "b"}},
	{name: "29.7 -v --line-buffer --tagstring", args: []string{"-k", "--line-buffer", "--tagstring", "X{#}", "-v", "echo", ":::", "a"}},
	{name: "29.7 -v --ctag", args: []string{"-k", "--ctag", "-v", "echo", ":::", "a"}},
	{name: "29.7 -v counts in the joblog's Receive", args: []string{"-k", "-j1", "-v", "--joblog", "jl", "echo", ":::", "a", "bb"}, joblog: "jl"},
	{name: "29.7 -u: the joblog's Receive is 0", args: []string{"-k", "-j1", "-u", "-v", "--joblog", "jl", "echo", ":::", "a"}, joblog: "jl"},
	// --trim with --colsep trims each column after the split.
	{name: "29.7 --trim lr with --colsep splits first", args: []string{"-k", "--colsep", " +", "--trim", "lr", "echo", "[{1}]", "[{2}]", "[{}]", ":::", " lead", "a  b "}},
	{name: "29.7 --trim l with --colsep ,", args: []string{"-k", "--colsep", ",", "--trim", "l", "echo", "[{1}]", "[{2}]", "[{}]", ":::", " a , b "}},
	// -L, -l and -N (or -n) together, as GNU reads them in turn.
	{name: "29.7 -N with -L", args: []string{"-k", "-j1", "-N2", "-L3", "echo", "x{}y", ":::", "a", "b", "c", "d", "e"}},
	{name: "29.7 -N0 with -L", args: []string{"-k", "-j1", "-N0", "-L2", "echo", ":::", "a ", "b", "c"}},
	{name: "29.7 -n with -L", args: []string{"-k", "-j1", "-n2", "-L3", "echo", "x{}y", ":::", "a", "b", "c", "d", "e"}},
	{name: "29.7 -L 0 is -N 0", args: []string{"-k", "-j1", "-L", "0", "echo", "[{}]", ":::", "a", "b"}},
	{name: "29.7 --pipe -N with -L", args: []string{"-k", "--pipe", "-N", "2", "-L", "2", "wc", "-l"}, stdin: seqLines(20)},
	{name: "29.7 --pipe -n with -L", args: []string{"-k", "--pipe", "-n", "2", "-L", "3", "wc", "-l"}, stdin: seqLines(20)},
	// GNU tags what a carriage return starts, as it tags lines (a
	// progress bar's updates), \r\n included.
	{name: "29.7 --tag after a carriage return", args: []string{"-k", "--tag", `printf 'a\rb\r\nc\n'`, ":::", "x", "y"}},
	{name: "29.7 --tagstring, output ending in a carriage return", args: []string{"-k", "--tagstring", "T{#}", `printf 'a\rb\r'`, ":::", "x"}},
	{name: "29.7 --line-buffer --tag after a carriage return", args: []string{"-k", "--line-buffer", "--tag", `printf 'a\rb\r\nc\n'`, ":::", "x"}},
	// GNU makes the positional forms from the replacement strings' texts
	// after -I and its kin rename them.
	{name: "29.7 -I {x} gives {1x}, and {1} is text", args: []string{"-k", "-I", "{x}", "echo", "{x}", "{1x}", "{-1x}", "{1}", "{2}", ":::", "a", ":::", "b"}},
	{name: "29.7 -I % has no positional forms", args: []string{"-k", "-I", "%", "echo", "%", "{1}", "{1.}", ":::", "a.b"}},
	{name: "29.7 --extensionreplace {E} gives {1E}, and {1.} is text", args: []string{"-k", "--extensionreplace", "{E}", "echo", "{E}", "{1.}", "{1E}", "{.}", ":::", "a.b"}},
	{name: "29.7 -I with no command", args: []string{"-k", "-I", "XX", ":::", "echo a", "echo b"}},
	// -N 0 and -n 0 put GNU's "\0noarg" in place of each value: it
	// vanishes from the command unless a replacement string changes it.
	{name: "29.7 -N0 {//} of nothing is .", args: []string{"-k", "-N0", "echo", "[{}]", "[{1}]", "[{//}]", "[{-1//}]", "[{1.}]", "[{/}]", ":::", "a/b", "c"}},
	{name: "29.7 -n0 with two sources", args: []string{"-k", "-n0", "printf", "'[%s]'", "pre{}post", ":::", "a", "b", ":::", "c"}},
	{name: "29.7 -N0 -q leaves no quotes", args: []string{"-k", "-N0", "-q", "printf", "[%s]", "{}", "{//}", ":::", "a"}},
	{name: "29.7 -N0 with -m fills a job", args: []string{"-k", "-j1", "-N0", "-m", "echo", "x{}y", ":::", "1", "2", "3"}},
	{name: "29.7 -N0 with -X spreads over the slots", args: []string{"-k", "-j2", "-N0", "-X", "echo", "x{}y", ":::", "1", "2", "3", "4", "5"}},
	{name: "29.7 -n0 -m -s: a long value takes no room", args: []string{"-k", "-j1", "-n0", "-m", "-s", "30", "echo", "{}|tr", "a-z", "A-Z", ":::", "/abs/p.q", "a", "dir/sub/file.txt"}},
	{name: "29.7 -N with -m replaces in context", args: []string{"-k", "-j1", "-N2", "-m", "echo", "x{}y", ":::", "1", "2", "3", "4", "5"}},
	{name: "29.7 -N with --xargs replaces in context", args: []string{"-k", "-j1", "-N2", "--xargs", "echo", "x{}y", ":::", "1", "2", "3"}},
	{name: "29.7 -L with --xargs does not", args: []string{"-k", "-j1", "-L2", "--xargs", "echo", "x{}y", ":::", "1", "2", "3"}},
	{name: "29.7 -r empties a source beside another", args: []string{"-k", "-r", "echo", "{1}-{2}", ":::", "a", "b", "::::", "e"}, files: map[string]string{"e": "\n \n"}},
	{name: "29.7 --plain --gnu --silent are GNU's defaults", args: []string{"-k", "--plain", "--gnu", "--silent", "echo", ":::", "a", "b"}},
	// Job 1 ends once the program has logged job 2 (so printed its
	// output: both print a job's output before its joblog row): the order
	// is certain. Waiting for a file job 2 touched was not enough: GNU
	// parallel reaps its children in a loop that backs off to about a
	// second between looks, and on a busy machine it found both ended in
	// one look and printed them in job order (CI, stop 35).
	{name: "29.7 --no-keep-order undoes -k", args: []string{"-k", "--no-keep-order", "-j2", "--joblog", "jl",
		"[ {} = 1 ] && for i in $(seq 1200); do grep -q '^2\t' jl && break; sleep 0.05; done; echo {}", ":::", "1", "2"}, joblog: "jl"},
	{name: "29.7 --bar leaves stdout alone", args: []string{"-k", "--bar", "echo", ":::", "a", "b"}},
	{name: "29.7 --progress leaves stdout alone", args: []string{"-k", "--progress", "echo", ":::", "a", "b"}},
	{name: "29.7 {=perl=} is refused", args: []string{"echo", "{=uc=}", ":::", "a"}, onlyStatus: true, wsRefuses: true},
	{name: "29.7 {=n perl=} is refused", args: []string{"echo", "{=1 uc=}", ":::", "a"}, onlyStatus: true, wsRefuses: true},
	{name: "29.7 --help", args: []string{"--help"}, onlyStatus: true},
	{name: "29.7 -j procfile reads the value from the file", args: []string{"-k", "-j", "pf", "echo", ":::", "a", "b"}, files: map[string]string{"pf": "1\n"}},
	{name: "29.7 --max-procs procfile with a percentage", args: []string{"-k", "--max-procs", "pf", "echo", ":::", "a", "b"}, files: map[string]string{"pf": "50%"}},
	{name: "29.7 --er --bnr --dnr --bner rename the path strings", args: []string{"-k", "--er", "XX", "--bnr", "BB", "--dnr", "DD", "--bner", "EE", "echo", "XX", "BB", "DD", "EE", ":::", "x/y/a.b"}},
	{name: "29.7 --extensionreplace, -U and the long names", args: []string{"-k", "--extensionreplace", "XX", "--basenamereplace", "BB", "--dirnamereplace", "DD", "--basenameextensionreplace", "EE", "echo", "XX", "BB", "DD", "EE", ":::", "x/y/a.b"}},
	{name: "29.7 -U is retired", args: []string{"-k", "-U", "XX", "echo", "XX", ":::", "a.b"}, onlyStatus: true, refused: true},
	{name: "29.7 --seqreplace --slotreplace", args: []string{"-k", "-j1", "--seqreplace", "SS", "--slotreplace", "LL", "echo", "SS", "LL", ":::", "a", "b"}},
	{name: "29.7 --arg-file-sep", args: []string{"-k", "--arg-file-sep", ",,", "echo", ",,", "f", ":::", "x"}, files: map[string]string{"f": "1\n2\n"}},
	{name: "29.7 --skip-first-line", args: []string{"-k", "--skip-first-line", "echo"}, stdin: "header\na\nb\n"},
	{name: "29.7 --total-jobs gives {##}", args: []string{"-k", "--plus", "--total-jobs", "5", "echo", "{##}", "{0#}", ":::", "a", "b"}},
	{name: "29.7 --total", args: []string{"-k", "--plus", "--total", "120", "echo", "{0#}", ":::", "a"}},
	{name: "29.7 --process-slot-var and $PARALLEL_JOBSLOT0", args: []string{"-k", "-j1", "--process-slot-var", "PSV", "echo $PSV $PARALLEL_JOBSLOT0", ":::", "a", "b"}},
	// 29.8: the machine's CPUs, counted as GNU counts them: on this
	// machine, and on a made-up one of 2 sockets, 8 cores, 16 threads
	// ($PARALLEL_CPUINFO, GNU's own testing hook).
	{name: "29.8 --number-of-cores", args: []string{"--number-of-cores"}},
	{name: "29.8 --number-of-cpus", args: []string{"--number-of-cpus"}},
	{name: "29.8 --number-of-sockets", args: []string{"--number-of-sockets"}},
	{name: "29.8 --number-of-threads", args: []string{"--number-of-threads"}},
	{name: "29.8 --number-of-cores of a 2-socket hyperthreaded machine", args: []string{"--number-of-cores", "echo", ":::", "a"}, env: []string{"PARALLEL_CPUINFO=" + fakeCPUInfo}},
	{name: "29.8 --number-of-sockets of a 2-socket machine", args: []string{"--number-of-sockets"}, env: []string{"PARALLEL_CPUINFO=" + fakeCPUInfo}},
	{name: "29.8 --number-of-threads of a hyperthreaded machine", args: []string{"--number-of-threads"}, env: []string{"PARALLEL_CPUINFO=" + fakeCPUInfo}},
	{name: "29.8 -x with -X -s packs the arguments", args: []string{"-k", "-x", "-X", "-s", "22", "echo", ":::", "aaaa", "bbbb", "cccc", "dddd", "eeee", "ffff"}},
	{name: "29.8 --exit: a command line over -s runs nothing", args: []string{"--exit", "-X", "-s", "20", "echo", ":::", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "b"}, onlyStatus: true, refused: true},
	// --version: worksteal's own, naming the GNU parallel release run
	// follows, as GNU's first line names itself.
	{name: "29.8 --version names GNU parallel 20221122", args: []string{"--version"}, norm: gnuRelease},
	{name: "29.8 -V", args: []string{"-V", "echo", ":::", "a"}, norm: gnuRelease},
	{name: "29.8 --minversion of an older release", args: []string{"--minversion", "20130722", "echo", ":::", "a"}},
	{name: "29.8 --minversion of this release", args: []string{"--minversion", "20221122"}},
	{name: "29.8 --minversion of a newer release fails", args: []string{"--minversion", "20300101"}, refused: true},
	{name: "29.8 --minversion abc is refused", args: []string{"--minversion", "abc"}, refused: true, onlyStatus: true},
	{name: "29.8 --number-of-cores answers before --version", args: []string{"--version", "--number-of-cores"}},
	// Colours: GNU's, by job number, and the same off a terminal.
	{name: "29.8 --ctag", args: []string{"-k", "--ctag", "echo", ":::", "a", "b", "c"}},
	{name: "29.8 --color over 300 jobs", args: []string{"-k", "-j4", "--color", "echo", "::::", "many"}, files: map[string]string{"many": manyLines(300)}},
	{name: "29.8 --colour with --line-buffer and stderr", args: []string{"-k", "--colour", "--line-buffer", "sh", "-c", "echo $1; echo e$1 >&2", "sh", ":::", "a", "b"}, stderr: true},
	{name: "29.8 --ctag: a last line without newline, a carriage return", args: []string{"-k", "--ctag", "cat", ":::", "f", "g"}, files: map[string]string{"f": "x", "g": "a\rb\nc\n"}},
	{name: "29.8 --ctagstring", args: []string{"-k", "--ctagstring", "T{}", "echo", ":::", "a", "b"}},
	{name: "29.8 --ctagstring loses to --tagstring", args: []string{"-k", "--ctagstring", "X", "--tagstring", "Y{}", "echo", ":::", "a"}},
	{name: "29.8 --color-failed", args: []string{"-k", "--color-failed", "echo {}; exit {}", ":::", "0", "1", "2"}},
	{name: "29.8 --cf with --tag, a last line without newline", args: []string{"-k", "--cf", "--tag", "printf x; exit {}", ":::", "0", "1"}},
	{name: "29.8 --cf with --color", args: []string{"-k", "--cf", "--color", "echo {}; exit {}", ":::", "0", "1", "2"}},
	{name: "29.8 --cf does nothing under --line-buffer", args: []string{"-k", "--cf", "--line-buffer", "printf x; exit {}", ":::", "0", "1"}},
	{name: "29.8 --number-of-cpus of a hyperthreaded machine", args: []string{"--number-of-cpus", "--number-of-threads"}, env: []string{"PARALLEL_CPUINFO=" + fakeCPUInfo}},
}

// fakeCPUInfo is /proc/cpuinfo of a machine of 2 sockets of 4 cores of 2
// threads each.
var fakeCPUInfo = func() string {
	var b strings.Builder
	for n := range 16 {
		fmt.Fprintf(&b, "processor\t: %d\nphysical id\t: %d\ncore id\t\t: %d\n\n", n, n/8, n%8/2)
	}
	return b.String()
}()

// gnuRelease keeps, of --version's text, the GNU parallel release it names.
func gnuRelease(s string) string { return regexp.MustCompile(`GNU parallel [0-9]+`).FindString(s) }

// manyLines is 1 to n, a line each.
func manyLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintln(&b, i)
	}
	return b.String()
}
