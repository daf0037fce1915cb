package clusterops

import "errors"

// ErrInvalidOption is cluster.ErrInvalidOption (the same value: package
// cluster's is this one), so that the errors of this package's checks
// wrap what a caller of cluster tests with errors.Is.
var ErrInvalidOption = errors.New("cluster: invalid option")
