package gnuinput

import "errors"

// ErrBadInput: a job line, an argument or a template could not be turned
// into a command (a malformed weight, a placeholder with no value, ...).
// Errors about one input line wrap it and name the line. (Its text still
// says runner: it moved from there, and worksteal run prints it.)
var ErrBadInput = errors.New("runner: bad input")
