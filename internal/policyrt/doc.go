// Package policyrt is the machinery behind package policy's values, shared
// by the runtime and the simulator so that a simulated schedule is the real
// one: the victim [Selector], a worker's position in the idle schedule
// ([IdleState], [IdleStep]) and the adaptive [IdleTuner]. A user picks
// policies with policy's values in worksteal.Config or a sim scenario; only
// the runtime and sim drive them, so they live here, not in the public API.
//
// Every type here is small and pure: no goroutines, no clocks. Randomness
// comes from a caller-supplied seed, so the simulator stays deterministic.
package policyrt
