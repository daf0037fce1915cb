package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

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
				t.Errorf("%s links to %s, which does not exist", md, target)
			}
			checked++
		}
	}
	t.Logf("%d links checked", checked)
}
