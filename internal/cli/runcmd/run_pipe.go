package runcmd

// GNU parallel's pipe mode (--pipe, --pipepart, --round-robin, --cat,
// --fifo, --block, --recstart, --recend, -N and --header with --pipe) and
// throttling (--load, --memfree, --nice) for "worksteal run". The
// semaphore is in run_semaphore.go.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/gnuinput"
	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/internal/joblog"
	"github.com/worksteal/worksteal/internal/runopts"
	"github.com/worksteal/worksteal/runner"
)

// pipeMode says the command line asks for pipe mode: --pipe, --pipepart,
// or what implies --pipe (--cat, --fifo).
func (p *pipeConfig) pipeMode() bool {
	// GNU parallel 20221122: --round-robin alone does not (whatever its
	// manual says): it is ignored in argument mode.
	// --group-by does (GNU: "if not --pipe and not --pipepart: --pipe").
	return p.pipe || p.pipePart || p.cat || p.fifo || perlTrue(p.groupBy)
}

// runGNUModes runs the modes of this file and run_semaphore.go: done says
// the command line was one of them (and err is how it ended).
func runGNUModes(env *cmdenv.Env, cmd *cobra.Command, cfg runConfig, args []string) (done bool, err error) {
	f := cmd.Flags()
	switch {
	case cfg.pipe.semaphore || semaphoreOnly(f):
		return true, runSemaphore(env, cmd, cfg, args)
	case cfg.pipe.pipeMode() && !cfg.pipe.tee: // --tee is argument mode's (run_tee.go)
		return true, runPipe(env, cmd, cfg, args)
	}
	return false, nil
}

// pipeArgsOptions are the options of GNU parallel's argument mode that pipe
// mode does not take, by their main names (-N and --header it does).
var pipeArgsOptions = []string{"null", "delimiter",
	"X", "m", "xargs", "eta", "shuf", "trim", "plus",
	"colsep", "link", "weight-col", "order", "costs-from", "speculate", "speculate-after", "http", "quote",
	"template"}

// pipeOptions reads the pipe flags into the runner's terms, refusing
// what does not go with them (naming the option and the value).
func pipeOptions(f *pflag.FlagSet, cfg runConfig) (gnuinput.PipeJobs, error) {
	p := cfg.pipe
	var pj gnuinput.PipeJobs
	_, shard := gnuChanged(f, "shard")
	_, bin := gnuChanged(f, "bin")
	_, group := gnuChanged(f, "group-by")
	for _, name := range pipeArgsOptions {
		if name == "colsep" && (shard || bin || group) {
			continue // their column separator
		}
		if given, ok := gnuChanged(f, name); ok {
			return pj, fmt.Errorf("%s is not supported in pipe mode (--pipe, --pipepart, --round-robin, --cat, --fifo)", given)
		}
	}
	if p.cat && p.fifo {
		return pj, errors.New("--cat and --fifo: give one of them")
	}
	if given, ok := gnuChanged(f, "group-by"); ok && perlTrue(p.groupBy) {
		// GNU: a --group-by record is lines; it refuses the options that
		// would say otherwise.
		for _, name := range []string{"remove-rec-sep", "recstart", "recend"} {
			if other, ok := gnuChanged(f, name); ok && (name != "recend" || p.recEnd != "\n") {
				return pj, fmt.Errorf("%s is not compatible with %s: a record of %s is a run of lines", other, given, given)
			}
		}
	}
	if p.roundRobin && (p.cat || p.fifo) {
		return pj, errors.New("--round-robin gives the blocks on stdin: not with --cat or --fifo")
	}
	if p.roundRobin && p.pipePart {
		return pj, errors.New("--round-robin with --pipepart is not supported: --pipepart --block -1 runs one job per slot")
	}
	pj.Cat, pj.Fifo, pj.Quote, pj.TempDir = p.cat, p.fifo, cfg.quote, cfg.gnu.tmpDir
	pj.Parens = cfg.gnu.parens
	if given, ok := gnuChanged(f, "block"); ok {
		v, err := gnuinput.ParseSize(given, p.block)
		if err != nil {
			return pj, sizeError(err)
		}
		switch {
		case v < 0 && !p.pipePart:
			return pj, fmt.Errorf("%s %q: a negative block (blocks per slot) is for --pipepart only", given, p.block)
		case v < 0 && v != math.Trunc(v):
			return pj, fmt.Errorf("%s %q: blocks per slot must be a whole number", given, p.block)
		case v > 0 && v < 1:
			return pj, fmt.Errorf("%s %q: want at least one byte", given, p.block)
		}
		pj.Block = int64(v)
		if v > 0 {
			pj.Block = int64(min(v, math.MaxInt32))
		}
	}
	if given, ok := gnuChanged(f, "block-timeout"); ok {
		// GNU: whole seconds (an alarm), at least 1.
		d, _, err := parseTimeout(p.blockTime)
		if err != nil || strings.HasSuffix(strings.TrimSpace(p.blockTime), "%") || d < time.Second {
			return pj, fmt.Errorf("%s %q: want at least 1 second (units s, m, h, d: 1m30s)", given, p.blockTime)
		}
		pj.BlockTimeout = d.Truncate(time.Second)
	}
	pj.RecStart, pj.RecEnd = unescapeRec(p.recStart), unescapeRec(p.recEnd)
	pj.Regexp, pj.RemoveRecSep = p.regexp, p.removeRec
	if p.regexp {
		pj.RecStart, pj.RecEnd = p.recStart, p.recEnd // GNU: regexps take \n themselves
	}
	if f.Changed("recend") && p.recEnd == "" && !f.Changed("recstart") {
		pj.Binary = true // --recend '': records end anywhere
	}
	// GNU: -N (and -n, -N's name here) is the records of a job, -L and -l
	// make a record of that many lines (-l alone, or 0, is 1); with both,
	// a job is -N × -L records.
	records, recName := "max-replace-args", cfg.gnu.maxReplaceArgs
	if _, ok := gnuChanged(f, "max-args"); ok {
		records, recName = "max-args", cfg.gnu.maxArgs
	}
	count := func(flag, value, what string) (int, string, bool, error) {
		given, ok := gnuChanged(f, flag)
		if !ok {
			return 0, "", false, nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(value))
		if flag == "max-lines" && given != "-L" && err == nil && n == 0 {
			n = 1
		}
		if flag != "max-lines" {
			given = "-N (" + given + ")"
		}
		if err != nil || n < 1 {
			return 0, given, true, fmt.Errorf("%s %q: want the number of %s, 1 or more", given, value, what)
		}
		if p.pipePart {
			return 0, given, true, fmt.Errorf("%s with --pipepart: records cannot be counted without reading the file; cut by --block, --recstart and --recend", given)
		}
		return n, given, true, nil
	}
	nRecords, _, recordsGiven, err := count(records, recName, "records per job")
	if err != nil {
		return pj, err
	}
	nLines, _, linesGiven, err := count("max-lines", cfg.gnu.maxLines, "lines per record")
	if err != nil {
		return pj, err
	}
	switch {
	case recordsGiven && linesGiven:
		pj.Records = nRecords * nLines // GNU's pass_n: max_number_of_args × max_lines
	case recordsGiven:
		pj.Records = nRecords
	case linesGiven:
		pj.Lines = nLines
	}
	// GNU: --tag and --tagstring tag each chunk's job as the command is
	// filled ({} is nothing, or --cat's file; {#} and {%} are the job's).
	if _, ok := gnuChanged(f, "tagstring"); ok {
		tag := unquotePrintf(cfg.gnu.tagString)
		pj.Tag = &tag
	} else if cfg.gnu.tag {
		tag := "{}"
		pj.Tag = &tag
	}
	if r := cfg.gnu.results; r != "" && !strings.HasSuffix(r, ".csv") && !strings.HasSuffix(r, ".tsv") && !strings.HasSuffix(r, ".json") {
		pj.Results = &r
	}
	// GNU: --skip-first-line drops stdin's first line; -r removes the
	// lines of white space from each block.
	pj.SkipFirstLine = cfg.gnu.skipFirstLine
	pj.NoBlankLines = cfg.gnu.noRunIfEmpty
	if cfg.gnu.csv && !p.pipePart {
		pj.CSV, pj.Records = true, 0 // GNU: whole CSV records; -N does not apply
	}
	if given, ok := gnuChanged(f, "header"); ok {
		h := cfg.gnu.header
		switch {
		case h == ":":
			h = `.*\n`
		case regexp.MustCompile(`^\d+$`).MatchString(h):
			n, _ := strconv.Atoi(h)
			if n > 10000 {
				return pj, fmt.Errorf("%s %q: at most 10000 lines", given, cfg.gnu.header)
			}
			h = strings.Repeat(`.*\n`, n)
		}
		if _, err := regexp.Compile(h); err != nil {
			return pj, fmt.Errorf("%s %q: not a regular expression: %v", given, cfg.gnu.header, err)
		}
		pj.Header = h
	}
	return pj, nil
}

// sizeError is ParseSize's error without the runner's prefix: it names
// the option and the value.
func sizeError(err error) error {
	return errors.New(strings.TrimPrefix(err.Error(), runner.ErrInvalidConfig.Error()+": "))
}

// unescapeRec reads --recstart and --recend as GNU parallel does: \n \r
// \t \0 \' \" \\ are the characters they name, anything else is literal.
func unescapeRec(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if c, ok := map[byte]byte{'n': '\n', 'r': '\r', 't': '\t', '0': 0, '\'': '\'', '"': '"', '\\': '\\'}[s[i+1]]; ok {
				b.WriteByte(c)
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// runPipe runs a pipe-mode batch: a job per chunk of stdin (--pipe), of
// the -a files (--pipepart), or a fixed set of jobs sharing the chunks
// (--round-robin); with --nats, the chunks are the cluster's tasks.
func runPipe(env *cmdenv.Env, cmd *cobra.Command, cfg runConfig, args []string) error {
	f := cmd.Flags()
	pj, err := pipeOptions(f, cfg)
	if err != nil {
		return runError(err)
	}
	template, sources, argBytes, err := splitPipeArgs(args, cfg.pipe.pipePart)
	if err != nil {
		return runError(err)
	}
	pj.Template, pj.ArgBytes = template, argBytes
	files := append(append([]string(nil), cfg.argFiles...), sources...)
	if !cfg.pipe.pipePart && len(files) > 0 {
		return runError(fmt.Errorf("--pipe reads its input on stdin, not from -a or :::: %s (use --pipepart -a FILE, or < FILE)", files[0]))
	}
	if cfg.pipe.pipePart && len(files) == 0 {
		return nil // GNU: --pipepart without -a or :::: runs nothing
	}
	for _, name := range files {
		if name == "-" {
			return runError(errors.New("--pipepart cuts a file in place: not stdin (use --pipe)"))
		}
	}
	throttle, nice, err := commonRunFlags(cmd, &cfg) // run_common.go
	if err != nil {
		return err
	}
	if cfg.nats != "" {
		if cfg.pipe.roundRobin || cfg.pipe.cat || cfg.pipe.fifo || cfg.pipe.shard != "" || cfg.pipe.bin != "" || cfg.pipe.groupBy != "" {
			return runError(errors.New("with --nats, each chunk is a task on its stdin: --round-robin, --cat, --fifo, --shard, --bin and --group-by are for a local run"))
		}
		return runPipeCluster(env, cmd, cfg, pj, files)
	}
	slots, err := parseSlots(cfg.jobs, 250, cfg.cpus) // -j 0: GNU's practical limit
	if err != nil {
		return runError(err)
	}
	absTimeout, factor, shell, err := timeoutAndShell(cfg)
	if err != nil {
		return runError(err)
	}
	stderr := cmd.ErrOrStderr()
	pj.Warn = stderr
	spread, group, stdin, err := spreadOptions(f, cfg, env.Stdin) // run_spread.go
	if err != nil {
		return runError(err)
	}
	if spread != nil {
		if strings.TrimSpace(cfg.jobs) == "0" {
			return runError(errors.New("--shard and --bin run -j jobs at once: give a number of jobs (-j N), not 0"))
		}
	}
	switch {
	case group != nil && cfg.pipe.pipePart:
		if pj, err = pj.GroupParts(group.Column); err != nil {
			return runError(err)
		}
	case group != nil:
		if pj, stdin, err = pj.GroupBy(stdin, *group); err != nil {
			return runError(err)
		}
	}

	// The jobs: all at once (--pipepart), or as the input is read.
	ctx, cancel := context.WithCancelCause(env.Ctx)
	defer cancel(nil)
	jobs, feedErr, parts, err := feedPipeJobs(ctx, cfg, pj, files, stdin, slots, spread)
	if err != nil {
		return runError(err)
	}
	// Resume: the chunks the joblog lists are not run again (GNU's
	// --resume with --pipe matches them by number, as in argument mode).
	todo := (<-chan runner.Job)(jobs)
	if cfg.resume || cfg.resumeFailed {
		records, err := readJoblogIfAny(cfg.joblog)
		if err != nil {
			return runError(err)
		}
		todo = skipLogged(ctx, jobs, records, cfg.resumeFailed)
	}
	if cfg.dryRun && !cfg.gnu.latestLine {
		for j := range todo {
			fmt.Fprintln(cmd.OutOrStdout(), jobio.Of(j).CommandIn(j.Command, 1))
		}
		return pipeFeedError(<-feedErr)
	}
	var jl *joblog.Log
	if !cfg.dryRun {
		var closeLog func()
		if jl, closeLog, err = openRunJoblog(cmd, cfg); err != nil {
			return runError(err)
		}
		defer closeLog()
	}
	total := -1
	if parts != nil {
		total = len(parts)
	}
	prog := newJobProgress(cfg.progress, stderr, total)
	rcfg := runner.Config{
		Slots: slots, Shell: shell, Timeout: absTimeout, TimeoutFactor: factor,
		Retries: extraTries(cfg.retries), RetryDelay: cfg.retryDelay,
		KeepOrder: cfg.keepOrder && !cfg.pipe.roundRobin, Stdout: prog.wrap(cmd.OutOrStdout()), Stderr: prog.wrap(stderr),
		Grace: cfg.grace, Progress: prog.update, Nice: nice,
	}
	o := runopts.Of(&rcfg)
	o.Joblog, o.Throttle = jl, throttle
	if err := pipeGNUConfig(f, cfg, &rcfg); err != nil {
		return runError(err)
	}
	if cfg.gnu.results != "" {
		// GNU: each chunk's job saved as in argument mode, named by its
		// (no) arguments or --results' replacement strings ({#}, {%}).
		sink, err := newResultsSink(cfg.gnu.results, false, cmd.OutOrStdout())
		if err != nil {
			return runError(err)
		}
		defer sink.Close()
		rcfg.Results = sink.take
		rcfg.Output, o.LatestLine = runner.OutputGroup, false
	}
	// GNU's --dry-run under --latest-line, as in argument mode (run.go):
	// each chunk's job runs "true" and its command, written into its
	// output as -v writes it, is painted on its row; no joblog is made.
	o.DryRun = cfg.dryRun
	o.Verbose = o.Verbose || cfg.dryRun
	return runPipeJobs(ctx, cancel, cfg, rcfg, todo, feedErr, prog, stderr)
}

// pipeGNUConfig adds to rcfg what argument mode's GNU options set (--halt,
// --delay, --line-buffer, -u, --env: run_gnu.go), which apply to the
// chunks' jobs too; a --halt percentage is refused.
func pipeGNUConfig(f *pflag.FlagSet, cfg runConfig, rcfg *runner.Config) error {
	var base runner.Config
	if err := cfg.gnu.config(f, &base); err != nil {
		return err
	}
	if strings.Contains(cfg.gnu.halt, "%") {
		return fmt.Errorf("--halt %q: a percentage of the jobs is not supported in pipe mode, whose jobs are counted as the input is read (give a count)", cfg.gnu.halt)
	}
	rcfg.Output, rcfg.Delay, rcfg.Env = base.Output, base.Delay, base.Env
	runopts.Of(rcfg).Halt = runopts.Of(&base).Halt
	runopts.Of(rcfg).LatestLine = runopts.Of(&base).LatestLine
	return cfg.gnu.config(f, rcfg)
}

// runPipeJobs runs the chunks' jobs as they come, then says how the run
// ended: its summary, and an exit status for a halt, an interruption, failed
// jobs or an input that could not be read to its end.
func runPipeJobs(ctx context.Context, cancel context.CancelCauseFunc, cfg runConfig, rcfg runner.Config, todo <-chan runner.Job, feedErr chan error, prog *jobProgress, stderr io.Writer) error {
	sum, err := runner.RunStream(ctx, rcfg, todo)
	prog.finish()
	cancel(errRunEnded)
	// The reader of the input has returned once the run took every job
	// (it closes jobs last); after a halt or an interruption it may be
	// blocked reading a stdin that does not end: it is not waited for.
	var ferr error
	if err == nil && (sum == nil || !runopts.Halted(sum)) {
		ferr = pipeFeedError(<-feedErr)
	}
	if ferr != nil {
		// The input could not be read to its end: the jobs of what was
		// read ran; the rest is lost, and said.
		if sum != nil && cfg.showSummary {
			fmt.Fprint(stderr, sum)
		}
		return ferr
	}
	if sum == nil {
		return runError(err)
	}
	if cfg.showSummary {
		fmt.Fprint(stderr, sum)
	}
	if err != nil {
		if errors.Is(err, runner.ErrInterrupted) {
			fmt.Fprintf(stderr, "interrupted: %d jobs finished\n", sum.Succeeded+sum.Failed)
		}
		return &cmdenv.ExitError{Code: interruptCode(err), Err: err}
	}
	if status, set := runopts.HaltStatus(sum); set {
		return haltExit(status, sum.Failed, cfg.showSummary)
	}
	return failedExit(sum.Failed, cfg.showSummary)
}

// feedPipeJobs starts the goroutine that makes the jobs of the chunks:
// all at once (--pipepart: parts lists them), spread over the slots
// (--shard, --bin), round-robin, or as the input is read. It closes jobs
// when it is done and sends its error (nil too) on feedErr.
func feedPipeJobs(ctx context.Context, cfg runConfig, pj gnuinput.PipeJobs, files []string, stdin io.Reader, slots int, spread *gnuinput.Spread) (jobs chan runner.Job, feedErr chan error, parts []runner.Job, err error) {
	jobs = make(chan runner.Job, slots)
	feedErr = make(chan error, 1)
	switch {
	case cfg.pipe.pipePart:
		if parts, err = pj.Parts(files, slots); err != nil {
			return nil, nil, nil, err
		}
		go func() {
			defer close(jobs)
			for _, j := range parts {
				select {
				case jobs <- j:
				case <-ctx.Done():
					feedErr <- nil
					return
				}
			}
			feedErr <- nil
		}()
	case spread != nil:
		go func() { feedErr <- pj.Spread(ctx, stdin, slots, *spread, jobs) }()
	case cfg.pipe.roundRobin:
		go func() { feedErr <- pj.RoundRobin(ctx, stdin, slots, jobs) }()
	default:
		go func() { feedErr <- pj.Stream(ctx, stdin, jobs) }()
	}
	return jobs, feedErr, parts, nil
}

// errRunEnded stops the reader of the input once the run has ended.
var errRunEnded = errors.New("the run ended")

// pipeFeedError is the error of reading the input, as run's exit: nil
// when the input was read or the run stopped reading it.
func pipeFeedError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, errRunEnded) {
		return nil
	}
	return runError(fmt.Errorf("reading the input: %w", err))
}

// splitPipeArgs cuts the command from the :::: files after it. Pipe mode
// has no ::: arguments: --pipepart ignores them (GNU parallel 20221122
// cuts the -a and :::: files alone, whatever ::: gives), --pipe refuses
// them.
func splitPipeArgs(args []string, part bool) (template, files []string, argBytes int64, err error) {
	i := 0
	for i < len(args) && !strings.HasPrefix(args[i], ":::") {
		i++
	}
	template = args[:i]
	for i < len(args) {
		isFile := args[i] == "::::" || args[i] == "::::+"
		switch {
		case isFile:
		case part && (args[i] == ":::" || args[i] == ":::+"):
		default:
			return nil, nil, 0, fmt.Errorf("%s: pipe mode takes its input on stdin (--pipe) or from files (--pipepart -a FILE, :::: FILE), not as arguments", args[i])
		}
		i++
		for ; i < len(args) && !strings.HasPrefix(args[i], ":::"); i++ {
			if isFile {
				files = append(files, args[i])
			} else {
				argBytes += int64(len(args[i]) + 1)
			}
		}
	}
	if len(template) == 0 {
		return nil, nil, 0, errors.New("pipe mode needs a command to give the blocks to")
	}
	return template, files, argBytes, nil
}

// checkRunFlags checks the flags that every mode of run shares (retries,
// resume, progress, summary) and settles their defaults.
func checkRunFlags(cfg *runConfig, cmd *cobra.Command) error {
	if cfg.retries < 0 {
		cfg.retries = 0 // GNU: a negative count is no limit, as 0
	}
	if cfg.gnu.noKeepOrder {
		cfg.keepOrder = false // GNU: --no-keep-order undoes -k
	}
	if (cfg.resume || cfg.resumeFailed) && cfg.joblog == "" {
		return runError(errors.New("--resume and --resume-failed need --joblog FILE"))
	}
	if cfg.bar {
		cfg.progress = "bar"
	}
	if cfg.gnu.eta && !cmd.Flags().Changed("progress") && !cfg.bar {
		cfg.progress = "on" // GNU: --eta implies --progress; ours shows the ETA
	}
	stderr := cmd.ErrOrStderr()
	switch cfg.progress {
	case "auto":
		cfg.progress = "none"
		if onTerminal(stderr) {
			cfg.progress = "bar"
		}
	case "on":
		cfg.progress = "auto"
	case "bar", "lines", "none":
	default:
		return runError(fmt.Errorf("--progress=%q: want bar, lines or none (or --progress alone)", cfg.progress))
	}
	cfg.showSummary = cfg.summary
	if !cmd.Flags().Changed("summary") {
		cfg.showSummary = onTerminal(stderr)
	}
	return nil
}

// readJoblogIfAny reads --joblog's rows (none for a file not made yet).
func readJoblogIfAny(joblogFlag string) ([]joblog.Record, error) {
	path := strings.TrimPrefix(joblogFlag, "+")
	if path == "" || path == "-" {
		return nil, nil
	}
	recs, err := joblog.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--joblog %w", err)
	}
	return recs, nil
}

// skipLogged passes on the jobs the joblog does not list as done.
func skipLogged(ctx context.Context, in <-chan runner.Job, records []joblog.Record, failedToo bool) <-chan runner.Job {
	done := map[int]bool{}
	for _, r := range records {
		done[r.Seq] = done[r.Seq] || !failedToo || r.OK()
	}
	out := make(chan runner.Job)
	go func() {
		defer close(out)
		for j := range in {
			if done[j.Seq] {
				j.Stdin = nil
				continue
			}
			select {
			case out <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// openRunJoblog opens --joblog as a local run does (+FILE and --resume
// append, - is stdout).
func openRunJoblog(cmd *cobra.Command, cfg runConfig) (*joblog.Log, func(), error) {
	path, appendLog := cfg.joblog, cfg.resume || cfg.resumeFailed
	if p, ok := strings.CutPrefix(path, "+"); ok {
		path, appendLog = p, true
	}
	return openJoblogAt(cmd, path, appendLog)
}

// runPipeCluster runs the chunks as the tasks of a cluster job: the whole
// input is cut first (a job's tasks are submitted together), each chunk is
// a task's stdin.
func runPipeCluster(env *cmdenv.Env, cmd *cobra.Command, cfg runConfig, pj gnuinput.PipeJobs, files []string) error {
	if pj.Block == 0 {
		// A task's chunk travels in one NATS message (1 MiB by default),
		// base64 in JSON: GNU's 1 MiB block would not fit.
		pj.Block = 512 << 10
	}
	var all []runner.Job
	var err error
	if cfg.pipe.pipePart {
		all, err = pj.Parts(files, 1)
		for i := range all {
			if err == nil {
				all[i].Stdin, err = jobio.Of(all[i]).Input(all[i].Stdin)
			}
		}
	} else {
		ch := make(chan runner.Job)
		errc := make(chan error, 1)
		go func() { errc <- pj.Stream(env.Ctx, env.Stdin, ch) }()
		for j := range ch {
			all = append(all, j)
		}
		err = <-errc
	}
	if err != nil {
		return runError(fmt.Errorf("reading the input: %w", err))
	}
	if len(all) == 0 {
		return nil
	}
	todo := all
	if cfg.resume || cfg.resumeFailed {
		records, err := readJoblogIfAny(cfg.joblog)
		if err != nil {
			return runError(err)
		}
		todo, _ = joblog.Resume(all, jobSeq, records, cfg.resumeFailed)
	}
	var rcfg runner.Config // --halt, --tag, --results (run_gnu.go)
	if err := cfg.gnu.config(cmd.Flags(), &rcfg); err != nil {
		return runError(err)
	}
	return runCluster(env, cmd, cfg, rcfg, all, todo)
}
