package jobio

import "bytes"

// TagLines appends p to dst with tag before it and after each \r or \n of
// p that is not its last byte: GNU parallel's --tag and --tagstring, which
// tag what a carriage return starts (a progress bar's updates) as they tag
// lines. A \r\n gets a tag between its two bytes, as in GNU.
func TagLines(dst []byte, tag string, p []byte) []byte {
	if len(p) == 0 {
		return dst
	}
	dst = append(dst, tag...)
	for {
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 || i == len(p)-1 {
			return append(dst, p...)
		}
		dst = append(append(dst, p[:i+1]...), tag...)
		p = p[i+1:]
	}
}
