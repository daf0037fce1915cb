package runcmd

import (
	"github.com/spf13/pflag"

	"github.com/worksteal/worksteal/internal/gnuinput"
	"github.com/worksteal/worksteal/internal/throttle"
)

func addMemSuspendFlag(f *pflag.FlagSet) {
	f.String("memsuspend", "", "start a job only while --memfree plus this much memory is free; below twice it, stop running jobs (SIGSTOP), the youngest first, and continue them (SIGCONT) as memory comes back")
}

// memSuspend reads --memsuspend into th (GNU parallel 20221122: a size,
// a negative one no limit, as --memfree).
func memSuspend(f *pflag.FlagSet, th *throttle.Throttle) error {
	given, ok := gnuChanged(f, "memsuspend")
	if !ok {
		return nil
	}
	s, _ := f.GetString("memsuspend")
	v, err := gnuinput.ParseSize(given, s)
	if err != nil {
		return sizeError(err)
	}
	th.MemSuspend = int64(max(v, 0))
	return nil
}
