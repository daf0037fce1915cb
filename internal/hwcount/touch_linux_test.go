//go:build linux

package hwcount

import "syscall"

// touch maps n MiB of fresh anonymous memory and writes every page (a page
// fault each; the Go heap would reuse pages already faulted in), then
// unmaps it.
func touch(n int) int {
	b, err := syscall.Mmap(-1, 0, n<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		panic(err)
	}
	s := 0
	for i := 0; i < len(b); i += 4096 {
		b[i] = byte(i)
		s += int(b[i])
	}
	syscall.Munmap(b)
	return s
}
