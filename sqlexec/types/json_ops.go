package types

import (
	"strconv"
	"strings"
)

func registerJSONOperators() {
	for _, t := range []Type{JSON, JSONB} {
		isB := t.Oid == OidJSONB
		addBinary("->", t, Text, t, func(_ *Env, a, b any) (any, error) {
			if v := jsonField(mustParseJSON(a.(string)), b.(string)); v != nil {
				return jsonOut(v, isB), nil
			}
			return nil, nil
		})
		addBinary("->", t, Int4, t, func(_ *Env, a, b any) (any, error) {
			if v := jsonElem(mustParseJSON(a.(string)), b.(int64)); v != nil {
				return jsonOut(v, isB), nil
			}
			return nil, nil
		})
		addBinary("->>", t, Text, Text, func(_ *Env, a, b any) (any, error) {
			if v := jsonField(mustParseJSON(a.(string)), b.(string)); v != nil {
				return jsonText(v, isB), nil
			}
			return nil, nil
		})
		addBinary("->>", t, Int4, Text, func(_ *Env, a, b any) (any, error) {
			if v := jsonElem(mustParseJSON(a.(string)), b.(int64)); v != nil {
				return jsonText(v, isB), nil
			}
			return nil, nil
		})
	}
	textArray := Type{arrayTypes[OidText], -1}
	for _, t := range []Type{JSON, JSONB} {
		isB := t.Oid == OidJSONB
		addBinary("#>", t, textArray, t, func(_ *Env, a, b any) (any, error) {
			if v := jsonPath(mustParseJSON(a.(string)), flatElems(b)); v != nil {
				return jsonOut(v, isB), nil
			}
			return nil, nil
		})
		addBinary("#>>", t, textArray, Text, func(_ *Env, a, b any) (any, error) {
			if v := jsonPath(mustParseJSON(a.(string)), flatElems(b)); v != nil {
				return jsonText(v, isB), nil
			}
			return nil, nil
		})
	}
	addBinary("?", JSONB, Text, Bool, func(_ *Env, a, b any) (any, error) {
		return jsonbExists(mustParseJSON(a.(string)), b.(string)), nil
	})
	// ?| and ?& ask whether any or all of the array's keys exist.
	for op, all := range map[string]bool{"?|": false, "?&": true} {
		addBinary(op, JSONB, textArray, Bool, func(_ *Env, a, b any) (any, error) {
			return jsonbExistsKeys(mustParseJSON(a.(string)), flatElems(b), all), nil
		})
	}
	addBinary("@>", JSONB, JSONB, Bool, func(_ *Env, a, b any) (any, error) {
		return jsonbContains(mustParseJSON(a.(string)), mustParseJSON(b.(string)), true), nil
	})
	addBinary("<@", JSONB, JSONB, Bool, func(_ *Env, a, b any) (any, error) {
		return jsonbContains(mustParseJSON(b.(string)), mustParseJSON(a.(string)), true), nil
	})
	addBinary("||", JSONB, JSONB, JSONB, func(_ *Env, a, b any) (any, error) {
		return string(appendJSONB(nil, jsonbConcat(mustParseJSON(a.(string)), mustParseJSON(b.(string))))), nil
	})
}

// jsonPath is the #> operator's walk: each step a key of an object or the
// index of an array element (negative counts from the end); a step that
// finds nothing, or a NULL step, gives nil.
func jsonPath(v *jsonValue, path []any) *jsonValue {
	for _, p := range path {
		if p == nil || v == nil {
			return nil
		}
		switch v.kind {
		case jsonObject:
			v = jsonField(v, p.(string))
		case jsonArray:
			// strtol's reading: leading white space, nothing after.
			i, err := strconv.ParseInt(strings.TrimLeft(p.(string), " \t\n\v\f\r"), 10, 32)
			if err != nil {
				return nil
			}
			v = jsonElem(v, i)
		default:
			return nil
		}
	}
	return v
}

// jsonbExists is the ? operator: a top-level key, an element of a top-level
// array that is that string, or the scalar string itself.
func jsonbExists(v *jsonValue, key string) bool {
	switch v.kind {
	case jsonObject:
		return jsonField(v, key) != nil
	case jsonArray:
		for _, e := range v.elems {
			if e.kind == jsonString && e.str == key {
				return true
			}
		}
	case jsonString:
		return v.str == key
	}
	return false
}

// jsonbContains is @>: every member of b appears in a, recursively; an
// array contains the elements of another array in any order, and at the top
// level an array contains a scalar that is one of its elements.
func jsonbContains(a, b *jsonValue, top bool) bool {
	if a.kind != b.kind {
		if top && a.kind == jsonArray && b.kind != jsonObject && b.kind != jsonArray {
			for _, e := range a.elems {
				if compareJSONB(e, b) == 0 {
					return true
				}
			}
		}
		return false
	}
	switch a.kind {
	case jsonObject:
		for i, k := range b.keys {
			av := jsonField(a, k)
			if av == nil || !jsonbContains(av, b.vals[i], false) {
				return false
			}
		}
		return true
	case jsonArray:
		for _, be := range b.elems {
			found := false
			for _, ae := range a.elems {
				if jsonbContains(ae, be, false) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	return compareJSONB(a, b) == 0
}

// jsonbConcat is jsonb || jsonb: objects merge (right wins), otherwise both
// sides become arrays and are appended.
func jsonbConcat(a, b *jsonValue) *jsonValue {
	if a.kind == jsonObject && b.kind == jsonObject {
		out := &jsonValue{kind: jsonObject, keys: append(append([]string(nil), a.keys...), b.keys...), vals: append(append([]*jsonValue(nil), a.vals...), b.vals...)}
		normalizeJSONB(out)
		return out
	}
	elems := func(v *jsonValue) []*jsonValue {
		if v.kind == jsonArray {
			return v.elems
		}
		return []*jsonValue{v}
	}
	return &jsonValue{kind: jsonArray, elems: append(append([]*jsonValue(nil), elems(a)...), elems(b)...)}
}
