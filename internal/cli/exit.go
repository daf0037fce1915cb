package cli

import "errors"

// exitError carries a specific process exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }
func (e *exitError) ExitCode() int { return e.code }

func asExit(err error, target *interface{ ExitCode() int }) bool {
	var ee *exitError
	if errors.As(err, &ee) {
		*target = ee
		return true
	}
	return false
}
