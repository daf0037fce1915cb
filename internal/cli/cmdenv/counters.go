package cmdenv

import (
	"fmt"
	"io"
	"strings"

	"github.com/worksteal/worksteal"
)

// WriteRunCounters prints a run's counters (Config.Counters): the whole
// process, then each worker that was counted (Config.Pin), then once why
// the counts shown as n/a are missing.
func WriteRunCounters(w io.Writer, s worksteal.Stats) {
	if s.Counters == nil {
		return
	}
	fmt.Fprintf(w, "counters (process, user-space hardware events): %v\n", s.Counters)
	for i, ws := range s.Workers {
		if ws.Counters != nil {
			fmt.Fprintf(w, "  worker %d: %v\n", i, ws.Counters)
		}
	}
	if r := s.Counters.Reasons(); r != "" {
		fmt.Fprintf(w, "n/a:\n")
		for line := range strings.SplitSeq(r, "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
}
