// Package fibtree counts the calls and forks of the naive fib tree with a
// cutoff: the simulator builds fib workloads from it, and simfit fits a
// measured profile to one.
package fibtree

// Counts returns, for the fib tree of n with the given cutoff, the
// calls run serially below the cutoff (A) and the forks (I).
func Counts(n, cutoff int) (A, I float64) {
	a := make([]float64, n+1)
	f := make([]float64, n+1)
	for k := 0; k <= n; k++ {
		if k < cutoff {
			a[k] = float64(Calls(k))
			continue
		}
		a[k] = a[k-1] + a[k-2]
		f[k] = 1 + f[k-1] + f[k-2]
	}
	return a[n], f[n]
}

// Calls is the number of calls naive fib(n) makes: 2·fib(n+1) − 1.
func Calls(n int) int64 {
	a, b := int64(0), int64(1) // fib(0), fib(1)
	for i := 0; i < n+1; i++ {
		a, b = b, a+b
	}
	return 2*a - 1
}
