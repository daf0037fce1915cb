package cluster

import (
	"bytes"
	"fmt"
	"strconv"
)

// Combine merges two values of a job's reduction into one. It must be
// associative (results arrive, and subtrees finish, in any order and
// grouping); a returned error marks the job's reduced value as failed
// (Submission.Value) or fails the subtree that was being reduced.
type Combine func(a, b []byte) ([]byte, error)

// The built-in reductions, for Job.Reduce (and worksteal run --reduce):
//
//	sum     decimal numbers added (integers stay integers; one float makes the sum a float)
//	count   how many tasks ran (each task counts 1, whatever its value)
//	min     the smallest number
//	max     the largest number
//	concat  the values one after the other, in the order they finish (the default of a tree)
//
// A task's value is its handler's output, or what it set with ReduceValue;
// numbers are read with white space trimmed; an empty value contributes
// nothing. A program adds its own with
// Node.Reduce.
var builtinReduces = map[string]reducer{
	"sum":    {combine: numeric(func(a, b int64) int64 { return a + b }, func(a, b float64) float64 { return a + b })},
	"count":  {lift: func([]byte) []byte { return []byte("1") }, combine: numeric(func(a, b int64) int64 { return a + b }, func(a, b float64) float64 { return a + b })},
	"min":    {combine: numeric(func(a, b int64) int64 { return min(a, b) }, func(a, b float64) float64 { return min(a, b) })},
	"max":    {combine: numeric(func(a, b int64) int64 { return max(a, b) }, func(a, b float64) float64 { return max(a, b) })},
	"concat": {combine: func(a, b []byte) ([]byte, error) { return append(a, b...), nil }}, // a is the fold's own (see fold.add)
}

// reducer is a named reduction: lift turns one task's value into the
// reduction's domain (nil: as it is), combine merges two.
type reducer struct {
	lift    func([]byte) []byte
	combine Combine
}

// defaultReduce is the reduction of a job that names none.
const defaultReduce = "concat"

// Reduce registers combine under name, for jobs that name it in
// Job.Reduce: the workers that run the job's tasks (they reduce the
// subtrees they run locally) and the submitter that follows it
// (Submission.Value) must both have it. Names use letters, digits, '-'
// and '_'; a built-in name (sum, count, min, max, concat) cannot be
// replaced.
func (n *Node) Reduce(name string, combine Combine) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("%w: reduce name %q: use letters, digits, '-' and '_'", ErrInvalidOption, name)
	}
	if _, ok := builtinReduces[name]; ok {
		return fmt.Errorf("%w: reduce %q is built in", ErrInvalidOption, name)
	}
	if combine == nil {
		return fmt.Errorf("%w: reduce %q is nil", ErrInvalidOption, name)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.reduces == nil {
		n.reduces = map[string]Combine{}
	}
	n.reduces[name] = combine
	return nil
}

// reducerOf returns the reduction named name ("" is the default).
func (n *Node) reducerOf(name string) (reducer, error) {
	if name == "" {
		name = defaultReduce
	}
	if r, ok := builtinReduces[name]; ok {
		return r, nil
	}
	n.mu.Lock()
	c, ok := n.reduces[name]
	n.mu.Unlock()
	if !ok {
		return reducer{}, fmt.Errorf("%w: %q is neither built in (sum, count, min, max, concat) nor registered with Node.Reduce", ErrUnknownReduce, name)
	}
	return reducer{combine: c}, nil
}

// fold is a running reduction: the values folded so far.
type fold struct {
	r   reducer
	v   []byte
	has bool
	err error
}

// add folds one task's value (already lifted when lifted is true). An
// empty value contributes nothing.
func (f *fold) add(v []byte, lifted bool) {
	if f.err != nil {
		return
	}
	if !lifted && f.r.lift != nil {
		v = f.r.lift(v)
	}
	if len(v) == 0 {
		return
	}
	if !f.has {
		f.v, f.has = append([]byte(nil), v...), true // the fold's own: a combine may append to it
		return
	}
	f.v, f.err = f.r.combine(f.v, v)
}

// numeric makes a Combine of decimal numbers from an integer and a float
// operation.
func numeric(i func(a, b int64) int64, fl func(a, b float64) float64) Combine {
	return func(a, b []byte) ([]byte, error) {
		a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
		x, errx := strconv.ParseInt(string(a), 10, 64)
		y, erry := strconv.ParseInt(string(b), 10, 64)
		if errx == nil && erry == nil {
			return strconv.AppendInt(nil, i(x, y), 10), nil
		}
		fx, err := strconv.ParseFloat(string(a), 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %q is not a number", ErrReduce, truncate(a))
		}
		fy, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %q is not a number", ErrReduce, truncate(b))
		}
		return strconv.AppendFloat(nil, fl(fx, fy), 'g', -1, 64), nil
	}
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
