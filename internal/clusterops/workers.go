package clusterops

import "time"

// WorkerInfo is a live worker, as it registers itself.
type WorkerInfo struct {
	Name     string    `json:"name"`
	Slots    int       `json:"slots"`
	Handlers []string  `json:"handlers"`
	Running  int       `json:"running"`
	Started  time.Time `json:"started"`
	// Labels are the worker's (WithLabels); Speed its advertised relative
	// speed (WithSpeed).
	Labels map[string]string `json:"labels,omitempty"`
	Speed  float64           `json:"speed,omitempty"`
	// Stopped: the worker stopped serving; its entry stays until it
	// expires (15 s), so that its handlers stay known to Submit.
	Stopped bool `json:"stopped,omitempty"`
	// Alive is the subject suffix of its liveness pings (failover.go).
	Alive string `json:"alive,omitempty"`
}

// Stats are a worker's counters since New.
type Stats struct {
	Executed    int64 // handler runs that ended (any outcome)
	Recorded    int64 // results this worker recorded
	Duplicates  int64 // results discarded because the task had one already
	Redelivered int64 // tasks received again after an earlier delivery
	// Delivered counts the task messages the server delivered to this
	// worker, those handed back included: each is one delivery spent.
	Delivered int64
	// Spawned counts the children that this worker's tasks spawned,
	// Spilled those it handed over to other workers (each one message),
	// IdleSignals the idle signals it sent (see Spawn).
	Spawned, Spilled, IdleSignals int64
	// Reclaimed counts the tasks of lost workers that this worker handed
	// back to the queue (see the package doc, "Failover").
	Reclaimed int64
	// IdleAccepted counts the idle signals of other workers that this
	// worker heard and let through its rate limit (it hands children over
	// on such a signal when it has two or more pending), IdleRefused those
	// it discarded: over the limit, or naming another sender than their
	// subject (see Spawn).
	IdleAccepted, IdleRefused int64
}
