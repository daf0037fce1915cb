package clusterwire

import (
	"context"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// BucketKeys lists the keys of key-value bucket (deleted ones included:
// their delete marker is the key's last message) from the server's
// per-subject counts of the bucket's stream: a stream info request, which
// reads no value and creates nothing. A key-value ListKeys would create a
// consumer, which the observer role may not (see clusterops.RolePermissions).
func BucketKeys(ctx context.Context, js jetstream.JetStream, bucket string) ([]string, error) {
	st, err := js.Stream(ctx, "KV_"+bucket)
	if err != nil {
		return nil, err
	}
	prefix := "$KV." + bucket + "."
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(prefix+">"))
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(info.State.Subjects))
	for subj := range info.State.Subjects {
		keys = append(keys, strings.TrimPrefix(subj, prefix))
	}
	slices.Sort(keys)
	return keys, nil
}
