package clusterwire

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// NamePattern matches the names used in stream, bucket and subject names.
var NamePattern = Charset("_-")

// LabelPattern is what a label's key and value may hold: they travel in
// consumer metadata and the worker registry, and are shown in errors.
var LabelPattern = Charset("_.:/+-")

// Charset is a set of names: one or more ASCII letters, digits and the
// punctuation it lists (a regular expression did this at a cost that
// showed in a submission's CPU profile: one check per task id).
type Charset string

// MatchString says s is a non-empty name of the set.
func (c Charset) MatchString(s string) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte(string(c), b) >= 0) {
			return false
		}
	}
	return s != ""
}

// IsNotFound says err is a key-value get of a key that is not there
// (never written, or deleted).
func IsNotFound(err error) bool {
	return errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted)
}

// SleepCtx waits d, or until ctx is done: false if ctx ended first.
func SleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// JobOfTaskSubject returns the job of a task subject (prefix
// "<stream>.task."): every token but the handler and the requirements.
func JobOfTaskSubject(prefix, subj string) string {
	rest := strings.TrimPrefix(subj, prefix)
	i := strings.LastIndexByte(rest, '.')
	if i <= 0 {
		return ""
	}
	j := strings.LastIndexByte(rest[:i], '.')
	if j <= 0 {
		return ""
	}
	return rest[:j]
}

// LabelString is labels as "k1=v1,k2=v2", keys sorted; "" for none
// (cluster.Labels.String; a route's MetaRequire).
func LabelString(labels map[string]string) string {
	keys := slices.Sorted(maps.Keys(labels))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + labels[k]
	}
	return strings.Join(parts, ",")
}
