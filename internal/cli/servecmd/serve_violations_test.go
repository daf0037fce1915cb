package servecmd

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/worksteal/worksteal/cluster"
)

// The log lines as nats-server writes them (client.go's
// pubPermissionViolation and subPermissionViolation, through c.format).
const (
	aliceKey = "UAXYZ7ALICEKEY2345ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDE"
	pubLine  = `127.0.0.1:5000 - cid:7 - "v1.37.0:go:worksteal" - "$G/nkey:` + aliceKey + `" - Publish Violation - Subject %q`
	subLine  = `127.0.0.1:5000 - cid:8 - "v1.37.0:go" - "$G/nkey:UOTHER" - Subscription Violation - Subject %q, SID 4`
)

func TestViolationLogNamesCountsAndRateLimits(t *testing.T) {
	var out bytes.Buffer
	v := &violationLog{holders: map[string]credUser{aliceKey: {Name: "alice", Role: cluster.RoleSubmitter, Nkey: aliceKey}},
		errs: &out, seen: map[violation]int64{}, subjects: map[string]int{}}
	for range 12 {
		v.Errorf(pubLine, "$JS.API.INFO")
	}
	v.Errorf(subLine, `a"b`)
	v.Errorf("a line of no violation")
	counts := map[string]int{}
	v.countTo(func(role, reason string) { counts[role+"/"+reason]++ }) // the ones before it
	for i := range maxLoggedSubjects + 5 {
		v.Errorf(pubLine, fmt.Sprint("s", i))
	}
	v.summary()
	log := out.String()
	for _, want := range []string{
		`the server refused alice (person) a publish to "$JS.API.INFO": server/publish-denied` + "\n",
		`the server refused alice (person) a publish to "$JS.API.INFO" 10 times` + "\n",
		`the server refused nkey UOTHER (unknown) a subscription to "a\"b": server/subscribe-denied` + "\n",
		`the server refused alice (person) on 50 subjects; further subjects are counted, not logged`,
		`the server refused alice (person) a publish to "$JS.API.INFO" 12 times in all`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if n := strings.Count(log, "further subjects"); n != 1 {
		t.Errorf("the cap was logged %d times, want once", n)
	}
	if n := strings.Count(log, `a publish to "s`); n != maxLoggedSubjects-1 {
		t.Errorf("%d subjects s* logged, want %d (the cap, less $JS.API.INFO)", n, maxLoggedSubjects-1)
	}
	if counts["person/server/publish-denied"] != 12+maxLoggedSubjects+5 || counts["unknown/server/subscribe-denied"] != 1 || len(counts) != 2 {
		t.Errorf("counts %v", counts)
	}
}

// TestViolationLogReadsFailedLogins: the server's lines of a failed
// login (client.go's authViolation and its TLS handshake error, through
// c.format) are logged by host and credential claimed, and counted as
// unknown/server/auth-failed or unknown/server/tls-failed; a flood of
// hosts is counted, not logged.
func TestViolationLogReadsFailedLogins(t *testing.T) {
	var out bytes.Buffer
	v := &violationLog{holders: map[string]credUser{aliceKey: {Name: "alice", Role: cluster.RoleSubmitter, Nkey: aliceKey}},
		errs: &out, seen: map[violation]int64{}, subjects: map[string]int{}}
	counts := map[string]int{}
	v.countTo(func(role, reason string) { counts[role+"/"+reason]++ })
	v.Errorf("%s - cid:9 - authentication error - Nkey %q", "127.0.0.1:5000", aliceKey)
	v.Errorf("%s - cid:10 - authentication error - User %q", "127.0.0.1:5001", "bob")
	v.Errorf("[::1]:5002 - cid:11 - authentication error")
	v.Errorf("10.0.0.2:6000 - cid:12 - TLS handshake error: remote error: tls: bad certificate")
	v.Errorf("10.0.0.2:6001 - cid:13 - TLS handshake error: EOF")
	for i := range maxLoggedHolders + 3 {
		v.Errorf("10.1.%d.%d:7000 - cid:14 - authentication error", i/256, i%256)
	}
	v.summary()
	log := out.String()
	for _, want := range []string{
		"the server refused a login from 127.0.0.1 with alice's nkey (person): server/auth-failed\n",
		`the server refused a login from 127.0.0.1 as user "bob": server/auth-failed` + "\n",
		"the server refused a login from ::1 without an nkey: server/auth-failed\n",
		"the server refused a login from 10.0.0.2 whose TLS handshake failed: server/tls-failed (remote error: tls: bad certificate)\n",
		"the server refused a login from 10.0.0.2 whose TLS handshake failed 2 times in all\n",
		"the server refused 200 holders and hosts; further ones are counted, not logged\n",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if n := strings.Count(log, "from 10.1."); n != maxLoggedHolders-3 {
		t.Errorf("%d hosts 10.1.* logged, want %d (the cap, less the 3 hosts before)", n, maxLoggedHolders-3)
	}
	if counts["unknown/server/auth-failed"] != 3+maxLoggedHolders+3 || counts["unknown/server/tls-failed"] != 2 || len(counts) != 2 {
		t.Errorf("counts %v", counts)
	}
}
