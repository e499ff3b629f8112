package types

import (
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// array_in and array_out: the text form of arrays of any shape, with the
// dimension decoration [lo:hi]...= for lower bounds other than 1.

// malformedArray is array_in's 22P02 error.
func malformedArray(s, detail string) error {
	return pgerror.Newf(pgerror.InvalidTextRepresentation, "malformed array literal: %q", s).WithDetail("%s", detail)
}

// errTooManyDims is the 54000 error of an array of more than six dimensions.
func errTooManyDims(n int) error {
	return pgerror.Newf(pgerror.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", n, pgarray.MaxDims)
}

// arrayIsSpace is array_isspace: the white space array_in skips.
func arrayIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// arrayNode is one brace level of an array literal: either the texts of its
// elements (nil for an unquoted NULL) or its sub-arrays.
type arrayNode struct {
	texts []*string
	kids  []*arrayNode
}

// parseArray is array_in: optional dimension decoration [lo:hi]...=, then
// nested braces of elements with double quotes and backslash escapes; an
// unquoted NULL is a NULL element. Sub-arrays of one level must have the
// same length.
func parseArray(env *Env, t Type, s string) (any, error) {
	elem, _ := t.Elem()
	delim := arrayDelim(elem)
	i := 0
	var declDims, declLower []int
	for {
		for i < len(s) && arrayIsSpace(s[i]) {
			i++
		}
		if i >= len(s) || s[i] != '[' {
			break
		}
		if len(declDims) == pgarray.MaxDims {
			return nil, errTooManyDims(len(declDims) + 1)
		}
		lo, hi, next, err := parseArrayDim(s, i+1)
		if err != nil {
			return nil, err
		}
		declDims, declLower, i = append(declDims, hi-lo+1), append(declLower, lo), next
	}
	if declDims != nil {
		if i >= len(s) || s[i] != '=' {
			return nil, malformedArray(s, `Missing "=" after array dimensions.`)
		}
		for i++; i < len(s) && arrayIsSpace(s[i]); i++ {
		}
		if i >= len(s) || s[i] != '{' {
			return nil, malformedArray(s, `Array contents must start with "{".`)
		}
	} else if i >= len(s) || s[i] != '{' {
		return nil, malformedArray(s, `Array value must start with "{" or dimension information.`)
	}
	root, next, err := parseArrayLevel(s, i+1, true, delim)
	if err != nil {
		return nil, err
	}
	for ; next < len(s); next++ {
		if !arrayIsSpace(s[next]) {
			return nil, malformedArray(s, "Junk after closing right brace.")
		}
	}
	dims, texts, err := arrayNodeShape(s, root)
	if err != nil {
		return nil, err
	}
	lower := make([]int, len(dims))
	for k := range lower {
		lower[k] = 1
	}
	if declDims != nil {
		if len(declDims) != len(dims) {
			return nil, malformedArray(s, "Specified array dimensions do not match array contents.")
		}
		for k := range dims {
			if dims[k] != declDims[k] {
				return nil, malformedArray(s, "Specified array dimensions do not match array contents.")
			}
		}
		lower = declLower
	}
	elems := make([]any, len(texts))
	for k, text := range texts {
		if text == nil {
			continue
		}
		v, err := parseText(env, elem, *text)
		if err != nil {
			return nil, err
		}
		elems[k] = v
	}
	return pgarray.Make(dims, lower, elems), nil
}

// arrayDelim is pg_type.typdelim of an array's element type: ; for box,
// whose text holds commas, and , for every other type.
func arrayDelim(elem Type) byte {
	if elem.Oid == OidBox {
		return ';'
	}
	return ','
}

// parseArrayDim reads one dimension [lo:hi] or [hi] after its "[" at s[i]
// and returns the index after its "]".
func parseArrayDim(s string, i int) (lo, hi, next int, err error) {
	number := func(i int) (int, int) {
		j := i
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '-' || s[j] == '+') {
			j++
		}
		n, err := strconv.Atoi(s[i:j])
		if err != nil && j > i {
			n = 0 // atoi of a malformed sign run is 0 in PostgreSQL too
		}
		return n, j
	}
	first, j := number(i)
	if j == i {
		return 0, 0, 0, malformedArray(s, `"[" must introduce explicitly-specified array dimensions.`)
	}
	lo, hi = 1, first
	if j < len(s) && s[j] == ':' {
		start := j + 1
		lo = first
		if hi, j = number(start); j == start {
			return 0, 0, 0, malformedArray(s, "Missing array dimension value.")
		}
	}
	if j >= len(s) || s[j] != ']' {
		return 0, 0, 0, malformedArray(s, `Missing "]" after array dimensions.`)
	}
	if hi < lo {
		return 0, 0, 0, pgerror.New(pgerror.ArraySubscriptError, "upper bound cannot be less than lower bound")
	}
	return lo, hi, j + 1, nil
}

// parseArrayLevel reads the items of one brace level after its "{" at s[i]
// up to and including its "}". Only the outermost level may be empty.
func parseArrayLevel(s string, i int, outer bool, delim byte) (*arrayNode, int, error) {
	node := &arrayNode{}
	for {
		for i < len(s) && arrayIsSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return nil, 0, malformedArray(s, "Unexpected end of input.")
		}
		c := s[i]
		switch {
		case c == '}' && outer && len(node.texts) == 0 && len(node.kids) == 0:
			return node, i + 1, nil
		case c == '{':
			if len(node.texts) > 0 {
				return nil, 0, malformedArray(s, `Unexpected "{" character.`)
			}
			kid, next, err := parseArrayLevel(s, i+1, false, delim)
			if err != nil {
				return nil, 0, err
			}
			node.kids = append(node.kids, kid)
			i = next
		case c == '}' || c == delim:
			return nil, 0, malformedArray(s, `Unexpected "`+string(c)+`" character.`)
		default:
			if len(node.kids) > 0 {
				if c == '\\' {
					return nil, 0, malformedArray(s, `Unexpected "\" character.`)
				}
				return nil, 0, malformedArray(s, "Unexpected array element.")
			}
			text, quoted, next, err := scanArrayElem(s, i, delim)
			if err != nil {
				return nil, 0, err
			}
			if !quoted && strings.EqualFold(text, "NULL") {
				node.texts = append(node.texts, nil)
			} else {
				node.texts = append(node.texts, &text)
			}
			i = next
		}
		for i < len(s) && arrayIsSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return nil, 0, malformedArray(s, "Unexpected end of input.")
		}
		switch s[i] {
		case delim:
			i++
		case '}':
			return node, i + 1, nil
		default:
			return nil, 0, malformedArray(s, "Unexpected array element.")
		}
	}
}

// arrayNodeShape returns the dimensions of a parsed literal and its element
// texts in row-major order: every sub-array of a level must have the shape
// of the first.
func arrayNodeShape(s string, root *arrayNode) ([]int, []*string, error) {
	var dims []int
	for n := root; ; n = n.kids[0] {
		if len(n.kids) == 0 {
			if len(n.texts) > 0 {
				dims = append(dims, len(n.texts))
			}
			break
		}
		dims = append(dims, len(n.kids))
	}
	if len(dims) > pgarray.MaxDims {
		return nil, nil, errTooManyDims(len(dims))
	}
	var texts []*string
	var walk func(n *arrayNode, depth int) bool
	walk = func(n *arrayNode, depth int) bool {
		if depth == len(dims)-1 {
			if len(n.kids) > 0 || len(n.texts) != dims[depth] {
				return false
			}
			texts = append(texts, n.texts...)
			return true
		}
		if len(n.texts) > 0 || len(n.kids) != dims[depth] {
			return false
		}
		for _, k := range n.kids {
			if !walk(k, depth+1) {
				return false
			}
		}
		return true
	}
	if len(dims) > 0 && !walk(root, 0) {
		return nil, nil, malformedArray(s, "Multidimensional arrays must have sub-arrays with matching dimensions.")
	}
	return dims, texts, nil
}

// scanArrayElem reads one element starting at s[i]: a double-quoted string
// or an unquoted run up to a delimiter, brace or (trailing) white space,
// with backslash escapes in both. It returns the element's text and the
// index after it.
func scanArrayElem(s string, i int, delim byte) (text string, quoted bool, next int, err error) {
	var b strings.Builder
	if s[i] == '"' {
		for i++; ; i++ {
			if i >= len(s) {
				return "", false, 0, malformedArray(s, "Unexpected end of input.")
			}
			switch s[i] {
			case '\\':
				i++
				if i >= len(s) {
					return "", false, 0, malformedArray(s, "Unexpected end of input.")
				}
				b.WriteByte(s[i])
			case '"':
				return b.String(), true, i + 1, nil
			default:
				b.WriteByte(s[i])
			}
		}
	}
	// Unquoted: trailing unescaped white space is dropped.
	keep := 0
	escaped := false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			i++
			if i >= len(s) {
				return "", false, 0, malformedArray(s, "Unexpected end of input.")
			}
			b.WriteByte(s[i])
			keep = b.Len()
			escaped = true
			continue
		case c == delim || c == '}':
		case c == '{':
			return "", false, 0, malformedArray(s, `Unexpected "{" character.`)
		case c == '"':
			return "", false, 0, malformedArray(s, "Unexpected array element.")
		default:
			b.WriteByte(c)
			if !arrayIsSpace(c) {
				keep = b.Len()
			}
			continue
		}
		break
	}
	out := b.String()[:keep]
	if out == "" && !escaped {
		return "", false, 0, malformedArray(s, "Unexpected array element.")
	}
	// An escaped element is never the NULL keyword.
	return out, escaped, i, nil
}

// formatArray is array_out: the dimension decoration when a lower bound is
// not 1, then nested braces of the elements in their text form,
// double-quoted when empty, NULL-like or containing a delimiter, brace,
// quote, backslash or white space.
func formatArray(env *Env, t Type, v any) string {
	elem, _ := t.Elem()
	delim := arrayDelim(elem)
	dims, lower, elems, _ := pgarray.Shape(v)
	var b strings.Builder
	for k, lb := range lower {
		if lb != 1 {
			for k = range dims {
				b.WriteString("[" + strconv.Itoa(lower[k]) + ":" + strconv.Itoa(lower[k]+dims[k]-1) + "]")
			}
			b.WriteByte('=')
			break
		}
	}
	if len(dims) == 0 {
		return "{}"
	}
	next := 0
	var level func(d int)
	level = func(d int) {
		b.WriteByte('{')
		for k := range dims[d] {
			if k > 0 {
				b.WriteByte(delim)
			}
			if d+1 < len(dims) {
				level(d + 1)
				continue
			}
			e := elems[next]
			next++
			if e == nil {
				b.WriteString("NULL")
				continue
			}
			appendArrayElemText(&b, formatText(env, elem, e), delim)
		}
		b.WriteByte('}')
	}
	level(0)
	return b.String()
}

func appendArrayElemText(b *strings.Builder, s string, delim byte) {
	quote := s == "" || strings.EqualFold(s, "NULL")
	for k := 0; k < len(s) && !quote; k++ {
		c := s[k]
		quote = c == '{' || c == '}' || c == delim || c == '"' || c == '\\' || arrayIsSpace(c)
	}
	if !quote {
		b.WriteString(s)
		return
	}
	b.WriteByte('"')
	for k := 0; k < len(s); k++ {
		if s[k] == '"' || s[k] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[k])
	}
	b.WriteByte('"')
}
