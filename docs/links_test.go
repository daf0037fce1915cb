package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// landing lists the documents that other branches add this round: a link
// to one of them may be dangling until they are merged. Remove a name once
// its file is on main.
var landing = map[string]bool{
	"gnu-compat.md": true, "runtime-16-core-prediction.md": true,
}

var link = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)

// TestDocumentLinks: every relative link of the README and of docs/*.md
// names a file that exists.
func TestDocumentLinks(t *testing.T) {
	guides, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, md := range append([]string{"../README.md"}, guides...) {
		data, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path := filepath.Join(filepath.Dir(md), target)
			if _, err := os.Stat(path); err != nil {
				if landing[filepath.Base(path)] {
					continue
				}
				t.Errorf("%s links to %s, which does not exist", md, target)
			}
			checked++
		}
	}
	t.Logf("%d links checked", checked)
}
