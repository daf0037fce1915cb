package cluster

import (
	"fmt"
	stdmaps "maps"

	"github.com/worksteal/worksteal/internal/clusterwire"
)

// Labels describe a worker (WithLabels: gpu=1, mem=64G, zone=eu) or what
// a task needs of one (Job.Require, Task.Require). A task runs only on a
// worker whose labels include every key of the task's requirements with
// the same value.
type Labels map[string]string

// check validates every key and value.
func (l Labels) check() error {
	for k, v := range l {
		if !labelPattern.MatchString(k) || !labelPattern.MatchString(v) {
			return fmt.Errorf("%w: label %q=%q: use letters, digits and _ . : / + -", ErrInvalidOption, k, v)
		}
	}
	return nil
}

// Satisfy says labels l meet the requirements req: every required key is
// present with the required value.
func (l Labels) Satisfy(req Labels) bool {
	for k, v := range req {
		if l[k] != v {
			return false
		}
	}
	return true
}

// String is "k1=v1,k2=v2", keys sorted; "" for none.
func (l Labels) String() string { return clusterwire.LabelString(l) }

// merge returns a with b's entries added (b wins).
func (l Labels) merge(b Labels) Labels {
	if len(b) == 0 {
		return l
	}
	m := stdmaps.Clone(l)
	if m == nil {
		m = Labels{}
	}
	stdmaps.Copy(m, b)
	return m
}

// WithLabels gives a worker labels, which tasks may require (Job.Require,
// Task.Require): the worker pulls only tasks whose requirements its labels
// satisfy. Registered in the worker registry.
func WithLabels(l Labels) Option {
	return func(o *options) error {
		if err := l.check(); err != nil {
			return err
		}
		o.labels = stdmaps.Clone(l)
		return nil
	}
}

// withSpeed (clusterops.WithSpeed) advertises the worker's relative speed (1 = a reference
// machine; default 1) in the worker registry (WorkerInfo.Speed), for
// operators and dashboards. Scheduling does not need it: a worker pulls a
// task each time a slot frees, so a faster worker takes more tasks by
// itself.
func withSpeed(s float64) Option {
	return func(o *options) error {
		if !(s > 0) {
			return fmt.Errorf("%w: speed %v: must be positive", ErrInvalidOption, s)
		}
		o.speed = s
		return nil
	}
}
