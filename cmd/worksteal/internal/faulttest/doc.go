// Package faulttest holds the cluster's fault tests through the worksteal
// binary: serve, workers and run --nats as real processes, killed, stopped
// and restarted with real signals (flat batches, trees, failover, a server
// that becomes unreachable), and BenchmarkFailoverT1L.
package faulttest
