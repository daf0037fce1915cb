package runner

// This file stops and continues running jobs by the free memory (GNU
// parallel 20221122's --memsuspend, its suspend_young_if_not_enough_mem).
//
// Invariants: attempt.paused is the loop goroutine's, as the rest of run;
// attempt.pgid is written by the attempt's Exec (Command.Started) and only
// read here, so a job whose process has not started yet, or has been
// reaped, is never signalled. The oldest running job is never stopped, so
// a run whose memory never comes back still ends.

import "slices"

// suspendForMemory is GNU's reading for --memsuspend: with less than
// twice MemSuspend free, only the oldest n+1 running jobs run, n =
// int(1 / (2 - free/MemSuspend)) (one job below MemSuspend, all of them
// near twice it), the rest are stopped; with enough free, one stopped
// job (the oldest) is continued at each reading.
func (r *run) suspendForMemory() {
	t := r.cfg.x.Throttle
	if t.MemSuspend <= 0 {
		return
	}
	r.armGate()
	rd, err := t.Now()
	if err != nil {
		return
	}
	var all []*attempt
	for _, js := range r.jobs {
		all = append(all, js.running...)
	}
	slices.SortFunc(all, func(a, b *attempt) int {
		if a.js.job.Seq != b.js.job.Seq {
			return a.js.job.Seq - b.js.job.Seq
		}
		return a.start.Compare(b.start)
	})
	limit := float64(t.MemSuspend)
	free := float64(rd.MemFree)
	if free >= 2*limit {
		for _, a := range all {
			if a.paused {
				pauseAttempt(a, false)
				return
			}
		}
		return
	}
	run := min(int(1/(2-free/limit)), len(all)-1)
	for i, a := range all {
		switch {
		case i <= run && a.paused:
			pauseAttempt(a, false)
		case i > run && !a.paused:
			pauseAttempt(a, true)
		}
	}
}
