package bench

import (
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
