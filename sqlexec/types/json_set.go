package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// pathOp says what setJSONPath does at the end of a path, as the flags of
// PostgreSQL's setPath do: jsonb_set replaces (and with create adds a
// missing last key or element), jsonb_insert inserts before or after an
// element, #- deletes, and subscript assignment creates the whole missing
// path, filling arrays with nulls up to the index.
type pathOp int

const (
	pathCreate pathOp = 1 << iota
	pathDelete
	pathReplace
	pathInsertBefore
	pathInsertAfter
	// pathFillGaps creates missing containers along the path and pads
	// arrays with nulls up to the index.
	pathFillGaps
	// pathConsistentPosition refuses a negative index before the start of
	// an array instead of prepending.
	pathConsistentPosition

	pathCreateOrInsert = pathCreate | pathInsertBefore | pathInsertAfter
)

// setJSONPath returns v with the value at path (keys and array indexes as
// text, as in a text[] path) set, inserted or deleted according to op. v
// is not modified; the result shares unchanged parts with it.
func setJSONPath(v *jsonValue, path []any, level int, newval *jsonValue, op pathOp) (*jsonValue, error) {
	if path[level] == nil {
		return nil, pgerror.Newf(pgerror.NullValueNotAllowed, "path element at position %d is null", level+1)
	}
	switch v.kind {
	case jsonArray:
		return setJSONPathArray(v, path, level, newval, op)
	case jsonObject:
		return setJSONPathObject(v, path, level, newval, op)
	}
	if op&pathFillGaps != 0 {
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot replace existing key").
			WithDetail("The path assumes key is a composite object, but it is a scalar value.")
	}
	return v, nil
}

func setJSONPathObject(v *jsonValue, path []any, level int, newval *jsonValue, op pathOp) (*jsonValue, error) {
	key := path[level].(string)
	last := level == len(path)-1
	out := &jsonValue{kind: jsonObject}
	add := func(k string, val *jsonValue) {
		out.keys = append(out.keys, k)
		out.vals = append(out.vals, val)
	}
	done := false
	if len(v.keys) == 0 && op&pathCreateOrInsert != 0 && last {
		add(key, newval)
	}
	for i, k := range v.keys {
		switch {
		case !done && k == key:
			done = true
			if !last {
				nv, err := setJSONPath(v.vals[i], path, level+1, newval, op)
				if err != nil {
					return nil, err
				}
				add(k, nv)
				continue
			}
			if op&(pathInsertBefore|pathInsertAfter) != 0 {
				return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot replace existing key").
					WithHint("Try using the function jsonb_set to replace key value.")
			}
			if op&pathDelete == 0 {
				add(k, newval)
			}
		default:
			if op&pathCreateOrInsert != 0 && !done && last && i == len(v.keys)-1 {
				add(key, newval)
			}
			add(k, v.vals[i])
		}
	}
	if !done && op&pathFillGaps != 0 && !last {
		add(key, jsonPathChain(path[level+1:], newval))
	}
	normalizeJSONB(out)
	return out, nil
}

func setJSONPathArray(v *jsonValue, path []any, level int, newval *jsonValue, op pathOp) (*jsonValue, error) {
	n := len(v.elems)
	last := level == len(path)-1
	s := path[level].(string)
	idx, ok := strtolInt32(s)
	if !ok {
		return nil, pgerror.Newf(pgerror.InvalidTextRepresentation, "path element at position %d is not an integer: \"%s\"", level+1, s)
	}
	const before = math.MinInt64 // a negative index before the first element
	if idx < 0 {
		if -idx > int64(n) {
			if op&pathConsistentPosition != 0 {
				return nil, pgerror.Newf(pgerror.InvalidParameterValue, "path element at position %d is out of range: %d", level+1, idx)
			}
			idx = before
		} else {
			idx += int64(n)
		}
	}
	if op&pathFillGaps == 0 && idx > int64(n) {
		idx = int64(n)
	}
	out := &jsonValue{kind: jsonArray}
	push := func(e ...*jsonValue) { out.elems = append(out.elems, e...) }
	done := false
	if (idx == before || n == 0) && last && op&pathCreateOrInsert != 0 {
		if op&pathFillGaps != 0 && n == 0 && idx > 0 {
			push(jsonNulls(idx)...)
		}
		push(newval)
		done = true
	}
	for i, e := range v.elems {
		if int64(i) != idx {
			push(e)
			continue
		}
		done = true
		if !last {
			nv, err := setJSONPath(e, path, level+1, newval, op)
			if err != nil {
				return nil, err
			}
			push(nv)
			continue
		}
		if op&(pathInsertBefore|pathCreate) != 0 {
			push(newval)
		}
		if op&(pathInsertBefore|pathInsertAfter) != 0 {
			push(e)
		}
		if op&(pathInsertAfter|pathReplace) != 0 {
			push(newval)
		}
	}
	if op&pathCreateOrInsert != 0 && !done && last {
		if op&pathFillGaps != 0 && idx > int64(n) {
			push(jsonNulls(idx - int64(n))...)
		}
		push(newval)
		done = true
	}
	if !done && op&pathFillGaps != 0 && !last {
		if idx > 0 {
			push(jsonNulls(idx - int64(n))...)
		}
		push(jsonPathChain(path[level+1:], newval))
	}
	return out, nil
}

// jsonPathChain builds the containers a filled-in path needs below a new
// key or element: an array padded with nulls for each step that reads as
// an integer, an object for the others, with newval at the end.
func jsonPathChain(path []any, newval *jsonValue) *jsonValue {
	if len(path) == 0 {
		return newval
	}
	inner := jsonPathChain(path[1:], newval)
	s, _ := path[0].(string)
	if i, ok := strtolInt32(s); ok {
		return &jsonValue{kind: jsonArray, elems: append(jsonNulls(i), inner)}
	}
	return &jsonValue{kind: jsonObject, keys: []string{s}, vals: []*jsonValue{inner}}
}

// jsonNulls returns n JSON nulls (none when n is not positive).
func jsonNulls(n int64) []*jsonValue {
	out := make([]*jsonValue, 0, max(n, 0))
	for ; n > 0; n-- {
		out = append(out, &jsonValue{kind: jsonNull})
	}
	return out
}

// strtolInt32 reads s as C's strtol does for a path step: optional leading
// white space and sign, decimal digits, nothing after, within int32.
func strtolInt32(s string) (int64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	i, err := strconv.ParseInt(t, 10, 32)
	if err != nil {
		return 0, false
	}
	return i, true
}

// isJSONScalar reports whether v is a scalar, what PostgreSQL calls a raw
// scalar at the top of a jsonb document.
func isJSONScalar(v *jsonValue) bool {
	return v.kind != jsonArray && v.kind != jsonObject
}

// jsonbSet is jsonb_set(target, path, new_value, create_if_missing).
func jsonbSet(target, newval *jsonValue, path []any, create bool) (*jsonValue, error) {
	if isJSONScalar(target) {
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot set path in scalar")
	}
	if len(path) == 0 {
		return target, nil
	}
	op := pathReplace
	if create {
		op = pathCreate
	}
	return setJSONPath(target, path, 0, newval, op)
}

// jsonbInsert is jsonb_insert(target, path, new_value, insert_after).
func jsonbInsert(target, newval *jsonValue, path []any, after bool) (*jsonValue, error) {
	if isJSONScalar(target) {
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot set path in scalar")
	}
	if len(path) == 0 {
		return target, nil
	}
	op := pathInsertBefore
	if after {
		op = pathInsertAfter
	}
	return setJSONPath(target, path, 0, newval, op)
}

// jsonbDeletePath is jsonb #- text[].
func jsonbDeletePath(target *jsonValue, path []any) (*jsonValue, error) {
	if isJSONScalar(target) {
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot delete path in scalar")
	}
	if len(target.elems) == 0 && len(target.keys) == 0 || len(path) == 0 {
		return target, nil
	}
	return setJSONPath(target, path, 0, nil, pathDelete)
}

// JSONBSubscript returns jsonb[path...]: the value at the path, or nil
// (SQL NULL) when a step is NULL or finds nothing.
func JSONBSubscript(doc string, path []any) any {
	if v := jsonPath(mustParseJSON(doc), path); v != nil {
		return string(appendJSONB(nil, v))
	}
	return nil
}

// JSONBSubscriptAssign is the assignment jsonb[path...] = newval of UPDATE:
// the whole missing path is created (arrays padded with nulls), a NULL
// document starts as an empty array when the first subscript is an integer
// (firstIsInt) and as an empty object otherwise, and a NULL newval stores a
// JSON null.
func JSONBSubscriptAssign(doc any, path []any, firstIsInt bool, newval any) (any, error) {
	for _, p := range path {
		if p == nil {
			return nil, pgerror.New(pgerror.NullValueNotAllowed, "jsonb subscript in assignment must not be null")
		}
	}
	var src *jsonValue
	switch {
	case doc != nil:
		src = mustParseJSON(doc.(string))
	case firstIsInt:
		src = &jsonValue{kind: jsonArray}
	default:
		src = &jsonValue{kind: jsonObject}
	}
	nv := &jsonValue{kind: jsonNull}
	if newval != nil {
		nv = mustParseJSON(newval.(string))
	}
	out, err := setJSONPath(src, path, 0, nv, pathCreate|pathFillGaps|pathConsistentPosition)
	if err != nil {
		return nil, err
	}
	return string(appendJSONB(nil, out)), nil
}
