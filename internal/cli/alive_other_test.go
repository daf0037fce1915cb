//go:build !unix

package cli

// processAlive needs kill(2) and /proc: where they are missing it reports every
// process gone.
func processAlive(pid int) bool { return false }
