package balance

import "fmt"

// Hash routing: which consistent hash, and why.
//
// We use jump consistent hashing (Lamping and Veach, "A Fast, Minimal Memory,
// Consistent Hash Algorithm", 2014), not rendezvous (highest-random-weight)
// hashing. Both are minimal-movement: going from n to n+1 workers moves a
// key only onto the new worker, so about 1/(n+1) of the keys move and no key
// moves between old workers. They differ in what they cost and what they
// allow:
//
//   - jump needs no memory and takes O(ln n) steps per key (about 20 ns at
//     n = 1024); rendezvous hashes the key once per worker, O(n) per key.
//   - jump spreads keys with exactly the variance of a fair die (binomial
//     noise, no virtual nodes needed); a hash ring needs ~100 virtual nodes
//     per worker to get close.
//   - jump names workers 0..n−1 and can only grow or shrink at the end;
//     rendezvous lets any named node leave.
//
// Here workers are pool slots and cluster consumers numbered 0..n−1 whose
// count changes at the end (a scaled pool, one more machine), so jump's
// restriction costs nothing and its speed and perfect spread win. A caller
// that must remove arbitrary named nodes should keep a stable slot table in
// front of Jump (retire a slot by moving the last node into it) or use
// rendezvous hashing.

// Jump returns the worker in [0, workers) that key is routed to, by jump
// consistent hashing. The result depends only on key and workers, so it is
// the same in every process, on every platform and in every version of this
// package. Growing workers from n to n+1 moves exactly the keys whose new
// worker is n, about 1/(n+1) of them; shrinking moves only the keys of the
// last worker. Keys should be well mixed already; hash strings with HashKey.
//
// Panics: if workers < 1.
func Jump(key uint64, workers int) int {
	if workers < 1 {
		panic(fmt.Sprintf("balance: Jump with workers = %d < 1", workers))
	}
	// The loop of Lamping and Veach, Figure 1: a 64-bit LCG drives a walk
	// over the bucket numbers at which the key would jump as buckets are
	// added; the last jump below workers is the answer.
	b, j := int64(-1), int64(0)
	for j < int64(workers) {
		b = j
		key = key*2862933555777941757 + 1
		j = int64(float64(b+1) * (float64(int64(1)<<31) / float64((key>>33)+1)))
	}
	return int(b)
}

// HashKey hashes s to a well-mixed 64-bit key for Jump: 64-bit FNV-1a
// followed by the splitmix64 finalizer (FNV alone leaves similar strings with
// similar high bits, which Jump reads first). The function is fixed: it gives
// the same value in every process and version, so routes can be stored.
func HashKey(s string) uint64 {
	const (
		offset64 = 14695981039346656037
		prime64  = 1099511628211
	)
	h := uint64(offset64)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime64
	}
	return mix64(h)
}

// mix64 is the splitmix64 finalizer (Steele, Lea and Flood 2014): a bijection
// on uint64 with full avalanche.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
