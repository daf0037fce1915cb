package bench

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/par"
)

// BenchmarkGoParser is a real program's loop: parse every .go file of
// $GOROOT/src/{go,net,encoding,crypto} (testdata left out) with go/parser
// and count the declarations, through par.MapReduce, one file per element.
// Files differ in size by four orders of magnitude, and a parse allocates
// heavily, so the loop's grain and the collector both matter. The files are
// read into memory once, outside the timing; go-seq is the plain loop.
//
//	go test -run '^$' -bench GoParser ./internal/bench/
func BenchmarkGoParser(b *testing.B) {
	files := goSources(b)
	parse := func(src goSource) int {
		f, err := parser.ParseFile(token.NewFileSet(), src.name, src.text, parser.SkipObjectResolution)
		if err != nil {
			return 0 // a few files of GOROOT are meant not to parse (build-tagged fragments are fine)
		}
		return len(f.Decls) + countFuncs(f)
	}
	want := 0
	for _, f := range files {
		want += parse(f)
	}
	check := func(b *testing.B, got int) {
		if got != want {
			b.Fatalf("declarations %d; want %d", got, want)
		}
	}
	b.Run("impl=go-seq/workers=1", func(b *testing.B) {
		cpuLoop(b, func() {
			n := 0
			for _, f := range files {
				n += parse(f)
			}
			check(b, n)
		})
	})
	for _, workers := range benchWorkers() {
		b.Run(fmt.Sprintf("impl=ws/workers=%d", workers), func(b *testing.B) {
			p := wsPool(b, workers)
			cpuLoop(b, func() {
				n, _ := worksteal.Run(p, func(w *worksteal.Worker) int {
					return par.MapReduce(w, files, 0,
						func(_ *worksteal.Worker, f goSource) int { return parse(f) },
						func(a, b int) int { return a + b })
				})
				check(b, n)
			})
		})
	}
}

// countFuncs counts the function literals of f, so that the result
// depends on the whole tree and the parse cannot be skipped.
func countFuncs(f *ast.File) int {
	n := 0
	ast.Inspect(f, func(x ast.Node) bool {
		if _, ok := x.(*ast.FuncLit); ok {
			n++
		}
		return true
	})
	return n
}

type goSource struct {
	name string
	text []byte
}

var (
	goSourcesOnce sync.Once
	goSourcesList []goSource
	goSourcesErr  error
	goSourcesRoot string
)

// goSources reads the corpus once per test binary.
func goSources(b *testing.B) []goSource {
	goSourcesOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			goSourcesErr = fmt.Errorf("go env GOROOT: %v", err)
			return
		}
		goSourcesRoot = strings.TrimSpace(string(out))
		root := filepath.Join(goSourcesRoot, "src")
		for _, dir := range []string{"go", "net", "encoding", "crypto"} {
			err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.IsDir() && d.Name() == "testdata" {
					return filepath.SkipDir
				}
				if d.IsDir() || !strings.HasSuffix(path, ".go") {
					return nil
				}
				text, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				goSourcesList = append(goSourcesList, goSource{path, text})
				return nil
			})
			if err != nil {
				goSourcesErr = err
				return
			}
		}
	})
	if goSourcesErr != nil || len(goSourcesList) == 0 {
		b.Skipf("no Go sources under GOROOT (%q): %v", goSourcesRoot, goSourcesErr)
	}
	return goSourcesList
}
