package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// maxDocBytes bounds a scenario document (a scenario is small; a larger
// input is almost surely not one).
const maxDocBytes = 4 << 20

// Limits on the document tree: nesting depth, and nodes visited (aliases
// included, so that a small file cannot expand into a huge tree).
const (
	maxDepth = 64
	maxNodes = 1 << 20
)

// ParseScenario decodes a scenario written in YAML or JSON (JSON is YAML
// 1.2, and one parser reads both: go.yaml.in/yaml/v3's node API). Syntax
// errors name the line; unknown fields, values of the wrong type and
// invalid values are reported as a [*FieldError] naming the field and its
// line. The returned scenario is normalized (see [Scenario.Normalize]) and
// remembers the lines of its fields, so that errors found later by [Run]
// (or by the worksteal command's sweep) name them too. A "sweep" block is
// read, checked and kept for the command (internal/simlab); Run does not
// run it.
func ParseScenario(data []byte) (*Scenario, error) {
	if len(data) > maxDocBytes {
		return nil, fmt.Errorf("sim: scenario larger than %d bytes", maxDocBytes)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	err := dec.Decode(&doc)
	if err == io.EOF || err == nil && (doc.Kind == 0 || doc.Kind == yaml.DocumentNode && len(doc.Content) == 0) {
		return nil, errors.New("sim: the scenario is empty: want a mapping of fields such as workers, workload, policy")
	}
	if err != nil {
		return nil, fmt.Errorf("sim: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var more yaml.Node
	if err := dec.Decode(&more); err != io.EOF {
		if err == nil {
			return nil, fmt.Errorf("sim: line %d: a second document: a scenario file holds one", more.Line)
		}
		return nil, fmt.Errorf("sim: unexpected data after the scenario (%s)", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		root = root.Content[0]
	}
	d := &decoder{lines: map[string]int{}, budget: maxNodes}
	var s Scenario
	if err := d.decode(root, reflect.ValueOf(&s).Elem(), "", 0); err != nil {
		return nil, err
	}
	s.lines = d.lines
	if err := s.explicitZeros(); err != nil {
		return nil, s.locate(err)
	}
	if err := s.normalize(); err != nil {
		return nil, s.locate(err)
	}
	return &s, nil
}

// explicitZeros rejects a zero written out where zero stands for a
// default in Go code: "count: 0" means no workers, not the default four;
// "tasks: 0" means no work, not one task.
func (s *Scenario) explicitZeros() *FieldError {
	if _, ok := s.lines["workers.count"]; ok && s.Workers.Count == 0 {
		return ferr("workers.count", "must be between 1 and %d, got 0 (leave it out for the default 4)", maxWorkers)
	}
	if _, ok := s.lines["workload.tasks"]; ok && s.Workload.Tasks == 0 && s.Workload.Arrival.Pattern != arriveBursts {
		return ferr("workload.tasks", "must be at least 1, got 0 (leave it out for one task, or give workload.total)")
	}
	return nil
}

// locate fills in the line of a field error from the lines the scenario
// was decoded with: the field's own line, or that of its nearest decoded
// ancestor.
func (s *Scenario) locate(err *FieldError) *FieldError {
	if err.Line != 0 || s.lines == nil {
		return err
	}
	path := err.Path
	for path != "" {
		if l, ok := s.lines[path]; ok {
			err.Line = l
			return err
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	err.Line = s.lines[""]
	return err
}

type decoder struct {
	lines  map[string]int // field path -> line ("" is the document)
	budget int            // nodes left to visit
}

var secondsType = reflect.TypeOf(Seconds(0))

func (d *decoder) fail(n *yaml.Node, path, format string, args ...any) *FieldError {
	if path == "" {
		path = "scenario"
	}
	return &FieldError{Path: path, Line: n.Line, Msg: fmt.Sprintf(format, args...)}
}

// kindName says what a node is, for "want X, got Y" messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.ShortTag() {
	case "!!null":
		return "null"
	case "!!bool":
		return "a boolean"
	case "!!int", "!!float":
		return "a number"
	case "!!str":
		return "a string"
	}
	return "a " + strings.TrimPrefix(n.ShortTag(), "!!")
}

func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string, depth int) error {
	d.budget--
	if depth > maxDepth || d.budget < 0 {
		return d.fail(n, path, "scenario nested too deeply or too large")
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return d.fail(n, path, "unknown alias")
		}
		// decode the anchored value; the field is reported at the alias
		if _, ok := d.lines[path]; !ok {
			d.lines[path] = n.Line
		}
		return d.decode(n.Alias, v, path, depth+1)
	}
	if _, ok := d.lines[path]; !ok || path == "" {
		d.lines[path] = n.Line
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
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
		return d.decode(n, v.Elem(), path, depth)
	case reflect.Struct:
		return d.decodeStruct(n, v, path, depth)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return d.fail(n, path, "want a list, got %s", kindName(n))
		}
		s := reflect.MakeSlice(t, len(n.Content), len(n.Content))
		for i, c := range n.Content {
			if err := d.decode(c, s.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return d.fail(n, path, "want %s, got %s", wantName(t), kindName(n))
	}
	return d.decodeScalar(n, v, path)
}

// wantName says what a Go type wants, for messages.
func wantName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float64:
		return "a number"
	}
	return t.String()
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string, depth int) error {
	t := v.Type()
	if n.Kind != yaml.MappingNode {
		return d.fail(n, path, "want a mapping of fields, got %s", kindName(n))
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, c := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return d.fail(k, path, "a field name must be a plain word, got %s", kindName(k))
		}
		if k.Value == "<<" && k.ShortTag() == "!!merge" {
			return d.fail(k, path, "merge keys (<<) are not supported")
		}
		fp := k.Value
		if path != "" {
			fp = path + "." + k.Value
		}
		if seen[k.Value] {
			return d.fail(k, fp, "duplicate field")
		}
		seen[k.Value] = true
		f, ok := fieldByTag(t, k.Value)
		if !ok {
			return d.fail(k, fp, "unknown field (known: %s)", strings.Join(fieldNames(t), ", "))
		}
		if c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode {
			d.lines[fp] = k.Line // a block is reported at its key's line
		}
		if !f.IsExported() {
			// Scenario.sweep, the one unexported field a document sets
			sw := reflect.New(f.Type).Elem()
			if err := d.decode(c, sw, fp, depth+1); err != nil {
				return err
			}
			v.Addr().Interface().(*Scenario).sweep = sw.Interface().(*sweepSpec)
			continue
		}
		if err := d.decode(c, v.FieldByIndex(f.Index), fp, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) decodeScalar(n *yaml.Node, v reflect.Value, path string) error {
	tag := n.ShortTag()
	switch v.Kind() {
	case reflect.String:
		v.SetString(n.Value)
	case reflect.Bool:
		var b bool
		if tag != "!!bool" || n.Decode(&b) != nil {
			return d.fail(n, path, "want true or false, got %s", kindName(n))
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		i, err := scalarInt(n)
		if err != nil {
			return d.fail(n, path, "%v", err)
		}
		if i > math.MaxInt32 || i < math.MinInt32 {
			return d.fail(n, path, "integer %s out of range", n.Value)
		}
		v.SetInt(i)
	case reflect.Uint64:
		var u uint64
		if tag != "!!int" || n.Decode(&u) != nil {
			return d.fail(n, path, "want a non-negative integer, got %s", describeScalar(n))
		}
		v.SetUint(u)
	case reflect.Float64:
		f, err := scalarFloat(n)
		if err != nil {
			return d.fail(n, path, "%v", err)
		}
		v.SetFloat(f)
	default:
		return d.fail(n, path, "cannot decode into %s", v.Type())
	}
	return nil
}

// describeScalar is a scalar's kind, and its text when it is a number.
func describeScalar(n *yaml.Node) string {
	if t := n.ShortTag(); t == "!!int" || t == "!!float" {
		return n.Value
	}
	return kindName(n)
}

// scalarInt reads an integer; a float with an integral value (1e3) is one.
func scalarInt(n *yaml.Node) (int64, error) {
	switch n.ShortTag() {
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			return 0, fmt.Errorf("integer %s out of range", n.Value)
		}
		return i, nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
			return int64(f), nil
		}
		return 0, fmt.Errorf("want an integer, got %s", n.Value)
	}
	return 0, fmt.Errorf("want an integer, got %s", kindName(n))
}

// scalarFloat reads a finite number.
func scalarFloat(n *yaml.Node) (float64, error) {
	switch n.ShortTag() {
	case "!!int", "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("want a finite number, got %s", n.Value)
		}
		return f, nil
	}
	return 0, fmt.Errorf("want a number, got %s", kindName(n))
}

// parseSeconds reads a number of seconds or a Go duration string.
func parseSeconds(n *yaml.Node) (float64, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("want a time (seconds, or a duration such as 250ms), got %s", kindName(n))
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		f, err := scalarFloat(n)
		if err != nil {
			return 0, fmt.Errorf("want a time in seconds, got %s", n.Value)
		}
		return f, nil
	case "!!str":
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
	return 0, fmt.Errorf("want a time (seconds, or a duration such as 250ms), got %s", kindName(n))
}

// fieldTag is a field's key in a scenario document: its JSON name, or for
// the unexported sweep block its "scenario" tag.
func fieldTag(f reflect.StructField) string {
	if tag, ok := f.Tag.Lookup("json"); ok {
		return tag
	}
	return f.Tag.Get("scenario")
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		// A field without a name in the schema (untagged, or "-") is
		// no key: an empty key ("?" in YAML) matched an untagged
		// unexported field and panicked (FuzzParseScenario).
		if tag, _, _ := strings.Cut(fieldTag(f), ","); tag == name && tag != "" && tag != "-" {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func fieldNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		if tag, _, _ := strings.Cut(fieldTag(t.Field(i)), ","); tag != "" && tag != "-" {
			names = append(names, tag)
		}
	}
	sort.Strings(names)
	return names
}
