// Package simcmd is the simulator's commands: "worksteal sim" (scenarios,
// presets, sweeps), "worksteal trace" (a real run's trace and its work/span
// profile, replayed in the simulator) and "worksteal predict".
package simcmd
