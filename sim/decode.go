package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// NodeKind is the kind of a [Node].
type NodeKind uint8

// Node kinds.
const (
	NullNode NodeKind = iota
	BoolNode
	NumberNode
	StringNode
	ArrayNode
	ObjectNode
)

// Node is one value of a parsed scenario document, with the line it came
// from. It lets any syntax feed [DecodeScenario] and still get errors that
// name the field and its line: [ParseScenario] builds Nodes from JSON, and
// the command line builds them from YAML.
//
// Scalars keep their text in Value (numbers as written, booleans as "true"
// or "false"). An object keeps its keys in Keys and its values, in the same
// order, in Items; an array keeps its elements in Items.
type Node struct {
	Kind  NodeKind
	Line  int
	Value string
	Keys  []string
	Items []*Node
}

// maxDocBytes bounds a scenario document (a scenario is small; a larger
// input is almost surely not one).
const maxDocBytes = 4 << 20

// ParseScenario decodes a JSON scenario. Unknown fields, values of the wrong
// type and invalid values are reported as a [*FieldError] naming the field
// and its line; the returned scenario is normalized (see [Scenario.Normalize]).
func ParseScenario(data []byte) (*Scenario, error) {
	root, err := ParseJSON(data)
	if err != nil {
		return nil, err
	}
	return DecodeScenario(root)
}

// ParseJSON parses a JSON document into a [Node] tree with line numbers.
func ParseJSON(data []byte) (*Node, error) {
	if len(data) > maxDocBytes {
		return nil, fmt.Errorf("sim: scenario larger than %d bytes", maxDocBytes)
	}
	p := &jsonParser{dec: json.NewDecoder(bytes.NewReader(data)), data: data}
	p.dec.UseNumber()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("sim: line %d: unexpected data after the scenario", p.line())
	}
	return n, nil
}

type jsonParser struct {
	dec  *json.Decoder
	data []byte
}

// line returns the line of the decoder's current offset (1-based).
func (p *jsonParser) line() int {
	off := int(p.dec.InputOffset())
	if off > len(p.data) {
		off = len(p.data)
	}
	return 1 + bytes.Count(p.data[:off], []byte{'\n'})
}

func (p *jsonParser) syntax(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(se.Offset)
		if off > len(p.data) {
			off = len(p.data)
		}
		return fmt.Errorf("sim: line %d: invalid JSON: %v", 1+bytes.Count(p.data[:off], []byte{'\n'}), se)
	}
	if err == io.EOF {
		return fmt.Errorf("sim: line %d: unexpected end of JSON", p.line())
	}
	return fmt.Errorf("sim: line %d: invalid JSON: %v", p.line(), err)
}

const maxDepth = 64

func (p *jsonParser) value(depth int) (*Node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("sim: line %d: scenario nested too deeply", p.line())
	}
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.syntax(err)
	}
	n := &Node{Line: p.line()}
	switch t := tok.(type) {
	case nil:
		n.Kind = NullNode
	case bool:
		n.Kind, n.Value = BoolNode, strconv.FormatBool(t)
	case json.Number:
		n.Kind, n.Value = NumberNode, t.String()
	case string:
		n.Kind, n.Value = StringNode, t
	case json.Delim:
		switch t {
		case '[':
			n.Kind = ArrayNode
			for p.dec.More() {
				c, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.Items = append(n.Items, c)
			}
		case '{':
			n.Kind = ObjectNode
			for p.dec.More() {
				kt, err := p.dec.Token()
				if err != nil {
					return nil, p.syntax(err)
				}
				k, _ := kt.(string)
				c, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				if c.Line == 0 {
					c.Line = p.line()
				}
				n.Keys = append(n.Keys, k)
				n.Items = append(n.Items, c)
			}
		default:
			return nil, fmt.Errorf("sim: line %d: unexpected %q", p.line(), t)
		}
		if _, err := p.dec.Token(); err != nil { // closing delimiter
			return nil, p.syntax(err)
		}
	}
	return n, nil
}

// DecodeScenario builds a scenario from a document tree, checks it and
// fills its defaults. Errors are [*FieldError] values naming the field
// ("workload.duration.dist") and, when the tree has them, its line.
func DecodeScenario(root *Node) (*Scenario, error) {
	if root == nil {
		return nil, &FieldError{Path: "scenario", Msg: "empty document"}
	}
	d := &decoder{lines: map[string]int{}}
	var s Scenario
	if err := d.decode(root, reflect.ValueOf(&s).Elem(), ""); err != nil {
		return nil, err
	}
	if err := s.normalize(); err != nil {
		err.Line = d.lineOf(err.Path)
		if err.Line == 0 {
			err.Line = root.Line
		}
		return nil, err
	}
	return &s, nil
}

type decoder struct {
	lines map[string]int // field path -> line, for errors found after decoding
}

// lineOf returns the line of path or of its nearest decoded ancestor.
func (d *decoder) lineOf(path string) int {
	for path != "" {
		if l, ok := d.lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}

var secondsType = reflect.TypeOf(Seconds(0))

func (d *decoder) fail(n *Node, path, format string, args ...any) *FieldError {
	if path == "" {
		path = "scenario"
	}
	return &FieldError{Path: path, Line: n.Line, Msg: fmt.Sprintf(format, args...)}
}

func kindName(k NodeKind) string {
	return [...]string{"null", "a boolean", "a number", "a string", "a list", "an object"}[k]
}

func (d *decoder) decode(n *Node, v reflect.Value, path string) error {
	if path != "" {
		d.lines[path] = n.Line
	}
	if n.Kind == NullNode {
		return nil // keep the zero value (the default)
	}
	t := v.Type()
	if t == secondsType {
		sec, err := parseSeconds(n)
		if err != nil {
			return d.fail(n, path, "%v", err)
		}
		v.SetFloat(sec)
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		return d.decode(n, v.Elem(), path)
	case reflect.Struct:
		if n.Kind != ObjectNode {
			return d.fail(n, path, "want an object, got %s", kindName(n.Kind))
		}
		seen := make(map[string]bool, len(n.Keys))
		for i, k := range n.Keys {
			fp := k
			if path != "" {
				fp = path + "." + k
			}
			if seen[k] {
				return d.fail(n.Items[i], fp, "duplicate field")
			}
			seen[k] = true
			f, ok := fieldByTag(t, k)
			if !ok {
				return d.fail(n.Items[i], fp, "unknown field (known: %s)", strings.Join(fieldNames(t), ", "))
			}
			if err := d.decode(n.Items[i], v.FieldByIndex(f.Index), fp); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		if n.Kind != ArrayNode {
			return d.fail(n, path, "want a list, got %s", kindName(n.Kind))
		}
		if len(n.Items) > 1<<20 {
			return d.fail(n, path, "list too long (%d items)", len(n.Items))
		}
		s := reflect.MakeSlice(t, len(n.Items), len(n.Items))
		for i, c := range n.Items {
			if err := d.decode(c, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.String:
		if n.Kind == ArrayNode || n.Kind == ObjectNode {
			return d.fail(n, path, "want a string, got %s", kindName(n.Kind))
		}
		v.SetString(n.Value)
		return nil
	case reflect.Bool:
		if n.Kind != BoolNode {
			return d.fail(n, path, "want true or false, got %s", kindName(n.Kind))
		}
		v.SetBool(n.Value == "true")
		return nil
	case reflect.Int, reflect.Int64:
		if n.Kind != NumberNode {
			return d.fail(n, path, "want an integer, got %s", kindName(n.Kind))
		}
		i, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(n.Value, 64)
			if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return d.fail(n, path, "want an integer, got %s", n.Value)
			}
			i = int64(f)
		}
		if i > math.MaxInt32 || i < math.MinInt32 {
			return d.fail(n, path, "integer %s out of range", n.Value)
		}
		v.SetInt(i)
		return nil
	case reflect.Uint64:
		if n.Kind != NumberNode {
			return d.fail(n, path, "want a non-negative integer, got %s", kindName(n.Kind))
		}
		u, err := strconv.ParseUint(n.Value, 10, 64)
		if err != nil {
			return d.fail(n, path, "want a non-negative integer, got %s", n.Value)
		}
		v.SetUint(u)
		return nil
	case reflect.Float64:
		if n.Kind != NumberNode {
			return d.fail(n, path, "want a number, got %s", kindName(n.Kind))
		}
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return d.fail(n, path, "want a finite number, got %s", n.Value)
		}
		v.SetFloat(f)
		return nil
	}
	return d.fail(n, path, "cannot decode into %s", t)
}

// parseSeconds reads a number of seconds or a Go duration string.
func parseSeconds(n *Node) (float64, error) {
	switch n.Kind {
	case NumberNode:
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("want a time in seconds, got %s", n.Value)
		}
		return f, nil
	case StringNode:
		s := strings.TrimSpace(n.Value)
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, nil
		}
		d, err := time.ParseDuration(strings.ReplaceAll(s, "µ", "u"))
		if err != nil {
			return 0, fmt.Errorf("want a time (seconds, or a duration such as 250ms), got %q", n.Value)
		}
		return d.Seconds(), nil
	}
	return 0, fmt.Errorf("want a time (seconds, or a duration such as 250ms), got %s", kindName(n.Kind))
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag == name && tag != "-" {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func fieldNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag != "" && tag != "-" {
			names = append(names, tag)
		}
	}
	sort.Strings(names)
	return names
}
