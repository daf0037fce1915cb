package cli

import (
	"crypto/tls"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worksteal/worksteal/internal/cli/servecmd"
)

// TestServeInitWritesWhatServeLoads: each variant of serve init writes a
// configuration that serve --config loads with the users, TLS and route
// TLS it announces, and a reachable address is refused without TLS.
func TestServeInitWritesWhatServeLoads(t *testing.T) {
	cases := []struct {
		flags      []string
		tls, mtls  bool
		roleCerts  bool
		exposedErr string // serve --listen 0.0.0.0:0 with this config
	}{
		{nil, true, false, false, ""},
		{[]string{"--mtls"}, true, true, true, ""},
		{[]string{"--no-tls"}, false, false, false, "has no TLS"},
	}
	for _, tc := range cases {
		dir := t.TempDir()
		args := append([]string{"serve", "init", "--dir", dir, "--host", "127.0.0.1"}, tc.flags...)
		if code, out, errs := runWithInput(t, "", args...); code != 0 || strings.Contains(out+errs, "SU") {
			t.Fatalf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
		for _, listen := range []string{"127.0.0.1:0", "0.0.0.0:0"} {
			cfg := servecmd.ServeConfig{Listen: listen, Store: t.TempDir(), Security: servecmd.ServeSecurity{Config: filepath.Join(dir, servecmd.ServerConfFile)}}
			o, err := servecmd.ServerOptions(cfg)
			if listen == "0.0.0.0:0" && tc.exposedErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.exposedErr) {
					t.Errorf("%v on %s: err %v; want %q", tc.flags, listen, err, tc.exposedErr)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%v on %s: %v", tc.flags, listen, err)
			}
			if len(o.Nkeys) != 4 || (o.TLSConfig != nil) != tc.tls || (o.Cluster.TLSConfig != nil) != tc.tls {
				t.Errorf("%v: %d nkey users, TLS %v, route TLS %v; want 4, %v, %v", tc.flags, len(o.Nkeys), o.TLSConfig != nil, o.Cluster.TLSConfig != nil, tc.tls, tc.tls)
			}
			if tc.tls && (o.TLSConfig.ClientAuth == tls.RequireAndVerifyClientCert) != tc.mtls {
				t.Errorf("%v: client certificates required %v; want %v", tc.flags, o.TLSConfig.ClientAuth == tls.RequireAndVerifyClientCert, tc.mtls)
			}
			if tc.tls && !servecmd.VerifiesRoutes(o) {
				t.Errorf("%v: routes are not mutual TLS", tc.flags)
			}
		}
		matches, _ := filepath.Glob(filepath.Join(dir, "*-cert.pem"))
		if got := len(matches) > 2; got != tc.roleCerts { // server and route certificates, then one per role
			t.Errorf("%v: certificates %v; role certificates wanted %v", tc.flags, matches, tc.roleCerts)
		}
	}
}
