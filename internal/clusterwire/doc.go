// Package clusterwire holds what package cluster writes for others to
// read, in Go: a worker's status message, a job's record in the jobs
// bucket and a route's consumer metadata, which the observer (package
// internal/clusterobs) reads, with the few helpers both use to read them;
// and the names of the environment variables a client's credentials come
// from (cluster.Credentials.FromEnv), which the CLI's help quotes. It is
// not an API: cluster, the observer and the CLI change it together.
package clusterwire
