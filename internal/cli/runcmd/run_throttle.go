package runcmd

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/gnuinput"
	"github.com/worksteal/worksteal/internal/throttle"
)

// throttleOptions reads --load, --memfree and --nice (nil and 0 when not
// given), checking that the machine can be read.
func throttleOptions(f *pflag.FlagSet, cfg runConfig) (*throttle.Throttle, int, error) {
	p := cfg.pipe
	var th throttle.Throttle
	if given, ok := gnuChanged(f, "load"); ok {
		v, err := cmdenv.ParseLoad(p.load)
		if err != nil {
			return nil, 0, fmt.Errorf("%s %q: %v", given, p.load, err)
		}
		th.MaxLoad = v
	}
	if given, ok := gnuChanged(f, "memfree"); ok {
		v, err := gnuinput.ParseSize(given, p.memFree)
		if err != nil {
			return nil, 0, sizeError(err)
		}
		th.MemFree = int64(max(v, 0)) // GNU: a negative size is no limit
	}
	if err := memSuspend(f, &th); err != nil { // run_memsuspend.go
		return nil, 0, err
	}
	nice := 0
	if given, ok := gnuChanged(f, "nice"); ok {
		nice = min(max(p.nice, -20), 19) // GNU: nice(1) clamps it so
		if _, err := lookNice(); err != nil && nice > 0 {
			return nil, 0, fmt.Errorf("%s %d: %v", given, p.nice, err)
		}
	}
	if _, ok := gnuChanged(f, "limit"); ok {
		limit, err := limitFunc(cfg)
		if err != nil {
			return nil, 0, err
		}
		th.Limit = limit
	}
	if p.noSwap {
		// GNU's --noswap: no start while both swap-in and swap-out
		// went on since the last reading (it runs vmstat).
		th.Limit = noSwap(th.Limit, throttle.ReadSwap, time.Second)
	}
	if th.MaxLoad == 0 && th.MemFree == 0 && th.MemSuspend == 0 && th.Limit == nil {
		return nil, nice, nil
	}
	if _, err := throttle.ReadMachine(); err != nil && th.Limit == nil {
		return nil, 0, fmt.Errorf("--load/--memfree/--memsuspend: %v", err)
	}
	return &th, nice, nil
}

// noSwap answers as limit (nil: 0) while the machine does not swap, and
// 1 (start nothing) while it swaps both in and out: pages swapped in and
// out since the reading before, taken at least every apart. The first
// answer has no reading before it, and is limit's.
func noSwap(limit func() int, read func() (in, out int64, err error), every time.Duration) func() int {
	var lastIn, lastOut int64
	var last time.Time
	swapping := false
	return func() int {
		if now := time.Now(); last.IsZero() || now.Sub(last) >= every {
			in, out, err := read()
			if err == nil {
				swapping = !last.IsZero() && in > lastIn && out > lastOut
				lastIn, lastOut, last = in, out, now
			}
		}
		if swapping {
			return 1
		}
		if limit == nil {
			return 0
		}
		return limit()
	}
}

// limitFunc is GNU parallel's --limit "command args": the command's exit
// status (0, 1 or 2), run by the jobs' shell with $SSHLOGIN ":" (GNU's
// name of this machine); "mem SIZE" and "load N" are GNU's built-in
// commands, read here as --memfree and --load read the machine (2 below
// half of SIZE free, 1 below SIZE; 1 while more than N processes run).
func limitFunc(cfg runConfig) (func() int, error) {
	spec := cfg.pipe.limit
	if strings.TrimSpace(spec) == "" {
		return nil, errors.New("--limit '': want a command (its exit status: 0 start a job, 1 wait, 2 kill the youngest) or 'mem SIZE', 'load N'")
	}
	words := strings.Fields(spec)
	switch words[0] {
	case "mem", "load":
		if len(words) != 2 {
			return nil, fmt.Errorf("--limit %q: want %s and one value", spec, words[0])
		}
		v, err := gnuinput.ParseSize("--limit", words[1])
		if err != nil {
			return nil, sizeError(err)
		}
		if _, err := throttle.ReadMachine(); err != nil {
			return nil, fmt.Errorf("--limit %q: %v", spec, err)
		}
		if words[0] == "load" {
			return func() int {
				rd, err := throttle.ReadMachine()
				if err != nil || rd.Load > v {
					return 1
				}
				return 0
			}, nil
		}
		return func() int {
			rd, err := throttle.ReadMachine()
			switch {
			case err != nil:
				return 1
			case float64(rd.MemFree) < v/2:
				return 2
			case float64(rd.MemFree) < v:
				return 1
			}
			return 0
		}, nil
	case "io":
		return nil, fmt.Errorf("--limit %q: GNU parallel's io limit reads iostat(1), which worksteal does not run; give a command", spec)
	}
	shell, err := resolveShell(cfg.shell)
	if err != nil {
		return nil, err
	}
	return func() int {
		c := exec.Command(shell, "-c", spec)
		c.Env = append(os.Environ(), "SSHLOGIN=:")
		err := c.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return max(ee.ExitCode(), 0) // GNU: $? >> 8, 0 after a signal
		}
		if err != nil {
			return 1
		}
		return 0
	}, nil
}

func lookNice() (string, error) {
	p, err := exec.LookPath("nice")
	if err != nil {
		return "", errors.New("nice(1), which runs the jobs at a niceness, is not installed")
	}
	return p, nil
}
