package sim

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/worksteal/worksteal/policy"
)

// Seconds is a span of virtual time in seconds. In a scenario file it is
// written as a number of seconds (0.5) or as a Go duration string ("500ms",
// "20us").
type Seconds float64

// Duration converts s to a time.Duration, rounded to the nearest nanosecond
// (the simulator's clock resolution).
func (s Seconds) Duration() time.Duration {
	if s <= 0 || math.IsNaN(float64(s)) {
		return 0
	}
	if float64(s) >= math.MaxInt64/1e9 {
		return math.MaxInt64
	}
	return time.Duration(math.Round(float64(s) * 1e9))
}

// Scenario is everything one simulation needs: the machine, the work, the
// policy, the costs and the faults. Its zero value is a valid scenario (one
// task of one second on four workers under the runtime's default policy);
// [Scenario.Normalize] fills the defaults that each field documents.
//
// A Scenario is plain data: it can be written by hand, decoded from JSON by
// [ParseScenario] (YAML or JSON).
type Scenario struct {
	Name     string   `json:"name"`     // label printed in reports
	Seed     uint64   `json:"seed"`     // seeds every random choice; same seed, same output
	Workers  Workers  `json:"workers"`  // the machine
	Workload Workload `json:"workload"` // the work
	Policy   Policy   `json:"policy"`   // how work moves between workers
	Costs    Costs    `json:"costs"`    // what scheduling actions cost
	Faults   []Fault  `json:"faults"`   // slowdowns and lost workers
	Limit    Seconds  `json:"limit"`    // stop at this virtual time (0: run to completion)
	Sweep    *Sweep   `json:"sweep"`    // optional: run once per value of one parameter

	// lines maps field paths to the lines they were read from, when the
	// scenario came from [ParseScenario], so that errors found later name
	// the line too. Shared by copies; never modified after parsing.
	lines map[string]int
}

// Workers describes the simulated machine.
type Workers struct {
	Count     int       `json:"count"`      // number of workers (default 4)
	Speeds    []float64 `json:"speeds"`     // per-worker speed factor; missing entries are 1
	Groups    []int     `json:"groups"`     // per-worker locality group; missing entries are 0
	GroupSize int       `json:"group_size"` // alternative to Groups: consecutive groups of this size
	// StartParked: every worker but worker 0 starts parked in the idle
	// list, as a pool's workers are between two computations (the
	// runtime parks idle workers), so the first pushes wake them one by
	// one (wake-up on push, then the chain wake-up), each after
	// Costs.Wake. False (the default): every worker looks for work at
	// time 0.
	StartParked bool `json:"start_parked"`
}

// Workload kinds.
const (
	kindTasks = "tasks" // independent tasks, optionally spawning children (Spawn)
	kindFib   = "fib"   // fork-join divide and conquer, fib-like, with a cutoff
	kindUTS   = "uts"   // the Unbalanced Tree Search tree (WORKLOADS.md)
	kindTree  = "tree"  // a binary fork-join tree over leaves drawn from Duration
)

// Workload describes the tasks: how many, how long, when they arrive, and
// whether they create more work.
type Workload struct {
	Kind     string  `json:"kind"`     // tasks (default), fib or uts
	Tasks    int     `json:"tasks"`    // number of root tasks (kind tasks; default 1)
	Total    Seconds `json:"total"`    // alternative to Tasks: total work; Tasks = Total / mean duration
	Duration Dist    `json:"duration"` // duration of each task at speed 1 (default constant 1 s)
	Arrival  Arrival `json:"arrival"`  // when and where root tasks are submitted
	Spawn    Spawn   `json:"spawn"`    // children created in the middle of a task
	Fib      Fib     `json:"fib"`      // kind fib
	UTS      UTS     `json:"uts"`      // kind uts
	Tree     Tree    `json:"tree"`     // kind tree
	// Poll is the work between the poll points inside a running piece
	// (the runtime's Worker.Poll in a long leaf, or the Joins that a
	// coarse simulated leaf stands for); 0: only forks and spawns poll.
	// It matters under policy.join latent only.
	Poll Seconds `json:"poll"`
}

// Distribution names for [Dist] (its Dist field takes the strings).
const (
	distConstant    = "constant"
	distUniform     = "uniform"
	distExponential = "exponential"
	distLognormal   = "lognormal"
	distPareto      = "pareto"
	distBimodal     = "bimodal"
)

// Dist is a distribution of task durations (seconds at speed 1).
//
//	constant:    Value
//	uniform:     between Min and Max
//	exponential: mean Mean
//	lognormal:   mean Mean, shape Sigma (default 1)
//	pareto:      scale Min, shape Alpha (default 1.5), capped at Max when Max > 0
//	bimodal:     Long with probability LongFrac (default 0.1), else Short
type Dist struct {
	Dist     string  `json:"dist"` // constant (default), uniform, exponential, lognormal, pareto or bimodal
	Value    Seconds `json:"value"`
	Min      Seconds `json:"min"`
	Max      Seconds `json:"max"`
	Mean     Seconds `json:"mean"`
	Sigma    float64 `json:"sigma"`
	Alpha    float64 `json:"alpha"`
	Short    Seconds `json:"short"`
	Long     Seconds `json:"long"`
	LongFrac float64 `json:"long_frac"`
}

// Arrival patterns and targets for [Arrival].
const (
	arriveStart   = "start"   // every root task at time 0
	arriveBursts  = "bursts"  // in the listed bursts
	arrivePoisson = "poisson" // a Poisson stream at Rate tasks per second

	targetOne        = "one"         // all to worker Arrival.Worker
	targetRandom     = "random"      // each to a uniformly random worker
	targetRoundRobin = "round-robin" // to workers 0, 1, 2, ... in turn
)

// Arrival says when root tasks are submitted and to which worker. Under the
// central, static, round-robin and lpt schedulers the scheduler places the
// tasks and Target is ignored.
type Arrival struct {
	Pattern string  `json:"pattern"` // start (default), bursts or poisson
	Target  string  `json:"target"`  // one (default), random or round-robin
	Worker  int     `json:"worker"`  // the worker of target one
	Rate    float64 `json:"rate"`    // poisson: tasks per second
	Bursts  []Burst `json:"bursts"`  // bursts: the bursts, in any order
}

// Burst is a batch of tasks submitted at one time.
type Burst struct {
	At     Seconds `json:"at"`     // submission time
	Tasks  int     `json:"tasks"`  // how many
	Worker int     `json:"worker"` // to this worker, unless Target is set
	Target string  `json:"target"` // random or round-robin instead of Worker
	// Duration is the duration of this burst's tasks (nil: the workload's),
	// so a list of bursts can replay given tasks one by one.
	Duration *Dist `json:"duration"`
}

// Spawn makes tasks create children part-way through their execution, as in
// the classic teaching example (30%, 1–3 children). Children draw their
// durations from Duration (default: the workload's Duration) and may spawn
// again, up to Depth generations. With Join the parent is fork-join: it suspends at the spawn
// point without holding its worker, and the rest of its work (its
// continuation) runs when its last child finishes, on the worker that
// finished it.
type Spawn struct {
	Prob  float64 `json:"prob"`  // probability that a task spawns (0: never)
	Min   int     `json:"min"`   // fewest children (default 1)
	Max   int     `json:"max"`   // most children (default 3)
	At    float64 `json:"at"`    // fraction of the work done before spawning (0: uniform in [0.25, 0.75])
	Depth int     `json:"depth"` // generations of spawned tasks (default 8)
	Join  bool    `json:"join"`  // fork-join: wait for the children, then continue
	// Duration is the children's duration at speed 1 (nil: the workload's).
	Duration *Dist `json:"duration"`
}

// Fib is a fib-like divide-and-conquer tree: fib(n) for n >= Cutoff forks
// fib(n-1) and fib(n-2) after Split of work and joins them with Join of
// work; below the cutoff it runs serially for Leaf per call of naive fib.
type Fib struct {
	N      int     `json:"n"`      // problem size (default 20)
	Cutoff int     `json:"cutoff"` // serial below this n (default 10, at least 2)
	Leaf   Seconds `json:"leaf"`   // work per serial call (default 10 ns)
	Split  Seconds `json:"split"`  // work before forking (default Leaf)
	Join   Seconds `json:"join"`   // work after joining (default Leaf)
}

// Tree is a complete binary fork-join tree: each inner node does Node of
// work and forks two children, down Depth levels, and the 2^Depth leaves
// each run a duration drawn from the workload's Duration (from the leaf's
// own seed), without poll points unless workload.poll says so: a user's
// divide and conquer with a coarse sequential base case.
type Tree struct {
	Depth int     `json:"depth"` // levels of forks: 2^Depth leaves (default 6, at most 20)
	Node  Seconds `json:"node"`  // work of an inner node before it forks (default 0)
}

// UTS is an Unbalanced Tree Search tree, generated exactly as the reference
// benchmark does (SHA-1 splittable states; see WORKLOADS.md), with Node of
// work per node. Each node spawns its children when it finishes.
type UTS struct {
	Type     string  `json:"type"`      // geometric (default), binomial or hybrid
	Shape    string  `json:"shape"`     // geometric: linear (default), exp-dec, cyclic or fixed
	B0       float64 `json:"b0"`        // root branching factor (default 4)
	Depth    int     `json:"depth"`     // depth limit D (default 6)
	Q        float64 `json:"q"`         // binomial: probability of a non-leaf (default 0.124875)
	M        int     `json:"m"`         // binomial: children of a non-leaf (default 8)
	Root     int     `json:"root"`      // root seed r (default 0)
	Node     Seconds `json:"node"`      // work per node (default 1 µs)
	MaxNodes int     `json:"max_nodes"` // abort above this many nodes (default 10,000,000)
}

// Scheduler names for [Policy].
const (
	SchedSteal      = "steal"       // per-worker deques with work stealing
	SchedCentral    = "central"     // one shared FIFO queue behind a lock
	SchedStatic     = "static"      // equal contiguous chunks, no balancing
	SchedRoundRobin = "round-robin" // dealt in turn, no balancing
	SchedLPT        = "lpt"         // longest task first to the least-loaded worker, known costs
)

// Idle modes for [Idle].
const (
	IdleBackoff = "backoff" // rounds of attempts with exponential backoff, then park
	IdlePoll    = "poll"    // a round every Interval, never park
	IdleSpin    = "spin"    // rounds back to back, never park (no backoff)
	IdlePark    = "park"    // park after one failed round
)

// Join protocols for [Policy] (fork-join workloads under work stealing).
const (
	// JoinLatent is the runtime's protocol (PROTOCOL.md "Join"): a fork's
	// other halves stay latent in the forking worker's private frames,
	// where nobody can steal them, until that worker reaches a poll point
	// (its next fork or spawn) while some worker is idle and its own
	// deque is empty; it then promotes every latent frame, oldest first,
	// onto its deque, where thieves steal as usual. A frame still latent
	// when the worker gets back to it runs inline.
	JoinLatent = "latent"
	// JoinEager pushes every fork's other halves on the deque at once,
	// where thieves can take them immediately: the Chase–Lev protocol the
	// runtime used before latent frames, kept as a policy to compare with.
	JoinEager = "eager"
)

// RuntimeHeartbeat is the runtime's heartbeat: a worker promotes its
// oldest latent frame every policy.HeartbeatJoins Joins
// ([Policy.Heartbeat]). The one constant both use, so they cannot drift.
const RuntimeHeartbeat = policy.HeartbeatJoins

// Policy is how work moves between workers.
type Policy struct {
	Scheduler string `json:"scheduler"` // steal (default), central, static, round-robin or lpt
	Victim    string `json:"victim"`    // steal: random (default), round-robin, largest (adaptive), two-choices, locality
	Amount    string `json:"amount"`    // steal: one (default, the tutorial's) or half (the runtime's default)
	// MaxBatch caps one steal-half: 0 is the runtime's cap, policy.MaxBatch
	// (32); -1 lifts it, so a thief takes a full half as in the analyses of
	// steal-half; a positive value is the cap.
	MaxBatch int  `json:"max_batch"`
	Idle     Idle `json:"idle"` // steal: what a worker that finds nothing does
	// Join is how a fork offers its other halves to thieves: latent
	// (default, the runtime's protocol) or eager; see [JoinLatent].
	Join string `json:"join"`
	// Heartbeat (join latent): every this many poll points of a worker
	// (forks, spawns, workload.poll points) it promotes its oldest latent
	// frame whether or not a worker is idle, unless that frame is the one
	// just forked; 0 is the runtime's 4,096, −1 none.
	Heartbeat int `json:"heartbeat"`
	// EagerDepth (join latent): forks within this many levels of the piece
	// a worker took from another worker (or the root) push their other
	// halves at once, as under join eager; deeper ones stay latent. 0 is
	// the runtime's policy.EagerDepth, −1 none (every fork latent).
	EagerDepth int `json:"eager_depth"`
	// WakeBatch: a thief that took more than one task in one steal wakes
	// a sleeper for the rest (now public in its own deque), besides the
	// chain wake-up of the last searcher.
	WakeBatch bool `json:"wake_batch"`
}

// Idle is the idle behaviour of a thief. Rounds, Base, Cap and Jitter are
// those of [policy.Idle] (all zero: the runtime's [policy.DefaultIdle]).
// Parked workers are woken when work is pushed (one per pushed task).
type Idle struct {
	Mode     string  `json:"mode"`     // backoff (default), poll, spin or park
	Rounds   int     `json:"rounds"`   // backoff: rounds before parking
	Base     Seconds `json:"base"`     // backoff: delay after the first failed round
	Cap      Seconds `json:"cap"`      // backoff: largest delay
	Jitter   float64 `json:"jitter"`   // backoff: random fraction of each delay
	Attempts int     `json:"attempts"` // cap on attempts per round (0: each other worker once)
	Interval Seconds `json:"interval"` // poll: delay between rounds (default Base)
}

// Costs are the time scheduling actions take. All default to zero, the
// ideal machine of the theory (then one worker's makespan is exactly T1).
type Costs struct {
	Task       Seconds `json:"task"`         // overhead to start each task or continuation
	Steal      Seconds `json:"steal"`        // latency of one steal attempt
	Move       Seconds `json:"move"`         // extra time a successful steal takes to bring the task over
	Failed     Seconds `json:"failed_steal"` // extra time lost by a failed attempt
	CrossGroup Seconds `json:"cross_group"`  // extra latency of an attempt on another locality group
	Wake       Seconds `json:"wake"`         // from wake-up to the first attempt of a parked worker
	Queue      Seconds `json:"queue"`        // central: one access to the shared queue
	Contention Seconds `json:"contention"`   // central: added per other worker waiting for the queue
	// Fork is the forking worker's time per fork beyond the work: the push
	// of its other halves (latent frames, or deque pushes under join
	// eager) and taking back the one it runs itself.
	Fork Seconds `json:"fork"`
	// Promote is the owner's time per latent frame it promotes to its
	// deque at a poll point (join latent): the deque push it skipped at
	// the fork, and the deque pop if it takes the frame back.
	Promote Seconds `json:"promote"`
}

// Fault kinds for [Fault].
const (
	faultSlow = "slow" // Worker runs at Factor × its speed from At until Until
	faultLose = "lose" // Worker stops at At; its tasks are re-queued at At + Detect
)

// Fault is a slowdown window or the loss of a worker.
type Fault struct {
	Kind   string  `json:"kind"`   // slow or lose
	Worker int     `json:"worker"` // which worker
	At     Seconds `json:"at"`     // when it starts
	Until  Seconds `json:"until"`  // slow: when it ends (0: never)
	Factor float64 `json:"factor"` // slow: speed multiplier, e.g. 0.25 for four times slower
	Detect Seconds `json:"detect"` // lose: delay until the loss is detected
}

// Sweep runs a scenario once per value of one parameter; see [SweepParams].
type Sweep struct {
	Param  string   `json:"param"`
	Values []string `json:"values"`
}

// FieldError is a scenario error tied to one field. Path names the field as
// it is spelled in a scenario file ("workload.duration.dist", "faults[1].at");
// Line is the line of the field in the file it came from, or 0 when unknown.
type FieldError struct {
	Path string
	Line int
	Msg  string
}

// Error formats the error as "sim: line N: path: message".
func (e *FieldError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("sim: line %d: %s: %s", e.Line, e.Path, e.Msg)
	}
	return fmt.Sprintf("sim: %s: %s", e.Path, e.Msg)
}

func ferr(path, format string, args ...any) *FieldError {
	return &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

func oneOf(path, got string, names ...string) *FieldError {
	return ferr(path, "unknown value %q (want one of %s)", got, strings.Join(names, ", "))
}

// Normalize returns a copy of s with every default filled in, or the first
// invalid field as a [*FieldError]. [Run] normalizes its scenario itself.
func (s Scenario) Normalize() (Scenario, error) {
	n := s
	if err := n.normalize(); err != nil {
		return s, s.locate(err)
	}
	return n, nil
}

// MaxWorkers bounds a scenario's worker count. A simulated worker costs
// O(1) memory (a few hundred bytes with its queue and victim selector), so
// the bound keeps a mistyped count from exhausting memory rather than
// reflecting a limit of the model.
const MaxWorkers = 1 << 17

func (s *Scenario) normalize() *FieldError {
	if err := s.Workers.normalize(); err != nil {
		return err
	}
	if err := s.Workload.normalize(s.Workers.Count); err != nil {
		return err
	}
	if err := s.Policy.normalize(&s.Costs); err != nil {
		return err
	}
	if err := s.Costs.check(); err != nil {
		return err
	}
	for i := range s.Faults {
		if err := s.Faults[i].check(fmt.Sprintf("faults[%d]", i), s.Workers.Count); err != nil {
			return err
		}
	}
	if s.Limit < 0 || math.IsNaN(float64(s.Limit)) {
		return ferr("limit", "must not be negative, got %v", s.Limit)
	}
	if s.Sweep != nil {
		if err := s.Sweep.check(); err != nil {
			return err
		}
	}
	return nil
}

// normalize fills the worker count (default 4), one speed and one group per
// worker.
func (w *Workers) normalize() *FieldError {
	if w.Count == 0 {
		w.Count = 4
	}
	if w.Count < 1 || w.Count > MaxWorkers {
		return ferr("workers.count", "must be between 1 and %d, got %d", MaxWorkers, w.Count)
	}
	if len(w.Speeds) > w.Count {
		return ferr("workers.speeds", "has %d entries for %d workers", len(w.Speeds), w.Count)
	}
	sp := make([]float64, w.Count)
	for i := range sp {
		sp[i] = 1
		if i < len(w.Speeds) {
			sp[i] = w.Speeds[i]
			if !(sp[i] > 0) || math.IsInf(sp[i], 0) {
				return ferr(fmt.Sprintf("workers.speeds[%d]", i), "must be a positive number, got %v", sp[i])
			}
		}
	}
	w.Speeds = sp
	if len(w.Groups) > w.Count {
		return ferr("workers.groups", "has %d entries for %d workers", len(w.Groups), w.Count)
	}
	if w.GroupSize < 0 {
		return ferr("workers.group_size", "must not be negative, got %d", w.GroupSize)
	}
	if w.GroupSize > 0 && len(w.Groups) > 0 {
		return ferr("workers.group_size", "cannot be combined with workers.groups")
	}
	gr := make([]int, w.Count)
	for i := range gr {
		switch {
		case i < len(w.Groups):
			gr[i] = w.Groups[i]
			if gr[i] < 0 || gr[i] >= w.Count {
				return ferr(fmt.Sprintf("workers.groups[%d]", i), "must be in [0, %d), got %d", w.Count, gr[i])
			}
		case w.GroupSize > 0:
			gr[i] = i / w.GroupSize
		}
	}
	w.Groups, w.GroupSize = gr, 0
	return nil
}

func checkSec(path string, v Seconds) *FieldError {
	if v < 0 || math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return ferr(path, "must be a non-negative time, got %v", float64(v))
	}
	return nil
}

func (wl *Workload) normalize(workers int) *FieldError {
	if err := checkSec("workload.poll", wl.Poll); err != nil {
		return err
	}
	switch wl.Kind {
	case "":
		wl.Kind = kindTasks
	case kindTasks, kindFib, kindUTS, kindTree:
	default:
		return oneOf("workload.kind", wl.Kind, kindTasks, kindFib, kindUTS, kindTree)
	}
	if err := wl.Duration.normalize("workload.duration"); err != nil {
		return err
	}
	if wl.Tasks < 0 {
		return ferr("workload.tasks", "must not be negative, got %d", wl.Tasks)
	}
	if err := checkSec("workload.total", wl.Total); err != nil {
		return err
	}
	if err := wl.Arrival.normalize(workers); err != nil {
		return err
	}
	if wl.Arrival.Pattern == arriveBursts {
		sum := 0
		for _, b := range wl.Arrival.Bursts {
			sum += b.Tasks
		}
		if wl.Kind == kindTasks && wl.Tasks != 0 && wl.Tasks != sum {
			return ferr("workload.tasks", "is %d but the bursts hold %d tasks", wl.Tasks, sum)
		}
		wl.Tasks = sum
	}
	switch wl.Kind {
	case kindTasks:
		if err := wl.normalizeTasks(); err != nil {
			return err
		}
	case kindFib:
		if err := wl.Fib.normalize(); err != nil {
			return err
		}
	case kindUTS:
		if err := wl.UTS.normalize(); err != nil {
			return err
		}
	case kindTree:
		t := &wl.Tree
		if t.Depth == 0 {
			t.Depth = 6
		}
		if t.Depth < 0 || t.Depth > 20 {
			return ferr("workload.tree.depth", "must be in [1, 20], got %d", t.Depth)
		}
		if err := checkSec("workload.tree.node", t.Node); err != nil {
			return err
		}
	}
	if wl.Kind != kindTasks {
		if wl.Tasks == 0 {
			wl.Tasks = 1
		}
		if wl.Tasks > 1024 {
			return ferr("workload.tasks", "kind %s runs at most 1024 trees, got %d", wl.Kind, wl.Tasks)
		}
	}
	return nil
}

// normalize checks the arrival pattern, its targets and its bursts.
func (a *Arrival) normalize(workers int) *FieldError {
	switch a.Pattern {
	case "":
		a.Pattern = arriveStart
	case arriveStart, arrivePoisson:
	case arriveBursts:
		if len(a.Bursts) == 0 {
			return ferr("workload.arrival.bursts", "pattern bursts needs at least one burst")
		}
	default:
		return oneOf("workload.arrival.pattern", a.Pattern, arriveStart, arriveBursts, arrivePoisson)
	}
	if err := checkTarget("workload.arrival.target", &a.Target, true); err != nil {
		return err
	}
	if a.Worker < 0 || a.Worker >= workers {
		return ferr("workload.arrival.worker", "must be in [0, %d), got %d", workers, a.Worker)
	}
	if a.Pattern == arrivePoisson && !(a.Rate > 0 && !math.IsInf(a.Rate, 0)) {
		return ferr("workload.arrival.rate", "pattern poisson needs a positive rate, got %v", a.Rate)
	}
	if a.Pattern != arriveBursts {
		return nil
	}
	for i := range a.Bursts {
		b := &a.Bursts[i]
		p := fmt.Sprintf("workload.arrival.bursts[%d]", i)
		if err := checkSec(p+".at", b.At); err != nil {
			return err
		}
		if b.Tasks < 0 || b.Tasks > 1<<28 {
			return ferr(p+".tasks", "must be between 0 and %d, got %d", 1<<28, b.Tasks)
		}
		if b.Worker < 0 || b.Worker >= workers {
			return ferr(p+".worker", "must be in [0, %d), got %d", workers, b.Worker)
		}
		if err := checkTarget(p+".target", &b.Target, false); err != nil {
			return err
		}
		if b.Duration != nil {
			d := *b.Duration
			if err := d.normalize(p + ".duration"); err != nil {
				return err
			}
			b.Duration = &d
		}
	}
	return nil
}

// normalizeTasks sets the number of independent tasks: Tasks, or Total
// divided by the mean duration. Normalize keeps Total, so a normalized
// workload has both, consistent, and normalizes again to itself.
func (wl *Workload) normalizeTasks() *FieldError {
	if wl.Total > 0 {
		if wl.Arrival.Pattern == arriveBursts {
			return ferr("workload.total", "cannot be combined with bursts")
		}
		m := wl.Duration.mean()
		if !(m > 0) {
			return ferr("workload.total", "needs a duration with a positive mean")
		}
		n := math.Round(float64(wl.Total) / m)
		if n > 1<<28 {
			return ferr("workload.total", "makes %v tasks, more than %d", n, 1<<28)
		}
		k := max(1, int(n))
		if wl.Tasks != 0 && wl.Tasks != k {
			return ferr("workload.total", "makes %d tasks of mean %s, but workload.tasks is %d (give one of them)", k, fmtSec(m), wl.Tasks)
		}
		wl.Tasks = k
	}
	if wl.Tasks == 0 && wl.Arrival.Pattern != arriveBursts {
		wl.Tasks = 1
	}
	if wl.Tasks > 1<<28 {
		return ferr("workload.tasks", "must be at most %d, got %d", 1<<28, wl.Tasks)
	}
	return wl.Spawn.normalize()
}

// normalize fills the fib tree's defaults and checks its size.
func (f *Fib) normalize() *FieldError {
	if f.N == 0 {
		f.N = 20
	}
	if f.N < 0 || f.N > 60 {
		return ferr("workload.fib.n", "must be in [0, 60], got %d", f.N)
	}
	if f.Cutoff == 0 {
		f.Cutoff = 10
	}
	if f.Cutoff < 2 {
		return ferr("workload.fib.cutoff", "must be at least 2, got %d", f.Cutoff)
	}
	if f.N-f.Cutoff > 30 {
		return ferr("workload.fib.cutoff", "n - cutoff must be at most 30 (too many tasks), got %d", f.N-f.Cutoff)
	}
	for _, c := range []struct {
		p string
		v *Seconds
	}{{"workload.fib.leaf", &f.Leaf}, {"workload.fib.split", &f.Split}, {"workload.fib.join", &f.Join}} {
		if err := checkSec(c.p, *c.v); err != nil {
			return err
		}
	}
	if f.Leaf == 0 {
		f.Leaf = 10e-9
	}
	if f.Split == 0 {
		f.Split = f.Leaf
	}
	if f.Join == 0 {
		f.Join = f.Leaf
	}
	return nil
}

func checkTarget(path string, t *string, fill bool) *FieldError {
	switch *t {
	case "":
		if fill {
			*t = targetOne
		}
	case targetOne, targetRandom, targetRoundRobin:
	default:
		return oneOf(path, *t, targetOne, targetRandom, targetRoundRobin)
	}
	return nil
}

func (d *Dist) normalize(p string) *FieldError {
	for _, c := range []struct {
		n string
		v Seconds
	}{{"value", d.Value}, {"min", d.Min}, {"max", d.Max}, {"mean", d.Mean}, {"short", d.Short}, {"long", d.Long}} {
		if err := checkSec(p+"."+c.n, c.v); err != nil {
			return err
		}
	}
	switch d.Dist {
	case "":
		d.Dist = distConstant
		if d.Value == 0 {
			d.Value = 1
		}
	case distConstant:
	case distUniform:
		if d.Max < d.Min {
			return ferr(p+".max", "is below min (%v < %v)", float64(d.Max), float64(d.Min))
		}
	case distExponential:
		if d.Mean == 0 {
			return ferr(p+".mean", "exponential needs a positive mean")
		}
	case distLognormal:
		if d.Mean == 0 {
			return ferr(p+".mean", "lognormal needs a positive mean")
		}
		if d.Sigma == 0 {
			d.Sigma = 1
		}
		if !(d.Sigma > 0 && d.Sigma <= 10) {
			return ferr(p+".sigma", "must be in (0, 10], got %v", d.Sigma)
		}
	case distPareto:
		if d.Min == 0 {
			return ferr(p+".min", "pareto needs a positive scale min")
		}
		if d.Alpha == 0 {
			d.Alpha = 1.5
		}
		if !(d.Alpha > 0 && d.Alpha <= 100) {
			return ferr(p+".alpha", "must be in (0, 100], got %v", d.Alpha)
		}
		if d.Max != 0 && d.Max < d.Min {
			return ferr(p+".max", "is below min (%v < %v)", float64(d.Max), float64(d.Min))
		}
	case distBimodal:
		if d.LongFrac == 0 {
			d.LongFrac = 0.1
		}
		if !(d.LongFrac >= 0 && d.LongFrac <= 1) {
			return ferr(p+".long_frac", "must be in [0, 1], got %v", d.LongFrac)
		}
	default:
		return oneOf(p+".dist", d.Dist, distConstant, distUniform, distExponential, distLognormal, distPareto, distBimodal)
	}
	return nil
}

// mean returns the distribution's mean in seconds (for pareto, the uncapped
// mean, or the cap when the shape gives an infinite mean).
func (d *Dist) mean() float64 {
	switch d.Dist {
	case distUniform:
		return float64(d.Min+d.Max) / 2
	case distExponential, distLognormal:
		return float64(d.Mean)
	case distPareto:
		if d.Alpha > 1 {
			m := d.Alpha * float64(d.Min) / (d.Alpha - 1)
			if d.Max > 0 && m > float64(d.Max) {
				m = float64(d.Max)
			}
			return m
		}
		return float64(d.Max)
	case distBimodal:
		return d.LongFrac*float64(d.Long) + (1-d.LongFrac)*float64(d.Short)
	}
	return float64(d.Value)
}

func (sp *Spawn) normalize() *FieldError {
	if !(sp.Prob >= 0 && sp.Prob <= 1) {
		return ferr("workload.spawn.prob", "must be in [0, 1], got %v", sp.Prob)
	}
	if sp.Min == 0 {
		sp.Min = 1
	}
	if sp.Max == 0 {
		sp.Max = max(3, sp.Min)
	}
	if sp.Min < 1 || sp.Min > 1000 {
		return ferr("workload.spawn.min", "must be in [1, 1000], got %d", sp.Min)
	}
	if sp.Max < sp.Min || sp.Max > 1000 {
		return ferr("workload.spawn.max", "must be in [min, 1000], got %d", sp.Max)
	}
	if !(sp.At >= 0 && sp.At <= 1) {
		return ferr("workload.spawn.at", "must be in [0, 1], got %v", sp.At)
	}
	if sp.Depth == 0 {
		sp.Depth = 8
	}
	if sp.Depth < 0 || sp.Depth > 64 {
		return ferr("workload.spawn.depth", "must be in [1, 64], got %d", sp.Depth)
	}
	if sp.Duration != nil {
		d := *sp.Duration // a copy: presets and callers may share the pointer
		if err := d.normalize("workload.spawn.duration"); err != nil {
			return err
		}
		sp.Duration = &d
	}
	return nil
}

// UTS tree types and geometric shapes.
const (
	utsGeometric = "geometric"
	utsBinomial  = "binomial"
	utsHybrid    = "hybrid"

	shapeLinear = "linear"
	shapeExpDec = "exp-dec"
	shapeCyclic = "cyclic"
	shapeFixed  = "fixed"
)

func (u *UTS) normalize() *FieldError {
	switch u.Type {
	case "":
		u.Type = utsGeometric
	case utsGeometric, utsBinomial, utsHybrid:
	default:
		return oneOf("workload.uts.type", u.Type, utsGeometric, utsBinomial, utsHybrid)
	}
	switch u.Shape {
	case "":
		u.Shape = shapeLinear
	case shapeLinear, shapeExpDec, shapeCyclic, shapeFixed:
	default:
		return oneOf("workload.uts.shape", u.Shape, shapeLinear, shapeExpDec, shapeCyclic, shapeFixed)
	}
	if u.B0 == 0 {
		u.B0 = 4
	}
	if !(u.B0 > 0 && u.B0 <= 1e6) {
		return ferr("workload.uts.b0", "must be in (0, 1e6], got %v", u.B0)
	}
	if u.Depth == 0 {
		u.Depth = 6
	}
	if u.Depth < 1 || u.Depth > 6000 {
		return ferr("workload.uts.depth", "must be in [1, 6000], got %d", u.Depth)
	}
	if u.Q == 0 {
		u.Q = 0.124875
	}
	if !(u.Q >= 0 && u.Q <= 1) {
		return ferr("workload.uts.q", "must be in [0, 1], got %v", u.Q)
	}
	if u.M == 0 {
		u.M = 8
	}
	if u.M < 1 || u.M > 100 {
		return ferr("workload.uts.m", "must be in [1, 100], got %d", u.M)
	}
	if err := checkSec("workload.uts.node", u.Node); err != nil {
		return err
	}
	if u.Node == 0 {
		u.Node = 1e-6
	}
	if u.MaxNodes == 0 {
		u.MaxNodes = 10_000_000
	}
	if u.MaxNodes < 1 || u.MaxNodes > 1<<28 {
		return ferr("workload.uts.max_nodes", "must be in [1, %d], got %d", 1<<28, u.MaxNodes)
	}
	return nil
}

func (p *Policy) normalize(c *Costs) *FieldError {
	switch p.Scheduler {
	case "":
		p.Scheduler = SchedSteal
	case SchedSteal, SchedCentral, SchedStatic, SchedRoundRobin, SchedLPT:
	default:
		return oneOf("policy.scheduler", p.Scheduler, SchedSteal, SchedCentral, SchedStatic, SchedRoundRobin, SchedLPT)
	}
	if p.Victim == "" {
		p.Victim = policy.Random.String()
	}
	v, err := policy.ParseVictim(p.Victim)
	if err != nil {
		return oneOf("policy.victim", p.Victim, "random", "round-robin", "largest", "adaptive", "two-choices", "locality")
	}
	p.Victim = v.String()
	if p.Amount == "" {
		p.Amount = policy.StealOne.String()
	}
	a, err := policy.ParseAmount(p.Amount)
	if err != nil {
		return oneOf("policy.amount", p.Amount, "one", "half")
	}
	p.Amount = a.String()
	if p.Join == "" {
		p.Join = JoinLatent
	}
	if p.Join != JoinLatent && p.Join != JoinEager {
		return oneOf("policy.join", p.Join, JoinLatent, JoinEager)
	}
	switch {
	case p.Heartbeat == 0:
		p.Heartbeat = RuntimeHeartbeat
	case p.Heartbeat < -1:
		return ferr("policy.heartbeat", "must be -1 (none), 0 (the runtime's %d) or positive, got %d", RuntimeHeartbeat, p.Heartbeat)
	}
	switch {
	case p.EagerDepth == 0:
		p.EagerDepth = policy.EagerDepth
	case p.EagerDepth < -1:
		return ferr("policy.eager_depth", "must be -1 (none), 0 (the runtime's %d) or positive, got %d", policy.EagerDepth, p.EagerDepth)
	}
	switch {
	case p.MaxBatch == 0:
		p.MaxBatch = policy.MaxBatch
	case p.MaxBatch < -1:
		return ferr("policy.max_batch", "must be -1 (no cap), 0 (the runtime's %d) or positive, got %d", policy.MaxBatch, p.MaxBatch)
	}
	id := &p.Idle
	switch id.Mode {
	case "":
		id.Mode = IdleBackoff
	case IdleBackoff, IdlePoll, IdleSpin, IdlePark:
	default:
		return oneOf("policy.idle.mode", id.Mode, IdleBackoff, IdlePoll, IdleSpin, IdlePark)
	}
	for _, f := range []struct {
		n string
		v Seconds
	}{{"base", id.Base}, {"cap", id.Cap}, {"interval", id.Interval}} {
		if err := checkSec("policy.idle."+f.n, f.v); err != nil {
			return err
		}
	}
	if id.Rounds < 0 {
		return ferr("policy.idle.rounds", "must not be negative, got %d", id.Rounds)
	}
	if id.Attempts < 0 {
		return ferr("policy.idle.attempts", "must not be negative, got %d", id.Attempts)
	}
	if !(id.Jitter >= 0 && id.Jitter <= 1) {
		return ferr("policy.idle.jitter", "must be in [0, 1], got %v", id.Jitter)
	}
	pi, perr := id.policyIdle().Normalize()
	if perr != nil {
		return ferr("policy.idle", "%v", strings.TrimPrefix(perr.Error(), "policy: "))
	}
	id.Rounds, id.Base, id.Cap, id.Jitter = pi.Rounds, Seconds(pi.Base.Seconds()), Seconds(pi.Cap.Seconds()), pi.Jitter
	if id.Interval == 0 {
		id.Interval = id.Base
	}
	if id.Mode == IdleSpin && c.Steal.Duration() == 0 && c.Failed.Duration() == 0 && p.Scheduler == SchedSteal {
		return ferr("policy.idle.mode", "spin needs costs.steal or costs.failed_steal above zero (or it never lets time pass)")
	}
	return nil
}

// policyIdle converts the scenario's idle fields to the runtime's schedule.
func (id *Idle) policyIdle() policy.Idle {
	return policy.Idle{Rounds: id.Rounds, Base: id.Base.Duration(), Cap: id.Cap.Duration(), Jitter: id.Jitter}
}

func (c *Costs) check() *FieldError {
	for _, f := range []struct {
		n string
		v Seconds
	}{{"task", c.Task}, {"steal", c.Steal}, {"move", c.Move}, {"failed_steal", c.Failed}, {"cross_group", c.CrossGroup},
		{"wake", c.Wake}, {"queue", c.Queue}, {"contention", c.Contention}, {"fork", c.Fork}, {"promote", c.Promote}} {
		if err := checkSec("costs."+f.n, f.v); err != nil {
			return err
		}
	}
	return nil
}

func (f *Fault) check(p string, workers int) *FieldError {
	if f.Worker < 0 || f.Worker >= workers {
		return ferr(p+".worker", "must be in [0, %d), got %d", workers, f.Worker)
	}
	if err := checkSec(p+".at", f.At); err != nil {
		return err
	}
	switch f.Kind {
	case faultSlow:
		if !(f.Factor > 0 && f.Factor <= 1e6) {
			return ferr(p+".factor", "must be a positive speed multiplier, got %v", f.Factor)
		}
		if err := checkSec(p+".until", f.Until); err != nil {
			return err
		}
		if f.Until != 0 && f.Until <= f.At {
			return ferr(p+".until", "must be after at (%v <= %v)", float64(f.Until), float64(f.At))
		}
	case faultLose:
		if err := checkSec(p+".detect", f.Detect); err != nil {
			return err
		}
	default:
		return oneOf(p+".kind", f.Kind, faultSlow, faultLose)
	}
	return nil
}
