// Package benchcmd is "worksteal bench": the runtime's benchmark workloads
// against plain goroutines, locally or on a cluster's workers (whose
// built-in handlers it registers: RegisterBuiltins).
package benchcmd
