package embedded

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStartRefusesBadInputNamingIt(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Listen: "no-port"}, `Listen "no-port": want HOST:PORT`},
		{Config{Listen: "127.0.0.1:http"}, `Listen "127.0.0.1:http": "http" is not a port number`},
		{Config{StoreDir: "/proc/self/store"}, "StoreDir /proc/self/store"},
	} {
		if s, err := Start(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			if s != nil {
				s.Shutdown()
			}
			t.Errorf("Start(%+v): %v; want an error saying %q", c.cfg, err, c.want)
		}
	}
}

// A server on a given store keeps it; a temporary store goes with the
// server.
func TestShutdownRemovesOnlyTheTemporaryStore(t *testing.T) {
	kept := filepath.Join(t.TempDir(), "store")
	s, err := Start(Config{StoreDir: kept})
	if err != nil {
		t.Fatal(err)
	}
	s.Shutdown()
	if _, err := os.Stat(filepath.Join(kept, "jetstream")); err != nil {
		t.Errorf("the given store lost its data: %v", err)
	}
	s, err = Start(Config{})
	if err != nil {
		t.Fatal(err)
	}
	tmp := s.tmp
	s.Shutdown()
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the temporary store %s is still there: %v", tmp, err)
	}
}
