package bench

import (
	"fmt"
	"time"

	"github.com/worksteal/worksteal"
)

// wsBody is one worksteal implementation of a workload at one size.
type wsBody = func(w *worksteal.Worker) Result

// wsBodies maps a workload to the constructor of its worksteal
// implementations (WS or WSClosure) at a parsed size; each *_ws.go file adds
// its workload from init. A constructor returns nil for a form its workload
// does not have (the loops have no closure form: they make no Join).
var wsBodies = map[string]func(param any, impl Impl) wsBody{}

func init() { wsBackend = newWSRunner }

// wsRunner runs a body on its own pool; the pool lives as long as the Instance.
type wsRunner struct {
	pool *worksteal.Pool
	body wsBody
}

func newWSRunner(workload string, param any, impl Impl, workers int) (runner, error) {
	mk := wsBodies[workload]
	var body wsBody
	if mk != nil {
		body = mk(param, impl)
	}
	if body == nil {
		return nil, fmt.Errorf("%w: %s for %s", ErrUnavailable, impl, workload)
	}
	p, err := worksteal.New(worksteal.Config{Workers: workers})
	if err != nil {
		return nil, err
	}
	return &wsRunner{pool: p, body: body}, nil
}

func (r *wsRunner) iterate() (Result, time.Duration, uint64, error) {
	before := r.pool.Stats().Total().Stolen
	t0 := time.Now()
	res, err := worksteal.Run(r.pool, r.body)
	elapsed := time.Since(t0)
	return res, elapsed, r.pool.Stats().Total().Stolen - before, err
}

func (r *wsRunner) close() error { return r.pool.Close() }

// Body returns the worksteal implementation (the JoinFunc form) of a
// workload at a size, to run on a pool the caller configures — for example
// with tracing on (worksteal.Config.Trace) or under worksteal.Profile — as
// worksteal.Run(pool, body). The result is the same Result as Prepare's.
// A workload with untimed set-up and check (sort's fresh copy of its input,
// and the check of its order) does both inside the body, so a body can run
// any number of times.
func Body(workload, size string) (func(w *worksteal.Worker) Result, error) {
	p, err := parse(workload, size)
	if err != nil {
		return nil, err
	}
	if err := p.offers(workload, WS); err != nil {
		return nil, err
	}
	body := wsBodies[workload](p.param, WS)
	if p.reset == nil {
		return body, nil
	}
	return func(w *worksteal.Worker) Result {
		p.reset()
		body(w)
		return p.result()
	}, nil
}
