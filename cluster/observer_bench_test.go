package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// BenchmarkCountDone measures what a dashboard's count of one job's
// results costs, with the job's keys in the results bucket (WS_BENCH_KEYS,
// 100,000 by default). The observer may create no consumer, so it asks for
// the stream's subject total ("stream-info-total": a page of the subject
// list past its end); "stream-info" receives the whole list, and
// "consumer" is the earlier way (a consumer's pending count, then its
// deletion), for comparison. The time is the client's wait for the
// answer; the server does the work.
func BenchmarkCountDone(b *testing.B) {
	keys := 100_000
	if v, err := strconv.Atoi(os.Getenv("WS_BENCH_KEYS")); err == nil && v > 0 {
		keys = v
	}
	srv := runServer(b, &server.Options{ServerName: "bench", Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: b.TempDir(), NoLog: true, NoSigs: true})
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "ws_results"}); err != nil {
		b.Fatal(err)
	}
	value := make([]byte, 200)
	for i := range keys {
		if _, err := js.PublishAsync(fmt.Sprintf("$KV.ws_results.big.%d", i), value); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
		b.Fatal("publishing the keys timed out")
	}
	stream, err := js.Stream(ctx, "KV_ws_results")
	if err != nil {
		b.Fatal(err)
	}
	filter := "$KV.ws_results.big.*"
	b.Run("stream-info", func(b *testing.B) {
		for b.Loop() {
			info, err := stream.Info(ctx, jetstream.WithSubjectFilter(filter))
			if err != nil || len(info.State.Subjects) != keys {
				b.Fatalf("%v, %d subjects; want %d", err, len(info.State.Subjects), keys)
			}
		}
	})
	b.Run("stream-info-total", func(b *testing.B) {
		req := []byte(`{"subjects_filter":"` + filter + `","offset":1073741824}`)
		for b.Loop() {
			m, err := nc.RequestWithContext(ctx, "$JS.API.STREAM.INFO.KV_ws_results", req)
			if err != nil {
				b.Fatal(err)
			}
			var resp struct {
				Total int `json:"total"`
			}
			if err := json.Unmarshal(m.Data, &resp); err != nil || resp.Total != keys {
				b.Fatalf("%v, total %d; want %d (%d bytes)", err, resp.Total, keys, len(m.Data))
			}
		}
	})
	b.Run("consumer", func(b *testing.B) {
		for b.Loop() {
			c, err := js.CreateConsumer(ctx, "KV_ws_results", jetstream.ConsumerConfig{FilterSubject: filter,
				DeliverPolicy: jetstream.DeliverLastPerSubjectPolicy, AckPolicy: jetstream.AckNonePolicy,
				InactiveThreshold: 10 * time.Second, MemoryStorage: true})
			if err != nil || int(c.CachedInfo().NumPending) != keys {
				b.Fatalf("%v; want %d pending", err, keys)
			}
			if err := js.DeleteConsumer(ctx, "KV_ws_results", c.CachedInfo().Name); err != nil {
				b.Fatal(err)
			}
		}
	})
}
