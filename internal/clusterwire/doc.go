// Package clusterwire holds what package cluster writes for others to
// read and the observer (package internal/clusterobs) reads: a worker's
// status message, a job's record in the jobs bucket, a route's consumer
// metadata, and the few helpers both use to read them. It is the cluster's
// wire format in Go, not an API: cluster and the observer change it
// together.
package clusterwire
