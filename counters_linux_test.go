//go:build linux

package worksteal

import "syscall"

// touchMiB maps n MiB of fresh anonymous memory, writes one byte per page
// (a page fault each; the Go heap would reuse pages already faulted in),
// and unmaps it.
func touchMiB(n int) int {
	b, err := syscall.Mmap(-1, 0, n<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		panic(err)
	}
	s := 0
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
		s += int(b[i])
	}
	if err := syscall.Munmap(b); err != nil {
		panic(err)
	}
	return s
}
