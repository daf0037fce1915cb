package servecmd

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/worksteal/worksteal/cluster"
)

// The embedded server's own refusals. nats-server refuses a publish or a
// subscription that a user's permissions deny, tells the client, and logs
// one error line naming the connection's nkey ("... - \"$G/nkey:U...\" -
// Publish Violation - Subject \"...\""); it offers no advisory for it
// without JWT accounts. serve installs violationLog as the server's
// logger (SetLoggerV2; with -v it passes every line on to the server's
// standard logger), so each violation is
//
//   - named: the nkey is mapped to the holder's name and role from
//     users.json beside the --config file (serve init and serve
//     credentials write it), or shown as the bare public key;
//   - logged on serve's stderr, rate-limited: the first of each holder,
//     kind and subject, then its count at 10, 100, 1000, ... and when
//     serve stops; at most maxLoggedSubjects subjects per holder, the rest
//     only counted;
//   - counted with the recorder's refusals, by role and reason
//     (ReasonPublishDenied, ReasonSubscribeDenied), which the recorder
//     publishes on <stream>.refusals for the dashboard (clusterops.CountRefusal).

// The reasons of the server's refusals, in the counts "<role>/<reason>".
const (
	ReasonPublishDenied   = "server/publish-denied"
	ReasonSubscribeDenied = "server/subscribe-denied"
)

// maxLoggedSubjects bounds the subjects logged per holder (a flood of
// distinct subjects is counted, not logged).
const maxLoggedSubjects = 50

var (
	violationPattern = regexp.MustCompile(`(Publish|Subscription) Violation[^"]* - (?:Subject|Reply) ("(?:[^"\\]|\\.)*")`)
	nkeyPattern      = regexp.MustCompile(`nkey:(U[A-Z2-7]+)`)
)

// violationLog is the embedded server's logger (see above). Its methods
// may be called from any of the server's goroutines: mu guards its maps
// and counter.
type violationLog struct {
	next    server.Logger       // the server's own logger (serve -v), or nil
	holders map[string]credUser // by public key
	errs    io.Writer

	mu       sync.Mutex
	seen     map[violation]int64
	subjects map[string]int // distinct subjects logged, by holder
	count    func(role, reason string)
	pending  [][2]string // counts before count was set
}

// violation is what the log is rate-limited by.
type violation struct{ holder, role, kind, subject string }

// newViolationLog returns the logger for a server whose holders are
// those of users.json beside configFile ("" or no such file: none
// named). It logs on errs.
func newViolationLog(configFile string, errs io.Writer) *violationLog {
	v := &violationLog{holders: map[string]credUser{}, errs: errs, seen: map[violation]int64{}, subjects: map[string]int{}}
	if configFile != "" {
		if ul, err := loadUsers(filepath.Dir(configFile)); err == nil {
			for _, u := range ul.Users {
				v.holders[u.Nkey] = u
			}
		}
	}
	return v
}

// install makes v the logger of s, passing every line on to s's current
// logger (if any).
func (v *violationLog) install(s *server.Server, o *server.Options) {
	v.next = s.Logger()
	s.SetLoggerV2(v, o.Debug, o.Trace, o.TraceVerbose)
}

// countTo sends the counts, those so far and each later one, to count
// (the recorder's clusterops.CountRefusal).
func (v *violationLog) countTo(count func(role, reason string)) {
	v.mu.Lock()
	v.count = count
	pending := v.pending
	v.pending = nil
	v.mu.Unlock()
	for _, p := range pending {
		count(p[0], p[1])
	}
}

// roleLabel is the role a holder's refusals are counted under: its
// credential's role, "person" for a submitter (as the recorder counts a
// person's refused requests), "unknown" for a key not in users.json.
func roleLabel(u credUser, known bool) string {
	switch {
	case !known:
		return "unknown"
	case u.Role == cluster.RoleSubmitter:
		return "person"
	}
	return string(u.Role)
}

// note handles one log line of the server.
func (v *violationLog) note(line string) {
	m := violationPattern.FindStringSubmatch(line)
	if m == nil {
		return
	}
	subject, err := strconv.Unquote(m[2])
	if err != nil {
		subject = m[2]
	}
	kind, reason := "publish to", ReasonPublishDenied
	if m[1] == "Subscription" {
		kind, reason = "subscription to", ReasonSubscribeDenied
	}
	holder, role := "a client without an nkey", "unknown"
	if k := nkeyPattern.FindStringSubmatch(line); k != nil {
		u, known := v.holders[k[1]]
		role = roleLabel(u, known)
		holder = u.Name
		if !known {
			holder = "nkey " + k[1]
		}
	}
	v.mu.Lock()
	count := v.count
	if count == nil {
		v.pending = append(v.pending, [2]string{role, reason})
	}
	v.log(violation{holder, role, kind, subject}, reason)
	v.mu.Unlock()
	if count != nil { // outside mu: count takes the recorder's locks
		count(role, reason)
	}
}

// log logs one violation, rate-limited (see above). v.mu is held.
func (v *violationLog) log(key violation, reason string) {
	holder, role, kind, subject := key.holder, key.role, key.kind, key.subject
	n := v.seen[key]
	if n == 0 {
		if v.subjects[holder] >= maxLoggedSubjects {
			if v.subjects[holder] == maxLoggedSubjects {
				fmt.Fprintf(v.errs, "worksteal serve: the server refused %s (%s) on %d subjects; further subjects are counted, not logged\n", holder, role, maxLoggedSubjects)
				v.subjects[holder]++
			}
			return
		}
		v.subjects[holder]++
	}
	v.seen[key] = n + 1
	switch n + 1 {
	case 1:
		fmt.Fprintf(v.errs, "worksteal serve: the server refused %s (%s) a %s %q: %s\n", holder, role, kind, subject, reason)
	case 10, 100, 1000, 10000, 100000, 1000000:
		fmt.Fprintf(v.errs, "worksteal serve: the server refused %s (%s) a %s %q %d times\n", holder, role, kind, subject, n+1)
	}
}

// summary logs the counts not logged yet (serve stopping).
func (v *violationLog) summary() {
	v.mu.Lock()
	defer v.mu.Unlock()
	for key, n := range v.seen {
		switch n {
		case 1, 10, 100, 1000, 10000, 100000, 1000000:
			continue
		}
		fmt.Fprintf(v.errs, "worksteal serve: the server refused %s (%s) a %s %q %d times in all\n", key.holder, key.role, key.kind, key.subject, n)
	}
}

func (v *violationLog) Noticef(format string, a ...any) {
	if v.next != nil {
		v.next.Noticef(format, a...)
	}
}

func (v *violationLog) Warnf(format string, a ...any) {
	if v.next != nil {
		v.next.Warnf(format, a...)
	}
}

func (v *violationLog) Fatalf(format string, a ...any) {
	if v.next != nil {
		v.next.Fatalf(format, a...)
	}
}

func (v *violationLog) Errorf(format string, a ...any) {
	v.note(fmt.Sprintf(format, a...))
	if v.next != nil {
		v.next.Errorf(format, a...)
	}
}

func (v *violationLog) Debugf(format string, a ...any) {
	if v.next != nil {
		v.next.Debugf(format, a...)
	}
}

func (v *violationLog) Tracef(format string, a ...any) {
	if v.next != nil {
		v.next.Tracef(format, a...)
	}
}
