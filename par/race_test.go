//go:build race

package par

// raceEnabled reports whether the race detector is on; the sort tests use
// smaller inputs under it.
const raceEnabled = true
