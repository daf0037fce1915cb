package gnutest

// The differential cases of pipe mode (--pipe, --pipepart, --block, -N,
// --recstart, --recend, --header, --round-robin, --cat, --fifo) and of
// throttling (--load, --memfree, --nice), in the shape of GNU parallel's
// documentation and testsuite; TestGNUParallel runs them with the rest.

func init() { gnuCases = append(gnuCases, gnuPipeCases...) }

var seq10 = seqLines(10)

var gnuPipeCases = []gnuCase{
	// --pipe and --block (man parallel: "--pipe", "--block"; the
	// tutorial's "cat num1000000 | parallel --pipe wc").
	{name: "--pipe --block cuts at the last record end", args: []string{"--pipe", "--block", "5", "-k", "echo ---; cat"}, stdin: seq10},
	// A record of -L lines (FASTQ's four), blocks of whole records.
	{name: "--pipe -L 4 records of lines in blocks", args: []string{"--pipe", "-L", "4", "--block", "30", "-k", "echo ---; cat"}, stdin: seqLines(23)},
	{name: "--pipe -L 2 one block", args: []string{"--pipe", "-L", "2", "-k", "wc", "-l"}, stdin: seqLines(7)},
	{name: "--pipe --max-lines 3 with --recend", args: []string{"--pipe", "--max-lines", "3", "--block", "12", "--recend", ";", "-k", "echo ---; cat"}, stdin: "a;\nb\nc;\nd\ne\nf\ng;\nh\n"},
	{name: "--pipe --skip-first-line", args: []string{"--pipe", "--skip-first-line", "--block", "6", "-k", "echo ---; cat"}, stdin: "head\n1\n2\n3\n4\n"},
	{name: "--pipe --skip-first-line --header 1", args: []string{"--pipe", "--skip-first-line", "--header", "1", "-N2", "-k", "echo ---; cat"}, stdin: "drop\nhdr\n1\n2\n3\n"},
	{name: "--pipe -r removes blank lines", args: []string{"--pipe", "-r", "--block", "8", "-k", "echo ---; cat"}, stdin: "a\n\n  \nb\n\t\n\nc\n \n\n\n\n\n\nd\n"},
	{name: "--pipe --recend '' -N 2 ends on a short chunk", args: []string{"--pipe", "--block", "3", "-N", "2", "--recend", "", "-k", "echo ---; cat"}, stdin: "abcdefg"},
	// --results saves each chunk's job.
	{name: "--pipe --results DIR", args: []string{"--pipe", "-N2", "-j1", "--results", "out", "wc", "-l"}, stdin: "1\n2\n3\n4\n5\n"},
	{name: "--pipe --results FILE.csv", args: []string{"--pipe", "-N2", "--results", "o.csv", "-k", "wc", "-l"}, stdin: "1\n2\n3\n4\n5\n"},
	{name: "--pipe --results a name of {#}", args: []string{"--pipe", "-N2", "--results", "o/{#}", "-k", "wc", "-l"}, stdin: "1\n2\n3\n4\n5\n"},
	{name: "--pipe --results a directory of {#}", args: []string{"--pipe", "-N2", "--results", "o/{#}/", "-k", "cat"}, stdin: "1\n2\n3\n4\n5\n"},
	// --tag and --tagstring tag each chunk's job.
	{name: "--pipe --tag", args: []string{"--pipe", "-N1", "--tag", "-k", "cat"}, stdin: "a\nb\nc\n"},
	{name: "--pipe --tagstring {#}", args: []string{"--pipe", "-N2", "-j1", "--tagstring", "B{#}-{}-{%}", "-k", "cat"}, stdin: "a\nb\nc\n"},
	{name: "--pipe --cat --tagstring {}", args: []string{"--pipe", "-N1", "--cat", "--tagstring", "x{}y", "-k", "cat", "{}"}, stdin: "a\nb\n"},
	{name: "--pipe --ctag-string", args: []string{"--pipe", "-N1", "--ctag-string", "Z{#}", "-k", "cat"}, stdin: "a\nb\n"},
	{name: "--pipe --round-robin --tagstring", args: []string{"--pipe", "--round-robin", "-j1", "--block", "4", "--tagstring", "R{#}", "-k", "wc", "-l"}, stdin: seq10},
	{name: "--pipe one block", args: []string{"--pipe", "-k", "wc", "-l"}, stdin: seq10},
	{name: "--pipe --block 100k over 100000 lines", args: []string{"--pipe", "--block", "100k", "-k", "wc", "-l"}, stdin: seqLines(100000)},
	{name: "--pipe --block 1.5k", args: []string{"--pipe", "--block", "1.5k", "-k", "wc", "-l"}, stdin: seqLines(2000)},
	{name: "--pipe --block-size 1K", args: []string{"--pipe", "--block-size", "1K", "-k", "wc", "-c"}, stdin: seqLines(2000)},
	{name: "--spreadstdin", args: []string{"--spreadstdin", "--block", "10", "-k", "wc", "-l"}, stdin: seq10},
	{name: "--pipe empty input runs nothing", args: []string{"--pipe", "-k", "echo", "x"}},
	{name: "--pipe last record without newline", args: []string{"--pipe", "-k", "od", "-c"}, stdin: "a\nb"},
	{name: "--pipe a record longer than the block", args: []string{"--pipe", "--block", "3", "-k", "echo ---; cat"}, stdin: "abcdefgh\ni\nj\n"},
	{name: "--pipe exit status counts failed chunks", args: []string{"--pipe", "-N1", "-k", "cat; exit 1"}, stdin: "1\n2\n3\n"},
	{name: "--pipe {#} {%} {} and the joblog's Send", args: []string{"--pipe", "-N2", "-k", "-j1", "--joblog", "-", "echo {#} {%} {}; wc -l"}, stdin: "1\n2\n3\n4\n5\n", joblog: "-"},
	{name: "--pipe --joblog file", args: []string{"--pipe", "--block", "4", "--joblog", "jl", "wc", "-l"}, stdin: seq10, joblog: "jl"},
	{name: "--pipe -j2 output whole per chunk", args: []string{"--pipe", "-j2", "--block", "20", "cat"}, stdin: seqLines(50)},
	{name: "--pipe --block 0 is the default", args: []string{"--pipe", "--block", "0", "-k", "wc", "-l"}, stdin: seq10},
	{name: "--pipe --block -1 refused", args: []string{"--pipe", "--block", "-1", "wc"}, stdin: seq10, onlyStatus: true, refused: true},
	{name: "--pipe --block foo refused", args: []string{"--pipe", "--block", "foo", "wc"}, stdin: seq10, onlyStatus: true, refused: true},
	{name: "--pipe --dry-run", args: []string{"--pipe", "-N1", "--dry-run", "wc", "-l"}, stdin: "1\n2\n3\n"},

	// Argument mode's output and halting options with --pipe.
	{name: "--pipe --halt now,fail=1", args: []string{"--pipe", "-N1", "-j1", "--halt", "now,fail=1", "-k", "cat; exit 1"}, stdin: "1\n2\n3\n"},
	{name: "--pipe --halt now,success=1", args: []string{"--pipe", "-N1", "-j1", "--halt", "now,success=1", "cat"}, stdin: "1\n2\n3\n"},
	{name: "--pipe --line-buffer", args: []string{"--pipe", "-N2", "--line-buffer", "-k", "cat"}, stdin: "1\n2\n3\n4\n5\n"},
	{name: "--pipe -u", args: []string{"--pipe", "-N2", "-u", "-j1", "cat"}, stdin: "1\n2\n3\n4\n5\n"},
	{name: "--pipe --delay", args: []string{"--pipe", "-N1", "--delay", "0.1", "-k", "cat"}, stdin: "1\n2\n3\n"},

	{name: "--pipe --resume skips the logged chunks", args: []string{"--pipe", "-N2", "-k", "--resume", "--joblog", "jl", "cat"}, stdin: "1\n2\n3\n4\n5\n6\n", joblog: "jl",
		files: map[string]string{"jl": "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n1\t:\t1.000\t0.500\t4\t2\t0\t0\tcat\n"}},
	{name: "--pipe --resume-failed reruns the failed chunks", args: []string{"--pipe", "-N2", "-k", "--resume-failed", "--joblog", "jl", "cat"}, stdin: "1\n2\n3\n4\n5\n6\n", joblog: "jl",
		files: map[string]string{"jl": "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n1\t:\t1.000\t0.500\t4\t2\t0\t0\tcat\n2\t:\t1.000\t0.500\t4\t2\t1\t0\tcat\n"}},

	// -N with --pipe: records per job.
	{name: "--pipe -N3", args: []string{"--pipe", "-N3", "-k", "echo ---; cat"}, stdin: seq10},
	{name: "--pipe -N1 joins an empty first record", args: []string{"--pipe", "-N1", "-k", "echo ---; cat"}, stdin: "\n\na\nb\n"},
	{name: "--pipe --max-replace-args", args: []string{"--pipe", "--max-replace-args", "4", "-k", "wc", "-l"}, stdin: seq10},

	// --recstart and --recend (man parallel: "--recstart", "--recend";
	// the testsuite's FASTA-like records).
	{name: "--recstart", args: []string{"--pipe", "--recstart", ">", "-N1", "-k", "echo ---; cat"}, stdin: ">a\nAC\nGT\n>b\nTT\n>c\nG\n"},
	{name: "--recstart --block", args: []string{"--pipe", "--recstart", ">", "--block", "8", "-k", "echo ---; cat"}, stdin: ">a\nAC\nGT\n>b\nTT\n>c\nG\n"},
	{name: "--recend ;", args: []string{"--pipe", "--recend", ";", "-N1", "-k", "cat; echo"}, stdin: "x;y;z;"},
	{name: "--recend and --recstart both", args: []string{"--pipe", "--recend", `\n`, "--recstart", "S", "-N1", "-k", "echo ---; cat"}, stdin: "e1\nSe2\nSx\nS"},
	{name: "--recend '' cuts anywhere", args: []string{"--pipe", "--recend", "", "--block", "4", "-k", "cat; echo"}, stdin: "abcdefghij"},
	{name: "--recend with an escape", args: []string{"--pipe", "--recend", `\t`, "-N2", "-k", "cat; echo"}, stdin: "a\tb\tc\td\te"},

	// --header with --pipe: the header goes before every chunk.
	{name: "--pipe --header :", args: []string{"--pipe", "--header", ":", "-N2", "-k", "echo ---; cat"}, stdin: "h1\nh2\n1\n2\n3\n4\n"},
	{name: "--pipe --header 2 lines", args: []string{"--pipe", "--header", "2", "-N1", "-k", "echo ---; cat"}, stdin: "h1\nh2\n1\n2\n"},
	{name: "--pipe --header regexp", args: []string{"--pipe", "--header", "#.*\n", "--block", "4", "-k", "echo ---; cat"}, stdin: "#x\n1\n2\n3\n"},

	// --pipepart (man parallel: "--pipe-part"; parallel_design).
	{name: "--pipepart --block", args: []string{"--pipepart", "-a", "f", "--block", "5", "-k", "echo ---; cat"}, files: map[string]string{"f": seq10}},
	{name: "--pipepart --block -2 -j2", args: []string{"--pipepart", "-a", "f", "--block", "-2", "-j2", "-k", "echo ---; cat"}, files: map[string]string{"f": seq10}},
	{name: "--pipepart default: 10 blocks a slot", args: []string{"--pipepart", "-a", "f", "-j2", "-k", "wc", "-l"}, files: map[string]string{"f": seqLines(1000)}},
	{name: "--pipe-part with ::::", args: []string{"--pipe-part", "--block", "5", "-k", "echo ---; cat", "::::", "f"}, files: map[string]string{"f": seq10}},
	{name: "--pipepart --header :", args: []string{"--pipepart", "-a", "f", "--header", ":", "--block", "3", "-k", "echo ---; cat"}, files: map[string]string{"f": "h\n1\n2\n3\n4\n5\n"}},
	{name: "--pipepart --recend", args: []string{"--pipepart", "-a", "f", "--recend", ";", "--block", "3", "-k", "cat; echo"}, files: map[string]string{"f": "ab;cd;ef;gh"}},
	{name: "--pipepart empty file", args: []string{"--pipepart", "-a", "f", "wc"}, files: map[string]string{"f": ""}},
	{name: "--pipepart --joblog", args: []string{"--pipepart", "-a", "f", "--block", "6", "--joblog", "jl", "wc", "-l"}, files: map[string]string{"f": seq10}, joblog: "jl"},
	{name: "--pipepart --cat", args: []string{"--pipepart", "-a", "f", "--block", "5", "--cat", "-k", "wc -l < {}"}, files: map[string]string{"f": seq10}},

	// --round-robin: the chunks go to a fixed set of jobs (which one gets
	// which is not defined: the lines are compared as a set).
	{name: "--round-robin", args: []string{"--pipe", "--round-robin", "-N1", "-j3", "cat"}, stdin: seq10},
	{name: "--round-robin without --pipe is ignored", args: []string{"--round-robin", "-j2", "-k", "echo", ":::", "a", "b"}},
	{name: "--round-robin joblog Send", args: []string{"--pipe", "--round-robin", "-N1", "-j1", "--joblog", "jl", "wc", "-l"}, stdin: seq10, joblog: "jl"},
	{name: "--round-robin fewer chunks than slots", args: []string{"--pipe", "--round-robin", "-N1", "-j4", "wc", "-l"}, stdin: "1\n2\n"},
	{name: "--round-robin empty input", args: []string{"--pipe", "--round-robin", "-j3", "wc", "-l"}},

	// --cat and --fifo: the chunk in a file named by {}.
	{name: "--cat", args: []string{"--pipe", "--cat", "-N2", "-k", "--joblog", "-", "wc -l < {}"}, stdin: "1\n2\n3\n", joblog: "-"},
	{name: "--cat implies --pipe", args: []string{"--cat", "-N2", "-k", "wc -l < {}"}, stdin: "1\n2\n3\n"},
	{name: "--cat file is a regular file", args: []string{"--pipe", "--cat", "-N1", "-k", "test -f {} && cat {}"}, stdin: "a\nb\n"},
	{name: "--fifo is a named pipe", args: []string{"--pipe", "--fifo", "-N1", "-k", "test -p {} && cat {}"}, stdin: "a\nb\n"},
	{name: "--fifo", args: []string{"--pipe", "--fifo", "-N2", "-k", "--joblog", "-", "wc -l < {}"}, stdin: "1\n2\n3\n", joblog: "-"},
	{name: "--fifo implies --pipe", args: []string{"--fifo", "--block", "4", "-k", "cat {}"}, stdin: seq10},

	// Throttling: with room on the machine, the jobs run as without (the
	// limits are high: the cases run side by side).
	{name: "--load N%", args: []string{"--load", "5000%", "-k", "echo", ":::", "a", "b"}},
	{name: "--load N", args: []string{"--load", "100", "-k", "echo", ":::", "a", "b"}},
	{name: "--load +N with --pipe", args: []string{"--load", "+100", "--pipe", "-N2", "-k", "wc", "-l"}, stdin: "1\n2\n3\n"},
	{name: "--load foo refused", args: []string{"--load", "foo", "echo", ":::", "a"}, onlyStatus: true, refused: true},
	{name: "--memfree 1k", args: []string{"--memfree", "1k", "-k", "echo", ":::", "a", "b"}},
	{name: "--memfree 10M with --pipe", args: []string{"--memfree", "10M", "--pipe", "-N2", "-k", "wc", "-l"}, stdin: "1\n2\n3\n"},
	{name: "--nice", args: []string{"--nice", "5", "-k", "echo {} $(nice)", ":::", "a"}},
	{name: "--nice with --pipe", args: []string{"--nice", "7", "--pipe", "-N1", "-k", "echo $(nice); cat"}, stdin: "a\nb\n"},
	{name: "--nice foo refused", args: []string{"--nice", "foo", "echo", ":::", "a"}, onlyStatus: true, refused: true},

	// The semaphore (man sem): both programs share GNU's files in the
	// test's HOME, so each case's --id is its own.
	{name: "--semaphore --fg exit status", args: []string{"--semaphore", "--fg", "--id", "dfg", "echo a; exit 3"}},
	{name: "--fg implies --semaphore", args: []string{"--fg", "--id", "dfg2", "echo", "hi"}},
	{name: "--semaphore in the background", args: []string{"--semaphore", "--id", "dbg", "echo bg"}},
	{name: "--id implies --semaphore", args: []string{"--id", "dbg2", "echo", "x"}},
	{name: "--bg", args: []string{"--bg", "--id", "dbg3", "echo", "y"}},
	{name: "--semaphore --wait", args: []string{"--semaphore", "--wait", "--id", "dw"}},
	{name: "--semaphore-timeout", args: []string{"--semaphore", "--fg", "--semaphore-timeout", "1", "--id", "dst", "echo", "z"}},
	{name: "--semaphore -j3", args: []string{"--semaphore", "-j3", "--fg", "--id", "dj", "echo", "j"}},
	{name: "--semaphorename", args: []string{"--semaphore", "--semaphorename", "dn", "--fg", "echo", "n"}},
	{name: "--semaphore default name", args: []string{"--semaphore", "--fg", "echo", "t"}},
}
