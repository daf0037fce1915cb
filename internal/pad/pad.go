// Package pad holds the cache-line size used to keep hot atomics that are
// written by different goroutines on separate cache lines (no false sharing).
package pad

// CacheLine is the assumed size of a cache line in bytes. 128 covers the
// adjacent-line prefetcher of x86 and the 128-byte lines of Apple silicon.
const CacheLine = 128

// Line is a block of padding one cache line long.
type Line [CacheLine]byte
