// Package attacktest holds the security tests through the worksteal binary:
// a deployment made by serve init, each role's real credentials, and the
// attacks a stolen or foreign key can make (other workers' deliveries,
// other people's jobs), each of which must be refused.
package attacktest
