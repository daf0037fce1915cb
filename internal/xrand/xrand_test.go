package xrand

import "testing"

func TestDeterministicAndInRange(t *testing.T) {
	a, b := New(42), New(42)
	counts := make([]int, 10)
	for i := 0; i < 100000; i++ {
		x, y := a.Uint64(), b.Uint64()
		if x != y {
			t.Fatal("same seed, different sequences")
		}
		n := a.Intn(10)
		b.Intn(10)
		if n < 0 || n >= 10 {
			t.Fatalf("Intn(10) = %d", n)
		}
		counts[n]++
		if f := a.Float64(); f < 0 || f >= 1 {
			t.Fatalf("Float64() = %v", f)
		}
		b.Float64()
	}
	for i, c := range counts { // 10,000 expected each; 5σ ≈ 475
		if c < 9500 || c > 10500 {
			t.Errorf("Intn(10) gave %d %d times out of 100,000", i, c)
		}
	}
	if SplitMix64(0) == SplitMix64(1) {
		t.Error("SplitMix64 collides on 0 and 1")
	}
	defer func() {
		if recover() == nil {
			t.Error("Intn(0) did not panic")
		}
	}()
	a.Intn(0)
}
