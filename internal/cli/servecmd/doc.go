// Package servecmd is "worksteal serve": the NATS JetStream server of a
// cluster, its "init" (CA, certificates, credentials and the server's
// configuration for each role) and its lock on the store.
package servecmd
