package cluster

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// The stored form of a Result (wireResult) is written and read once per
// task on the hot path: by the worker that records it and by the
// submitter that waits for it. encoding/json spends most of its time there
// on reflection and, around a MarshalJSON method, on validating and
// compacting the method's output again; the functions below write the same
// bytes directly and read the common shape directly, and they are checked
// against encoding/json byte for byte and field for field
// (resultcodec_test.go, FuzzResultCodec).

// appendResult appends r's stored form to dst: exactly what json.Marshal
// writes for r's wireResult (field order, omitempty, HTML-safe escaping).
func appendResult(dst []byte, r Result) []byte {
	if dst == nil {
		n := 160 + len(r.Job) + len(r.Task) + len(r.Handler) + len(r.Worker) + base64.StdEncoding.EncodedLen(len(r.Output))
		n += len(r.Error) + len(r.Stack)
		dst = make([]byte, 0, n+n/8)
	}
	dst = append(dst, `{"job":`...)
	dst = appendJSONString(dst, r.Job)
	dst = append(dst, `,"task":`...)
	dst = appendJSONString(dst, r.Task)
	dst = append(dst, `,"index":`...)
	dst = strconv.AppendInt(dst, int64(r.Index), 10)
	dst = append(dst, `,"handler":`...)
	dst = appendJSONString(dst, r.Handler)
	if len(r.Output) > 0 {
		dst = append(dst, `,"output":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, r.Output)
		dst = append(dst, '"')
	}
	if r.Error != "" {
		dst = append(dst, `,"error":`...)
		dst = appendJSONString(dst, r.Error)
	}
	if r.Failure != "" {
		dst = append(dst, `,"failure":`...)
		dst = appendJSONString(dst, string(r.Failure))
	}
	if r.Stack != "" {
		dst = append(dst, `,"stack":`...)
		dst = appendJSONString(dst, r.Stack)
	}
	dst = append(dst, `,"worker":`...)
	dst = appendJSONString(dst, r.Worker)
	dst = append(dst, `,"attempt":`...)
	dst = strconv.AppendInt(dst, int64(r.Attempt), 10)
	if r.Deliveries != 0 {
		dst = append(dst, `,"deliveries":`...)
		dst = strconv.AppendInt(dst, int64(r.Deliveries), 10)
	}
	if r.Discarded != 0 {
		dst = append(dst, `,"discarded":`...)
		dst = strconv.AppendInt(dst, int64(r.Discarded), 10)
	}
	if r.Reran != 0 {
		dst = append(dst, `,"reran":`...)
		dst = strconv.AppendInt(dst, int64(r.Reran), 10)
	}
	if r.Speculative {
		dst = append(dst, `,"speculative":true`...)
	}
	if !r.Start.IsZero() {
		if ns := r.Start.UnixNano(); ns != 0 {
			dst = append(dst, `,"start_ns":`...)
			dst = strconv.AppendInt(dst, ns, 10)
		}
	}
	dst = append(dst, `,"runtime_ns":`...)
	dst = strconv.AppendInt(dst, int64(r.Runtime), 10)
	if r.Parent != "" {
		dst = append(dst, `,"parent":`...)
		dst = appendJSONString(dst, r.Parent)
	}
	if len(r.Spawned) > 0 {
		dst = append(dst, `,"spawned":[`...)
		for i, c := range r.Spawned {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, c)
		}
		dst = append(dst, ']')
	}
	if r.Value != nil {
		dst = append(dst, `,"value":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, r.Value)
		dst = append(dst, '"')
	}
	return append(dst, '}')
}

// appendJSONString appends s quoted as encoding/json quotes it (with its
// default HTML escaping): invalid UTF-8 becomes U+FFFD, and U+2028 and
// U+2029 are escaped.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// decodeResult reads a stored Result. The common shape (the known keys,
// strings without escapes, integers) is read directly; anything else
// (escapes, unknown keys, null, other spellings of a number, invalid
// JSON) goes to encoding/json, so that the answer, error included, is
// always encoding/json's.
func decodeResult(b []byte, r *Result) error {
	var w wireResult
	if !fastWire(b, &w) {
		w = wireResult{}
		if err := json.Unmarshal(b, &w); err != nil {
			return err
		}
	}
	*r = Result{Job: w.Job, Task: w.Task, Index: w.Index, Handler: w.Handler, Output: w.Output, Error: w.Error,
		Failure: Failure(w.Failure), Stack: w.Stack, Worker: w.Worker, Attempt: w.Attempt, Deliveries: w.Deliveries, Discarded: w.Discarded, Reran: w.Reran, Speculative: w.Speculative, Runtime: time.Duration(w.RuntimeNs),
		Parent: w.Parent, Spawned: w.Spawned}
	if w.Value != nil {
		r.Value = *w.Value
		if r.Value == nil {
			r.Value = []byte{}
		}
	}
	if w.StartNs != 0 {
		r.Start = time.Unix(0, w.StartNs)
	}
	return nil
}

// fastWire decodes the common shape of a stored result into w, and says
// false (w then holds garbage) for anything it does not read exactly as
// encoding/json would.
func fastWire(b []byte, w *wireResult) bool {
	p := jsonScan{b: b}
	if !p.byte('{') {
		return false
	}
	if p.byte('}') {
		return p.end()
	}
	for {
		key, ok := p.raw()
		if !ok || !p.byte(':') {
			return false
		}
		switch string(key) {
		case "job":
			w.Job, ok = p.str()
		case "task":
			w.Task, ok = p.str()
		case "handler":
			w.Handler, ok = p.str()
		case "error":
			w.Error, ok = p.str()
		case "failure":
			w.Failure, ok = p.str()
		case "stack":
			w.Stack, ok = p.str()
		case "worker":
			w.Worker, ok = p.str()
		case "output":
			var s []byte
			if s, ok = p.raw(); ok {
				w.Output, ok = decodeBase64(s)
			}
		case "index":
			ok = scanInt(&p, &w.Index, strconv.IntSize)
		case "attempt":
			ok = scanInt(&p, &w.Attempt, strconv.IntSize)
		case "deliveries":
			ok = scanInt(&p, &w.Deliveries, strconv.IntSize)
		case "discarded":
			ok = scanInt(&p, &w.Discarded, strconv.IntSize)
		case "reran":
			ok = scanInt(&p, &w.Reran, strconv.IntSize)
		case "start_ns":
			ok = scanInt(&p, &w.StartNs, 64)
		case "runtime_ns":
			ok = scanInt(&p, &w.RuntimeNs, 64)
		case "speculative":
			w.Speculative, ok = p.boolean()
		case "parent":
			w.Parent, ok = p.str()
		case "value":
			var s []byte
			if s, ok = p.raw(); ok {
				var v []byte
				v, ok = decodeBase64(s)
				w.Value = &v
			}
		default:
			return false
		}
		if !ok {
			return false
		}
		if p.byte('}') {
			return p.end()
		}
		if !p.byte(',') {
			return false
		}
	}
}

// decodeBase64 decodes as encoding/json decodes a []byte field.
func decodeBase64(s []byte) ([]byte, bool) {
	out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(out, s)
	return out[:n], err == nil
}

// jsonScan reads JSON tokens from b for fastWire.
type jsonScan struct {
	b []byte
	i int
}

func (p *jsonScan) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

// byte consumes c (after white space) if it is next.
func (p *jsonScan) byte(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end says only white space is left.
func (p *jsonScan) end() bool {
	p.space()
	return p.i == len(p.b)
}

// str reads a string without escapes or control characters, in valid
// UTF-8 (which encoding/json would keep as it is).
func (p *jsonScan) str() (string, bool) {
	s, ok := p.raw()
	return string(s), ok
}

// raw is str's bytes, unconverted.
func (p *jsonScan) raw() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			return s, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		}
		p.i++
	}
	return nil, false
}

// scanInt reads an integer of bits bits into dst.
func scanInt[T int | int64](p *jsonScan, dst *T, bits int) bool {
	n, ok := p.int(bits)
	*dst = T(n)
	return ok
}

// int reads an integer in JSON's plain form (-?(0|[1-9][0-9]*)) that fits
// bits bits.
func (p *jsonScan) int(bits int) (int64, bool) {
	p.space()
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	if p.i == digits || p.b[digits] == '0' && p.i-digits > 1 {
		return 0, false
	}
	if p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		return 0, false
	}
	if p.i-digits > bits*3/10-1 { // may not fit (over 18 digits for 64 bits, 8 for 32): let strconv decide
		n, err := strconv.ParseInt(string(p.b[start:p.i]), 10, bits)
		return n, err == nil
	}
	var n int64
	for _, c := range p.b[digits:p.i] {
		n = n*10 + int64(c-'0')
	}
	if digits > start {
		n = -n
	}
	return n, true
}

func (p *jsonScan) boolean() (bool, bool) {
	p.space()
	switch {
	case len(p.b)-p.i >= 4 && string(p.b[p.i:p.i+4]) == "true":
		p.i += 4
		return true, true
	case len(p.b)-p.i >= 5 && string(p.b[p.i:p.i+5]) == "false":
		p.i += 5
		return false, true
	}
	return false, false
}
