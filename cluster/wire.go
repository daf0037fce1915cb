package cluster

import "github.com/worksteal/worksteal/internal/clusterwire"

// What cluster writes for its observer to read, and the helpers both use,
// live in internal/clusterwire (the observer is internal/clusterobs). Here
// they keep the names cluster's code has always used.

// jobRecord is a job's state in the jobs bucket (clusterwire.JobRecord):
// a type of cluster's own, with the same fields and JSON, so that it has
// cluster's methods.
type jobRecord clusterwire.JobRecord

// charset is a set of names (clusterwire.Charset).
type charset = clusterwire.Charset

var (
	// namePattern matches the names used in stream, bucket and subject
	// names; labelPattern what a label's key and value may hold.
	namePattern  = clusterwire.NamePattern
	labelPattern = clusterwire.LabelPattern

	bucketKeys       = clusterwire.BucketKeys       // a bucket's keys from stream info
	isNotFound       = clusterwire.IsNotFound       // a get of a key not there
	sleepCtx         = clusterwire.SleepCtx         // waits, or until ctx is done
	jobOfTaskSubject = clusterwire.JobOfTaskSubject // a task subject's job
)

// The environment variables Credentials.FromEnv reads
// (clusterwire.EnvCreds ...); the CLI's help names them too.
const (
	envCreds   = clusterwire.EnvCreds
	envTLSCA   = clusterwire.EnvTLSCA
	envTLSCert = clusterwire.EnvTLSCert
	envTLSKey  = clusterwire.EnvTLSKey
)
