package gnutest

// The differential cases of issue 29 for GNU parallel's options that
// worksteal refused before as not supported yet: each as it was built,
// side by side with GNU parallel 20221122.

func init() { gnuCases = append(gnuCases, gnuRefusedCases...) }

var gnuRefusedCases = []gnuCase{
	// --parens: the delimiters of a perl expression, the string's halves.
	// Perl is refused as {= =} is; anything else is text.
	{name: "29.12 --parens: {= =} is then text", args: []string{"-k", "--parens", ",,,,", "echo", "foo {=x=} is", ":::", "FII"}},
	{name: "29.12 --parens: a delimiter without its pair is text", args: []string{"-k", "--parens", "[[]]", "echo", "a]]x", "a[[b", ":::", "FII"}},
	{name: "29.12 --parens: perl may span words", args: []string{"--parens", "[[]]", "echo", "[[s/I/O/g", "]]", ":::", "FII"}, wsRefuses: true},
	{name: "29.12 --parens of odd length: the halves", args: []string{"-k", "--parens", "abc", "echo", "x{}", "bca", ":::", "FII"}},
	{name: "29.12 --parens: perl between them is refused", args: []string{"--parens", ",,,,", "echo", ",,s/I/O/g,,", ":::", "FII"}, wsRefuses: true},
	// --compress, --compress-program, --decompress-program: each job's
	// output through the compressor and back, whole, when it ends.
	{name: "29.12 --compress gives the output back", args: []string{"-k", "--compress", "--joblog", "-", "echo {}; echo e{} >&2", ":::", "a", "bb"}, joblog: "-", stderr: true},
	{name: "29.12 --compress-program and --decompress-program", args: []string{"-k", "--compress-program", "tr a-z A-Z", "--decompress-program", "cat", "--joblog", "-", "echo {}; echo e{} >&2", ":::", "a", "bb"}, joblog: "-", stderr: true},
	{name: "29.12 --compress-program alone decompresses with -dc", args: []string{"-k", "--compress-program", "gzip", "--tag", "echo {}", ":::", "a", "b"}},
	{name: "29.12 --compress with its own --decompress-program", args: []string{"-k", "--compress", "--decompress-program", "od -An -c | wc -l", "echo {}", ":::", "a"}},
	{name: "29.12 a failing compressor fails the job", args: []string{"-k", "--compress-program", "false", "--joblog", "-", "echo {}", ":::", "a", "b"}, joblog: "-"},
	// --term-seq: the signals that stop a job (here at its --timeout),
	// each with its wait. The job traps the signals and says which came;
	// the timeout (5 s, was 3) leaves a busy machine room to start the
	// job's shell and set its traps before the first signal.
	{name: "29.12 --term-seq INT first", args: []string{"--timeout", "5", "--joblog", "-", "--term-seq", "INT,5000,KILL,25", ":::", trapJob}, joblog: "-"},
	{name: "29.12 --termseq: TERM ignored, then KILL", args: []string{"--timeout", "5", "--joblog", "-", "--termseq", "TERM,100,KILL,25", ":::", "trap '' TERM; while :; do sleep 0.1; done"}, joblog: "-"},
	{name: "29.12 --term-seq: a signal without its wait", args: []string{"--timeout", "5", "--term-seq", "SIGINT", ":::", trapJob}},
	{name: "29.12 --term-seq with a bad signal is refused", args: []string{"--term-seq", "FOO,1", "echo", ":::", "a"}, wsRefuses: true},
	// --noswap: no start while the machine swaps in and out (this one
	// does not).
	{name: "29.12 --noswap runs the jobs of a machine that does not swap", args: []string{"-k", "--noswap", "echo", ":::", "a", "b"}},
	// --tty and --open-tty off a terminal (TestGNUTTYJobsReadTheTerminal
	// has them on one): the jobs get no terminal; --tty is -j1 -u unless
	// -j or --group are given.
	{name: "29.12 --tty off a terminal: one job at a time, as it comes", args: []string{"--tty", "echo {}; tty", ":::", "a", "b"}},
	{name: "29.12 -o off a terminal", args: []string{"-o", "-k", "echo {}; tty", ":::", "a", "b"}},
	{name: "29.12 --open-tty with --group and -j2", args: []string{"--open-tty", "--group", "-j2", "-k", "echo {}; tty", ":::", "a", "b"}},
	{name: "29.12 --tty -j2 --group", args: []string{"--tty", "-j2", "--group", "-k", "echo {}; tty", ":::", "a", "b"}},
	// --template FILE=NAME: the man page's example, without its Perl.
	{name: "29.12 --tmpl writes a filled file per job", args: []string{"-j1", "--header", ":", "--tmpl", "my.tmpl={#}.t", "cat {#}.t", ":::", "x", "1.234", "2.5", ":::", "y", "1", "2"},
		files: map[string]string{"my.tmpl": tmplText}},
	{name: "29.12 --template: one name per file, the last", args: []string{"-k", "-j1", "--template", "my.tmpl=a{}.t", "--template", "my.tmpl=b{}.t", "--template", "two.tmpl={}.2", "cat b{}.t {}.2", ":::", "p q", "r"},
		files: map[string]string{"my.tmpl": tmplText, "two.tmpl": "{#} {}\n"}},
	{name: "29.12 --template of a missing file is refused", args: []string{"--template", "nofile=x", "echo", ":::", "a"}, refused: true},
	{name: "29.12 --template with Perl is refused", args: []string{"--template", "my.tmpl=x", "echo", ":::", "a"}, wsRefuses: true,
		files: map[string]string{"my.tmpl": "TenX: {=1 $_=$_*10 =}\n"}},
}

// tmplText is a --template file: its replacement strings, and text.
const tmplText = "Xval: {x}\nYval: {y}\nFixed: 9 {} {.}\nseq {#} slot {%} {1/} {2}\n"

// trapJob runs until it is stopped, and says which of INT and TERM
// stopped it.
const trapJob = "trap 'echo got INT; exit 3' INT; trap 'echo got TERM; exit 4' TERM; while :; do sleep 0.1; done"
