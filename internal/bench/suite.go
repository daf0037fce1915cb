package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/internal/loadstat"
)

// ErrMismatch is returned (wrapped) by Suite.Run when some implementation
// computed a result other than the reference.
var ErrMismatch = errors.New("bench: wrong result")

// Entry is one table of a suite: a workload at one size, run by several
// implementations.
type Entry struct {
	Workload string `json:"workload"` // one of Workloads()
	Size     string `json:"size"`     // in the workload's syntax, e.g. "35" or "T1"
	Impls    []Impl `json:"impls"`    // in table order; Seq first, as the baseline
}

// Cell is one measured combination: an entry's implementation at one worker
// count.
type Cell struct {
	Workload string `json:"workload"` // the entry's workload
	Size     string `json:"size"`     // the entry's size
	Impl     Impl   `json:"impl"`     // one of the entry's implementations
	Workers  int    `json:"workers"`  // GOMAXPROCS and pool workers
}

// String formats the cell as "workload size impl workers".
func (c Cell) String() string {
	return fmt.Sprintf("%s %s %s %dw", c.Workload, c.Size, c.Impl, c.Workers)
}

// Progress reports how far a running suite has come; see Suite.Progress.
type Progress struct {
	Cell      Cell // the cell running now
	CellIndex int  // its index, from 0
	Cells     int  // cells in the suite
	Done      int  // iterations finished in the whole suite, warm-up included
	Total     int  // iterations planned in the whole suite (grows with re-runs)
	Starting  bool // the call announces the start of the cell
	Attempt   int  // 1, or more when the cell is re-run (Suite.MaxLoad)
}

// Suite runs a plan of cells, each as warm-up iterations followed by timed
// ones, and builds the comparison tables. The zero value of a field selects
// its default. A Suite changes GOMAXPROCS while it runs (see Instance), so
// run one at a time.
type Suite struct {
	// Entries is the plan; nil means DefaultPlan().
	Entries []Entry
	// Workers lists the worker counts to run each parallel implementation
	// with, in increasing order; nil means {1, 2}. Seq always runs once, with
	// 1 worker.
	Workers []int
	// Reps is the number of timed iterations per cell (default 5).
	Reps int
	// Warmup is the number of untimed iterations before them (0 means the
	// default, 1; a negative value means none).
	Warmup int
	// Progress, if set, is called when a cell starts and after every
	// iteration, from the goroutine that called Run.
	Progress func(Progress)
	// MaxLoad, if positive, re-runs a cell (up to Retries more times) when
	// other processes kept more than MaxLoad cores busy on average while it
	// ran, beyond the cores the cell leaves free (NumCPU − workers); the
	// quietest attempt is kept. Linux only; cells shorter than half a second
	// are never judged.
	MaxLoad float64
	// Retries bounds the re-runs of one cell for MaxLoad.
	Retries int
	// RetryBudget, if positive, bounds the total time spent re-running cells:
	// once re-runs have taken that long, no cell is re-run any more.
	RetryBudget time.Duration
	// Counters, if set, counts each cell's timed iterations with
	// worksteal.CountProcess (hardware and kernel events of the whole
	// process, RAPL energy): CellResult.Counters, per iteration.
	Counters bool
}

// DefaultPlan is the standard comparison: fib 30 and 35, nqueens 12 and 13,
// the anchor UTS at b0 = 6000 and UTS T1. Goroutine-per-fork (WG) runs only at
// the smaller sizes (at fib 35 it takes half a minute per iteration), and
// the closure form only at fib 30, where it shows its cost per join. It
// takes about 2–3 minutes on 2 cores with 3 repetitions.
func DefaultPlan() []Entry {
	return filterPlan([]Entry{
		{"fib", "30", []Impl{Seq, WG, WGCutoff, WS, WSClosure}},
		{"fib", "35", []Impl{Seq, WGCutoff, WS}},
		{"nqueens", "12", []Impl{Seq, WG, WGCutoff, WS}},
		{"nqueens", "13", []Impl{Seq, WGCutoff, WS}},
		{"uts", "6000", []Impl{Seq, WG, WGCutoff, WS}},
		{"uts-sha1", "T1", []Impl{Seq, WG, WGCutoff, WS}},
	})
}

// QuickPlan is a small version of DefaultPlan (fib 27, nqueens 11, UTS
// b0 = 2000, a 257,042-node UTS-SHA1 tree) with every implementation; it
// takes about 20 seconds on 2 cores with 3 repetitions.
func QuickPlan() []Entry {
	var plan []Entry
	for _, w := range workloads {
		for _, size := range w.quickSizes {
			plan = append(plan, Entry{w.name, size, allImpls})
		}
	}
	return filterPlan(plan)
}

// filterPlan drops the implementations not built into this binary.
func filterPlan(plan []Entry) []Entry {
	for i := range plan {
		plan[i].Impls = slices.DeleteFunc(slices.Clone(plan[i].Impls), func(im Impl) bool { return !Available(im) })
	}
	return plan
}

func (s *Suite) entries() []Entry {
	if s.Entries == nil {
		return DefaultPlan()
	}
	return s.Entries
}

func (s *Suite) workers() []int {
	if len(s.Workers) == 0 {
		return []int{1, 2}
	}
	return s.Workers
}

func (s *Suite) reps() int {
	if s.Reps <= 0 {
		return 5
	}
	return s.Reps
}

func (s *Suite) warmup() int {
	switch {
	case s.Warmup == 0:
		return 1
	case s.Warmup < 0:
		return 0
	}
	return s.Warmup
}

// Cells lists the cells the suite runs, in order: entry by entry,
// implementation by implementation, worker count by worker count.
func (s *Suite) Cells() []Cell {
	var cells []Cell
	for _, e := range s.entries() {
		for _, im := range e.Impls {
			if im == Seq { // the baseline of every ratio: 1 worker, whatever Workers says
				cells = append(cells, Cell{e.Workload, e.Size, Seq, 1})
				continue
			}
			for _, w := range s.workers() {
				cells = append(cells, Cell{e.Workload, e.Size, im, w})
			}
		}
	}
	return cells
}

// Validate checks that every entry names a known workload, size and an
// implementation built into this binary, without running anything.
func (s *Suite) Validate() error {
	for _, e := range s.entries() {
		p, err := parse(e.Workload, e.Size)
		if err != nil {
			return err
		}
		for _, im := range e.Impls {
			if err := p.offers(e.Workload, im); err != nil {
				return err
			}
		}
	}
	for _, w := range s.workers() {
		if w < 1 || w > MaxWorkers {
			return fmt.Errorf("%w: %d workers (want 1..%d)", ErrBadWorkers, w, MaxWorkers)
		}
	}
	return nil
}

// Run runs every cell and returns the report. It stops early, returning
// the cells completed so far, as soon as ctx is done (the iteration under
// way is abandoned, see [Instance.RunContext], and its cell left out). If some result differs from the
// reference (the published value, or else Seq's result), the report marks
// the cell and Run returns an error wrapping ErrMismatch along with it.
func (s *Suite) Run(ctx context.Context) (*Report, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	cells := s.Cells()
	reps, warm := s.reps(), s.warmup()
	rep := &Report{
		Env:     currentEnv(),
		Reps:    reps,
		Warmup:  warm,
		Workers: s.workers(),
		Entries: s.entries(),
	}
	start := time.Now()
	prog := Progress{Cells: len(cells), Total: len(cells) * (reps + warm)}
	report := func() {
		if s.Progress != nil {
			s.Progress(prog)
		}
	}
	var runErr error
	var retrySpent time.Duration
	for i, c := range cells {
		if err := ctx.Err(); err != nil {
			runErr = err
			break
		}
		prog.Cell, prog.CellIndex = c, i
		var best CellResult
		var err error
		for attempt := 1; ; attempt++ {
			prog.Starting, prog.Attempt = true, attempt
			report()
			prog.Starting = false
			var cr CellResult
			t0 := time.Now()
			cr, err = runCell(ctx, c, reps, warm, s.Counters, func() { prog.Done++; report() })
			if attempt > 1 {
				retrySpent += time.Since(t0)
			}
			cr.Attempts = attempt
			if attempt == 1 || !best.LoadKnown || (cr.LoadKnown && cr.OtherLoad < best.OtherLoad) {
				best = cr
			}
			best.Attempts = attempt
			if err != nil || s.MaxLoad <= 0 || !cr.LoadKnown || cr.OtherLoad <= s.MaxLoad+spareCPUs(c.Workers) ||
				attempt > s.Retries || (s.RetryBudget > 0 && retrySpent >= s.RetryBudget) {
				break
			}
			prog.Total += reps + warm // one more attempt
		}
		if err != nil && ctx.Err() != nil {
			// Interrupted in the middle of the cell: its iterations are
			// incomplete, so it is left out (its median would be wrong).
			runErr = err
			break
		}
		rep.Cells = append(rep.Cells, best)
		if err != nil {
			runErr = err
			break
		}
	}
	rep.Env.ElapsedS = time.Since(start).Seconds()
	if err := rep.check(); err != nil && runErr == nil {
		runErr = err
	}
	rep.Tables = buildTables(rep)
	return rep, runErr
}

// runCell measures one cell; tick is called after every iteration.
func runCell(ctx context.Context, c Cell, reps, warm int, counters bool, tick func()) (CellResult, error) {
	cr := CellResult{Cell: c}
	in, err := Prepare(c.Workload, c.Size, c.Impl, c.Workers)
	if err != nil {
		return cr, err
	}
	abandoned := false
	defer func() {
		if !abandoned {
			in.Close()
		}
	}()
	// Start from a collected heap, as a fresh process would: the garbage of
	// the previous cell (a goroutine per fork allocates a lot) must not be
	// swept or marked on this cell's time.
	runtime.GC()
	before := sampleCPU()
	var steals []uint64
	var count *worksteal.ProcessCounters
	defer func() {
		if count != nil {
			count.Close()
		}
	}()
	for i := range warm + reps {
		if err := ctx.Err(); err != nil {
			return cr, err
		}
		if counters && i == warm {
			count = worksteal.CountProcess()
		}
		it, err := in.RunContext(ctx)
		if ctx.Err() != nil && err == ctx.Err() {
			abandoned = true // still running: closing its pool would wait for it
			return cr, err
		}
		if err != nil {
			return cr, fmt.Errorf("bench: %v: %w", c, err)
		}
		if i == 0 {
			cr.Result = it.Result
		} else if it.Result != cr.Result && cr.Err == "" {
			cr.Err = fmt.Sprintf("result changed between iterations: %v, then %v", cr.Result, it.Result)
		}
		if i >= warm {
			cr.Ms = append(cr.Ms, float64(it.Elapsed.Nanoseconds())/1e6)
			steals = append(steals, it.Steals)
		}
		tick()
	}
	if count != nil {
		c := perIteration(count.Read(), reps)
		cr.Counters = &c
	}
	cr.OtherLoad, cr.LoadKnown = otherLoad(before, sampleCPU())
	cr.MedianMs, cr.MinMs, cr.MaxMs = loadstat.Median(cr.Ms), slices.Min(cr.Ms), slices.Max(cr.Ms)
	cr.Steals = uint64(loadstat.Median(u64s(steals)))
	return cr, in.Close()
}

// check compares every cell's result with its entry's reference: the
// published one, else the Seq cell's, else the entry's first cell's.
func (r *Report) check() error {
	bad := 0
	for i := range r.Cells {
		c := &r.Cells[i]
		want, src := r.expected(c.Workload, c.Size)
		if src != "" && c.Result != want && c.Err == "" {
			c.Err = fmt.Sprintf("result %v, want %v (%s)", c.Result, want, src)
		}
		if c.Err != "" {
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("%w in %d cell(s)", ErrMismatch, bad)
	}
	return nil
}

// expected returns the reference result of a (workload, size) and where it
// comes from ("" if there is none yet).
func (r *Report) expected(workload, size string) (Result, string) {
	if ref, ok, err := Reference(workload, size); err == nil && ok {
		return ref, "published"
	}
	var first *CellResult
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Workload != workload || c.Size != size {
			continue
		}
		if c.Impl == Seq {
			return c.Result, "sequential Go"
		}
		if first == nil {
			first = c
		}
	}
	if first != nil {
		return first.Result, string(first.Impl)
	}
	return Result{}, ""
}

// spareCPUs is the number of CPUs a cell with that many workers leaves to
// other processes.
func spareCPUs(workers int) float64 { return float64(max(0, runtime.NumCPU()-workers)) }

func u64s(xs []uint64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// Env describes the machine and run a report comes from.
type Env struct {
	GoVersion  string    `json:"go_version"` // runtime.Version()
	GOOS       string    `json:"goos"`       // runtime.GOOS
	GOARCH     string    `json:"goarch"`     // runtime.GOARCH
	NumCPU     int       `json:"num_cpu"`    // runtime.NumCPU()
	GOMAXPROCS int       `json:"gomaxprocs"` // outside the cells, which set their own
	Start      time.Time `json:"start"`      // when the run started (UTC)
	ElapsedS   float64   `json:"elapsed_s"`  // how long it took, in seconds
}

func currentEnv() Env {
	return Env{
		GoVersion:  runtime.Version(),
		GOOS:       runtime.GOOS,
		GOARCH:     runtime.GOARCH,
		NumCPU:     runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		Start:      time.Now().UTC().Truncate(time.Second),
	}
}

// RunContext is [Instance.Run] that returns ctx.Err() as soon as ctx is
// done. An iteration cannot be stopped halfway (the workloads take no ctx:
// a check per fork would be on the measured path), so an interrupted one is
// abandoned: it goes on in its own goroutine until it ends, and the
// instance must not be used or closed again (closing a pool waits for its
// task). A command exits right after; a library caller gets control back
// within moments of the cancellation rather than after an iteration that
// may take minutes.
func (in *Instance) RunContext(ctx context.Context) (Iteration, error) {
	if ctx.Done() == nil { // never canceled: no goroutine
		return in.Run()
	}
	if err := ctx.Err(); err != nil {
		return Iteration{}, err
	}
	type result struct {
		it  Iteration
		err error
	}
	done := make(chan result, 1)
	go func() {
		it, err := in.Run()
		done <- result{it, err}
	}()
	select {
	case r := <-done:
		return r.it, r.err
	case <-ctx.Done():
		return Iteration{}, ctx.Err()
	}
}
