package cluster

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// puller asks the worker's routes (see route) for exactly as many tasks as
// the worker has free slots, over one subscription for the worker's life.
//
// Protocol (JetStream pull requests on core NATS): each free slot is a
// token. Tokens are lent to pull requests, sent to
// $JS.API.CONSUMER.MSG.NEXT.<stream>.<route's consumer> with the reply
// subject <inbox>.<id>, one token per message asked for (the request's
// batch). A task message keeps its token until the task's slot is freed; a
// status on the reply subject (404 nothing waits, 408 expired, 409 ...)
// ends the request and gives its remaining tokens back. A request whose
// batch is delivered in full ends without a status. So the open requests
// never ask for more than the free slots, and a slow worker cannot hoard
// the queue.
//
// At most one request is open per route. That makes the accounting exact:
// a task message names its route (its reply subject, $JS.ACK.<stream>.
// <consumer>..., but not the request: its subject is the task's own), and
// the route's one open request is the one it answers. Tokens freed while
// a route's request is open wait for it to end (parked), then go out
// together as the route's next request: under load a request asks for
// several tasks, and the server answers them in one go (fewer requests,
// fewer small writes, which is what TLS makes expensive).
//
// Which route a token asks (pick), the fair share between jobs:
//   - routes known to hold waiting tasks first, and among them the route
//     whose job has the fewest tasks running or asked for on this worker
//     (ties: the route asked least recently). Such a request does not wait
//     (no_wait): if the route runs empty it ends with a 404 after what it
//     found, the route is marked empty and the tokens ask elsewhere. So
//     while two jobs have waiting tasks, each free slot goes to the job
//     with fewer tasks here, and each job ends up with half the worker's
//     slots (a soft quota: a job alone gets all of them). The tokens of one
//     pass that pick the same route form one request.
//   - else a long poll for one task (expiring after the fetch wait) on a
//     route with no request open, so that a task published to an idle
//     cluster starts at once;
//   - else the token is parked until a route is free to ask.
//
// What the worker knows of its routes comes from the events themselves (a
// delivery marks its route busy, a 404/408 marks it empty), from listing
// the stream's consumers every refresh (their pending counts; new routes;
// deleted ones), and at once from a submitter's notice of a new route.
//
// A request whose server went away ends with no event: past its expiry +
// 2s it is closed and its tokens given back. A task for a route with no
// request open is late (its request was closed so): it runs if a token is
// free and is handed back (nak) otherwise. After an error status the
// tokens come back after a pause, so that a broken server does not make
// the loop spin.
//
// Why not jetstream's Fetch: it subscribes and unsubscribes for every
// request; here a request is one publish, which about doubles the rate of
// small pulls (46k against 26k pulls and acks per second on 2 cores).
type puller struct {
	nc      *nats.Conn
	prefix  string // $JS.API.CONSUMER.MSG.NEXT.<stream>.
	inbox   string // requests reply to inbox.<id>
	poll    []byte // a long poll: one message, expiring after wait
	wait    time.Duration
	tokens  chan struct{}
	wake    chan struct{} // a refresh is wanted (a new route was announced)
	refresh func(ctx context.Context) ([]routeInfo, error)
	every   time.Duration                  // refresh period
	run     func(m *nats.Msg, done func()) // start a task; done gives its token back
	nak     func(m *nats.Msg)              // hand a task back
	onErr   func(error)
	// admit, if set, says whether new tasks may start now (WithAdmission);
	// while it says no, the loop keeps the free tokens in withheld (loop
	// goroutine only; the invariant below counts them with parked) and
	// asks again every admitEvery.
	admit    func() bool
	withheld int

	// mu guards what follows. Invariant: tokens in the channel + parked +
	// the open requests' n + tasks holding a token = slots, give or take a
	// request closed for lost that was only late (release drops the
	// excess token).
	mu      sync.Mutex
	open    []*pullReq // in the order sent, so by deadline
	next    uint64
	routes  map[string]*pullRoute // by consumer name
	load    map[string]int        // by job: tasks running + tokens lent to requests, here
	parked  int
	counter uint64 // orders the routes' last asks

	// spareOut counts the spare tokens lent beyond the slots (spare) not
	// yet taken back: release drops that many tokens before it returns
	// any, so the tokens in play come back to slots.
	spareOut atomic.Int64
}

// pullRoute is one route as the puller knows it.
type pullRoute struct {
	name, job string
	api       string
	pending   bool     // tasks are believed to wait in it
	req       *pullReq // its open request, or nil
	asked     uint64   // counter at the last ask
}

// pullReq is one open request.
type pullReq struct {
	id       string
	route    *pullRoute
	poll     bool
	n        int  // tokens it holds: messages still due
	sent     bool // published (tokens of the same pass join it until then)
	deadline time.Time
}

// admitEvery is how often withheld tokens ask WithAdmission's function again.
const admitEvery = 250 * time.Millisecond

func newPuller(nc *nats.Conn, stream string, slots int, wait time.Duration) *puller {
	p := &puller{
		nc: nc, prefix: "$JS.API.CONSUMER.MSG.NEXT." + stream + ".", inbox: nc.NewInbox(), wait: wait,
		poll:   fmt.Appendf(nil, `{"batch":1,"expires":%d}`, wait.Nanoseconds()),
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
	for {
		k := p.spareOut.Load()
		if k == 0 {
			break
		}
		if p.spareOut.CompareAndSwap(k, k-1) {
			return // a spare token goes away
		}
	}
	select {
	case p.tokens <- struct{}{}:
	default:
	}
}

// spare lends k tokens beyond the slots, for the tasks of a lost worker
// just handed back to routes (failover.go): marked as holding tasks, they
// are asked first. Each goes away at a release.
func (p *puller) spare(k int, routes []string) {
	p.mu.Lock()
	for _, name := range routes {
		if r := p.routes[name]; r != nil {
			r.pending = true
		}
	}
	p.mu.Unlock()
	p.spareOut.Add(int64(k))
	p.request(k)
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
	var admitTick <-chan time.Time
	if p.admit != nil {
		t := time.NewTicker(admitEvery)
		defer t.Stop()
		admitTick = t.C
	}
	rs, err := p.refresh(ctx)
	p.apply(ctx, rs, err)
	// Later listings run beside the loop, one at a time: a listing can
	// take the whole request timeout (5 s) while the JetStream cluster
	// elects leaders under load, and a loop that waited for each one
	// asked for tasks once per listing.
	type routeListing struct {
		rs  []routeInfo
		err error
	}
	listed := make(chan routeListing, 1)
	listing := false // a listing runs; only the loop reads or writes it
	list := func() {
		if listing {
			return
		}
		listing = true
		go func() {
			rs, err := p.refresh(ctx)
			listed <- routeListing{rs, err}
		}()
	}
	for {
		select {
		case <-p.tokens:
			k := 1 // and every other token free now: one pass
			for more := true; more; {
				select {
				case <-p.tokens:
					k++
				default:
					more = false
				}
			}
			if p.admit != nil && !p.admit() {
				p.withheld += k
				continue
			}
			p.request(k)
		case <-admitTick:
			if p.withheld > 0 && p.admit() {
				k := p.withheld
				p.withheld = 0
				p.request(k)
			}
		case <-expire.C:
			p.expire(time.Now())
		case <-refresh.C:
			list()
		case <-p.wake:
			list()
		case l := <-listed:
			listing = false
			p.apply(ctx, l.rs, l.err)
		case <-ctx.Done():
			p.drain(expire.C)
			return nil
		}
	}
}

// apply takes in a listing of the worker's routes (or its error).
func (p *puller) apply(ctx context.Context, rs []routeInfo, err error) {
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
			for _, q := range p.open { // listed again while its request is open
				if q.route.name == r.name {
					pr = q.route
				}
			}
		}
		if pr == nil {
			pr = &pullRoute{name: r.name, job: r.job, api: p.prefix + r.name}
		}
		p.routes[r.name] = pr
		pr.pending = r.pending
	}
	for name := range p.routes {
		if !seen[name] {
			delete(p.routes, name) // its open request ends by status or expiry
		}
	}
	p.unparkLocked()
}

// unparkLocked gives the parked tokens back when some route has no request
// open: it can be asked (for its waiting tasks, or with a long poll).
// Unlocks p.mu.
func (p *puller) unparkLocked() {
	k := 0
	for _, r := range p.routes {
		if r.req == nil {
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
// parks the token. A route can be asked if it has no request open, or if
// its request is a no_wait being formed in this pass. Called with p.mu held.
func (p *puller) pick() (*pullRoute, bool) {
	free := func(r *pullRoute) bool { return r.req == nil || !r.req.sent && !r.req.poll }
	var best *pullRoute
	for _, r := range p.routes {
		if !r.pending || !free(r) {
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
		if r.req == nil && (best == nil || r.asked < best.asked) {
			best = r
		}
	}
	return best, true
}

// request lends k tokens to new pull requests: each token picks a route,
// and the tokens that pick the same route form one request.
func (p *puller) request(k int) {
	p.mu.Lock()
	var formed []*pullReq
	for i := 0; i < k; i++ {
		r, poll := p.pick()
		if r == nil {
			p.parked += k - i
			break
		}
		p.counter++
		r.asked = p.counter
		p.load[r.job]++
		if r.req == nil {
			p.next++
			r.req = &pullReq{id: strconv.FormatUint(p.next, 36), route: r, poll: poll, deadline: time.Now().Add(p.wait + 2*time.Second)}
			p.open = append(p.open, r.req)
			formed = append(formed, r.req)
		}
		r.req.n++
	}
	for _, q := range formed {
		q.sent = true
	}
	p.mu.Unlock()
	for _, q := range formed {
		body := p.poll
		if !q.poll {
			body = fmt.Appendf(nil, `{"batch":%d,"no_wait":true,"expires":%d}`, q.n, p.wait.Nanoseconds())
		}
		if err := p.nc.PublishRequest(q.route.api, p.inbox+"."+q.id, body); err != nil {
			p.onErr(fmt.Errorf("cluster: requesting tasks: %w", err))
			p.close(q.id, true)
		}
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
	tokens := 0
	for len(p.open) > 0 && p.open[0].deadline.Before(now) {
		tokens += p.endLocked(p.open[0])
	}
	p.unparkLocked()
	for range tokens {
		p.release()
	}
}

// endLocked removes the open request q and undoes its share of the load:
// it returns the tokens it still held, for the caller to give back.
func (p *puller) endLocked(q *pullReq) int {
	if i := slices.Index(p.open, q); i >= 0 {
		p.open = slices.Delete(p.open, i, i+1)
	}
	if q.route.req == q {
		q.route.req = nil
	}
	if p.load[q.route.job] -= q.n; p.load[q.route.job] <= 0 {
		delete(p.load, q.route.job)
	}
	n := q.n
	q.n = 0
	return n
}

// byIDLocked returns the open request id, or nil.
func (p *puller) byIDLocked(id string) *pullReq {
	for _, q := range p.open {
		if q.id == id {
			return q
		}
	}
	return nil
}

// close ends request id, giving its tokens back (after a pause if failed).
// It reports false if no such request was open.
func (p *puller) close(id string, failed bool) bool {
	p.mu.Lock()
	q := p.byIDLocked(id)
	tokens := 0
	if q != nil {
		tokens = p.endLocked(q)
	}
	p.unparkLocked()
	if q == nil {
		return false
	}
	give := func() {
		for range tokens {
			p.release()
		}
	}
	if failed {
		time.AfterFunc(250*time.Millisecond, give)
	} else {
		give()
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
		case "404", "408", "503":
			// 404, 408: nothing (more) to deliver: the route is empty
			// for now.
			//
			// 503, no responders: nothing serves the route's consumer
			// now. Its job may have ended (the consumer deleted), or its
			// consumer may be between leaders (a server of the
			// JetStream cluster died). The route is kept, marked empty,
			// and asked again after the pause: a listing that no
			// longer shows it removes it (apply). Forgetting it here
			// left a worker with no route to ask for as long as the
			// listings failed, and during a leader election under load
			// they time out for minutes (TestClusterLosesStreamLeader
			// stalled 150 s and more, no pull request at the server
			// while 113 tasks waited).
			p.mu.Lock()
			if q := p.byIDLocked(id); q != nil {
				q.route.pending = false
			}
			p.mu.Unlock()
			p.close(id, status == "503")
		case "409":
			desc := m.Header.Get("Description")
			if strings.Contains(desc, "Consumer Deleted") {
				// The route is gone (its job ended while this request
				// waited): forget it until a listing shows it again.
				p.mu.Lock()
				if q := p.byIDLocked(id); q != nil && p.routes[q.route.name] == q.route {
					delete(p.routes, q.route.name)
				}
				p.mu.Unlock()
				p.close(id, false)
				return
			}
			p.onErr(fmt.Errorf("cluster: pull request ended: %s %s", status, desc))
			p.close(id, true)
		default:
			p.onErr(fmt.Errorf("cluster: pull request ended: %s %s", status, m.Header.Get("Description")))
			p.close(id, true)
		}
		return
	}
	// A task: it takes over a token of its route's open request, and its
	// route probably holds more.
	route := routeOfReply(m.Reply)
	p.mu.Lock()
	var q *pullReq
	for _, o := range p.open {
		if o.route.name == route {
			q = o
			break
		}
	}
	job := ""
	if r := p.routes[route]; r != nil {
		r.pending = true
		job = r.job
	}
	if q != nil {
		job = q.route.job
		if q.n--; q.n == 0 { // its batch is complete: no status follows
			p.open = slices.DeleteFunc(p.open, func(o *pullReq) bool { return o == q })
			if q.route.req == q {
				q.route.req = nil
			}
		}
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
	if q != nil {
		p.run(m, done) // the token moves from the request to the task, with its load
		return
	}
	select { // late: its request was closed as lost
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
	var buf [16]string
	f := splitDots(reply, buf[:])
	switch {
	case len(f) == 9:
		return f[3]
	case len(f) >= 11:
		return f[5]
	}
	return ""
}
