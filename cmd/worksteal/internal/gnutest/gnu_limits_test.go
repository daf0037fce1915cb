package gnutest

// The differential cases of issue 29 for --show-limits and -l given
// without its value, side by side with GNU parallel 20221122.

func init() { gnuCases = append(gnuCases, gnuLimitsCases...) }

var gnuLimitsCases = []gnuCase{
	// --show-limits: GNU's report on stdout (the longest command line
	// found on this machine, the usable part), then the run goes on.
	{name: "29.14 --show-limits, then the jobs", args: []string{"-k", "--show-limits", "echo", ":::", "a", "b"}},
	{name: "29.14 --show-limits with -s: the usable size is -s", args: []string{"-k", "-s", "100", "--show-limits", "echo", ":::", "a"}},
	{name: "29.14 --showlimits reads its input from stdin", args: []string{"--showlimits", "echo"}, stdin: "x\n"},
	{name: "29.14 --show-limits with --pipe", args: []string{"--pipe", "--show-limits", "wc", "-l"}, stdin: "x\ny\n"},
	// -l with no value: GNU's optional integer reads it as 1.
	{name: "29.14 -l with no value is -l 1", args: []string{"-k", "-l", "echo"}, stdin: "1\n2\n3\n"},
	{name: "29.14 -l with no value before another option", args: []string{"-l", "-k", "echo", "x"}, stdin: "1\n2\n3\n"},
	{name: "29.14 --max-lines with no value", args: []string{"-k", "--max-lines", "echo"}, stdin: "1\n2\n3\n"},
	{name: "29.14 -kl bundled with no value", args: []string{"-kl", "echo"}, stdin: "1\n2\n3\n"},
	{name: "29.14 -l with no value takes records without context", args: []string{"-k", "-j1", "--dry-run", "-l", "echo", "{}x", ":::", "1", "2", "3"}},
	{name: "29.14 -l 2 still takes its value", args: []string{"-k", "-l", "2", "echo"}, stdin: "1\n2\n3\n"},
}

func init() {
	// --memsuspend with plenty of free memory: as without it.
	gnuCases = append(gnuCases, gnuCase{name: "29.14 --memsuspend with plenty of free memory", args: []string{"-k", "--memsuspend", "1M", "echo", ":::", "a", "b", "c"}})
}
