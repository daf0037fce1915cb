package gnuinput

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/worksteal/worksteal/internal/runopts"
	"github.com/worksteal/worksteal/runner"
)

// ParseHalt reads GNU parallel's --halt: when,why=N or when,why=N% (when:
// never, soon, now; why: fail, success, done), or its short forms 0
// (never), 1 (soon,fail=1), 2 (now,fail=1), -1 (soon,success=1), -2
// (now,success=1) and N% (soon,fail=N%).
func ParseHalt(s string) (runopts.Halt, error) {
	long := map[string]string{"0": "never", "1": "soon,fail=1", "2": "now,fail=1", "-1": "soon,success=1", "-2": "now,success=1"}
	v := s
	if l, ok := long[v]; ok {
		v = l
	}
	if p, ok := strings.CutSuffix(v, "%"); ok && p != "" && strings.Trim(p, "0123456789") == "" {
		v = "soon,fail=" + v
	}
	bad := func(why string) (runopts.Halt, error) {
		return runopts.Halt{}, fmt.Errorf("%w: --halt %q: %s (want when,why=N or N%%: now,fail=1, soon,fail=20%%, now,success=1, soon,done=3; or 0, 1, 2, -1, -2)", runner.ErrInvalidConfig, s, why)
	}
	when, rest, _ := strings.Cut(v, ",")
	var h runopts.Halt
	switch when {
	case "never":
		return runopts.Halt{}, nil
	case "soon":
		h.When = runopts.HaltSoon
	case "now":
		h.When = runopts.HaltNow
	default:
		return bad("it must start with never, soon or now")
	}
	why, n, _ := strings.Cut(rest, "=")
	switch why {
	case "fail":
		h.Why = runopts.HaltOnFail
	case "success":
		h.Why = runopts.HaltOnSuccess
	case "done":
		h.Why = runopts.HaltOnDone
	default:
		return bad(when + " must be followed by ,fail ,success or ,done")
	}
	num, pct := strings.CutSuffix(n, "%")
	k, err := strconv.Atoi(num)
	if err != nil || k < 0 || strings.Trim(num, "0123456789") != "" {
		return bad(when + "," + why + " must be followed by =number or =percent%")
	}
	if pct {
		if k == 0 {
			return bad("a percentage of 1% or more")
		}
		// GNU takes a percentage over 100% too: never reached, the
		// exit status is the failed jobs' percentage.
		h.Percent = float64(k)
	} else {
		h.Count = k
	}
	return h, nil
}

// ParseOrder parses "auto", "input" or "lpt".
func ParseOrder(s string) (runner.Order, error) {
	switch s {
	case "auto", "":
		return runner.OrderAuto, nil
	case "input":
		return runner.OrderInput, nil
	case "lpt":
		return runner.OrderLPT, nil
	}
	return 0, fmt.Errorf("%w: order %q: want auto, input or lpt", runner.ErrInvalidConfig, s)
}
