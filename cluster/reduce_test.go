package cluster

import (
	"errors"
	"testing"
)

// The built-in reductions fold values in any grouping to the same answer
// a user expects from the name; an empty value adds nothing; a number
// that is not one is an ErrReduce naming it.
func TestBuiltinReductions(t *testing.T) {
	n := &Node{}
	for _, c := range []struct {
		name   string
		values []string
		want   string
	}{
		{"sum", []string{"1", " 2\n", "", "39"}, "42"},
		{"sum", []string{"1.5", "2"}, "3.5"},
		{"count", []string{"a", "", "b"}, "3"},
		{"min", []string{"7", "-3", "5"}, "-3"},
		{"max", []string{"7", "-3", "5"}, "7"},
		{"max", []string{"2.5", "2"}, "2.5"},
		{"concat", []string{"ab", "", "c"}, "abc"},
		{"", []string{"x", "y"}, "xy"},
	} {
		r, err := n.reducerOf(c.name)
		if err != nil {
			t.Fatal(err)
		}
		// Folded one by one, and as two halves folded apart then combined
		// (a worker's subtree, then the submitter).
		one := fold{r: r}
		for _, v := range c.values {
			one.add([]byte(v), false)
		}
		a, b := fold{r: r}, fold{r: r}
		for i, v := range c.values {
			if i < len(c.values)/2 {
				a.add([]byte(v), false)
			} else {
				b.add([]byte(v), false)
			}
		}
		if b.has {
			a.add(b.v, true)
		}
		if one.err != nil || string(one.v) != c.want || a.err != nil || string(a.v) != c.want {
			t.Errorf("%s of %q = %q (%v), in halves %q (%v); want %q", c.name, c.values, one.v, one.err, a.v, a.err, c.want)
		}
	}
	r, _ := n.reducerOf("sum")
	f := fold{r: r}
	f.add([]byte("1"), false)
	f.add([]byte("one"), false)
	if !errors.Is(f.err, ErrReduce) {
		t.Errorf("sum of 1 and one: %v; want ErrReduce", f.err)
	}
	if _, err := n.reducerOf("median"); !errors.Is(err, ErrUnknownReduce) {
		t.Errorf("an unknown reduce: %v; want ErrUnknownReduce", err)
	}
	if err := n.Reduce("sum", func(a, b []byte) ([]byte, error) { return a, nil }); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("replacing a built-in: %v; want ErrInvalidOption", err)
	}
}
