// Package policy holds the scheduling policies that the worksteal runtime and
// the sim simulator share, so that a simulated policy is the real one: victim
// selection ([Victim]), how much a thief takes ([Amount]), the
// idle schedule of a worker that finds nothing ([Idle]), and locality groups
// ([Groups]).
//
// Every type here is small and pure: no goroutines, no clocks. Randomness
// comes from a caller-supplied seed, so the simulator stays deterministic.
package policy
