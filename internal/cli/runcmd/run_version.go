package runcmd

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/pflag"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
)

// gnuVersion is the GNU parallel release whose behaviour "worksteal run"
// follows, in GNU's form (--minversion compares with it as a number).
const gnuVersion = 20221122

func addVersionFlags(f *pflag.FlagSet) {
	f.BoolP("version", "V", false, "print worksteal's version and the GNU parallel release run follows, and exit")
	f.String("minversion", "", "print the GNU parallel release run follows (20221122) and exit: 0 if it is at least this one, else 255 (GNU parallel's check)")
}

// answerVersion prints what --version or --minversion asks (GNU parallel
// answers --version first); done is false when neither was given.
func answerVersion(f *pflag.FlagSet, w io.Writer) (done bool, err error) {
	if _, ok := gnuChanged(f, "version"); ok {
		_, err := fmt.Fprintf(w, "worksteal %s\nworksteal run follows GNU parallel %d\n", cmdenv.VersionString(), gnuVersion)
		return true, err
	}
	if _, ok := gnuChanged(f, "minversion"); !ok {
		return false, nil
	}
	s := f.Lookup("minversion").Value.String()
	want, perr := strconv.ParseFloat(s, 64)
	if perr != nil {
		return true, runError(fmt.Errorf("--minversion %q: not a number (GNU parallel's release, as 20221122)", s))
	}
	if _, err := fmt.Fprintln(w, gnuVersion); err != nil {
		return true, err
	}
	if float64(gnuVersion) < want {
		return true, runError(fmt.Errorf("--minversion %s: run follows GNU parallel %d, an older release", s, gnuVersion))
	}
	return true, nil
}
