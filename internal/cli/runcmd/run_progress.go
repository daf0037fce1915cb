package runcmd

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/runner"
)

// jobProgress shows how far a batch has got: a bar with ETA on a terminal,
// plain lines (at most one a second) otherwise. Its methods are called from
// the runner's loop goroutine; the mutex covers the bar's writes against the
// jobs' output written through wrap.
type jobProgress struct {
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	lines io.Writer
	last  time.Time
	lined bool // a line was printed
	total int
	p     runner.Progress
	// longest is the cluster's longest-running task, "" if none known.
	longest string
}

// newJobProgress makes the display for mode auto, bar, lines or none.
func newJobProgress(mode string, w io.Writer, total int) *jobProgress {
	// The first line comes after a second: short batches print none.
	pr := &jobProgress{total: total, last: time.Now()}
	if mode == "auto" {
		mode = "lines"
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			mode = "bar"
		}
	}
	switch mode {
	case "bar":
		pr.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("jobs"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	case "lines":
		pr.lines = w
	}
	return pr
}

// update takes the runner's progress.
func (pr *jobProgress) update(p runner.Progress) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.p = p
	switch {
	case pr.bar != nil:
		pr.bar.Describe(fmt.Sprintf("jobs (%d running%s, %d failed)", p.Running, pr.longest, p.Failed))
		pr.bar.Set(p.Done())
	case pr.lines != nil && time.Since(pr.last) >= 950*time.Millisecond: // the ticks of a cluster run come every second
		pr.last, pr.lined = time.Now(), true
		pr.line(p)
	}
}

// updateCluster takes a cluster job's progress: as update, with the
// longest-running task and its worker.
func (pr *jobProgress) updateCluster(p cluster.Progress, elapsed time.Duration) {
	pr.mu.Lock()
	pr.longest = ""
	if l := p.Longest; l.Task != "" {
		pr.longest = fmt.Sprintf(" (longest: job %s on %s for %s)", l.Task, l.Worker, time.Since(l.Start).Round(100*time.Millisecond))
	}
	if p.Spawned > 0 { // a tree: the total grows as tasks hand children over
		pr.longest += fmt.Sprintf(", %d spawned", p.Spawned)
		pr.total = p.Total
	}
	pr.mu.Unlock()
	pr.update(runner.Progress{Total: p.Total, Succeeded: p.Succeeded, Failed: p.Failed, Running: p.Running, Elapsed: elapsed})
}

func (pr *jobProgress) line(p runner.Progress) {
	eta := "?"
	if d := p.Done(); d > 0 {
		eta = (time.Duration(float64(p.Elapsed) / float64(d) * float64(pr.total-d))).Round(time.Second).String()
	}
	fmt.Fprintf(pr.lines, "progress: %d/%d done, %d failed, %d running%s, %s elapsed, eta %s\n",
		p.Done(), pr.total, p.Failed, p.Running, pr.longest, p.Elapsed.Round(100*time.Millisecond), eta)
}

// finish clears the bar, or writes the last line.
func (pr *jobProgress) finish() {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	switch {
	case pr.bar != nil:
		pr.bar.Exit()
	case pr.lines != nil && pr.lined:
		pr.line(pr.p)
	}
}

// wrap returns w, clearing the bar before each write so that a job's output
// does not land in the middle of it; the next update redraws the bar.
func (pr *jobProgress) wrap(w io.Writer) io.Writer {
	if pr.bar == nil {
		return w
	}
	return writerFunc(func(b []byte) (int, error) {
		pr.mu.Lock()
		defer pr.mu.Unlock()
		pr.bar.Clear()
		return w.Write(b)
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
