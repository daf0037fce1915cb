package cluster

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/clusterwire"
)

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
)

// bucketKeys lists a bucket's keys from stream info (clusterwire.BucketKeys).
func bucketKeys(ctx context.Context, js jetstream.JetStream, bucket string) ([]string, error) {
	return clusterwire.BucketKeys(ctx, js, bucket)
}

// isNotFound says err is a get of a key that is not there.
func isNotFound(err error) bool { return clusterwire.IsNotFound(err) }

// sleepCtx waits d, or until ctx is done: false if ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool { return clusterwire.SleepCtx(ctx, d) }

// jobOfTaskSubject returns the job of a task subject (prefix
// "<stream>.task."): every token but the handler and the requirements.
func jobOfTaskSubject(prefix, subj string) string { return clusterwire.JobOfTaskSubject(prefix, subj) }

// The environment variables Credentials.FromEnv reads
// (clusterwire.EnvCreds ...); the CLI's help names them too.
const (
	envCreds   = clusterwire.EnvCreds
	envTLSCA   = clusterwire.EnvTLSCA
	envTLSCert = clusterwire.EnvTLSCert
	envTLSKey  = clusterwire.EnvTLSKey
)

// What the recorder counts and its refusal reasons live in
// internal/clusterops, which worksteal serve and the dashboard read.
type recorderStats = clusterops.RecorderStats

// The registries' and a node's reports that the worksteal command and
// the dashboard read (internal/clusterops).
type (
	workerInfo = clusterops.WorkerInfo
	jobInfo    = clusterops.JobInfo
	nodeStats  = clusterops.Stats
	stall      = clusterops.Stall
)
