package balance

import "errors"

// ErrTimeout is the cause (context.Cause) of the ctx of a task that was cut
// by a Timeout. TimeoutOr itself returns the fallback, not this error.
var ErrTimeout = errors.New("balance: task timed out")
