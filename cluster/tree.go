package cluster

import (
	"fmt"
	"slices"
	"strings"
)

// tree is a Submission's view of a job whose tasks spawn tasks: which
// results belong to the job (the tree of "lists"), how many tasks it has
// now, and its reduction so far. Guarded by the Submission's mu.
//
// A result belongs to the job if it is one of the job's own tasks
// (Parent "") or if its parent's recorded result lists it (Spawned). A
// result that arrives before its parent's is kept aside (orphans) until
// the parent's comes; one that no recorded parent lists (a copy of a
// parent that lost the race to record spilled it) never counts. Each
// listed child adds one to the tasks the job waits for, so the job is
// done when every task counted has a result (see the package doc,
// "Quiescence").
type tree struct {
	reduce  string
	listed  map[string]bool   // children listed by a counted result, not yet recorded
	orphans map[string]Result // recorded children not (yet) listed
	spawned int               // children listed so far
	fold    fold
	folding bool // fold.r is set
	// Of the orphans: how many succeeded and failed, and the children
	// they list (for Progress, in O(1)).
	orphanOK, orphanFailed, orphanSpawned int
}

// inTree says whether r is counted now; if not, it is kept aside.
// Called with s.mu held.
func (s *Submission) inTree(r Result) bool {
	if r.Parent == "" {
		// A task of the job itself: one of its ids when they are known
		// (a result under another id, without a parent, is no task of
		// this job and never counts).
		_, ok := s.index[r.Task]
		return s.index == nil || ok
	}
	if s.listed[r.Task] {
		delete(s.listed, r.Task)
		return true
	}
	if s.orphans == nil {
		s.orphans = map[string]Result{}
	}
	if _, dup := s.orphans[r.Task]; !dup {
		s.orphanCount(r, 1)
	}
	s.orphans[r.Task] = r
	delete(s.started, r.Task) // it ran: Progress counts it with the orphans
	return false
}

// orphanCount adds d × r to the orphans' counts. Called with s.mu held.
func (s *Submission) orphanCount(r Result, d int) {
	if r.OK() {
		s.orphanOK += d
	} else {
		s.orphanFailed += d
	}
	s.orphanSpawned += d * len(r.Spawned)
}

// grow counts a counted result's children and folds its value. Called
// with s.mu held.
func (s *Submission) grow(r Result) {
	// A job that names no reduction folds only what its workers reduced
	// (the results of tasks that spawned or set a value): a flat batch
	// pays nothing for it.
	if r.OK() && (s.tree.reduce != "" || r.Value != nil) {
		s.foldValue(r)
	}
	// All the children are counted before any kept-aside one is taken:
	// taking one may end the job, which must wait for its siblings.
	// Only r's own descendants count (the recorder refuses a result that
	// lists another id; a server without one is trusted).
	children := r.Spawned
	if slices.ContainsFunc(children, func(c string) bool { return !isDescendant(c, r.Task) }) {
		children = slices.DeleteFunc(slices.Clone(children), func(c string) bool { return !isDescendant(c, r.Task) })
	}
	s.total += len(children)
	s.spawned += len(children)
	if len(children) > 0 && s.listed == nil {
		s.listed = map[string]bool{}
	}
	var ready []Result
	for _, c := range children {
		s.listed[c] = true
		if o, ok := s.orphans[c]; ok {
			delete(s.orphans, c)
			s.orphanCount(o, -1)
			ready = append(ready, o)
		}
	}
	for _, o := range ready {
		s.addLocked(o)
	}
}

// foldValue folds a successful result's value into the job's reduction.
func (s *Submission) foldValue(r Result) {
	if !s.folding {
		red, err := s.n.reducerOf(s.tree.reduce)
		s.folding, s.fold.r, s.fold.err = true, red, err
	}
	if r.Value != nil {
		s.fold.add(r.Value, true) // already reduced by its worker (count: already counted)
	} else {
		s.fold.add(r.Output, false)
	}
}

// Value returns the job's reduction (Job.Reduce) of the values of the
// tasks that succeeded so far, the children included; once Done is
// closed, of all of them. A task's value is its output, or what it set
// with ReduceValue. A job that names no Reduce is reduced (concat) only
// over the results that carry a Value (tasks that spawned or set one).
// While a tree grows, the value so far includes the children whose
// parent's result is not in yet (as Progress counts them). ok is false
// while no value has arrived; err says the reduction failed (ErrReduce: a
// value that is not a number) or is not known here (ErrUnknownReduce).
func (s *Submission) Value() (v []byte, ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.fold
	if !s.finished && len(s.orphans) > 0 {
		// The value so far: a copy of the fold, with the orphans (in
		// task order) folded in.
		if !s.folding {
			f.r, f.err = s.n.reducerOf(s.tree.reduce)
		}
		f.v = slices.Clone(f.v)
		ids := make([]string, 0, len(s.orphans))
		for id := range s.orphans {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			if o := s.orphans[id]; o.OK() && (s.tree.reduce != "" || o.Value != nil) {
				if o.Value != nil {
					f.add(o.Value, true)
				} else {
					f.add(o.Output, false)
				}
			}
		}
	}
	if f.err != nil {
		return nil, false, f.err
	}
	if !f.has {
		if s.folding || s.tree.reduce == "" {
			return nil, false, nil
		}
		_, err := s.n.reducerOf(s.tree.reduce)
		return nil, false, err
	}
	return append([]byte(nil), f.v...), true, nil
}

// checkChildIDs refuses a job whose own task ids could be taken for a
// spawned child's: "<id>=<n>..." where <id> is another task of the job.
func checkChildIDs(job string, ids []string, seen map[string]int) error {
	for _, id := range ids {
		for p := id; ; {
			i := strings.LastIndexByte(p, '=')
			if i < 0 || !allDigits(p[i+1:]) {
				break
			}
			p = p[:i]
			if _, ok := seen[p]; ok {
				return fmt.Errorf("%w: job %s: task id %q is the id task %q would give its spawned child; rename one", ErrInvalidJob, job, id, p)
			}
		}
	}
	return nil
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
