package sim

import (
	"math"
	"time"

	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/internal/simx"
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
	Name     string     `json:"name"`      // label printed in reports
	Seed     uint64     `json:"seed"`      // seeds every random choice; same seed, same output
	Workers  Workers    `json:"workers"`   // the machine
	Workload Workload   `json:"workload"`  // the work
	Policy   Policy     `json:"policy"`    // how work moves between workers
	Costs    Costs      `json:"costs"`     // what scheduling actions cost
	Faults   []Fault    `json:"faults"`    // slowdowns and lost workers
	Limit    Seconds    `json:"limit"`     // stop at this virtual time (0: run to completion)
	sweep    *sweepSpec `scenario:"sweep"` // a scenario file's sweep block (internal/simlab); not in the JSON

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
	// Type: geometric (default), binomial, hybrid, or splitmix: the
	// anchor suite's binomial tree (the bench workload uts: node id's
	// hash by 64 rounds of splitmix64's mixer; the root has B0 children,
	// any other node M with probability Q), node for node as the runtime
	// benchmarks it, where the others are SHA-1 trees of WORKLOADS.md.
	Type     string  `json:"type"`
	Shape    string  `json:"shape"`     // geometric: linear (default), exp-dec, cyclic or fixed
	B0       float64 `json:"b0"`        // root branching factor (default 4)
	Depth    int     `json:"depth"`     // depth limit D (default 6)
	Q        float64 `json:"q"`         // binomial: probability of a non-leaf (default 0.124875)
	M        int     `json:"m"`         // binomial: children of a non-leaf (default 8)
	Root     int     `json:"root"`      // root seed r (default 0)
	Node     Seconds `json:"node"`      // work per node (default 1 µs)
	MaxNodes int     `json:"max_nodes"` // abort above this many nodes (default 10,000,000)
	// Join: how a node's children are run. spawn (default): each child
	// is a task of its own, spawned (no join). binary: fork-join as the
	// runtime's bench code does it (utsWSSpan): the node joins two
	// halves of its children, each half joins its two halves, down to
	// single children, so a node with k children makes k−1 forks of two,
	// log2(k) deep, and each fork is a poll point under join latent.
	Join string `json:"join"`
}

// schedulers are the values of [Policy.Scheduler].
var schedulers = []string{schedSteal, schedCentral, schedStatic, schedRoundRobin, schedLPT}

// idleModes are the values of [Idle.Mode].
var idleModes = []string{idleBackoff, idlePoll, idleSpin, idlePark}

// Scheduler names for [Policy].
const (
	schedSteal      = "steal"       // per-worker deques with work stealing
	schedCentral    = "central"     // one shared FIFO queue behind a lock
	schedStatic     = "static"      // equal contiguous chunks, no balancing
	schedRoundRobin = "round-robin" // dealt in turn, no balancing
	schedLPT        = "lpt"         // longest task first to the least-loaded worker, known costs
)

// Idle modes for [Idle].
const (
	idleBackoff = "backoff" // rounds of attempts with exponential backoff, then park
	idlePoll    = "poll"    // a round every Interval, never park
	idleSpin    = "spin"    // rounds back to back, never park (no backoff)
	idlePark    = "park"    // park after one failed round
)

// Join protocols for [Policy] (fork-join workloads under work stealing).
const (
	// joinLatent is the runtime's protocol (PROTOCOL.md "Join"): a fork's
	// other halves stay latent in the forking worker's private frames,
	// where nobody can steal them, until that worker reaches a poll point
	// (its next fork or spawn) while some worker is idle and its own
	// deque is empty; it then promotes every latent frame, oldest first,
	// onto its deque, where thieves steal as usual. A frame still latent
	// when the worker gets back to it runs inline.
	joinLatent = "latent"
	// joinEager pushes every fork's other halves on the deque at once,
	// where thieves can take them immediately: the Chase–Lev protocol the
	// runtime used before latent frames, kept as a policy to compare with.
	joinEager = "eager"
)

// Join waits for [Policy.JoinWait].
const (
	joinWaitAny   = "any"   // greedy: a done fork continues on whoever finished it
	joinWaitStack = "stack" // the runtime's: the forking worker waits and resumes it
)

// runtimeHeartbeat is the runtime's heartbeat: a worker promotes its
// oldest latent frame every policyrt.HeartbeatJoins Joins
// ([Policy.Heartbeat]). The one constant both use, so they cannot drift.
const runtimeHeartbeat = policyrt.HeartbeatJoins

// runtimeLatentFrames is the runtime's policyrt.LatentFrames
// ([Policy.LatentFrames]), named here beside runtimeHeartbeat.
const runtimeLatentFrames = policyrt.LatentFrames

// runtimeHungryFrames is the runtime's policyrt.HungryLatentFrames
// ([Policy.HungryFrames]).
const runtimeHungryFrames = policyrt.HungryLatentFrames

// runtimeQuietBeats is the runtime's policyrt.QuietBeats
// ([Policy.QuietBeats]).
const runtimeQuietBeats = policyrt.QuietBeats

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
	// (default, the runtime's protocol, PROTOCOL.md "Join") or eager
	// (every other half on the deque at once: Chase–Lev's protocol).
	Join string `json:"join"`
	// JoinWait is what a worker does at a fork whose other half was
	// stolen and still runs. stack (default) is the runtime's join (and
	// rayon's): the forking worker waits there, stealing and running
	// other work nested on its stack, and only it resumes the fork, after
	// whatever it runs meanwhile; the other halves of the forks it is
	// inside wait with it unless they were offered. any is the greedy
	// schedule of the work-span analyses (the model before stop 54): the
	// worker may run any work, its own older halves included, and whoever
	// finishes a fork's last child runs what follows the fork.
	JoinWait string `json:"join_wait"`
	// Heartbeat (join latent): every this many poll points of a worker
	// (forks, spawns, workload.poll points) it promotes its oldest latent
	// frame whether or not a worker is idle, unless that frame is the one
	// just forked; 0 is the runtime's 4,096, −1 none.
	Heartbeat int `json:"heartbeat"`
	// EagerDepth (join latent): forks within this many levels of the piece
	// a worker took from another worker (or the root) push their other
	// halves at once, as under join eager; deeper ones stay latent. 0 is
	// the runtime's policyrt.EagerDepth, −1 none (every fork latent).
	EagerDepth int `json:"eager_depth"`
	// LatentFrames (join latent): a worker keeps this many offerable
	// latent frames open beyond its promoted ones; a fork made while that
	// many are open — not eager, no worker idle, no heartbeat due — is a
	// plain call whose other halves are never offered (they run inline,
	// as the runtime's plain-call Joins do, PROTOCOL.md "Join"). 0 is the
	// runtime's policyrt.LatentFrames, −1 none (every fork's halves
	// offerable, the protocol before plain calls).
	LatentFrames int `json:"latent_frames"`
	// HungryFrames (join latent, with LatentFrames): the window of a
	// worker whose thieves are hungry. A poll point that promotes (a
	// worker idle, the owner's deque empty: the thieves took all it
	// published) widens the owner's window to this many frames, so its
	// next forks open frames instead of plain calls and its next answer
	// hands over the oldest halves of that stretch; QuietBeats heartbeats
	// in a row without such a promotion narrow it back to LatentFrames, as
	// does parking (PROTOCOL.md "Hungry thieves"). 0 is the runtime's
	// policyrt.HungryLatentFrames, −1 none (the window stays
	// LatentFrames).
	HungryFrames int `json:"hungry_frames"`
	// EagerWidens (join latent, with HungryFrames): an eager fork
	// (EagerDepth) made while a worker is idle widens its worker's window
	// to HungryFrames, as a poll point's promotion does. 0 is the
	// runtime's policyrt.EagerWidens, 1 on, −1 off.
	EagerWidens int `json:"eager_widens"`
	// QuietBeats (join latent, with HungryFrames): how many heartbeats in
	// a row without a promotion at a poll point narrow a widened window.
	// 0 is the runtime's policyrt.QuietBeats, −1 never (a widened window
	// narrows only when its worker parks).
	QuietBeats int `json:"quiet_beats"`
	// WakeBatch: a thief that took more than one task in one steal wakes
	// a sleeper for the rest (now public in its own deque), besides the
	// chain wake-up of the last searcher.
	WakeBatch bool `json:"wake_batch"`
	// BatchForks (amount half): take fork-join children by half like any
	// other tasks. By default a thief whose oldest task is a fork-join
	// child takes it alone, as the runtime takes a Join frame alone
	// (job.fork): the oldest half of a fork-join stack holds about as much
	// work as all the younger ones. True is the runtime before it did so.
	BatchForks bool `json:"batch_forks"`
}

// Idle is the idle behaviour of a thief. Rounds, Base, Cap and Jitter are
// those of [policy.Idle] (all zero: the runtime's [policyrt.DefaultIdle]).
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

// sweepSpec is the sweep block of a scenario file (its "sweep" key): run
// the scenario once per value of one parameter ([sweepParams]). The
// worksteal command runs it (internal/simlab); a Go program varies a
// scenario in its own loop.
type sweepSpec = simx.Sweep

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

// policyIdle converts the scenario's idle fields to the runtime's schedule.
func (id *Idle) policyIdle() policy.Idle {
	return policy.Idle{Rounds: id.Rounds, Base: id.Base.Duration(), Cap: id.Cap.Duration(), Jitter: id.Jitter}
}
