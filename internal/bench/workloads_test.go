package bench

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"
)

// refCase is one (workload, size) whose every implementation must compute
// want (or Reference's value when want is zero).
type refCase struct {
	workload, size string
	want           Result
	long           bool // only when not -short
	noWG           bool // too many goroutines for WG (the race detector allows 8128 alive)
	zero           bool // want is the zero Result (no published value to look up)
}

// Counts of small trees computed by this port (whose standard trees all match
// the published counts); they pin the port against regressions.
var refCases = []refCase{
	{workload: "fib", size: "0"},
	{workload: "fib", size: "1"},
	{workload: "fib", size: "2"},
	{workload: "fib", size: "18"},
	{workload: "fib", size: "25", noWG: true},
	{workload: "fib", size: "30", long: true},
	{workload: "fib", size: "35", long: true, noWG: true},
	{workload: "nqueens", size: "1"},
	{workload: "nqueens", size: "2"},
	{workload: "nqueens", size: "4"},
	{workload: "nqueens", size: "8"},
	{workload: "nqueens", size: "10", noWG: true},
	{workload: "nqueens", size: "12", long: true},
	{workload: "nqueens", size: "13", long: true, noWG: true},
	{workload: "uts", size: "0"},
	{workload: "uts", size: "10"},
	{workload: "uts", size: "100"},
	{workload: "uts", size: "1000", noWG: true},
	{workload: "uts", size: "6000", long: true},
	{workload: "uts-sha1", size: "default"},
	{workload: "uts-sha1", size: "-t 1 -a 0 -d 6 -b 4 -r 0"}, // the defaults spelled out
	{workload: "uts-sha1", size: "t=0,b=50,q=0.124875,m=8,r=0", want: Result{2795, 2451, 24}},
	{workload: "uts-sha1", size: "t=1,a=1,d=10,b=4,r=4", want: Result{2156, 1104, 28}},
	{workload: "uts-sha1", size: "t=1,a=3,d=7,b=4,r=19", want: Result{63914, 51124, 7}, noWG: true},
	{workload: "uts-sha1", size: "t=1,a=2,d=10,b=6,r=502", want: Result{45555, 27200, 51}, noWG: true},
	{workload: "uts-sha1", size: "t=2,a=0,d=10,b=6,r=1", want: Result{45120, 34011, 103}, noWG: true},
	{workload: "uts-sha1", size: "t=1,a=1,d=10,b=4,r=0", want: Result{30330, 15359, 31}, noWG: true},
	{workload: "uts-sha1", size: "T1", long: true},
	{workload: "uts-sha1", size: "T2", long: true, noWG: true},
	{workload: "uts-sha1", size: "T3", long: true, noWG: true},
	{workload: "uts-sha1", size: "T4", long: true, noWG: true},
	{workload: "uts-sha1", size: "T5", long: true, noWG: true},
	// The coarse tree's value is the xor of its leaves' spins: the Rust
	// version (scripts/coarse-rayon) prints the same numbers.
	{workload: "coarse", size: "1", want: Result{Value: 6910330209825298368}},
	{workload: "coarse-poll", size: "1", want: Result{Value: 6910330209825298368}},
	{workload: "coarse", size: "2", want: Result{Value: 15779582664971547867}, long: true},
	// The loop workloads: small sizes as the anchors' own Go binary
	// (go-anchors go-seq) prints them, mapreduce 1000 in closed form
	// (x² < p there: Σ x² = 999·1000·1999/6), the anchor sizes published.
	{workload: "sort", size: "0", zero: true},
	{workload: "sort", size: "1", want: Result{Value: 6839728766377637706}},
	{workload: "sort", size: "1000", want: Result{Value: 4365739868045896643}},
	{workload: "sort", size: "10000000", long: true},
	{workload: "mapreduce", size: "0", zero: true},
	{workload: "mapreduce", size: "1000", want: Result{Value: 332833500}},
	{workload: "mapreduce", size: "1000000", want: Result{Value: 493486003624585}},
	{workload: "mapreduce", size: "50000000", long: true},
	{workload: "mapreduce-mulhi", size: "1000000", want: Result{Value: 493486003624585}},
	{workload: "mapreduce-mulhi", size: "50000000", long: true},
	{workload: "mandel", size: "37", want: Result{Value: 338908}},
	{workload: "mandel", size: "100", want: Result{Value: 2486649}},
	{workload: "mandel", size: "1000", long: true},
	{workload: "mandel-unrolled", size: "37", want: Result{Value: 338908}},
	{workload: "mandel-unrolled", size: "100", want: Result{Value: 2486649}},
	{workload: "mandel-unrolled", size: "1000", long: true},
}

// TestEveryImplMatchesReference runs every implementation built into this
// binary, at 1 and 2 workers, against the reference results.
func TestEveryImplMatchesReference(t *testing.T) {
	for _, tc := range refCases {
		// The large sizes run without -race only (.ci/run's full-size
		// step: go test -run TestEveryImplMatchesReference ./internal/bench):
		// under the race detector even their sequential ports took most of
		// go test's 10 minutes on a loaded 2-core machine (9m48s).
		if tc.long && (testing.Short() || raceEnabled) {
			continue
		}
		want := tc.want
		if want == (Result{}) && !tc.zero {
			ref, ok, err := Reference(tc.workload, tc.size)
			if err != nil || !ok {
				t.Fatalf("Reference(%s, %s) = %v, %v, %v; want a published value", tc.workload, tc.size, ref, ok, err)
			}
			want = ref
		}
		for _, im := range Impls() {
			if im == WG && tc.noWG {
				continue
			}
			for _, workers := range []int{1, 2} {
				if im == Seq && workers != 1 {
					continue
				}
				t.Run(fmt.Sprintf("%s %s/%s/%dw", tc.workload, tc.size, im, workers), func(t *testing.T) {
					in, err := Prepare(tc.workload, tc.size, im, workers)
					if errors.Is(err, ErrUnavailable) && isLoop(tc.workload) && im != Seq && im != WS {
						t.Skip(err) // a loop has no closure form, and a goroutine per fork only for mandel
					}
					if err != nil {
						t.Fatal(err)
					}
					defer in.Close()
					// Twice: an iteration must not depend on the one
					// before (sort refills its input before each).
					for range 2 {
						it, err := in.Run()
						if err != nil {
							t.Fatal(err)
						}
						if it.Result != want {
							t.Errorf("%s %s %s at %d workers = %v; want %v", tc.workload, tc.size, im, workers, it.Result, want)
						}
					}
				})
			}
		}
	}
}

// TestStandardUTSTrees checks the sequential count of every standard tree
// that is not large against its published nodes, leaves and depth.
func TestStandardUTSTrees(t *testing.T) {
	for _, tr := range StandardTrees() {
		if tr.Large || ((testing.Short() || raceEnabled) && tr.Name != "default") { // .ci/run counts them without -race
			continue
		}
		if got := tr.Count(); got != tr.Want {
			t.Errorf("UTS %s (%v): Count() = %v; want %v", tr.Name, tr, got, tr.Want)
		}
	}
}

func TestJoins(t *testing.T) {
	cases := []struct {
		workload, size string
		want           int64
		long           bool
	}{
		{"fib", "0", 0, false},
		{"fib", "2", 1, false},
		{"fib", "30", 1346268, false},
		{"fib", "35", 14930351, false},
		{"nqueens", "8", 735, false},
		{"nqueens", "11", 61075, false},
		{"nqueens", "12", 314729, false},
		{"nqueens", "13", 1716651, false},
		{"uts", "100", 3599, false},
		{"uts", "6000", 3778537, false},
		{"uts-sha1", "default", 1049, false},
		{"uts-sha1", "T1", 3305117, false},
		{"uts-sha1", "t=1,a=3,d=7,b=4,r=19", 51123, false},
	}
	for _, tc := range cases {
		got, err := Joins(tc.workload, tc.size)
		if err != nil {
			t.Fatal(err)
		}
		if tc.want >= 0 && got != tc.want {
			t.Errorf("Joins(%s, %s) = %d; want %d", tc.workload, tc.size, got, tc.want)
		}
	}
	// The published counts agree with walking the trees.
	if got := nqCountJoins(12, 0, 0); !testing.Short() && got != 314729 {
		t.Errorf("nqCountJoins(12) = %d; want 314729", got)
	}
	if got := nqCountJoins(8, 0, 0); got != 735 {
		t.Errorf("nqCountJoins(8) = %d; want 735", got)
	}
	if got := utsCountJoins(utsRootID, 0, 100); got != 3599 {
		t.Errorf("utsCountJoins(100) = %d; want 3599", got)
	}
	if got := utsCountJoins(utsRootID, 0, 6000); !testing.Short() && got != 3778537 {
		t.Errorf("utsCountJoins(6000) = %d; want 3778537", got)
	}
}

func TestNQSplit(t *testing.T) {
	cases := []struct{ m, lo, hi uint16 }{
		{0b11, 0b01, 0b10},
		{0b111, 0b001, 0b110},
		{0b1011_0101, 0b0000_0101, 0b1011_0000},
		{0xffff, 0x00ff, 0xff00},
	}
	for _, tc := range cases {
		if lo, hi := nqSplit(tc.m); lo != tc.lo || hi != tc.hi {
			t.Errorf("nqSplit(%b) = %b, %b; want %b, %b", tc.m, lo, hi, tc.lo, tc.hi)
		}
	}
}

func TestParseUTSTree(t *testing.T) {
	cases := []struct {
		in    string
		name  string
		known bool
		err   bool
	}{
		{"T1", "T1", true, false},
		{"t3", "T3", true, false},
		{"default", "default", true, false},
		{"t=1,a=3,d=10,b=4,r=19", "t=1,a=3,d=10,b=4,r=19", true, false}, // T1's parameters
		{"-t 1 -a 3 -d 10 -b 4 -r 19", "-t 1 -a 3 -d 10 -b 4 -r 19", true, false},
		{"t=1,a=3,d=9,b=4,r=19", "t=1,a=3,d=9,b=4,r=19", false, false},
		{"t=7", "", false, true},
		{"a=9", "", false, true},
		{"x=1", "", false, true},
		{"t=1,d=0", "", false, true},
		{"b=four", "", false, true},
		{"-t", "", false, true},
		{"T9", "", false, true},
	}
	for _, tc := range cases {
		tr, err := ParseUTSTree(tc.in)
		if tc.err {
			if !errors.Is(err, ErrBadSize) {
				t.Errorf("ParseUTSTree(%q) error = %v; want ErrBadSize", tc.in, err)
			}
			continue
		}
		if err != nil || tr.Name != tc.name || tr.Known != tc.known {
			t.Errorf("ParseUTSTree(%q) = %q known=%v, %v; want %q known=%v", tc.in, tr.Name, tr.Known, err, tc.name, tc.known)
		}
	}
	// String round-trips through the flag syntax.
	for _, tr := range StandardTrees() {
		back, err := ParseUTSTree(tr.String())
		if err != nil || !back.sameParams(tr) {
			t.Errorf("ParseUTSTree(%q) = %+v, %v; want the parameters of %s", tr.String(), back, err, tr.Name)
		}
	}
}

func TestPrepareErrors(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	cases := []struct {
		workload, size string
		impl           Impl
		workers        int
		want           error
	}{
		{"fob", "1", Seq, 1, ErrUnknownWorkload},
		{"fib", "x", Seq, 1, ErrBadSize},
		{"fib", "-1", Seq, 1, ErrBadSize},
		{"nqueens", "17", Seq, 1, ErrBadSize},
		{"fib", "10", "go-magic", 1, ErrUnknownImpl},
		{"fib", "10", Seq, 2, nil}, // an error, not a sentinel
		{"fib", "10", WG, 0, nil},
	}
	for _, tc := range cases {
		in, err := Prepare(tc.workload, tc.size, tc.impl, tc.workers)
		if err == nil {
			in.Close()
			t.Errorf("Prepare(%s, %s, %s, %d) succeeded; want an error", tc.workload, tc.size, tc.impl, tc.workers)
			continue
		}
		if tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("Prepare(%s, %s, %s, %d) error = %v; want %v", tc.workload, tc.size, tc.impl, tc.workers, err, tc.want)
		}
	}
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS after failed Prepares = %d; want %d", got, procs)
	}
}

func TestInstanceRestoresGOMAXPROCS(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	in, err := Prepare("fib", "10", WG, procs+1)
	if err != nil {
		t.Fatal(err)
	}
	if got := runtime.GOMAXPROCS(0); got != procs+1 {
		t.Errorf("GOMAXPROCS while open = %d; want %d", got, procs+1)
	}
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if err := in.Close(); err != nil {
		t.Errorf("second Close = %v; want nil", err)
	}
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS after Close = %d; want %d", got, procs)
	}
}

func TestParseImpl(t *testing.T) {
	for _, s := range []string{"go-seq", "go-wg", "go-wg-cutoff", "ws", "ws-closure", "go-counter"} {
		if im, err := ParseImpl(s); err != nil || string(im) != s {
			t.Errorf("ParseImpl(%q) = %q, %v", s, im, err)
		}
	}
	if im, err := ParseImpl("go-ws"); err != nil || im != WS {
		t.Errorf(`ParseImpl("go-ws") = %q, %v; want ws`, im, err)
	}
	if _, err := ParseImpl("rust-rayon"); !errors.Is(err, ErrUnknownImpl) {
		t.Errorf(`ParseImpl("rust-rayon") error = %v; want ErrUnknownImpl`, err)
	}
}

// The scheduler-free baseline computes what go-seq computes at any number
// of threads, on the workloads that offer it, and stays out of the tables.
func TestCounterBaseline(t *testing.T) {
	for _, c := range []struct{ workload, size string }{{"coarse", "1"}, {"coarse-poll", "3"}, {"mandel", "37"}, {"mandel", "100"}, {"mandel-unrolled", "100"}} {
		want := resultOf(t, c.workload, c.size, Seq, 1)
		for _, workers := range []int{1, 2, 3} {
			if got := resultOf(t, c.workload, c.size, Counter, workers); got != want {
				t.Errorf("%s %s go-counter at %d workers = %v; go-seq %v", c.workload, c.size, workers, got, want)
			}
		}
	}
	for _, w := range []string{"fib", "mapreduce", "sort"} {
		if _, err := Prepare(w, "10", Counter, 2); !errors.Is(err, ErrUnavailable) {
			t.Errorf("Prepare(%s, go-counter) error = %v; want ErrUnavailable", w, err)
		}
	}
	if im, _ := ImplsOf("coarse", "1"); slices.Contains(im, Counter) {
		t.Errorf("ImplsOf(coarse) = %v: the baseline is in no table", im)
	}
}

func resultOf(t *testing.T, workload, size string, impl Impl, workers int) Result {
	t.Helper()
	in, err := Prepare(workload, size, impl, workers)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	it, err := in.Run()
	if err != nil {
		t.Fatal(err)
	}
	return it.Result
}

func TestResultString(t *testing.T) {
	if got := (Result{Value: 832040}).String(); got != "832040" {
		t.Errorf("String = %q", got)
	}
	if got := (Result{1732, 1050, 6}).String(); got != "1732 leaves=1050 depth=6" {
		t.Errorf("String = %q", got)
	}
}

// TestForksDoNotAllocate: sequential Go allocates nothing, and the WS
// implementations pass their spans by value, so a join allocates nothing
// either (a run allocates a handful of objects, whatever its size).
func TestForksDoNotAllocate(t *testing.T) {
	cases := [][2]string{{"fib", "18"}, {"nqueens", "8"}, {"uts", "100"}, {"uts-sha1", "default"}}
	for _, c := range cases {
		for _, im := range []Impl{Seq, WS} {
			if !Available(im) {
				continue
			}
			for _, workers := range []int{1, 2} {
				if im == Seq && workers != 1 {
					continue
				}
				in, err := Prepare(c[0], c[1], im, workers)
				if err != nil {
					t.Fatal(err)
				}
				allocs := testing.AllocsPerRun(5, func() {
					if _, err := in.Run(); err != nil {
						t.Fatal(err)
					}
				})
				in.Close()
				joins, _ := Joins(c[0], c[1])
				limit := 0.0
				if im == WS {
					// A few objects per run and per steal; the closure
					// form allocates one per join.
					limit = max(64, float64(joins)/10)
				}
				if allocs > limit {
					t.Errorf("%s %s %s at %d workers: %.0f allocs per run (%d joins); want <= %.0f", c[0], c[1], im, workers, allocs, joins, limit)
				}
			}
		}
	}
}

// isLoop reports whether workload is one of the parallel loops, which offer
// only some of the implementations.
func isLoop(workload string) bool {
	switch workload {
	case "sort", "mapreduce", "mapreduce-mulhi", "mandel", "mandel-unrolled":
		return true
	}
	return false
}
