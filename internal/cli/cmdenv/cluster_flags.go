package cmdenv

import (
	"context"
	"fmt"
	"io"
	neturl "net/url"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/pflag"
	"github.com/worksteal/worksteal/cluster"
)

// ClusterFlags are the flags that workers and submitters share.
type ClusterFlags struct {
	stream     string
	ackWait    time.Duration
	maxDeliver int
	replicas   int
	changed    func(name string) bool
	Creds      cluster.Credentials // client_security.go
}

// add adds the flags to f, their help prefixed with prefix.
func (c *ClusterFlags) Add(f *pflag.FlagSet, prefix string) {
	f.StringVar(&c.stream, "stream", "ws", prefix+"name prefix of the JetStream stream, buckets and subjects")
	f.DurationVar(&c.ackWait, "ack-wait", 30*time.Second, prefix+"a task whose worker is silent this long goes to another worker; set by the first worker or submitter of a stream, adopted by the others")
	f.IntVar(&c.maxDeliver, "max-deliver", 10, prefix+"deliveries of a task that may end without an outcome (its worker died, stopped or lost the server) before it is recorded as a poison task")
	f.IntVar(&c.replicas, "replicas", 1, prefix+"servers that keep a copy of the tasks and results (3 survives the loss of one server of a JetStream cluster)")
	c.changed = func(name string) bool { return f.Changed(name) }
	AddCredentialFlags(f, &c.Creds, prefix)
}

// options are the cluster options the flags ask for: the ack wait only if
// given, so that a client does not override the deployment's.
func (c *ClusterFlags) Options() []cluster.Option {
	opts := []cluster.Option{cluster.WithStream(c.stream), cluster.WithMaxDeliver(c.maxDeliver), cluster.WithReplicas(c.replicas)}
	if c.changed != nil && c.changed("ack-wait") {
		opts = append(opts, cluster.WithAckWait(c.ackWait))
	}
	return opts
}

// connectNATS connects to url with an error that names it. Losing and
// regaining the server is logged to log, if not nil.
func connectNATS(ctx context.Context, url, name string, log io.Writer, extra ...nats.Option) (*nats.Conn, error) {
	if u, err := neturl.Parse(url); err == nil && u.Scheme != "" && u.Scheme != "nats" && u.Scheme != "tls" && u.Scheme != "ws" && u.Scheme != "wss" {
		return nil, UsageError(fmt.Errorf("--nats %q: want a NATS URL such as nats://HOST:4222, not %s://", url, u.Scheme))
	}
	opts := []nats.Option{nats.Name(name), nats.Timeout(5 * time.Second),
		nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond)}
	if log != nil {
		opts = append(opts,
			nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
				if err != nil {
					fmt.Fprintf(log, "%s: lost the NATS server: %v; reconnecting\n", name, err)
				} else if !nc.IsClosed() {
					fmt.Fprintf(log, "%s: lost the NATS server; reconnecting\n", name)
				}
			}),
			nats.ReconnectHandler(func(nc *nats.Conn) {
				fmt.Fprintf(log, "%s: reconnected to %s\n", name, nc.ConnectedUrl())
			}))
	}
	nc, err := nats.Connect(url, append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to NATS at %s: %w (is worksteal serve running?)", url, err)
	}
	return nc, nil
}
