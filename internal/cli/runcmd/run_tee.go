package runcmd

// GNU parallel's --tee: argument mode's jobs (of the ::: values), each
// given all of the input on its stdin (--pipe), or all of the first -a
// file (--pipepart).

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/gnuinput"
	"github.com/worksteal/worksteal/runner"
)

// teeMode says the command line is --tee with --pipe or --pipepart (GNU
// ignores --tee alone).
func (p *pipeConfig) teeMode() bool { return p.tee && p.pipeMode() }

// teePrepare settles --tee's defaults before the jobs are read: -j 0 (GNU:
// every job at once), the first -a file as the data (--pipepart), and an
// environment whose stdin is not read for arguments (it is the data).
func teePrepare(env *cmdenv.Env, cfg *runConfig, args []string) (data string, argEnv *cmdenv.Env, rest []string, err error) {
	if cfg.jobs == "" {
		cfg.jobs = "0"
	}
	if cfg.pipe.roundRobin || cfg.pipe.cat || cfg.pipe.fifo {
		return "", nil, nil, errors.New("--tee gives all of the input to every job on its stdin: not with --round-robin, --cat or --fifo")
	}
	if cfg.nats != "" {
		return "", nil, nil, errors.New("--tee needs every job running at once on this machine: not with --nats")
	}
	rest = args
	if cfg.pipe.pipePart {
		// GNU: the first -a file, or else the first :::: file.
		switch sep, i := fileSepOf(cfg), firstFileArg(args, fileSepOf(cfg)); {
		case len(cfg.argFiles) > 0:
			data = cfg.argFiles[0]
			cfg.argFiles = cfg.argFiles[1:]
		case i > 0:
			data = args[i]
			rest = slices.Delete(slices.Clone(args), i, i+1)
			if i == len(rest) || strings.HasPrefix(rest[i], ":::") || rest[i] == sep || rest[i] == cfg.gnu.argSep {
				rest = slices.Delete(rest, i-1, i) // the separator had that file alone
			}
		default:
			return "", nil, nil, errors.New("--pipepart --tee: give the file every job reads (-a FILE or :::: FILE)")
		}
	}
	e := *env
	e.Stdin = strings.NewReader("")
	return data, &e, rest, nil
}

// fileSepOf is the separator of file sources (GNU's --arg-file-sep).
func fileSepOf(cfg *runConfig) string {
	if cfg.gnu.argFileSep != "" {
		return cfg.gnu.argFileSep
	}
	return "::::"
}

// firstFileArg is the index in args of the first file named after the
// separator sep (or sep+), 0 if none.
func firstFileArg(args []string, sep string) int {
	for i, a := range args {
		if (a == sep || a == sep+"+") && i+1 < len(args) {
			return i + 1
		}
	}
	return 0
}

// teeAttach gives the jobs their input, once it is known that they all run
// at once.
func teeAttach(env *cmdenv.Env, cfg runConfig, data string, jobs []runner.Job, slots int) ([]runner.Job, error) {
	if len(jobs) > slots {
		return nil, fmt.Errorf("--tee runs every job at once: %d jobs, -j %d (try --jobs 0)", len(jobs), slots)
	}
	if cfg.pipe.pipePart {
		return gnuinput.TeeFile(data, jobs)
	}
	return gnuinput.Tee(env.Stdin, jobs), nil
}
