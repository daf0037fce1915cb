package clusterdash_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/dash/clusterdash"
)

// TestNewRefusesABadConfig: New names what is wrong with its arguments,
// with cluster.ErrInvalidOption, before it uses the connection.
func TestNewRefusesABadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		nc   *nats.Conn
		cfg  clusterdash.Config
		want string
	}{
		{"nil connection", nil, clusterdash.Config{}, "nil connection"},
		{"stream with a dot", &nats.Conn{}, clusterdash.Config{Stream: "a.b"}, `stream name "a.b"`},
		{"straggler factor below 1", &nats.Conn{}, clusterdash.Config{StragglerFactor: 0.5}, "straggler factor 0.5: must be 1 or more"},
	} {
		d, err := clusterdash.New(tc.nc, tc.cfg)
		if d != nil || !errors.Is(err, cluster.ErrInvalidOption) || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: New = %v, %v; want nil and an invalid-option error naming %q", tc.name, d, err, tc.want)
		}
	}
}
