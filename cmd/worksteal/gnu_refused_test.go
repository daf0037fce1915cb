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
}
