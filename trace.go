package worksteal

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/worksteal/worksteal/internal/tracefmt"
)

// EventKind is the kind of a trace event.
type EventKind uint8

const (
	EvTaskStart EventKind = iota + 1 // a job starts on the worker
	EvTaskEnd                        // that job ends
	EvSpawn                          // the worker queued a scope task
	EvSteal                          // the worker stole; Peer is the victim, Jobs how many jobs it took
	EvStealFail                      // a steal attempt found nothing or lost a race; Peer is the victim
	EvPark                           // the worker parked (blocked waiting for work)
	EvWake                           // the worker woke up from a park
	EvWaitStart                      // idle while waiting at a join or scope (no work found)
	EvWaitEnd                        // that idle stretch ends (work found, or the wait is over)
	EvPromote                        // a poll point made the worker's latent Join halves public; Jobs is how many
)

var eventNames = [...]string{"", "task-start", "task-end", "spawn", "steal", "steal-fail", "park", "wake", "wait-start", "wait-end", "promote"}

// String names the kind as the Chrome trace export does ("steal", "park"...).
func (k EventKind) String() string {
	if int(k) < len(eventNames) && k != 0 {
		return eventNames[k]
	}
	return "event(?)"
}

// Event is one trace event of one worker.
type Event struct {
	Kind EventKind
	Time time.Duration // since the pool started (monotonic clock)
	Peer int           // the victim of a steal or failed steal, else -1
	Task uint64        // the job's id for task start and end: worker<<32 | sequence
	Jobs int           // for EvSteal: the jobs the steal took (up to policy.MaxBatch under StealHalf)
}

// Trace is a snapshot of a pool's trace: each worker's retained events,
// oldest first, and how many older events its ring buffer overwrote.
type Trace struct {
	Start   time.Time // wall-clock time of the pool's start (event time 0)
	Workers [][]Event
	Dropped []uint64
}

// recorder is one worker's ring buffer. Only the owner writes; each event is
// two words stored atomically, then n is advanced ([T1]). A reader loads n,
// copies the slots, loads n again and keeps only slots the writer cannot
// have been rewriting meanwhile.
type recorder struct {
	slots []atomic.Uint64 // 2 words per event: time, then kind|peer|task
	mask  uint64          // events in the ring − 1 (a power of two)
	n     atomic.Uint64   // events written so far
	seq   uint32          // task sequence (owner only)
}

func newRecorder(events int) *recorder {
	size := uint64(1)
	for size < uint64(events) {
		size <<= 1
	}
	return &recorder{slots: make([]atomic.Uint64, 2*size), mask: size - 1}
}

// record appends one event. peer is -1 when there is none.
func (r *recorder) record(kind EventKind, peer int, task uint64) {
	i := r.n.Load() // owner-only writes: the load needs no edge
	pos := (i & r.mask) * 2
	r.slots[pos].Store(uint64(now()))
	r.slots[pos+1].Store(uint64(kind)<<56 | uint64(uint32(peer+1)&0xffffff)<<32 | task&0xffffffff)
	r.n.Store(i + 1) // [T1] publishes the slot
}

// task returns a fresh task id for this worker.
func (r *recorder) task() uint64 {
	r.seq++
	return uint64(r.seq)
}

// snapshot copies the retained events, oldest first.
func (r *recorder) snapshot(worker int, origin time.Duration) ([]Event, uint64) {
	size := r.mask + 1
	n1 := r.n.Load()
	lo := uint64(0)
	if n1 > size {
		lo = n1 - size
	}
	raw := make([][2]uint64, 0, n1-lo)
	for i := lo; i < n1; i++ {
		pos := (i & r.mask) * 2
		raw = append(raw, [2]uint64{r.slots[pos].Load(), r.slots[pos+1].Load()})
	}
	n2 := r.n.Load()
	// Slots the writer may have rewritten while we copied: index i shares
	// its slot with i+size; event n2 may be half written.
	valid := lo
	if n2+1 > size && n2+1-size > valid {
		valid = n2 + 1 - size
	}
	events := make([]Event, 0, len(raw))
	for k, w := range raw {
		if lo+uint64(k) < valid {
			continue
		}
		ev := Event{
			Kind: EventKind(w[1] >> 56),
			Time: time.Duration(w[0]) - origin,
			Peer: int((w[1]>>32)&0xffffff) - 1,
		}
		switch ev.Kind {
		case EvTaskStart, EvTaskEnd:
			ev.Task = uint64(worker)<<32 | w[1]&0xffffffff
		case EvSteal, EvPromote:
			ev.Jobs = int(w[1] & 0xffffffff)
		}
		events = append(events, ev)
	}
	return events, valid
}

// Trace returns a snapshot of the event trace, or nil when the pool was
// made without Config.Trace. It is safe to call at any time; events recorded
// while it copies may or may not be included.
func (p *Pool) Trace() *Trace {
	if p.cfg.Trace <= 0 {
		return nil
	}
	t := &Trace{Start: p.start}
	add := func(w *Worker) {
		ev, dropped := w.rec.snapshot(w.id, p.startMono)
		t.Workers = append(t.Workers, ev)
		t.Dropped = append(t.Dropped, dropped)
	}
	for _, w := range p.workers {
		add(w)
	}
	p.spares.each(add)
	return t
}

// WriteChrome writes the trace as Chrome trace-event JSON, which opens in
// Perfetto (ui.perfetto.dev) or chrome://tracing — the format
// `worksteal sim --trace` writes, so a real and a simulated schedule can be
// compared side by side: one thread per worker, a complete event per task,
// instant events for steals (with the victim), failed steals, parks and
// wake-ups; a worker's idle stretches while it waits at a join or scope are
// spans of category "wait" inside the waiting task. A task whose start or
// end fell outside the retained events is drawn from the first or to the
// last retained event.
func (t *Trace) WriteChrome(w io.Writer) error {
	f := &tracefmt.File{Process: "worksteal", Workers: len(t.Workers)}
	for wi, evs := range t.Workers {
		open := map[uint64]time.Duration{}
		var first, last time.Duration
		if len(evs) > 0 {
			first, last = evs[0].Time, evs[len(evs)-1].Time
		}
		var stack []uint64 // nested tasks (a worker helps while it waits)
		waitFrom := time.Duration(-1)
		for _, ev := range evs {
			switch ev.Kind {
			case EvWaitStart:
				waitFrom = ev.Time
			case EvWaitEnd:
				if waitFrom < 0 {
					waitFrom = first
				}
				f.Spans = append(f.Spans, tracefmt.Span{Worker: wi, Name: "wait", Cat: "wait", Start: waitFrom, Dur: ev.Time - waitFrom})
				waitFrom = -1
			case EvTaskStart:
				open[ev.Task] = ev.Time
				stack = append(stack, ev.Task)
			case EvTaskEnd:
				start, ok := open[ev.Task]
				if !ok {
					start = first
				}
				delete(open, ev.Task)
				if n := len(stack); n > 0 && stack[n-1] == ev.Task {
					stack = stack[:n-1]
				}
				f.Spans = append(f.Spans, tracefmt.Span{Worker: wi, Name: fmt.Sprintf("T%d.%d", wi, ev.Task&0xffffffff), Cat: "run", Start: start, Dur: ev.Time - start})
			case EvSteal:
				f.Instants = append(f.Instants, tracefmt.Instant{Worker: wi, Name: fmt.Sprintf("steal from %d", ev.Peer), Cat: "steal", At: ev.Time, Args: map[string]any{"victim": ev.Peer, "jobs": ev.Jobs}})
			case EvStealFail:
				f.Instants = append(f.Instants, tracefmt.Instant{Worker: wi, Name: fmt.Sprintf("failed steal from %d", ev.Peer), Cat: "steal-fail", At: ev.Time, Args: map[string]any{"victim": ev.Peer}})
			default:
				f.Instants = append(f.Instants, tracefmt.Instant{Worker: wi, Name: ev.Kind.String(), Cat: ev.Kind.String(), At: ev.Time})
			}
		}
		for _, id := range stack { // still running at the snapshot
			f.Spans = append(f.Spans, tracefmt.Span{Worker: wi, Name: fmt.Sprintf("T%d.%d", wi, id&0xffffffff), Cat: "run", Start: open[id], Dur: last - open[id]})
		}
	}
	return tracefmt.Write(w, f)
}
