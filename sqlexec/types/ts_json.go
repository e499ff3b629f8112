package types

import (
	"github.com/fickle-db/fickle/internal/pgerror"
)

// Full-text search over json and jsonb documents: the values
// to_tsvector and json(b)_to_tsvector index (jsonfuncs.c's
// iterate_json(b)_values with parse_jsonb_index_flags), and the string
// values ts_headline rewrites (transform_json(b)_string_values).

// The kinds of values JSONTSValues returns (jtiKey, jtiString, ...).
const (
	JSONTSKey     = 1 << 0
	JSONTSString  = 1 << 1
	JSONTSNumeric = 1 << 2
	JSONTSBool    = 1 << 3
	JSONTSAll     = JSONTSKey | JSONTSString | JSONTSNumeric | JSONTSBool
)

// JSONTSFlags is parse_jsonb_index_flags: the kinds of values a filter
// (a jsonb array of "string", "numeric", "boolean", "key" and "all", or
// one of them alone) names.
func JSONTSFlags(filter string) (int, error) {
	v := mustParseJSON(filter)
	elems := []*jsonValue{v}
	switch v.kind {
	case jsonObject:
		return 0, pgerror.New(pgerror.InvalidParameterValue, "wrong flag type, only arrays and scalars are allowed")
	case jsonArray:
		elems = v.elems
	}
	hint := `Possible values are: "string", "numeric", "boolean", "key", and "all".`
	flags := 0
	for _, e := range elems {
		switch e.kind {
		case jsonArray, jsonObject:
			// A nested container ends PostgreSQL's walk of the array
			// early.
			return 0, pgerror.New(pgerror.InternalError, "unexpected end of flag array")
		case jsonString:
		default:
			return 0, pgerror.New(pgerror.InvalidParameterValue, "flag array element is not a string").WithHint("%s", hint)
		}
		switch asciiLower(e.str) {
		case "all":
			flags |= JSONTSAll
		case "key":
			flags |= JSONTSKey
		case "string":
			flags |= JSONTSString
		case "numeric":
			flags |= JSONTSNumeric
		case "boolean":
			flags |= JSONTSBool
		default:
			return 0, pgerror.Newf(pgerror.InvalidParameterValue, "wrong flag in flag array: \"%s\"", e.str).WithHint("%s", hint)
		}
	}
	return flags, nil
}

// JSONTSValues are the texts of the json (isB false) or jsonb document
// doc that flags asks for, in document order (jsonb's: keys sorted), each
// key before its value: keys, strings, numbers (as written in json, as
// numeric prints them in jsonb) and booleans ("true", "false").
func JSONTSValues(doc string, isB bool, flags int) []string {
	var out []string
	var walk func(v *jsonValue)
	walk = func(v *jsonValue) {
		switch v.kind {
		case jsonString:
			if flags&JSONTSString != 0 {
				out = append(out, v.str)
			}
		case jsonNumber:
			if flags&JSONTSNumeric != 0 {
				if isB || v.src == "" {
					out = append(out, formatNumeric(v.num))
				} else {
					out = append(out, v.src)
				}
			}
		case jsonBool:
			if flags&JSONTSBool != 0 {
				out = append(out, formatJSONBool(v.b))
			}
		case jsonArray:
			for _, e := range v.elems {
				walk(e)
			}
		case jsonObject:
			for i, k := range v.keys {
				if flags&JSONTSKey != 0 {
					out = append(out, k)
				}
				walk(v.vals[i])
			}
		}
	}
	walk(mustParseJSON(doc))
	return out
}

func formatJSONBool(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TransformJSONStrings is transform_json(b)_string_values: doc with each
// string value (not key) replaced by f of it, in document order; jsonb
// prints as jsonb does, json compactly as PostgreSQL rebuilds it
// (numbers as written).
func TransformJSONStrings(doc string, isB bool, f func(string) (string, error)) (string, error) {
	v := mustParseJSON(doc)
	var walk func(v *jsonValue) error
	walk = func(v *jsonValue) error {
		switch v.kind {
		case jsonString:
			s, err := f(v.str)
			if err != nil {
				return err
			}
			v.str, v.src = s, ""
		case jsonArray:
			for _, e := range v.elems {
				if err := walk(e); err != nil {
					return err
				}
			}
		case jsonObject:
			for _, e := range v.vals {
				if err := walk(e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(v); err != nil {
		return "", err
	}
	if isB {
		return string(appendJSONB(nil, v)), nil
	}
	return string(appendJSONCompact(nil, v)), nil
}
