// Package clusterobs follows a cluster's state without changing it: the
// Observer behind worksteal dash, serve --http and package clusterdash,
// and State, the data it shows (the JSON of the dashboard's /api/state).
// It reads what package cluster writes for it (package
// internal/clusterwire).
package clusterobs
