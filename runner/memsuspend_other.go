//go:build !unix

package runner

// pauseAttempt does nothing where process groups cannot be stopped.
func pauseAttempt(*attempt, bool) {}
