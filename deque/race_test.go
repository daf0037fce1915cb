//go:build race

package deque_test

// raceEnabled reports whether the race detector is on; the stress tests use it
// to pick sizes that finish in CI time (instrumented atomics are ~10x slower).
const raceEnabled = true
