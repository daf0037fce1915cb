package cmdenv

import (
	"fmt"
	"strings"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterwire"
)

// parseLabel parses "key=value" (the form of worksteal worker --label and
// run --require); the error names the text and the cause.
func parseLabel(s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	switch {
	case !ok:
		return "", "", fmt.Errorf("%w: label %q: want key=value", cluster.ErrInvalidOption, s)
	case !clusterwire.LabelPattern.MatchString(k):
		return "", "", fmt.Errorf("%w: label %q: key %q: use letters, digits and _ . : / + -", cluster.ErrInvalidOption, s, k)
	case !clusterwire.LabelPattern.MatchString(v):
		return "", "", fmt.Errorf("%w: label %q: value %q: use letters, digits and _ . : / + -", cluster.ErrInvalidOption, s, v)
	}
	return k, v, nil
}

// ParseLabels parses a list of "key=value" (worksteal worker --label, run
// --require); a key given twice is an error, and so is a key or value that
// cluster.WithLabels would refuse.
func ParseLabels(list []string) (cluster.Labels, error) {
	l := cluster.Labels{}
	for _, s := range list {
		k, v, err := parseLabel(s)
		if err != nil {
			return nil, err
		}
		if old, dup := l[k]; dup && old != v {
			return nil, fmt.Errorf("%w: label %q given twice (%s=%s and %s=%s)", cluster.ErrInvalidOption, k, k, old, k, v)
		}
		l[k] = v
	}
	return l, nil
}
