// Package runcmd is "worksteal run" (GNU parallel's options on the runner
// package, locally or on a cluster with --nats, with its dashboard) and
// "worksteal sem".
package runcmd
