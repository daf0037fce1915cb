package e2e

import (
	"context"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// StreamLeader names the server that leads the task stream.
func StreamLeader(t *testing.T, urls string) string {
	t.Helper()
	nc, err := nats.Connect(urls)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), testdeadline.Left(t))
	defer cancel()
	st, err := js.Stream(ctx, "ws_tasks")
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil || info.Cluster == nil {
		t.Fatalf("stream info: %v", err)
	}
	return info.Cluster.Leader
}
