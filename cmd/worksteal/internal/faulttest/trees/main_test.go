package trees

import (
	"os"
	"testing"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
)

func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }
