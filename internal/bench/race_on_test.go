//go:build race

package bench

// raceEnabled: the race detector allows at most 8128 live goroutines, which
// a goroutine per fork exceeds on all but the smallest trees.
const raceEnabled = true
