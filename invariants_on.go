//go:build race || worksteal_invariants

package worksteal

// invariants turns on the runtime's self-checks (see invariants.go). They
// are on in every -race build, which is how the tests run, and with the
// build tag worksteal_invariants.
const invariants = true
