package runner

import "errors"

// Errors returned by this package. Errors about the configuration wrap
// ErrInvalidConfig and name the setting.
var (
	// ErrInvalidConfig: a Config field or a flag value is out of range.
	ErrInvalidConfig = errors.New("runner: invalid config")
	// ErrInterrupted: Run stopped early because its ctx was done; the
	// Summary says which jobs finished.
	ErrInterrupted = errors.New("runner: interrupted")
)

// Causes of an attempt's cancellation, as context.Cause of its ctx.
var (
	errTimedOut    = errors.New("runner: job timed out")
	errLostRace    = errors.New("runner: a speculative copy finished first")
	errInterrupted = ErrInterrupted
	errHalted      = errors.New("runner: stopped by --halt now")
)
