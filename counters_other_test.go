//go:build !linux

package worksteal

// touchMiB writes n MiB of fresh memory (page faults are only checked on
// Linux).
func touchMiB(n int) int {
	b := make([]byte, n<<20)
	s := 0
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
		s += int(b[i])
	}
	return s
}
