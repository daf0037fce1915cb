package bench

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// uts-sha1: the Unbalanced Tree Search benchmark (Olivier et al., LCPC 2006)
// with the reference implementation's SHA-1 splittable generator, so that
// node, leaf and depth counts match the published sample trees exactly.
//
// Each node carries a 20-byte state. The root's is SHA1(16 zero bytes ‖
// uint32_be(r)); child i's is SHA1(parent state ‖ uint32_be(i)). A node's
// random number is uint32_be(state[16:20]) & 0x7fffffff, as a probability that
// value / 2^31. The number of children depends on the tree type (see
// UTSType); a non-root node has at most utsMaxChildren children and a
// binomial root at most ⌈b0⌉.

// UTSType is the distribution of the number of children (the reference's -t).
type UTSType int

// The tree types of the reference implementation.
const (
	// Binomial: the root has ⌊b0⌋ children; any other node has M children
	// with probability Q, else none.
	Binomial UTSType = 0
	// Geometric: the number of children is geometric with mean b_d, which
	// depends on the depth d through the Shape.
	Geometric UTSType = 1
	// Hybrid: geometric at depths d < F·D, binomial below.
	Hybrid UTSType = 2
)

// UTSShape is how a geometric tree's expected branching factor b_d changes
// with depth d (the reference's -a). The root always uses b0.
type UTSShape int

// The shapes of the reference implementation.
const (
	// Linear: b_d = b0·(1 − d/D).
	Linear UTSShape = 0
	// ExpDec: b_d = b0·d^(−ln b0 / ln D).
	ExpDec UTSShape = 1
	// Cyclic: b_d = b0^sin(2πd/D), and 0 when d > 5D.
	Cyclic UTSShape = 2
	// Fixed: b_d = b0 while d < D, else 0.
	Fixed UTSShape = 3
)

// utsMaxChildren caps the children of a non-root node (the reference's
// MAXNUMCHILDREN).
const utsMaxChildren = 100

// UTSTree is the parameter set of one UTS tree; the field comments give the
// reference implementation's command-line flag.
type UTSTree struct {
	Name  string   `json:"name"`  // a standard tree's name, or the parameters as given
	Type  UTSType  `json:"type"`  // -t
	Shape UTSShape `json:"shape"` // -a, geometric and hybrid trees
	B0    float64  `json:"b0"`    // -b, root branching factor
	D     int      `json:"d"`     // -d, depth parameter of the geometric shapes
	R     uint32   `json:"r"`     // -r, root seed
	M     int      `json:"m"`     // -m, children of an interior binomial node
	Q     float64  `json:"q"`     // -q, probability that a binomial node is interior
	F     float64  `json:"f"`     // -f, hybrid: geometric while depth < F·D
	// Want holds the published counts (Value = nodes) when Known is set.
	Want  Result `json:"want"`  // published nodes (Value), leaves and depth
	Known bool   `json:"known"` // whether Want holds published counts
	// Large marks trees of about 10^8 nodes or more, left out of the tests.
	Large bool `json:"large,omitempty"`
}

// DefaultUTSTree returns the reference implementation's defaults (-t 1 -a 0
// -d 6 -b 4 -r 0 -m 4 -q 15/64 -f 0.5): a small linear geometric tree of
// 1,732 nodes.
func DefaultUTSTree() UTSTree {
	return UTSTree{Name: "default", Type: Geometric, Shape: Linear, B0: 4, D: 6, R: 0, M: 4, Q: 15.0 / 64, F: 0.5}
}

func stdTree(name, params string, nodes, leaves, depth uint64, large bool) UTSTree {
	t, err := parseUTSParams(name, params)
	if err != nil {
		panic(err)
	}
	t.Want = Result{Value: nodes, Leaves: leaves, Depth: depth}
	t.Known = true
	t.Large = large
	return t
}

// standardTrees: the sample trees of the UTS distribution (sample_trees.sh)
// with their published node, leaf and depth counts, and the defaults.
var standardTrees = []UTSTree{
	stdTree("default", "", 1732, 1050, 6, false),
	stdTree("T1", "t=1,a=3,d=10,b=4,r=19", 4130071, 3305118, 10, false),
	stdTree("T2", "t=1,a=2,d=16,b=6,r=502", 4117769, 2342762, 81, false),
	stdTree("T3", "t=0,b=2000,q=0.124875,m=8,r=42", 4112897, 3599034, 1572, false),
	stdTree("T4", "t=2,a=0,d=16,b=6,r=1,q=0.234375,m=4", 4132453, 3108986, 134, false),
	stdTree("T5", "t=1,a=0,d=20,b=4,r=34", 4147582, 2181318, 20, false),
	stdTree("T1L", "t=1,a=3,d=13,b=4,r=29", 102181082, 81746377, 13, true),
	stdTree("T2L", "t=1,a=2,d=23,b=7,r=220", 96793510, 53791152, 67, true),
	stdTree("T3L", "t=0,b=2000,q=0.200014,m=5,r=7", 111345631, 89076904, 17844, true),
}

// StandardTrees returns the published sample trees of the UTS distribution
// ("default", T1–T5, and the large T1L, T2L, T3L) with their reference counts.
func StandardTrees() []UTSTree { return append([]UTSTree(nil), standardTrees...) }

// ParseUTSTree returns a standard tree by name ("default", "T1", ...,
// case-insensitive) or a tree given by reference-style parameters that
// override the defaults, as "t=1,a=3,d=10,b=4,r=19" or as the reference's
// flags "-t 1 -a 3 -d 10 -b 4 -r 19". Explicit parameters equal to a standard
// tree's get that tree's reference counts.
func ParseUTSTree(s string) (UTSTree, error) {
	for _, t := range standardTrees {
		if strings.EqualFold(s, t.Name) {
			return t, nil
		}
	}
	t, err := parseUTSParams(s, s)
	if err != nil {
		return UTSTree{}, err
	}
	for _, std := range standardTrees {
		if std.sameParams(t) {
			t.Want, t.Known, t.Large = std.Want, std.Known, std.Large
		}
	}
	return t, nil
}

func (t UTSTree) sameParams(u UTSTree) bool {
	t.Name, u.Name = "", ""
	t.Want, u.Want = Result{}, Result{}
	t.Known, u.Known, t.Large, u.Large = false, false, false, false
	return t == u
}

// parseUTSParams parses "k=v,k=v" or "-k v -k v" over the defaults.
func parseUTSParams(name, s string) (UTSTree, error) {
	t := DefaultUTSTree()
	t.Name = name
	bad := func(format string, a ...any) (UTSTree, error) {
		return UTSTree{}, fmt.Errorf("%w: uts-sha1 tree %q: %s", ErrBadSize, name, fmt.Sprintf(format, a...))
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	for i := 0; i < len(fields); i++ {
		k, v, ok := strings.Cut(fields[i], "=")
		if !ok {
			if !strings.HasPrefix(k, "-") || i+1 == len(fields) {
				return bad("want k=v pairs or -k v flags, got %q", fields[i])
			}
			k, v = k[1:], fields[i+1]
			i++
		}
		var err error
		var n int
		switch k {
		case "t":
			n, err = strconv.Atoi(v)
			t.Type = UTSType(n)
			if err == nil && (n < 0 || n > 2) {
				return bad("t must be 0 (binomial), 1 (geometric) or 2 (hybrid)")
			}
		case "a":
			n, err = strconv.Atoi(v)
			t.Shape = UTSShape(n)
			if err == nil && (n < 0 || n > 3) {
				return bad("a must be 0 (linear), 1 (exp-dec), 2 (cyclic) or 3 (fixed)")
			}
		case "b":
			t.B0, err = strconv.ParseFloat(v, 64)
		case "d":
			t.D, err = strconv.Atoi(v)
		case "r":
			var r uint64
			r, err = strconv.ParseUint(v, 10, 32)
			t.R = uint32(r)
		case "m":
			t.M, err = strconv.Atoi(v)
		case "q":
			t.Q, err = strconv.ParseFloat(v, 64)
		case "f":
			t.F, err = strconv.ParseFloat(v, 64)
		default:
			return bad("unknown parameter %q (want t, a, b, d, r, m, q or f)", k)
		}
		if err != nil {
			return bad("parameter %s: %v", k, err)
		}
	}
	if t.B0 < 0 || t.D < 1 || t.M < 0 || t.M > utsMaxChildren || t.Q < 0 || t.Q > 1 {
		return bad("need b >= 0, d >= 1, 0 <= m <= %d, 0 <= q <= 1", utsMaxChildren)
	}
	return t, nil
}

// String returns the tree's parameters in the reference's flag syntax.
func (t UTSTree) String() string {
	switch t.Type {
	case Binomial:
		return fmt.Sprintf("-t 0 -b %g -m %d -q %g -r %d", t.B0, t.M, t.Q, t.R)
	case Hybrid:
		return fmt.Sprintf("-t 2 -a %d -d %d -b %g -m %d -q %g -f %g -r %d", t.Shape, t.D, t.B0, t.M, t.Q, t.F, t.R)
	}
	return fmt.Sprintf("-t 1 -a %d -d %d -b %g -r %d", t.Shape, t.D, t.B0, t.R)
}

// Count walks the tree sequentially and returns its nodes (Value), leaves
// and maximum depth.
func (t UTSTree) Count() Result {
	return shaSeq(&t, utsRoot(t.R), 0).result()
}

func init() {
	register(&workload{
		name:       "uts-sha1",
		doc:        "Unbalanced Tree Search with the reference SHA-1 generator, every child a task; size = a standard tree (default, T1..T5, T1L, T2L, T3L) or parameters t=1,a=3,d=10,b=4,r=19",
		sizes:      []string{"T1"},
		quickSizes: []string{"t=1,a=3,d=8,b=4,r=19"},
		parse:      parseUTSSHA1,
	})
}

func parseUTSSHA1(size string) (*problem, error) {
	t, err := ParseUTSTree(size)
	if err != nil {
		return nil, err
	}
	tp := &t
	count := func(c shaCount) Result { return c.result() }
	return &problem{
		seq:      func() Result { return count(shaSeq(tp, utsRoot(tp.R), 0)) },
		wg:       func() Result { return count(shaWG(tp, utsRoot(tp.R), 0, 1<<30)) },
		wgCutoff: func() Result { return count(shaWG(tp, utsRoot(tp.R), 0, utsCutoffDepth)) },
		ref:      t.Want,
		hasRef:   t.Known,
		// Every tree has leaves − 1 joins: Σ over interior nodes of (k − 1)
		// = (nodes − 1) − interior = leaves − 1.
		joins: func() int64 {
			leaves := t.Want.Leaves
			if !t.Known {
				leaves = t.Count().Leaves
			}
			return int64(leaves) - 1
		},
		param: tp,
	}, nil
}

// utsState is a node's generator state: a SHA-1 digest.
type utsState [sha1.Size]byte

// utsRoot is the root's state: SHA1(16 zero bytes ‖ uint32_be(r)).
func utsRoot(r uint32) utsState {
	var buf [20]byte
	binary.BigEndian.PutUint32(buf[16:], r)
	return sha1.Sum(buf[:])
}

// child is the state of child i: SHA1(s ‖ uint32_be(i)).
func (s *utsState) child(i int) utsState {
	var buf [sha1.Size + 4]byte
	copy(buf[:], s[:])
	binary.BigEndian.PutUint32(buf[sha1.Size:], uint32(i))
	return sha1.Sum(buf[:])
}

// prob is the node's random number as a probability in [0, 1).
func (s *utsState) prob() float64 {
	v := binary.BigEndian.Uint32(s[16:]) & 0x7fffffff
	return float64(v) / 2147483648.0
}

// numChildren is the reference's uts_numChildren.
func (t *UTSTree) numChildren(s *utsState, depth int) int {
	var k int
	switch t.Type {
	case Binomial:
		if depth == 0 {
			k = int(math.Floor(t.B0))
		} else {
			k = t.binomialChildren(s)
		}
	case Geometric:
		k = t.geometricChildren(s, depth)
	case Hybrid:
		if float64(depth) < t.F*float64(t.D) {
			k = t.geometricChildren(s, depth)
		} else {
			k = t.binomialChildren(s)
		}
	}
	if depth == 0 && t.Type == Binomial {
		k = min(k, int(math.Ceil(t.B0)))
	} else {
		k = min(k, utsMaxChildren)
	}
	return k
}

func (t *UTSTree) binomialChildren(s *utsState) int {
	if s.prob() < t.Q {
		return t.M
	}
	return 0
}

// geometricChildren draws from the geometric distribution with mean b_d by
// inverting its CDF, with the reference's floating-point operations in the
// reference's order.
func (t *UTSTree) geometricChildren(s *utsState, depth int) int {
	b := t.B0
	if depth > 0 {
		d, dmax := float64(depth), float64(t.D)
		switch t.Shape {
		case ExpDec:
			b = t.B0 * math.Pow(d, -math.Log(t.B0)/math.Log(dmax))
		case Cyclic:
			if depth > 5*t.D {
				b = 0
			} else {
				b = math.Pow(t.B0, math.Sin(2.0*3.141592653589793*d/dmax))
			}
		case Fixed:
			if depth >= t.D {
				b = 0
			}
		default: // Linear
			b = t.B0 * (1.0 - d/dmax)
		}
	}
	if !(b > 0) {
		// p = 1 (no children); a negative b_d, which the reference turns into
		// a negative count through an undefined conversion, also means none.
		return 0
	}
	p := 1.0 / (1.0 + b)
	u := s.prob()
	x := math.Floor(math.Log(1-u) / math.Log(1-p))
	if x > utsMaxChildren {
		return utsMaxChildren + 1 // capped by the caller
	}
	return int(x)
}

// shaCount is the count of a subtree.
type shaCount struct{ nodes, leaves, depth uint64 }

func (c *shaCount) add(d shaCount) {
	c.nodes += d.nodes
	c.leaves += d.leaves
	c.depth = max(c.depth, d.depth)
}

func (c shaCount) result() Result { return Result{Value: c.nodes, Leaves: c.leaves, Depth: c.depth} }

// shaLeaf is the count of a leaf at depth.
func shaLeaf(depth int) shaCount { return shaCount{1, 1, uint64(depth)} }

// shaSeq counts the subtree of the node with state s. The state goes by
// value: a pointer to a local passed to the recursive call would make the
// compiler move every child state to the heap.
func shaSeq(t *UTSTree, s utsState, depth int) shaCount {
	k := t.numChildren(&s, depth)
	if k <= 0 {
		return shaLeaf(depth)
	}
	c := shaCount{nodes: 1, depth: uint64(depth)}
	for i := range k {
		c.add(shaSeq(t, s.child(i), depth+1))
	}
	return c
}

// shaWG forks every child but the last as a goroutine and runs the last one
// inline, while depth < cutoff; below that it runs sequentially.
func shaWG(t *UTSTree, s utsState, depth, cutoff int) shaCount {
	if depth >= cutoff {
		return shaSeq(t, s, depth)
	}
	k := t.numChildren(&s, depth)
	if k <= 0 {
		return shaLeaf(depth)
	}
	kids := make([]shaCount, k-1)
	var wg sync.WaitGroup
	wg.Add(k - 1)
	for i := range k - 1 {
		go func() {
			kids[i] = shaWG(t, s.child(i), depth+1, cutoff)
			wg.Done()
		}()
	}
	c := shaCount{nodes: 1, depth: uint64(depth)}
	c.add(shaWG(t, s.child(k-1), depth+1, cutoff))
	wg.Wait()
	for _, kc := range kids {
		c.add(kc)
	}
	return c
}
