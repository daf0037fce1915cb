// Package faulttest holds the cluster's fault tests through the worksteal
// binary: serve, workers and run --nats as real processes, killed, stopped
// and restarted with real signals (flat batches, a server that becomes
// unreachable), and BenchmarkFailoverT1L. Trees are in faulttest/trees,
// failover in faulttest/failover.
package faulttest
