//go:build !race && !worksteal_invariants

package worksteal

const invariants = false
