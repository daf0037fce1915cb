package bench

import (
	"fmt"
	"slices"
	"testing"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/par"
)

func TestLoopWorkloads(t *testing.T) {
	p, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	n := 200_000
	want := MapReduceSeq(0, uint64(n))
	got, _ := worksteal.Run(p, func(w *worksteal.Worker) uint64 { return MapReduceWS(w, n) })
	if got != want || MapReduceStatic(n) != want || MapReduceCounter(n) != want {
		t.Fatalf("map-reduce %d: ws %d static %d counter %d; want %d", n, got, MapReduceStatic(n), MapReduceCounter(n), want)
	}
	size := 120
	wantM := MandelSeq(size)
	gotM, _ := worksteal.Run(p, func(w *worksteal.Worker) int64 { return MandelWS(w, size) })
	fixed, _ := worksteal.Run(p, func(w *worksteal.Worker) int64 {
		return FixedGrain(w, 0, size, 7, func(lo, hi int) int64 {
			var s int64
			for py := lo; py < hi; py++ {
				s += MandelRow(py, size)
			}
			return s
		})
	})
	if gotM != wantM || MandelStatic(size) != wantM || MandelPerItem(size) != wantM || MandelCounter(size) != wantM || fixed != wantM {
		t.Fatalf("mandel %d: ws %d fixed %d; want %d", size, gotM, fixed, wantM)
	}
	a := SortInput(100_000)
	want2 := slices.Clone(a)
	slices.Sort(want2)
	worksteal.Run(p, func(w *worksteal.Worker) int { par.Sort(w, a); return 0 })
	if !slices.Equal(a, want2) || SortCheck(a) == 0 {
		t.Fatal("par.Sort differs from slices.Sort on the sort workload's input")
	}
}

// The anchors' reference results at full size (seconds of work: not under -short).
func TestLoopWorkloadReferences(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("full-size references take seconds")
	}
	if got := MapReduceSeq(0, MapReduceN); got != MapReduceResult {
		t.Errorf("map-reduce = %d; want %d", got, uint64(MapReduceResult))
	}
	if got := MandelSeq(MandelSize); got != MandelResult {
		t.Errorf("mandel = %d; want %d", got, MandelResult)
	}
	a := SortInput(SortN)
	slices.Sort(a)
	if got := SortCheck(a); got != SortResult {
		t.Errorf("sort check = %d; want %d", got, uint64(SortResult))
	}
}

// TestSortCellSortsAFreshCopyUntimed: every iteration of the sort cell
// sorts the unsorted input (the anchors' protocol: a fresh copy each time),
// and both the copy and the check of the order happen outside the timed
// call. The timed function sees unsorted data on every call and the check
// runs only after it returns.
func TestSortCellSortsAFreshCopyUntimed(t *testing.T) {
	p, err := parseSort("5000")
	if err != nil {
		t.Fatal(err)
	}
	s := p.param.(*sortInput)
	var log []string
	timed := funcRunner(func() Result {
		state := "unsorted"
		if slices.IsSorted(s.work) {
			state = "sorted"
		}
		log = append(log, state)
		return p.seq()
	})
	check := p.result
	r := untimedRunner{timed, p.reset, func() Result { log = append(log, "check"); return check() }}
	want := SortCheck(slices.Sorted(slices.Values(s.in)))
	for i := range 3 {
		res, _, _, err := r.iterate()
		if err != nil || res.Value != want {
			t.Fatalf("iteration %d: %v, %v; want %d", i, res, err, want)
		}
	}
	if got := fmt.Sprint(log); got != "[unsorted check unsorted check unsorted check]" {
		t.Errorf("calls %s; want the timed sort of unsorted data, then the check, each time", got)
	}
}

// TestMulhiRemainder: the multiply-high remainder equals % for the
// numerators that bound it (0, multiples of the modulus and their
// neighbours, the largest square of a 32-bit x, the largest uint64) and for
// a million pseudo-random ones.
func TestMulhiRemainder(t *testing.T) {
	check := func(v uint64) {
		if got, want := mulhiMod(v), v%MapReduceMod; got != want {
			t.Fatalf("mulhiMod(%d) = %d; want %d", v, got, want)
		}
	}
	for _, v := range []uint64{0, 1, MapReduceMod - 1, MapReduceMod, MapReduceMod + 1, (1<<32 - 1) * (1<<32 - 1), 1<<64 - 1} {
		check(v)
	}
	top := uint64((1<<64 - 1) / MapReduceMod * MapReduceMod) // the largest multiple
	for d := uint64(0); d < 3; d++ {
		check(top - d)
		check(top + d)
	}
	x := uint64(1)
	for range 1_000_000 {
		x = splitmix64(x)
		check(x)
	}
}

// TestMulhiLeafEqualsPlain: the unrolled multiply-high leaf sums the same
// as the plain one over ranges of every length modulo four, wherever they start
// (the adaptive loop cuts its chunks anywhere), including near the top of
// the 64-bit range.
func TestMulhiLeafEqualsPlain(t *testing.T) {
	starts := []uint64{0, 1, 2, 7, MapReduceMod - 3, 1<<32 - 2, 1<<64 - 9}
	for _, lo := range starts {
		for n := uint64(0); n <= 8; n++ {
			if lo+n < lo {
				continue
			}
			if got, want := MapReduceMulhiSeq(lo, lo+n), MapReduceSeq(lo, lo+n); got != want {
				t.Fatalf("MapReduceMulhiSeq(%d, %d) = %d; want %d", lo, lo+n, got, want)
			}
		}
	}
	if got, want := MapReduceMulhiSeq(12345, 1_012_346), MapReduceSeq(12345, 1_012_346); got != want {
		t.Fatalf("MapReduceMulhiSeq over a million = %d; want %d", got, want)
	}
}

// TestMandelUnrolledEqualsPlain: the unrolled row counts every pixel's
// escape as the plain one does, on every row of images of odd and even
// side, where pixels escape after an odd number of steps, an even number,
// or never (the 1000-step cap).
func TestMandelUnrolledEqualsPlain(t *testing.T) {
	for _, size := range []int{1, 2, 37, 200} {
		for py := 0; py < size; py++ {
			if got, want := MandelRowUnrolled(py, size), MandelRow(py, size); got != want {
				t.Fatalf("size %d row %d: unrolled %d; plain %d", size, py, got, want)
			}
		}
	}
}
