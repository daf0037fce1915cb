package runcmd

import (
	"github.com/spf13/pflag"
)

// This file holds the flags of GNU parallel's pipe mode, throttling and
// semaphore options (--pipe, --block, --pipepart, --round-robin, --cat,
// --fifo, --recstart, --recend, --regexp, --remove-rec-sep, --load,
// --memfree, --nice, --semaphore and its companions). --header and -N,
// which pipe mode shares with the argument mode, are in run_gnuopts.go
// (runConfig.gnu.header, runConfig.gnu.maxReplaceArgs).

// pipeConfig is what the pipe, throttle and semaphore flags fill in.
type pipeConfig struct {
	pipe       bool   // --pipe, --spreadstdin
	pipePart   bool   // --pipe-part, --pipepart
	block      string // --block, --block-size, --blocksize: a size (1M, -1 with --pipepart)
	roundRobin bool   // --round-robin, --roundrobin, --round
	cat        bool   // --cat
	fifo       bool   // --fifo
	recStart   string // --recstart
	recEnd     string // --recend
	regexp     bool   // --regexp, --regex
	removeRec  bool   // --remove-rec-sep, --removerecsep, --rrs
	blockTime  string // --block-timeout, --blocktimeout, --bt: a duration
	tee        bool   // --tee: all of the input to every job (of the ::: values)
	shard      string // --shard COLUMN: lines to -j jobs by a hash of the column
	bin        string // --bin COLUMN: lines to -j jobs by the column's number
	groupBy    string // --group-by COLUMN: a record is a run of lines of one value

	load    string // --load: max load average (N or N%)
	memFree string // --memfree: a size
	noSwap  bool   // --noswap: start no job while the machine swaps in and out
	nice    int    // --nice: niceness of the jobs
	limit   string // --limit: a command whose exit status says whether a job may start

	semaphore  bool   // --semaphore (and the "sem" command)
	semName    string // --semaphore-name, --semaphorename, --id
	semTimeout string // --semaphore-timeout, --semaphoretimeout, --st
	fg, bg     bool   // --fg, --bg
	wait       bool   // --wait
}

func addPipeFlags(f *pflag.FlagSet, p *pipeConfig) {
	f.BoolVar(&p.pipe, "pipe", false, "spread stdin to the jobs' stdin in blocks (GNU parallel --pipe)")
	gnuAlias(f, "pipe", "spreadstdin")
	f.BoolVar(&p.pipePart, "pipe-part", false, "with -a FILE: spread the parts of FILE to the jobs' stdin (GNU parallel --pipepart)")
	gnuAlias(f, "pipe-part", "pipepart")
	f.StringVar(&p.block, "block", "", "with --pipe: size of a block (default 1M; K, M, G, T ×1024; k, m, g, t ×1000); with --pipepart, -N: N blocks a slot")
	gnuAlias(f, "block", "block-size", "blocksize")
	f.BoolVar(&p.roundRobin, "round-robin", false, "with --pipe: at most -j jobs, each block to whichever reads next")
	gnuAlias(f, "round-robin", "roundrobin", "round")
	f.BoolVar(&p.cat, "cat", false, "with --pipe: write each block to a temporary file, {} its name")
	f.BoolVar(&p.fifo, "fifo", false, "with --pipe: write each block to a named pipe, {} its name")
	f.StringVar(&p.recStart, "recstart", "", "with --pipe: a record starts with this string")
	f.StringVar(&p.recEnd, "recend", "", "with --pipe: a record ends with this string (default \\n)")
	f.BoolVar(&p.regexp, "regexp", false, "with --pipe: --recstart and --recend are regular expressions")
	gnuAlias(f, "regexp", "regex")
	f.BoolVar(&p.removeRec, "remove-rec-sep", false, "with --pipe: remove the record separators")
	gnuAlias(f, "remove-rec-sep", "removerecsep", "rrs")
	f.StringVar(&p.blockTime, "block-timeout", "", "with --pipe: cut a chunk from what was read when a block takes longer than this to read (seconds, at least 1; units s, m, h, d)")
	gnuAlias(f, "block-timeout", "blocktimeout", "bt")
	f.BoolVar(&p.tee, "tee", false, "with --pipe: all of stdin to every job (a job per ::: value, all at once); with --pipepart: all of the -a file")
	f.StringVar(&p.shard, "shard", "", "with --pipe: -j jobs at once, each line to one by a hash of its column (a number, or a name in the first line); lines of one value go to one job")
	f.StringVar(&p.bin, "bin", "", "with --pipe: -j jobs at once, each line to the job its column's number names (modulo -j)")
	f.StringVar(&p.groupBy, "group-by", "", "with --pipe or --pipepart: a record is a run of lines with one value in this column (a number, or a name in the first line)")
	gnuAlias(f, "group-by", "groupby")
	f.StringVar(&p.load, "load", "", "start a job only while fewer than this many processes run or wait for the disk (N, +N, -N, N% of the CPUs; GNU parallel's measure)")
	f.BoolVar(&p.noSwap, "noswap", false, "start no job while the machine swaps both in and out (/proc/vmstat, read each second)")
	f.StringVar(&p.memFree, "memfree", "", "start a job only while this much memory is free (K, M, G, T ×1024; k, m, g, t ×1000); below half of it, kill the youngest job")
	f.StringVar(&p.limit, "limit", "", "before each job start run this shell command: exit 0 starts it, 1 waits, 2 also kills the youngest job ('mem SIZE' and 'load N' built in)")
	f.IntVar(&p.nice, "nice", 0, "run the jobs at this niceness (never below worksteal's own)")
	f.BoolVar(&p.semaphore, "semaphore", false, "work as a counting semaphore across invocations (GNU sem)")
	f.StringVar(&p.semName, "semaphore-name", "", "with --semaphore: the semaphore's name")
	gnuAlias(f, "semaphore-name", "semaphorename", "id")
	f.StringVar(&p.semTimeout, "semaphore-timeout", "", "with --semaphore: give up (or go on) after waiting this long")
	gnuAlias(f, "semaphore-timeout", "semaphoretimeout", "st")
	f.BoolVar(&p.fg, "fg", false, "with --semaphore: run the command in the foreground")
	f.BoolVar(&p.bg, "bg", false, "with --semaphore: run the command in the background")
	f.BoolVar(&p.wait, "wait", false, "with --semaphore: wait for the semaphore's commands to finish")
}
