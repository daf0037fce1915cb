// Package failover holds the cluster's failover tests through the
// worksteal binary: the worker holding a tree's root killed or frozen
// (SIGKILL, SIGSTOP), with and without the recorder, a stolen key that
// tries to hold off a frozen peer's failover, and reruns counted per
// node. Split from faulttest so that no test package nears go test's
// timeout.
package failover
