package types

import (
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// compareJSONB orders jsonb values as PostgreSQL's jsonb comparison does for
// the cases that matter to ORDER BY and equality: by kind, then arrays and
// objects by size, then element by element (objects key then value).
func compareJSONB(a, b *jsonValue) int {
	if a.kind != b.kind {
		return cmp3(int(a.kind), int(b.kind))
	}
	switch a.kind {
	case jsonString:
		return strings.Compare(a.str, b.str)
	case jsonNumber:
		return a.num.Cmp(b.num)
	case jsonBool:
		return cmpBool(a.b, b.b)
	case jsonArray:
		if c := cmp3(len(a.elems), len(b.elems)); c != 0 {
			return c
		}
		for i := range a.elems {
			if c := compareJSONB(a.elems[i], b.elems[i]); c != 0 {
				return c
			}
		}
	case jsonObject:
		if c := cmp3(len(a.keys), len(b.keys)); c != 0 {
			return c
		}
		for i := range a.keys {
			// Keys are visited in storage order (shorter first) but
			// compared as strings, as compareJsonbContainers does.
			if c := strings.Compare(a.keys[i], b.keys[i]); c != 0 {
				return c
			}
			if c := compareJSONB(a.vals[i], b.vals[i]); c != 0 {
				return c
			}
		}
	}
	return 0
}

func cmp3[T int | int64 | uint64 | float64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// jsonText returns the text ->> gives for v: strings unquoted, null as SQL
// NULL, everything else as its JSON text (jsonb: normalized; json: as
// written).
func jsonText(v *jsonValue, isJSONB bool) any {
	switch v.kind {
	case jsonNull:
		return nil
	case jsonString:
		return v.str
	}
	return jsonOut(v, isJSONB)
}

// jsonOut returns the datum -> gives for v.
func jsonOut(v *jsonValue, isJSONB bool) string {
	if isJSONB {
		return string(appendJSONB(nil, v))
	}
	return v.src
}

// jsonField returns the member key of an object, or nil.
func jsonField(v *jsonValue, key string) *jsonValue {
	if v.kind != jsonObject {
		return nil
	}
	for i := len(v.keys) - 1; i >= 0; i-- {
		if v.keys[i] == key {
			return v.vals[i]
		}
	}
	return nil
}

// jsonElem returns element i of an array (negative counts from the end), or
// nil.
func jsonElem(v *jsonValue, i int64) *jsonValue {
	if v.kind != jsonArray {
		return nil
	}
	if i < 0 {
		i += int64(len(v.elems))
	}
	if i < 0 || i >= int64(len(v.elems)) {
		return nil
	}
	return v.elems[i]
}

// numberJSON returns the JSON text of a number datum.
func numberJSON(s string) *jsonValue {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return &jsonValue{kind: jsonString, str: s}
	}
	return &jsonValue{kind: jsonNumber, num: d}
}

// appendJSON appends the json (not jsonb) text of v: as written when parsed,
// else in jsonb form.
func appendJSON(buf []byte, v *jsonValue) []byte {
	if v.src != "" {
		return append(buf, v.src...)
	}
	return appendJSONB(buf, v)
}
