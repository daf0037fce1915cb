package gnutest

// The differential cases of issue 29 for GNU parallel's options that
// worksteal refused before as "another program's mode, or a question
// about GNU parallel or the machine": each as it was built, side by side
// with GNU parallel 20221122.

func init() { gnuCases = append(gnuCases, gnuMachineCases...) }

// seq32 is 32 arguments: -m spreads them over the slots, so the lines
// of output are the slots -j gave (GNU's $PARALLEL_CPUINFO machine: 2
// sockets, 8 cores, 16 threads).
const seq32 = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25\n26\n27\n28\n29\n30\n31\n32\n"

var gnuMachineCases = []gnuCase{
	// --use-*-instead-of-*: what -j's CPUs count.
	{name: "29.13 -j 100% counts the threads", args: []string{"-k", "-m", "-j", "100%", "echo"}, stdin: seq32, env: []string{"PARALLEL_CPUINFO=" + fakeCPUInfo}},
	{name: "29.13 --use-cores-instead-of-threads: -j 100% counts the cores", args: []string{"-k", "-m", "-j", "100%", "--use-cores-instead-of-threads", "echo"}, stdin: seq32, env: []string{"PARALLEL_CPUINFO=" + fakeCPUInfo}},
	{name: "29.13 --use-cores-instead-of-threads: the default -j", args: []string{"-k", "-m", "--use-cores-instead-of-threads", "echo"}, stdin: seq32, env: []string{"PARALLEL_CPUINFO=" + fakeCPUInfo}},
	{name: "29.13 --use-sockets-instead-of-threads: -j +1 counts the sockets", args: []string{"-k", "-m", "-j", "+1", "--use-sockets-instead-of-threads", "echo"}, stdin: seq32, env: []string{"PARALLEL_CPUINFO=" + fakeCPUInfo}},
	{name: "29.13 --use-sockets-instead-of-threads wins over --use-cpus-instead-of-cores", args: []string{"-k", "-m", "-j", "50%", "--use-cpus-instead-of-cores", "--use-sockets-instead-of-threads", "echo"}, stdin: seq32, env: []string{"PARALLEL_CPUINFO=" + fakeCPUInfo}},
	{name: "29.13 --use-cpus-instead-of-cores: this machine's threads", args: []string{"-k", "-m", "-j", "50%", "--use-cpus-instead-of-cores", "echo"}, stdin: seq32, env: []string{"PARALLEL_CPUINFO=" + fakeCPUInfo}},
	// --max-line-length-allowed: GNU's search for the longest command
	// line, run on this machine by both.
	{name: "29.13 --max-line-length-allowed", args: []string{"--max-line-length-allowed"}},
	{name: "29.13 --max-line-length-allowed runs nothing", args: []string{"--max-line-length-allowed", "echo", ":::", "a"}},
	// --shell-quote: each command line printed quoted, nothing run.
	{name: "29.13 --shell-quote: input lines as commands", args: []string{"-k", "--shell-quote"}, stdin: "a b\nc$d\n"},
	{name: "29.13 --shell-quote: the command and its quoted argument", args: []string{"-k", "--shell-quote", "it's", "x y", ":::", "1", "a'b"}},
	{name: "29.13 --shell-quote twice quotes twice", args: []string{"--shell-quote", "--shell-quote", "echo", ":::", "a b"}},
	{name: "29.13 --shellquote with -X", args: []string{"-k", "-j1", "--shellquote", "-X", "echo", ":::", "a'b", "c"}},
	{name: "29.13 --shell-quote: the joblog has the command", args: []string{"--joblog", "-", "--shell-quote", "echo", ":::", "a b"}, joblog: "-"},
	// --profile NAME, -J NAME: option lines of ~/.parallel/NAME (HOME a
	// directory of the case's own), read before the command line's.
	{name: "29.13 --profile: options from ~/.parallel/NAME", sh: `HOME=$PWD/h $P --profile p1 -j2 echo ::: a b` + profileClean, files: profileFiles},
	{name: "29.13 -J twice: the command line wins, the profile's command words first", sh: `HOME=$PWD/h $P -J p1 -J p2 --tagstring z echo ::: a b` + profileClean, files: profileFiles},
	{name: "29.13 -J ./FILE: that file", sh: `HOME=$PWD/h $P -J ./h/.parallel/p1 echo ::: q` + profileClean, files: profileFiles},
	{name: "29.13 -J of a name in $PARALLEL_HOME", sh: `HOME=$PWD/h PARALLEL_HOME=$PWD/ph $P -J p5 echo ::: a b` + profileClean, files: profileFiles},
	{name: "29.13 -J of a name not there is skipped", sh: `HOME=$PWD/h $P -J nosuch -k echo ::: a b` + profileClean, files: profileFiles},
	{name: "29.13 --plain ignores -J", sh: `HOME=$PWD/h $P --plain -J p1 -k echo ::: a b` + profileClean, files: profileFiles},
	// Without -J, GNU's config files; $PARALLEL after them.
	{name: "29.13 ~/.parallel/config and ~/.parallelrc are read", sh: `HOME=$PWD/h $P echo ::: b a` + profileClean, files: configFiles},
	{name: "29.13 $PARALLEL's options, before the command line's", sh: `HOME=$PWD/h PARALLEL='-j1 --tagstring "p q"' $P -k --tag echo ::: b a` + profileClean, files: configFiles},
	{name: "29.13 -J replaces the config files, $PARALLEL is read", sh: `HOME=$PWD/h PARALLEL='-j1 --tagstring "p q"' $P -J p2 --tagstring r echo ::: b a` + profileClean, files: configFiles},
	{name: "29.13 --plain reads neither", sh: `HOME=$PWD/h PARALLEL=--tag $P --plain -k echo ::: b a` + profileClean, files: configFiles},
	{name: "29.13 $PARALLEL with an unknown option is refused", sh: `HOME=$PWD/h PARALLEL='-j1 --xyz' $P echo ::: a` + profileClean, refused: true, onlyStatus: true},
	{name: "29.13 -J of a profile with a bad option is refused", sh: `HOME=$PWD/h $P -J p4 echo ::: a` + profileClean, files: profileFiles, refused: true, onlyStatus: true},
}

// profileClean drops what GNU parallel caches in its config directory
// (tmp/sshlogin/...), keeping the exit status.
const profileClean = "; s=$?; rm -rf h/.parallel/tmp ph/tmp; exit $s"

// profileFiles are GNU parallel profiles in a HOME (h) of a case's own.
var profileFiles = map[string]string{
	"h/.parallel/will-cite": "",
	"h/.parallel/p1":        "-k --tag\n# a comment\n  --tagstring \"x y\"\n",
	"h/.parallel/p2":        "nice -n 1\n",
	"h/.parallel/p4":        "--env X -a\n",
	"ph/p5":                 "-k\n--tagstring 'in ph'\n",
}

// configFiles are GNU parallel's config files in a HOME (h) of a case's
// own, and a profile.
var configFiles = map[string]string{
	"h/.parallel/will-cite": "",
	"h/.parallel/config":    "--tag\n",
	"h/.parallelrc":         "-k\n",
	"h/.parallel/p2":        "nice -n 1\n",
}
