package clusterwire

import "time"

// JobRecord is a job's state in the jobs bucket: enough for a restarted
// submitter to resume it and for anyone to follow it.
type JobRecord struct {
	ID          string    `json:"id"`
	Nonce       string    `json:"nonce"` // distinguishes reuses of one ID in message ids
	Total       int       `json:"total"`
	Published   int       `json:"published"` // tasks [0, Published) are in the stream or done
	Fingerprint string    `json:"fingerprint"`
	Reduce      string    `json:"reduce,omitempty"` // cluster.Job.Reduce
	MaxAttempts int       `json:"max_attempts,omitempty"`
	Created     time.Time `json:"created"`
	Done        bool      `json:"done,omitempty"`
	// Ended is when the submitter that set Done saw the job's last result:
	// a view that saw none of its results still shows its elapsed time.
	Ended     time.Time `json:"ended,omitzero"`
	Cancelled bool      `json:"cancelled,omitempty"`
}
