// Package trees holds the cluster's tree tests through the worksteal
// binary: trees of shell tasks spawned with worksteal spawn, run with
// run --nats on real serve and worker processes, some killed, stopped or
// restarted mid-tree, and the dashboard's progress of a tree. Split from
// faulttest so that no test package nears go test's timeout.
package trees
