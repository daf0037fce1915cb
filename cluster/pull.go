package cluster

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// puller asks the worker's routes (see route) for exactly as many tasks as
// the worker has free slots, over one subscription for the worker's life.
//
// Protocol (JetStream pull requests on core NATS): each free slot is a
// token, and each token is lent to one pull request for one message, sent
// to $JS.API.CONSUMER.MSG.NEXT.<stream>.<route's consumer> with the reply
// subject <inbox>.<id>. A request ends with exactly one event: a task
// message (its reply subject, $JS.ACK.<stream>.<consumer>..., names the
// route), which keeps the token until the task is settled; or a status on
// the reply subject (404 nothing waits, 408 expired, 409 ...), which gives
// the token back. So the open requests never ask for more than the free
// slots, and a slow worker cannot hoard the queue. With one message per
// request the accounting needs no attribution: each event closes one open
// request (the one named by a status, else the route's oldest) and moves
// one token.
//
// Which route a token asks (pick), the fair share between jobs:
//   - routes known to hold waiting tasks first, and among them the route
//     whose job has the fewest tasks running or asked for on this worker
//     (ties: the route asked least recently). Such a request does not wait
//     (no_wait): if the route is empty after all, it ends at once (404),
//     the route is marked empty and the token asks elsewhere. So while two
//     jobs have waiting tasks, each free slot goes to the job with fewer
//     tasks here, and each job ends up with half the worker's slots
//     (a soft quota: a job alone gets all of them).
//   - else a long poll (expiring after the fetch wait) on a route that has
//     none open, so that a task published to an idle cluster starts at
//     once;
//   - else the token is parked until a route is known to hold tasks.
//
// What the worker knows of its routes comes from the events themselves (a
// delivery marks its route busy, a 404/408 marks it empty), from listing
// the stream's consumers every refresh (their pending counts; new routes;
// deleted ones), and at once from a submitter's notice of a new route.
//
// A request whose server went away ends with no event: past its expiry +
// 2s it is closed and its token given back. An event after that (no open
// request left for its route) is late: a late task runs if a token is free
// and is handed back (nak) otherwise. After an error status the token comes
// back after a pause, so that a broken server does not make the loop spin.
//
// Why not jetstream's Fetch: it subscribes and unsubscribes for every
// request; here a request is one publish, which about doubles the rate of
// small pulls (46k against 26k pulls and acks per second on 2 cores).
type puller struct {
	nc      *nats.Conn
	prefix  string // $JS.API.CONSUMER.MSG.NEXT.<stream>.
	inbox   string // requests reply to inbox.<id>
	poll    []byte // a long poll: one message, expiring after wait
	noWait  []byte // one message if one waits, else 404 at once
	wait    time.Duration
	tokens  chan struct{}
	wake    chan struct{} // a refresh is wanted (a new route was announced)
	refresh func(ctx context.Context) ([]routeInfo, error)
	every   time.Duration                  // refresh period
	run     func(m *nats.Msg, done func()) // start a task; done gives its token back
	nak     func(m *nats.Msg)              // hand a task back
	onErr   func(error)

	// mu guards what follows. Invariant: tokens in the channel + parked +
	// open requests + tasks running (holding a token) = slots, give or take
	// a request closed for lost that was only late (release drops the
	// excess token).
	mu      sync.Mutex
	open    []pullReq // in the order sent
	next    uint64
	routes  map[string]*pullRoute // by consumer name
	load    map[string]int        // by job: tasks running + requests open here
	parked  int
	counter uint64 // orders the routes' last asks
}

// pullRoute is one route as the puller knows it.
type pullRoute struct {
	name, job string
	api       string
	pending   bool   // tasks are believed to wait in it
	polling   int    // long polls open on it
	asked     uint64 // counter at the last ask
}

// pullReq is one open request.
type pullReq struct {
	id       string
	route    *pullRoute
	poll     bool
	deadline time.Time
}

func newPuller(nc *nats.Conn, stream string, slots int, wait time.Duration) *puller {
	p := &puller{
		nc: nc, prefix: "$JS.API.CONSUMER.MSG.NEXT." + stream + ".", inbox: nc.NewInbox(), wait: wait,
		poll:   fmt.Appendf(nil, `{"batch":1,"expires":%d}`, wait.Nanoseconds()),
		noWait: fmt.Appendf(nil, `{"batch":1,"no_wait":true,"expires":%d}`, wait.Nanoseconds()),
		tokens: make(chan struct{}, slots),
		wake:   make(chan struct{}, 1),
		every:  time.Second,
		routes: map[string]*pullRoute{},
		load:   map[string]int{},
	}
	for range slots {
		p.tokens <- struct{}{}
	}
	return p
}

// release returns one token. Tokens never exceed the slots: a token given
// back twice (a request closed for lost that was only late) is dropped.
func (p *puller) release() {
	select {
	case p.tokens <- struct{}{}:
	default:
	}
}

// announce asks for a refresh at once (a submitter made a route).
func (p *puller) announce() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// loop sends pull requests while tokens are free, until ctx is done, then
// waits for the open requests to end (the tasks they still bring are handed
// back by run, which sees the worker stopping).
func (p *puller) loop(ctx context.Context) error {
	sub, err := p.nc.Subscribe(p.inbox+".*", p.onMsg)
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	expire := time.NewTicker(max(p.wait/4, 50*time.Millisecond))
	defer expire.Stop()
	refresh := time.NewTicker(p.every)
	defer refresh.Stop()
	p.update(ctx)
	for {
		select {
		case <-p.tokens:
			p.request()
		case <-expire.C:
			p.expire(time.Now())
		case <-refresh.C:
			p.update(ctx)
		case <-p.wake:
			p.update(ctx)
		case <-ctx.Done():
			p.drain(expire.C)
			return nil
		}
	}
}

// update lists the worker's routes and their pending counts.
func (p *puller) update(ctx context.Context) {
	rs, err := p.refresh(ctx)
	if err != nil {
		if ctx.Err() == nil {
			p.onErr(fmt.Errorf("cluster: listing the task routes: %w", err))
		}
		return
	}
	p.mu.Lock()
	seen := make(map[string]bool, len(rs))
	for _, r := range rs {
		seen[r.name] = true
		pr := p.routes[r.name]
		if pr == nil {
			pr = &pullRoute{name: r.name, job: r.job, api: p.prefix + r.name}
			p.routes[r.name] = pr
		}
		pr.pending = r.pending
	}
	for name := range p.routes {
		if !seen[name] {
			delete(p.routes, name) // its open requests end by status or expiry
		}
	}
	p.unparkLocked()
}

// unparkLocked gives the parked tokens back when some route has work, or
// when a route has no long poll open. Unlocks p.mu.
func (p *puller) unparkLocked() {
	k := 0
	for _, r := range p.routes {
		if r.pending || r.polling == 0 {
			k = p.parked
			break
		}
	}
	p.parked -= k
	p.mu.Unlock()
	for range k {
		p.release()
	}
}

// pick chooses the route a token asks, and whether as a long poll; nil
// parks the token. Called with p.mu held.
func (p *puller) pick() (*pullRoute, bool) {
	var best *pullRoute
	for _, r := range p.routes {
		if !r.pending {
			continue
		}
		if best == nil || p.load[r.job] < p.load[best.job] || p.load[r.job] == p.load[best.job] && r.asked < best.asked {
			best = r
		}
	}
	if best != nil {
		return best, false
	}
	for _, r := range p.routes {
		if r.polling == 0 && (best == nil || r.asked < best.asked) {
			best = r
		}
	}
	return best, true
}

// request lends one token to a new pull request.
func (p *puller) request() {
	p.mu.Lock()
	r, poll := p.pick()
	if r == nil {
		p.parked++
		p.mu.Unlock()
		return
	}
	p.next++
	p.counter++
	r.asked = p.counter
	if poll {
		r.polling++
	}
	p.load[r.job]++
	id := strconv.FormatUint(p.next, 36)
	p.open = append(p.open, pullReq{id: id, route: r, poll: poll, deadline: time.Now().Add(p.wait + 2*time.Second)})
	p.mu.Unlock()
	body := p.noWait
	if poll {
		body = p.poll
	}
	if err := p.nc.PublishRequest(r.api, p.inbox+"."+id, body); err != nil {
		p.onErr(fmt.Errorf("cluster: requesting a task: %w", err))
		p.close(id, "", true)
	}
}

// drain waits until no request is open.
func (p *puller) drain(tick <-chan time.Time) {
	for {
		p.mu.Lock()
		n := len(p.open)
		p.mu.Unlock()
		if n == 0 {
			return
		}
		p.expire(<-tick)
	}
}

// expire closes the requests past their deadline: lost with their server.
func (p *puller) expire(now time.Time) {
	p.mu.Lock()
	k := 0
	for k < len(p.open) && p.open[k].deadline.Before(now) {
		p.forgetLocked(p.open[k])
		k++
	}
	p.open = p.open[k:]
	p.mu.Unlock()
	for range k {
		p.release()
	}
}

// forgetLocked undoes a closed request's share of its route's state.
func (p *puller) forgetLocked(q pullReq) {
	if q.poll {
		q.route.polling--
	}
	if p.load[q.route.job]--; p.load[q.route.job] <= 0 {
		delete(p.load, q.route.job)
	}
}

// takeLocked removes and returns the open request id, or else the oldest
// of route (any route for ""), or else the oldest.
func (p *puller) takeLocked(id, route string) (pullReq, bool) {
	if len(p.open) == 0 {
		return pullReq{}, false
	}
	i := -1
	for j, q := range p.open {
		if id != "" && q.id == id || id == "" && route != "" && q.route.name == route {
			i = j
			break
		}
	}
	if i < 0 {
		i = 0 // not open any more: the oldest stands for it
	}
	q := p.open[i]
	p.open = append(p.open[:i], p.open[i+1:]...)
	return q, true
}

// close ends request id (or the route's oldest), giving its token back
// (after a pause if failed). It reports false if no request was open.
func (p *puller) close(id, route string, failed bool) bool {
	p.mu.Lock()
	q, ok := p.takeLocked(id, route)
	if ok {
		p.forgetLocked(q)
	}
	p.mu.Unlock()
	if !ok {
		return false
	}
	if failed {
		time.AfterFunc(250*time.Millisecond, p.release)
	} else {
		p.release()
	}
	return true
}

// onMsg takes a task, or a status that ends one request.
func (p *puller) onMsg(m *nats.Msg) {
	if status := m.Header.Get("Status"); status != "" && len(m.Data) == 0 {
		id := ""
		if len(m.Subject) > len(p.inbox)+1 {
			id = m.Subject[len(p.inbox)+1:]
		}
		switch status {
		case "100": // idle heartbeat
		case "404", "408":
			// Nothing to deliver: the route is empty for now.
			p.mu.Lock()
			for _, q := range p.open {
				if q.id == id {
					q.route.pending = false
					break
				}
			}
			p.mu.Unlock()
			p.close(id, "", false)
		case "409", "503":
			desc := m.Header.Get("Description")
			if status == "503" || strings.Contains(desc, "Consumer Deleted") {
				// The route is gone (its job ended, or it was deleted
				// before this request reached it): forget it until a
				// listing shows it again.
				p.mu.Lock()
				for _, q := range p.open {
					if q.id == id {
						delete(p.routes, q.route.name)
						break
					}
				}
				p.mu.Unlock()
				p.close(id, "", false)
				return
			}
			p.onErr(fmt.Errorf("cluster: pull request ended: %s %s", status, desc))
			p.close(id, "", true)
		default:
			p.onErr(fmt.Errorf("cluster: pull request ended: %s %s", status, m.Header.Get("Description")))
			p.close(id, "", true)
		}
		return
	}
	// A task: it takes over the token of the request it answers, and its
	// route probably holds more.
	route := routeOfReply(m.Reply)
	p.mu.Lock()
	q, ok := p.takeLocked("", route)
	job := ""
	if r := p.routes[route]; r != nil {
		r.pending = true
		job = r.job
	} else if ok && q.route.name == route {
		job = q.route.job
	}
	switch {
	case ok && q.route.name == route:
		if q.poll {
			q.route.polling-- // its load moves from the request to the task
		}
	case ok:
		p.forgetLocked(q) // the oldest request stands for a late one
		p.load[job]++
	}
	p.unparkLocked()
	done := func() {
		p.mu.Lock()
		if p.load[job]--; p.load[job] <= 0 {
			delete(p.load, job)
		}
		p.mu.Unlock()
		p.release()
	}
	if ok {
		p.run(m, done)
		return
	}
	select {
	case <-p.tokens:
		p.mu.Lock()
		p.load[job]++
		p.mu.Unlock()
		p.run(m, done)
	default:
		p.nak(m)
	}
}

// routeOfReply returns the consumer named by a task message's reply
// subject, $JS.ACK.<stream>.<consumer>.<...> (or with a domain and account
// hash: $JS.ACK.<domain>.<hash>.<stream>.<consumer>...).
func routeOfReply(reply string) string {
	f := strings.Split(reply, ".")
	switch {
	case len(f) == 9:
		return f[3]
	case len(f) >= 11:
		return f[5]
	}
	return ""
}
