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
