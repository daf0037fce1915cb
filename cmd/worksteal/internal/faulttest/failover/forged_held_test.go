//go:build unix

package failover

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestAStolenKeyCannotHoldOffAFrozenPeersFailover: SIGSTOP of the worker
// holding a tree's root, as in TestFailoverFrozenWorkerThroughTheRecorder,
// while another worker's real key (w2's, say, for a frozen w1) speaks for
// the frozen one every 50 ms: held lists and hellos in its name, held lists
// and hellos of its own naming the frozen worker's Serve, and a
// subscription to its pings. The ack wait is 30 minutes: the job ends with
// exact results only if the frozen worker's tasks fail over while it stays
// frozen (failoverTreeWith waits for its root to run elsewhere before it
// wakes it). The server refuses every message in the frozen worker's name.
func TestAStolenKeyCannotHoldOffAFrozenPeersFailover(t *testing.T) {
	t.Parallel()
	url, runArgs, workers := deploymentSecure(t, longAck)
	dir := filepath.Dir(runArgs[1])
	var f *forger
	failoverTreeWith(t, url, runArgs, workers, syscall.SIGSTOP, "silent for 2 heartbeats", func(victim int) {
		f = startForger(t, url, dir, fmt.Sprintf("w%d", (victim+1)%len(workers)+1), fmt.Sprintf("w%d", victim+1))
	})
	f.stop()
	for _, s := range f.inVictimsName() {
		if !f.refused(s) {
			t.Errorf("the server did not refuse %s's key %s", f.name, s)
		}
	}
}

// forger speaks for a victim worker with another worker's key.
type forger struct {
	name, victim string
	nc           *nats.Conn
	id           string // the victim's Serve id, from its held lists
	done         chan struct{}
	wg           sync.WaitGroup

	mu   sync.Mutex
	errs []string
}

func startForger(t *testing.T, url, dir, name, victim string) *forger {
	t.Helper()
	f := &forger{name: name, victim: victim, done: make(chan struct{})}
	f.nc = e2e.Connect(t, url, cluster.RoleWorker, cluster.Credentials{Creds: filepath.Join(dir, name+".nk")}, func(err string) {
		f.mu.Lock()
		f.errs = append(f.errs, err)
		f.mu.Unlock()
	})
	// The victim's Serve id, from the held lists every worker hears.
	ids := make(chan string, 1)
	sub, err := f.nc.Subscribe("ws.held."+victim+".*", func(m *nats.Msg) {
		select {
		case ids <- m.Subject[strings.LastIndexByte(m.Subject, '.')+1:]:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case f.id = <-ids:
	case <-time.After(testdeadline.Left(t)):
		t.Fatalf("no held list of %s heard", victim)
	}
	sub.Unsubscribe()
	// Answer the victim's pings, as if it lived.
	f.nc.Subscribe("ws.alive."+victim+"."+f.id, func(m *nats.Msg) { m.Respond(nil) })
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for seq := 1_000_000; ; seq++ {
			select {
			case <-f.done:
				return
			case <-tick.C:
			}
			list := []byte(fmt.Sprintf("%d\n", seq)) // "holds nothing"
			for _, s := range f.inVictimsName() {
				if strings.HasPrefix(s, "ws.hello.") {
					f.nc.Publish(s, []byte(f.id))
				} else if !strings.HasPrefix(s, "ws.alive.") {
					f.nc.Publish(s, list)
				}
			}
			// Under its own name, naming the victim's Serve: allowed, and
			// of no effect on the victim's failover.
			f.nc.Publish("ws.held."+name+"."+f.id, list)
			f.nc.Publish("ws.hello."+name, []byte(f.id))
		}
	}()
	return f
}

// inVictimsName lists the subjects on which the forger speaks or
// answers as the victim.
func (f *forger) inVictimsName() []string {
	return []string{"ws.held." + f.victim + "." + f.id, "ws.hello." + f.victim, "ws.held." + f.id, "ws.alive." + f.victim + "." + f.id}
}

func (f *forger) stop() {
	close(f.done)
	f.wg.Wait()
	f.nc.Flush()
}

// refused says the server refused subject to the forger's key.
func (f *forger) refused(subject string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.errs {
		if strings.Contains(e, "Permissions Violation") && strings.Contains(e, `"`+subject+`"`) {
			return true
		}
	}
	return false
}
