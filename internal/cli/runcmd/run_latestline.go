package runcmd

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"

	"github.com/worksteal/worksteal/internal/runopts"
	"github.com/worksteal/worksteal/runner"
)

// latestLineScreen reads the terminal --latest-line paints on as GNU
// parallel 20221122 does when it starts: the cursor-up sequence from
// "tput cuu1", the size from "tput lines cols", else "stty -a", all on
// /dev/tty; off a terminal no cursor-up and 24 × 80.
func latestLineScreen() runopts.Screen {
	var scr runopts.Screen
	if out, err := exec.Command("sh", "-c", "tput cuu1 </dev/tty 2>/dev/null").Output(); err == nil {
		scr.Up = strings.TrimSuffix(string(out), "\n")
	}
	if out, err := exec.Command("sh", "-c", "tput lines cols </dev/tty 2>/dev/null && true").Output(); err == nil {
		if f := strings.Fields(string(out)); len(f) == 2 {
			scr.Rows, _ = strconv.Atoi(f[0])
			scr.Cols, _ = strconv.Atoi(f[1])
		}
	}
	if scr.Rows == 0 || scr.Cols == 0 {
		out, _ := exec.Command("sh", "-c", "stty -a </dev/tty 2>/dev/null && true").Output()
		if m := sttyRows.FindSubmatch(out); m != nil {
			scr.Rows, _ = strconv.Atoi(string(m[1]))
		}
		if m := sttyCols.FindSubmatch(out); m != nil {
			scr.Cols, _ = strconv.Atoi(string(m[1]))
		}
	}
	if scr.Rows == 0 || scr.Cols == 0 {
		scr.Rows, scr.Cols = 24, 80 // GNU's default (runner's too)
	}
	return scr
}

var (
	sttyRows = regexp.MustCompile(`rows (\d+)`)
	sttyCols = regexp.MustCompile(`columns (\d+)`)
)

// askOnTTY is --interactive's question, as GNU 20221122 asks it: the
// command and " ?..." on stderr, then a line read from /dev/tty (opened
// afresh for each question); yes if it begins with y or Y after white
// space. An end of input is no (GNU asks again, for ever).
func askOnTTY(rcfg *runner.Config) func(string) bool {
	return func(command string) bool {
		var w io.Writer = os.Stderr
		if rcfg.Stderr != nil {
			w = rcfg.Stderr
		}
		fmt.Fprintf(w, "%s ?...", command)
		tty, err := os.Open("/dev/tty")
		if err != nil {
			return false
		}
		defer tty.Close()
		line, _ := bufio.NewReader(tty).ReadString('\n')
		return yesRE.MatchString(line)
	}
}

var yesRE = regexp.MustCompile(`^\s*[yY]`)
