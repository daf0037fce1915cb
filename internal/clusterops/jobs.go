package clusterops

import "time"

// JobInfo is a job as its record in the jobs bucket describes it.
type JobInfo struct {
	ID        string
	Total     int       // tasks in the job
	Published int       // tasks published so far (all, once Submit returned)
	Created   time.Time // when it was first submitted
	Done      bool      // every task has a result (as its last follower saw)
	Cancelled bool      // cancelled: its unfinished tasks will not run
	Reduce    string    // the job's reduction (Job.Reduce), "" if it named none
}
