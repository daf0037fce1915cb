package cli

import (
	"fmt"
	"regexp"
	"strings"
)

// gnuOptions are GNU parallel's options (20221122) that "worksteal run"
// does not support, by every name GNU parallel accepts: a user who gives
// one gets an error that names it as GNU parallel's, never a misreading.
// The options run does support are its own flags.
var gnuOptions = gnuOptionSet(
	// Input and arguments.
	"null|0", "delimiter|d", "arg-sep|argsep", "arg-file-sep|argfilesep", "xargs", "m", "X",
	"max-args|maxargs|n", "max-replace-args|maxreplaceargs|N", "max-chars|maxchars|s", "L",
	"max-lines|maxlines|l", "no-run-if-empty|norunifempty|r", "eof|e", "E", "replace|i", "I",
	"extensionreplace|er", "U", "basenamereplace|bnr", "dirnamereplace|dnr",
	"basenameextensionreplace|bner", "seqreplace", "slotreplace", "plus", "rpl", "parens",
	"header", "csv", "trim", "skip-first-line|skipfirstline", "shuf", "linkinputsource|xapplyinputsource",
	"xapply", "context-replace", "templates|tmpl|template", "a-sep",
	// Output.
	"group|g", "ungroup|u", "line-buffer|line-buffered|linebuffer|linebuffered|lb",
	"latest-line|latestline|ll", "tag", "tag-string|tagstring", "ctag", "ctag-string|ctagstring",
	"color|colour", "color-failed|colour-failed|colorfailed|colourfailed|cf", "results|result|res",
	"output-as-files|outputasfiles|files", "tmpdir|tempdir", "compress",
	"compress-program|use-compress-program", "decompress-program|use-decompress-program",
	"tee", "fifo", "cat", "tmux", "tmux-pane|tmuxpane", "no-keep-order|nokeeporder|nok|no-k",
	"verbose|t", "v", "silent", "eta", "total-jobs|totaljobs|total",
	// Scheduling and limits.
	"max-procs|maxprocs|P", "delay", "load", "noswap", "memfree", "memsuspend", "nice",
	"halt-on-error|halt", "term-seq|termseq", "retry-failed|retryfailed", "number-of-cpus|numberofcpus",
	"number-of-cores|numberofcores", "number-of-sockets|numberofsockets", "number-of-threads|numberofthreads",
	"use-cores-instead-of-threads|usecoresinsteadofthreads", "use-cpus-instead-of-cores|usecpusinsteadofcores",
	"use-sockets-instead-of-threads|usesocketsinsteadofthreads", "threads", "process-slot-var|processslotvar",
	"interactive|p", "open-tty|o", "tty", "T", "exit|x", "ctrl-c|ctrlc", "no-ctrl-c|noctrlc",
	"dryrun|dr", "keeporder",
	// Remote execution.
	"sshlogin|S", "sshloginfile|slf", "sshdelay|ssh-delay", "ssh", "controlmaster|M", "transfer",
	"transferfile|transfer-file|tf", "return", "trc", "cleanup", "basefile|bf", "workdir|work-dir|wd",
	"W", "rsync-opts|rsyncopts", "onall", "nonall", "filter-hosts|filterhosts", "env", "record-env|recordenv",
	"hostgroups|hgrp|hostgroup", "B", "profile|J", "sql", "sqlmaster|sql-master", "sqlworker|sql-worker",
	"sqlandworker|sql-and-worker",
	// Pipe mode.
	"pipe|spreadstdin", "pipe-part|pipepart", "block|block-size|blocksize", "block-timeout|blocktimeout|bt",
	"recstart", "recend", "regexp|regex", "remove-rec-sep|removerecsep|rrs", "round-robin|roundrobin|round",
	"shard", "bin", "group-by|groupby",
	// Other programs' modes.
	"semaphore", "sem", "semaphore-timeout|semaphoretimeout|st", "semaphore-name|semaphorename|id",
	"fg", "bg", "wait", "shebang|hashbang", "shebang-wrap", "embed", "filter", "citation", "bibtex",
	"show-limits|showlimits", "max-line-length-allowed", "shellquote|shell-quote", "tollef", "gnu",
	"minversion", "version|V", "D|debug", "Y", "H", "shell-completion|shellcompletion",
)

func gnuOptionSet(specs ...string) map[string]string {
	m := map[string]string{}
	for _, spec := range specs {
		names := strings.Split(spec, "|")
		canon := names[0]
		if len(canon) == 1 {
			canon = "-" + canon
		} else {
			canon = "--" + canon
		}
		for _, n := range names {
			m[n] = canon
		}
	}
	return m
}

var (
	unknownLongRE  = regexp.MustCompile(`^unknown flag: --([^= ]+)`)
	unknownShortRE = regexp.MustCompile(`^unknown shorthand flag: '(.)'`)
)

// gnuFlagError turns pflag's "unknown flag" into an error that names a GNU
// parallel option as such.
func gnuFlagError(err error) error {
	name := ""
	if m := unknownLongRE.FindStringSubmatch(err.Error()); m != nil {
		name = m[1]
	} else if m := unknownShortRE.FindStringSubmatch(err.Error()); m != nil {
		name = m[1]
	}
	canon, ok := gnuOptions[name]
	if !ok {
		return err
	}
	given := "--" + name
	if len(name) == 1 {
		given = "-" + name
	}
	if given != canon {
		given += " (" + canon + ")"
	}
	return fmt.Errorf("GNU parallel's option %s is not supported by worksteal run (see worksteal run --help for the options it supports)", given)
}
