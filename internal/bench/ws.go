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
// its workload from init.
var wsBodies = map[string]func(param any, impl Impl) wsBody{}

func init() { wsBackend = newWSRunner }

// wsRunner runs a body on its own pool; the pool lives as long as the Instance.
type wsRunner struct {
	pool *worksteal.Pool
	body wsBody
}

func newWSRunner(workload string, param any, impl Impl, workers int) (runner, error) {
	mk := wsBodies[workload]
	if mk == nil {
		return nil, fmt.Errorf("%w: %s for %s", ErrUnavailable, impl, workload)
	}
	p, err := worksteal.New(worksteal.Config{Workers: workers})
	if err != nil {
		return nil, err
	}
	return &wsRunner{pool: p, body: mk(param, impl)}, nil
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
func Body(workload, size string) (func(w *worksteal.Worker) Result, error) {
	p, err := parse(workload, size)
	if err != nil {
		return nil, err
	}
	mk := wsBodies[workload]
	if mk == nil {
		return nil, fmt.Errorf("%w: %s for %s", ErrUnavailable, WS, workload)
	}
	return mk(p.param, WS), nil
}
