package bench

import (
	"fmt"
	"testing"
)

// The Go benchmarks cover the same workloads and implementations as
// DefaultPlan, at 1 and 2 workers:
//
//	go test -run '^$' -bench . ./internal/bench/                   # everything (minutes)
//	go test -run '^$' -bench 'Fib/n=35/.*ws' ./internal/bench/     # one cell
//
// Besides ns/op and allocs/op each reports ms/op, ns/join (time per op divided
// by the joins of the task tree; subtract sequential Go's to get the
// overhead of one join, as the suite's table does) and steals/op.

// benchEveryImpl: the implementations at the workload's smaller size.
var benchEveryImpl = []Impl{Seq, WG, WGCutoff, WS, WSClosure}

// benchNoWG: the larger sizes, where a goroutine per fork takes seconds.
var benchNoWG = []Impl{Seq, WGCutoff, WS}

func BenchmarkFib(b *testing.B) {
	benchWorkload(b, "fib", "n", "30", benchEveryImpl)
	benchWorkload(b, "fib", "n", "35", benchNoWG)
}

func BenchmarkNQueens(b *testing.B) {
	benchWorkload(b, "nqueens", "n", "12", benchEveryImpl)
	benchWorkload(b, "nqueens", "n", "13", benchNoWG)
}

func BenchmarkUTS(b *testing.B) {
	benchWorkload(b, "uts", "b0", "6000", []Impl{Seq, WG, WGCutoff, WS, WSClosure})
}

func BenchmarkUTSSHA1(b *testing.B) {
	benchWorkload(b, "uts-sha1", "tree", "T1", []Impl{Seq, WG, WGCutoff, WS, WSClosure})
}

// benchWorkload runs one sub-benchmark per implementation and worker count,
// named "<param>=<size>/impl=<impl>/workers=<n>".
func benchWorkload(b *testing.B, workload, param, size string, impls []Impl) {
	joins, err := Joins(workload, size)
	if err != nil {
		b.Fatal(err)
	}
	want, hasWant, _ := Reference(workload, size)
	for _, im := range impls {
		if !Available(im) {
			continue
		}
		for _, workers := range []int{1, 2} {
			if im == Seq && workers != 1 {
				continue
			}
			b.Run(fmt.Sprintf("%s=%s/impl=%s/workers=%d", param, size, im, workers), func(b *testing.B) {
				in, err := Prepare(workload, size, im, workers)
				if err != nil {
					b.Fatal(err)
				}
				defer in.Close()
				b.ReportAllocs()
				var steals uint64
				for b.Loop() {
					it, err := in.Run()
					if err != nil {
						b.Fatal(err)
					}
					if hasWant && it.Result != want {
						b.Fatalf("%s %s %s = %v; want %v", workload, size, im, it.Result, want)
					}
					steals += it.Steals
				}
				perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				b.ReportMetric(perOp/1e6, "ms/op")
				if joins > 0 {
					b.ReportMetric(perOp/float64(joins), "ns/join")
				}
				b.ReportMetric(float64(steals)/float64(b.N), "steals/op")
			})
		}
	}
}
