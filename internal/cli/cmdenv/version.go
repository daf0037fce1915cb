package cmdenv

import (
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// Version is the release of this binary. A release build sets it:
//
//	go build -ldflags "-X github.com/worksteal/worksteal/internal/cli/cmdenv.Version=v1.2.0" ./cmd/worksteal
//
// Left empty, worksteal --version shows the module version from the build
// information (go install …@v1.2.0, or the pseudo-version of the checkout
// it was built in), else "devel".
var Version string

// VersionString is what worksteal --version prints after the program name: the
// version, the VCS revision and time when the build recorded them, the
// profile of a profile-guided build ("pgo default.pgo": go build picks up
// cmd/worksteal/default.pgo, which lets the compiler inline JoinFunc's
// plain-call path into the benchmark kernels; PROTOCOL.md "What a Join
// costs"), and the Go release.
func VersionString() string {
	info, ok := debug.ReadBuildInfo()
	v := Version
	if v == "" && ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	if v == "" {
		v = "devel"
	}
	var extra []string
	if ok {
		var rev, at, modified, pgo string
		for _, s := range info.Settings {
			switch s.Key {
			case "-pgo":
				pgo = s.Value
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" {
			if len(rev) > 12 {
				rev = rev[:12]
			}
			if modified == "true" {
				rev += "+modified"
			}
			extra = append(extra, "revision "+rev)
		}
		if at != "" {
			extra = append(extra, at)
		}
		if pgo != "" {
			extra = append(extra, "pgo "+filepath.Base(pgo))
		}
	}
	extra = append(extra, runtime.Version())
	return v + " (" + strings.Join(extra, ", ") + ")"
}
