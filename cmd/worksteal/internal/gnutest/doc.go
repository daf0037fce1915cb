// Package gnutest holds the differential test of `worksteal run` against GNU
// parallel (TestGNUParallel, its cases, and TestGNUCoverage, which keeps
// docs/gnu-coverage.md true): a package of its own, so that it runs beside
// the cluster's end-to-end tests and neither nears go test's timeout.
package gnutest
