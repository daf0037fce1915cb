// Package cmdenv is what every worksteal command shares: the process's
// streams and context ([Env]), the registry of commands ([AddCommand]), the
// exit statuses and the errors that carry them ([UsageError], [Interrupted]),
// output files that are removed when a command fails, the flags and
// connection of a cluster client (credentials, TLS, refusals), and the
// dashboard's listener.
package cmdenv
