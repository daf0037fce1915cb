//go:build !race

package worksteal

const raceEnabled = false
