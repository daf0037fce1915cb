package clusterops

// ErrInvalidOption is cluster.ErrInvalidOption, set by cluster's init, so
// that the errors of this package's checks wrap what a caller of cluster
// tests with errors.Is.
var ErrInvalidOption error
