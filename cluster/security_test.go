package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// serveAs starts an in-process worker on nc with the worker role; it
// stops with the test.
func serveAs(t testing.TB, nc *nats.Conn, opts ...cluster.Option) *cluster.Node {
	t.Helper()
	n, err := cluster.New(nc, testOptions(append([]cluster.Option{cluster.WithRole(cluster.RoleWorker)}, opts...)...)...)
	if err != nil {
		t.Fatal(err)
	}
	register(n)
	startServing(t, n)
	return n
}

// TestRolesRunAJobWithTheirOwnPermissions: a submitter, a worker and an
// observer, each with only its role's permissions, over mutual TLS, run
// and list a job, and the server refuses none of what they do: the
// permission table is enough for the tier's real traffic. (Following a
// job's results is the submitter's: TestObserverWritesNothingAndReadsNoOutput.)
func TestRolesRunAJobWithTheirOwnPermissions(t *testing.T) {
	e := newSecureEnv(t)
	srv := startSecureServer(t, e, true)
	url := srv.ClientURL()
	subNC, subV := e.connectAs(t, url, cluster.RoleSubmitter)
	sub, err := cluster.New(subNC, testOptions(cluster.WithRole(cluster.RoleSubmitter))...)
	if err != nil {
		t.Fatal(err)
	}
	// The worker starts first and waits for the submitter to set up.
	workNC, workV := e.connectAs(t, url, cluster.RoleWorker)
	serveAs(t, workNC, cluster.WithSlots(4), cluster.WithName("w1"))

	job := cluster.Job{ID: "secure"}
	for i := range 20 {
		job.Tasks = append(job.Tasks, cluster.Task{Handler: "upper", Payload: []byte("task " + strconv.Itoa(i))})
	}
	job.Tasks = append(job.Tasks, cluster.Task{ID: "ckpt", Handler: "slow", Payload: []byte("10")})
	s, err := sub.Submit(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	rs := waitJob(t, s)
	for i, r := range rs[:20] {
		if !r.OK() || string(r.Output) != "TASK "+strconv.Itoa(i) || r.Worker != "w1" {
			t.Errorf("result %d = %+v", i, r)
		}
	}
	if last := rs[20]; !last.OK() {
		t.Errorf("checkpointing task: %+v", last)
	}

	obsNC, obsV := e.connectAs(t, url, cluster.RoleObserver)
	obs, err := cluster.New(obsNC, testOptions(cluster.WithRole(cluster.RoleObserver))...)
	if err != nil {
		t.Fatal(err)
	}
	if jobs, err := clusterops.Jobs(context.Background(), obs); err != nil || len(jobs) != 1 || jobs[0].ID != "secure" || !jobs[0].Done {
		t.Errorf("observer: Jobs = %+v, %v; want job secure, done", jobs, err)
	}
	waitFor(t, "the observer to list the worker", func() bool {
		ws, err := clusterops.Workers(context.Background(), obs)
		return err == nil && len(ws) == 1 && ws[0].Name == "w1"
	})
	if ws, err := clusterops.Workers(context.Background(), sub); err != nil || len(ws) != 1 {
		t.Errorf("submitter: Workers = %v, %v", ws, err)
	}
	if err := sub.Delete(context.Background(), "secure"); err != nil {
		t.Errorf("submitter: Delete: %v", err)
	}
	for role, v := range map[cluster.Role]*violations{cluster.RoleSubmitter: subV, cluster.RoleWorker: workV, cluster.RoleObserver: obsV} {
		for _, e := range v.all() {
			if strings.Contains(strings.ToLower(e), "permission") {
				t.Errorf("%s was refused: %s", role, e)
			}
		}
	}
}

// refusal is something a role must not do, and the subject the server
// names when it refuses.
type refusal struct {
	what    string
	subject string
	sub     bool   // a subscription, else a publish (or request)
	body    string // request body
}

// TestRolesAreRefusedWhatTheyMayNotDo: each role's forbidden actions, done
// with its own credentials against a real server, are refused by the
// server (it names the subject), and nothing changes behind them.
func TestRolesAreRefusedWhatTheyMayNotDo(t *testing.T) {
	e := newSecureEnv(t)
	srv := startSecureServer(t, e, false)
	url := srv.ClientURL()
	adminNC, _ := e.connectAs(t, url, "")
	admin, err := cluster.New(adminNC, testOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	// One task waits in the stream (no worker runs it).
	s, err := admin.Submit(context.Background(), slowJob("waiting", 1, 10))
	if err != nil {
		t.Fatal(err)
	}
	s.Stop()
	js, _ := adminNC.JetStream()
	state := func() (msgs uint64, cfg string, jobs uint64) {
		si, err := js.StreamInfo("ws_tasks")
		if err != nil {
			t.Fatal(err)
		}
		ji, err := js.StreamInfo("KV_ws_jobs")
		if err != nil {
			t.Fatal(err)
		}
		return si.State.Msgs, fmt_(si.Config), ji.State.Msgs
	}
	msgs0, cfg0, jobs0 := state()

	forWorker := []refusal{
		{what: "create a job record", subject: "$KV.ws_jobs.evil"},
		{what: "publish a task", subject: "ws.task.waiting.sh.any"},
		{what: "put a result", subject: "$KV.ws_results.waiting.0"},
		{what: "count a failure", subject: "$KV.ws_failures.waiting.0"},
		{what: "read a task by sequence", subject: "$JS.API.STREAM.MSG.GET.ws_tasks", body: `{"seq":1}`},
		{what: "read a task by a direct get", subject: "$JS.API.DIRECT.GET.ws_tasks", body: `{"seq":1}`},
		{what: "read job records", subject: "$JS.API.DIRECT.GET.KV_ws_jobs.$KV.ws_jobs.waiting"},
		{what: "change the stream", subject: "$JS.API.STREAM.UPDATE.ws_tasks", body: `{"name":"ws_tasks","subjects":["ws.task.>"],"retention":"workqueue","max_msgs":0}`},
		{what: "purge the stream", subject: "$JS.API.STREAM.PURGE.ws_tasks", body: `{}`},
		{what: "make its own consumer of the tasks", subject: "$JS.API.CONSUMER.CREATE.ws_tasks.spy", body: `{"stream_name":"ws_tasks","config":{"name":"spy","ack_policy":"explicit"}}`},
		{what: "hear tasks as they are published", subject: "ws.task.>", sub: true},
		{what: "read a submitter's replies", subject: "_INBOX_submitter.>", sub: true},
		{what: "read replies in the shared inbox", subject: "_INBOX.>", sub: true},
	}
	forSubmitter := []refusal{
		{what: "pull a task", subject: "$JS.API.CONSUMER.MSG.NEXT.ws_tasks.ws_workers", body: `{"batch":1,"expires":1000000000}`},
		{what: "settle a task", subject: "$JS.ACK.ws_tasks.ws_workers.1.1.1.1.0"},
		{what: "delete the stream", subject: "$JS.API.STREAM.DELETE.ws_tasks"},
		{what: "receive cancel notices meant for workers", subject: "ws.cancel.>", sub: true},
		{what: "read a worker's replies", subject: "_INBOX_worker.>", sub: true},
	}
	// An observer writes nothing: every subject a worker or a submitter
	// may publish to, wildcards filled in, is refused to it, except its
	// own read requests.
	obsPerm, _ := clusterops.RolePermissions(cluster.RoleObserver, "ws")
	ownRead := map[string]bool{}
	for _, a := range obsPerm.Publish.Allow {
		ownRead[a] = true
	}
	var forObserver []refusal
	seen := map[string]bool{}
	for _, r := range []cluster.Role{cluster.RoleWorker, cluster.RoleSubmitter} {
		p, _ := clusterops.RolePermissions(r, "ws")
		for _, a := range p.Publish.Allow {
			if ownRead[a] || seen[a] {
				continue
			}
			seen[a] = true
			subj := strings.NewReplacer("*", "x", ">", "x").Replace(a)
			forObserver = append(forObserver, refusal{what: "publish to " + a, subject: subj, body: `{}`})
		}
	}
	forObserver = append(forObserver,
		refusal{what: "hear tasks", subject: "ws.task.>", sub: true})

	for role, refusals := range map[cluster.Role][]refusal{cluster.RoleWorker: forWorker, cluster.RoleSubmitter: forSubmitter, cluster.RoleObserver: forObserver} {
		nc, v := e.connectAs(t, url, role)
		for _, r := range refusals {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if r.sub {
				if _, err := nc.SubscribeSync(r.subject); err != nil {
					t.Errorf("%s: subscribe %s: %v", role, r.subject, err)
				}
			} else {
				go nc.RequestWithContext(ctx, r.subject, []byte(r.body)) // the answer, if any, is checked below
			}
			for !v.has(r.subject) && ctx.Err() == nil {
				select {
				case <-v.seen:
				case <-ctx.Done():
				}
			}
			if !v.has(r.subject) {
				t.Errorf("%s could %s: no refusal of %q (errors %q)", role, r.what, r.subject, v.all())
			}
			cancel()
		}
	}
	if msgs, cfg, jobs := state(); msgs != msgs0 || cfg != cfg0 || jobs != jobs0 {
		t.Errorf("refused requests changed the tier: %d tasks, %d job records, config %s; want %d, %d, %s", msgs, jobs, cfg, msgs0, jobs0, cfg0)
	}
}

// TestOnlyAuthenticatedTLSClientsGetIn: with mutual TLS and nkeys, a
// client gets in only with credentials, a certificate from the
// deployment's CA, and trust in the server's.
func TestOnlyAuthenticatedTLSClientsGetIn(t *testing.T) {
	e := newSecureEnv(t)
	srv := startSecureServer(t, e, true)
	good := cluster.Credentials{Creds: e.seeds[cluster.RoleObserver], TLSCA: e.ca, TLSCert: e.clientCert, TLSKey: e.clientKey}
	cases := []struct {
		name  string
		creds cluster.Credentials
		want  string // in the error; "" for success
	}{
		{"all of it", good, ""},
		{"no credentials", cluster.Credentials{TLSCA: e.ca, TLSCert: e.clientCert, TLSKey: e.clientKey}, "authorization violation"},
		{"a client certificate from another CA", cluster.Credentials{Creds: good.Creds, TLSCA: e.ca, TLSCert: e.rogueCert, TLSKey: e.rogueKey}, ""},
		{"no client certificate", cluster.Credentials{Creds: good.Creds, TLSCA: e.ca}, ""},
		{"no trust in the server's CA", cluster.Credentials{Creds: good.Creds, TLSCert: e.clientCert, TLSKey: e.clientKey}, "certificate"},
	}
	for _, tc := range cases {
		opts, err := cluster.ConnectOptions(cluster.RoleObserver, tc.creds)
		if err != nil {
			t.Fatal(err)
		}
		nc, err := nats.Connect(srv.ClientURL(), append(opts, nats.Timeout(5*time.Second), nats.NoReconnect())...)
		t.Logf("%s: %v", tc.name, err)
		switch {
		case tc.name == "all of it":
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
				continue
			}
			// Connected means admitted: a round trip proves it.
			if err := nc.Flush(); err != nil {
				t.Errorf("%s: flush: %v", tc.name, err)
			}
			nc.Close()
		case err == nil:
			// The server may reject a bad client certificate just after the
			// handshake: the connection then dies at its first round trip.
			if ferr := nc.Flush(); ferr == nil && nc.IsConnected() {
				t.Errorf("%s: admitted", tc.name)
			}
			nc.Close()
		case !strings.Contains(strings.ToLower(err.Error()), tc.want):
			t.Errorf("%s: error %q; want it to mention %q", tc.name, err, tc.want)
		}
	}
}

// TestThreeServerClusterOverAuthenticatedTLSRoutes: a 3-server JetStream
// cluster whose routes are mutual TLS runs a replicated job for clients
// with role credentials, and a server whose route certificate comes from
// another CA cannot join it.
func TestThreeServerClusterOverAuthenticatedTLSRoutes(t *testing.T) {
	e := newSecureEnv(t)
	servers, ports := startSecureCluster(t, e)
	for _, srv := range servers {
		e.startRecorder(t, srv, cluster.WithReplicas(3))
	}
	var urls []string
	for _, s := range servers {
		urls = append(urls, s.ClientURL())
	}
	// A rogue server, with a route certificate from another CA, tries to
	// join through every route port.
	rogueRoute := routeTLSConfig(t, e.routeTLS(t, "rogue route CA"))
	var routes []*url.URL
	for _, p := range ports {
		routes = append(routes, &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", p)})
	}
	rogue := runServer(t, &server.Options{
		ServerName: "rogue", Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
		Cluster: server.ClusterOpts{Name: "wstest", Host: "127.0.0.1", Port: -1, TLSConfig: rogueRoute, TLSTimeout: 5},
		Routes:  routes,
	})

	subNC, _ := e.connectAs(t, strings.Join(urls, ","), cluster.RoleSubmitter)
	for i := range 2 {
		nc, _ := e.connectAs(t, urls[i+1], cluster.RoleWorker)
		serveAs(t, nc, cluster.WithReplicas(3), cluster.WithSlots(2), cluster.WithName(fmt.Sprintf("w%d", i)),
			cluster.WithErrorHandler(func(err error) { t.Logf("w%d: %v", i, err) }))
	}
	job := cluster.Job{ID: "routes"}
	for i := range 10 {
		job.Tasks = append(job.Tasks, cluster.Task{Handler: "upper", Payload: []byte("r" + strconv.Itoa(i))})
	}
	// The submitter creates the replicated stream and buckets (in New or
	// in its first Submit), a proposal each to the new cluster's meta
	// leader and an election each, and gives up after 30 s of retries: at
	// load 35 (CI's busy loops beside -race) that was not always enough, in
	// New once and in Submit once. The test tries again, as a user's script
	// would, until its own deadline: what it checks is who may join the
	// cluster, not how fast it forms.
	var sub *cluster.Node
	var s *cluster.Submission
	var err error
	waitFor(t, "a submitter that sets up the replicated tier", func() bool {
		if sub == nil {
			sub, err = cluster.New(subNC, testOptions(cluster.WithRole(cluster.RoleSubmitter), cluster.WithReplicas(3))...)
		}
		if err == nil {
			s, err = sub.Submit(context.Background(), job)
		}
		if errors.Is(err, cluster.ErrJetStream) {
			t.Logf("submitter: %v; trying again", err)
			sub = nil
			return false
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	for i, r := range waitJob(t, s) {
		if !r.OK() || string(r.Output) != "R"+strconv.Itoa(i) {
			t.Errorf("result %d = %+v", i, r)
		}
	}
	// By now the rogue has tried its routes many times (every second).
	if n := rogue.NumRoutes(); n != 0 {
		t.Errorf("the rogue server has %d routes into the cluster; want 0", n)
	}
	for _, srv := range servers {
		if peers := srv.JetStreamClusterPeers(); srv.JetStreamIsLeader() && len(peers) != 3 {
			t.Errorf("the meta leader %s has peers %v; want the 3 servers", srv.Name(), peers)
		}
	}
}

// TestRoleWorkersSpawnRetryAndFailThroughTheRecorder: workers with only
// the worker role's permissions run a tree (children handed over through
// the recorder, which publishes them), a job of retried and failing tasks
// (failure counts through the recorder), and a tree job whose submitter
// did not allow spawning (Job.NoSpawn: nothing handed over), with the
// outcomes a server without roles gives.
func TestRoleWorkersSpawnRetryAndFailThroughTheRecorder(t *testing.T) {
	e := newSecureEnv(t)
	srv := startSecureServer(t, e, false)
	url := srv.ClientURL()
	subNC, _ := e.connectAs(t, url, cluster.RoleSubmitter)
	sub, err := cluster.New(subNC, testOptions(cluster.WithRole(cluster.RoleSubmitter), cluster.WithMaxDeliver(4))...)
	if err != nil {
		t.Fatal(err)
	}
	var workers []*cluster.Node
	var refusals []*violations
	for _, name := range []string{"a", "b"} {
		nc, v := e.connectAs(t, url, cluster.RoleWorker)
		n, err := cluster.New(nc, testOptions(cluster.WithRole(cluster.RoleWorker), cluster.WithSlots(2), cluster.WithName(name), cluster.WithMaxDeliver(4))...)
		if err != nil {
			t.Fatal(err)
		}
		register(n)
		registerTree(n)
		startServing(t, n)
		workers = append(workers, n)
		refusals = append(refusals, v)
	}
	waitFor(t, "both workers registered", func() bool {
		ws, _ := clusterops.Workers(context.Background(), sub)
		return len(ws) == 2
	})
	const depth, fanout = 4, 4
	s, err := sub.Submit(context.Background(), treeJob("rtree", depth, fanout, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	rs := waitJob(t, s)
	checkTree(t, s, rs, treeSize(depth, fanout))
	sa, sb := clusterops.StatsOf(workers[0]), clusterops.StatsOf(workers[1])
	if sa.Spilled+sb.Spilled == 0 {
		t.Errorf("no child handed over: a %+v, b %+v", sa, sb)
	}

	job := cluster.Job{ID: "rfail", MaxAttempts: 3, Tasks: []cluster.Task{
		{ID: "flaky", Handler: "flaky", Payload: []byte("3")},
		{ID: "poison", Handler: "poison"},
	}}
	s2, err := sub.Submit(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Stop()
	rs2, _ := s2.Wait(testdeadline.Context(t))
	if len(rs2) != 2 || !rs2[0].OK() || rs2[0].Attempt != 3 || rs2[1].OK() || rs2[1].Attempt != 3 {
		t.Errorf("retried job: %+v; want flaky ok at attempt 3, poison failed at attempt 3", rs2)
	}

	spilled := sa.Spilled + sb.Spilled
	nj := treeJob("rnospawn", depth, fanout, 2)
	nj.NoSpawn = true
	s3, err := sub.Submit(context.Background(), nj)
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Stop()
	rs3 := waitJob(t, s3)
	checkTree(t, s3, rs3, treeSize(depth, fanout))
	if n := clusterops.StatsOf(workers[0]).Spilled + clusterops.StatsOf(workers[1]).Spilled; n != spilled || len(rs3) != 1 {
		t.Errorf("a NoSpawn job handed %d children over, %d results; want none, 1", n-spilled, len(rs3))
	}
	for i, v := range refusals {
		for _, e := range v.all() {
			if strings.Contains(strings.ToLower(e), "permission") {
				t.Errorf("worker %d was refused: %s", i, e)
			}
		}
	}
}

// TestForgedResultsOutsideTheJobDoNotCount: results written straight into
// the bucket (a server without roles, where nothing checks a write) for a
// task that is not the job's and has no parent, and listing a child that
// is not the task's, do not count toward the job's completion: the job
// ends with its own task's result, and no other.
func TestForgedResultsOutsideTheJobDoNotCount(t *testing.T) {
	srv := startServer(t)
	nc := connect(t, srv.ClientURL())
	n := submitter(t, nc)
	s, err := n.Submit(context.Background(), cluster.Job{ID: "forged", Tasks: []cluster.Task{{Handler: "upper", Payload: []byte("real")}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	js, _ := nc.JetStream()
	kv, err := js.KeyValue("ws_results")
	if err != nil {
		t.Fatal(err)
	}
	forged := func(task, parent string, spawned ...string) []byte {
		b, _ := cluster.Result{Job: "forged", Task: task, Handler: "upper", Parent: parent, Output: []byte("FORGED"), Spawned: spawned}.MarshalJSON()
		return b
	}
	if _, err := kv.Create("forged.x", forged("x", "", "0=0")); err != nil { // no task of the job, listing a child of another task
		t.Fatal(err)
	}
	if _, err := kv.Create("forged.0=0", forged("0=0", "x")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the forged results to be read", func() bool {
		_, err := kv.Get("forged.0=0")
		return err == nil
	})
	serve(t, connect(t, srv.ClientURL()), cluster.WithName("w"))
	rs := waitJob(t, s)
	if len(rs) != 1 || rs[0].Task != "0" || string(rs[0].Output) != "REAL" {
		t.Errorf("results %+v; want task 0's own, REAL", rs)
	}
	if p := s.Progress(); p.Total != 1 || p.Succeeded != 1 || p.Spawned != 0 {
		t.Errorf("progress %+v; want 1 task, 1 succeeded, none spawned", p)
	}
}

// TestRecorderDiscardsTasksOfNoJob: task messages on the subjects of a job
// that is not recorded (published by a submitter's credentials without a
// job record) are purged by the recorder and counted; a recorded job's
// are kept.
func TestRecorderDiscardsTasksOfNoJob(t *testing.T) {
	e := newSecureEnv(t)
	srv := startSecureServer(t, e, false)
	subNC, _ := e.connectAs(t, srv.ClientURL(), cluster.RoleSubmitter)
	sub, err := cluster.New(subNC, testOptions(cluster.WithRole(cluster.RoleSubmitter))...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sub.Submit(context.Background(), slowJob("kept", 1, 10)) // no worker: its task waits
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	js, _ := subNC.JetStream()
	for range 3 {
		if _, err := js.Publish("ws.task.ghost.sh.any", []byte(`{"cmd":"true"}`)); err != nil {
			t.Fatal(err)
		}
	}
	count := func(filter string) int {
		si, err := js.StreamInfo("ws_tasks", &nats.StreamInfoRequest{SubjectsFilter: filter})
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for _, c := range si.State.Subjects {
			k += int(c)
		}
		return k
	}
	waitFor(t, "the recorder to discard job ghost's tasks", func() bool { return count("ws.task.ghost.>") == 0 })
	if k := count("ws.task.kept.>"); k != 1 {
		t.Errorf("job kept has %d queued tasks; want its 1", k)
	}
}
