package servecmd

import (
	"fmt"
	"io"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/worksteal/worksteal/cluster"
)

// The embedded server's own refusals. nats-server refuses a publish or a
// subscription that a user's permissions deny, tells the client, and logs
// one error line naming the connection's nkey ("... - \"$G/nkey:U...\" -
// Publish Violation - Subject \"...\""); it offers no advisory for it
// without JWT accounts. serve installs violationLog as the server's
// logger (SetLoggerV2; with -v it passes every line on to the logger the
// server would have made, serverLogger: its log_file, syslog or stderr),
// so each violation is
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
//
// Failed logins are read from the same log: a connection the server
// closes for its credential ("authentication error - Nkey \"U...\"": an
// nkey not in its users, a signature not made with the key's seed, no
// nkey at all) or for its certificate ("TLS handshake error: ...": one
// the CA did not sign, or none) is logged the same way, keyed by the
// remote host and the credential claimed (named from users.json when the
// key is a holder's: someone who knows a holder's public key tries to log
// in as it), and counted as "unknown/server/auth-failed" or
// "unknown/server/tls-failed": a login that failed proves no role. At most
// maxLoggedHolders remote hosts and holders are logged; the rest are
// counted.

// The reasons of the server's refusals, in the counts "<role>/<reason>".
const (
	ReasonPublishDenied   = "server/publish-denied"
	ReasonSubscribeDenied = "server/subscribe-denied"
	ReasonAuthFailed      = "server/auth-failed"
	ReasonTLSFailed       = "server/tls-failed"
)

// maxLoggedSubjects bounds the subjects (for a login, the credentials
// claimed) logged per holder (remote host); maxLoggedHolders the holders
// and remote hosts logged. A flood of either is counted, not logged.
const (
	maxLoggedSubjects = 50
	maxLoggedHolders  = 200
)

// kindLogin is a violation's kind for a failed login.
const kindLogin = "login"

var (
	violationPattern = regexp.MustCompile(`(Publish|Subscription) Violation[^"]* - (?:Subject|Reply) ("(?:[^"\\]|\\.)*")`)
	nkeyPattern      = regexp.MustCompile(`nkey:(U[A-Z2-7]+)`)
	// c.format's "<host:port> - cid:N - " and authViolation's text
	// (ErrAuthentication, then getAuthUser when the client gave one).
	authPattern = regexp.MustCompile(`^(\S+) - [a-z_]*id:\d+ - authentication error(?: - (Nkey|User|JWT User|Token) ("(?:[^"\\]|\\.)*"))?`)
	tlsPattern  = regexp.MustCompile(`^(\S+) - [a-z_]*id:\d+ - TLS handshake error: (.*)$`)
)

// violationLog is the embedded server's logger (see above). Its methods
// may be called from any of the server's goroutines: mu guards its maps
// and counter.
type violationLog struct {
	next    server.Logger       // the server's own logger (serve -v), or nil
	holders map[string]credUser // by public key
	errs    io.Writer

	mu        sync.Mutex
	seen      map[violation]int64
	subjects  map[string]int // distinct subjects logged, by holder
	overflown bool           // more than maxLoggedHolders holders: said once
	count     func(role, reason string)
	pending   [][2]string // counts before count was set
}

// violation is what the log is rate-limited by: a holder's (a holder's
// name, or "nkey U..."; for a login, the remote host), its role, the kind
// ("publish to", "subscription to", kindLogin) and the subject (for a
// login, the credential claimed).
type violation struct{ holder, role, kind, subject string }

// String is what the log says the server refused.
func (k violation) String() string {
	if k.kind == kindLogin {
		return fmt.Sprintf("a login from %s %s", k.holder, k.subject)
	}
	return fmt.Sprintf("%s (%s) a %s %q", k.holder, k.role, k.kind, k.subject)
}

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

// install makes v the logger of s, which has none yet (SetLoggerV2
// closes the logger it replaces: see serverLogger).
func (v *violationLog) install(s *server.Server, o *server.Options) {
	s.SetLoggerV2(v, o.Debug, o.Trace, o.TraceVerbose)
}

// Close closes the logger v passes lines on to (a log file), when the
// server no longer logs.
func (v *violationLog) Close() error {
	if c, ok := v.next.(io.Closer); ok {
		return c.Close()
	}
	return nil
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
	if v.noteLogin(line) {
		return
	}
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
	v.add(violation{holder, role, kind, subject}, reason, "")
}

// noteLogin handles a log line of a failed login (see above), and says
// whether it was one.
func (v *violationLog) noteLogin(line string) bool {
	var remote, claimed, reason, detail string
	if m := authPattern.FindStringSubmatch(line); m != nil {
		remote, reason = m[1], ReasonAuthFailed
		switch id, _ := strconv.Unquote(m[3]); {
		case m[2] == "":
			claimed = "without an nkey"
		case m[2] != "Nkey":
			claimed = "as " + strings.ToLower(m[2]) + " " + m[3]
		default:
			if u, known := v.holders[id]; known {
				claimed = fmt.Sprintf("with %s's nkey (%s)", u.Name, roleLabel(u, true))
			} else {
				claimed = "with nkey " + id + " (no holder's)"
			}
		}
	} else if m := tlsPattern.FindStringSubmatch(line); m != nil {
		// Counted by host whatever the error's detail (the first is
		// logged with it).
		remote, reason, detail = m[1], ReasonTLSFailed, m[2]
		claimed = "whose TLS handshake failed"
	} else {
		return false
	}
	v.add(violation{hostOf(remote), "unknown", kindLogin, claimed}, reason, detail)
	return true
}

// hostOf is the host of a remote address "host:port" (the port of each
// connection differs).
func hostOf(remote string) string {
	if h, _, err := net.SplitHostPort(remote); err == nil {
		return h
	}
	return remote
}

// add logs and counts one violation; its first line ends with detail,
// if any.
func (v *violationLog) add(key violation, reason, detail string) {
	v.mu.Lock()
	count := v.count
	if count == nil {
		v.pending = append(v.pending, [2]string{key.role, reason})
	}
	v.log(key, reason, detail)
	v.mu.Unlock()
	if count != nil { // outside mu: count takes the recorder's locks
		count(key.role, reason)
	}
}

// log logs one violation, rate-limited (see above). v.mu is held.
func (v *violationLog) log(key violation, reason, detail string) {
	holder := key.holder
	n := v.seen[key]
	if n == 0 {
		if _, ok := v.subjects[holder]; !ok && len(v.subjects) >= maxLoggedHolders {
			if !v.overflown {
				v.overflown = true
				fmt.Fprintf(v.errs, "worksteal serve: the server refused %d holders and hosts; further ones are counted, not logged\n", maxLoggedHolders)
			}
			return
		}
		if v.subjects[holder] >= maxLoggedSubjects {
			if v.subjects[holder] == maxLoggedSubjects {
				what := fmt.Sprintf("%s (%s) on %d subjects; further subjects", holder, key.role, maxLoggedSubjects)
				if key.kind == kindLogin {
					what = fmt.Sprintf("logins from %s with %d credentials; further ones", holder, maxLoggedSubjects)
				}
				fmt.Fprintf(v.errs, "worksteal serve: the server refused %s are counted, not logged\n", what)
				v.subjects[holder]++
			}
			return
		}
		v.subjects[holder]++
	}
	v.seen[key] = n + 1
	switch n + 1 {
	case 1:
		if detail != "" {
			reason += " (" + detail + ")"
		}
		fmt.Fprintf(v.errs, "worksteal serve: the server refused %s: %s\n", key, reason)
	case 10, 100, 1000, 10000, 100000, 1000000:
		fmt.Fprintf(v.errs, "worksteal serve: the server refused %s %d times\n", key, n+1)
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
		fmt.Fprintf(v.errs, "worksteal serve: the server refused %s %d times in all\n", key, n)
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
