package main

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
}
