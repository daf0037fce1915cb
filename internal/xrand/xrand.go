// Package xrand is a small, fast, seedable pseudo-random generator for
// per-worker use (victim choice, backoff jitter) and for the simulator, where
// the same seed must give the same sequence on every platform.
package xrand

import "math/bits"

// Rand is a wyrand generator (Wang Yi's 64-bit multiply-mix generator). It is
// not safe for concurrent use: give each worker its own.
type Rand struct {
	state uint64
}

// New returns a generator seeded with seed.
func New(seed uint64) *Rand { return &Rand{state: seed} }

// Seed resets the generator.
func (r *Rand) Seed(seed uint64) { r.state = seed }

// Uint64 returns the next 64 pseudo-random bits.
func (r *Rand) Uint64() uint64 {
	r.state += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(r.state, r.state^0xe7037ed1a0b428db)
	return hi ^ lo
}

// Intn returns a uniform int in [0, n). It panics if n <= 0.
func (r *Rand) Intn(n int) int {
	if n <= 0 {
		panic("xrand: Intn with n <= 0")
	}
	// Lemire's multiply-shift; the bias is below 2^-32 for the n we use.
	hi, _ := bits.Mul64(r.Uint64(), uint64(n))
	return int(hi)
}

// Float64 returns a uniform float64 in [0, 1).
func (r *Rand) Float64() float64 {
	return float64(r.Uint64()>>11) / (1 << 53)
}

// SplitMix64 returns the splitmix64 mix of z; useful to derive independent
// seeds (worker i's seed = SplitMix64(base + i)).
func SplitMix64(z uint64) uint64 {
	return Mix64(z + 0x9e3779b97f4a7c15)
}

// Mix64 is SplitMix64's output function alone (its state not advanced):
// the anchor suite's mix64, which its UTS-like tree hashes node ids with.
func Mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
