package types

import (
	"github.com/fickle-db/fickle/internal/pgerror"
)

// json(b)_populate_record and friends: a JSON object's members become the
// fields of a record, by name, as PostgreSQL's populate_record does.

// PopulateRecord fills a record of type t from the JSON object js (a json
// or jsonb datum): each field takes the member of its name converted to
// its type, or keeps its value in base (nil: NULL) when the object has no
// such member.
func PopulateRecord(env *Env, t Type, base []any, js string) ([]any, error) {
	v := mustParseJSON(js)
	switch v.kind {
	case jsonObject:
	case jsonArray:
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot call populate_composite on an array")
	default:
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot call populate_composite on a scalar")
	}
	return populateComposite(env, t, base, v)
}

// PopulateRecordSet is json(b)_populate_recordset: one record per element
// of the JSON array js, each an object.
func PopulateRecordSet(env *Env, t Type, base []any, js string, fn string) ([][]any, error) {
	v := mustParseJSON(js)
	if v.kind != jsonArray {
		what := "a scalar"
		if v.kind == jsonObject {
			what = "an object"
		}
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot call "+fn+" on "+what)
	}
	out := make([][]any, 0, len(v.elems))
	for _, e := range v.elems {
		if e.kind != jsonObject {
			return nil, pgerror.New(pgerror.InvalidParameterValue, "argument of "+fn+" must be an array of objects")
		}
		r, err := populateComposite(env, t, base, e)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// populateComposite fills the fields of t from the object v.
func populateComposite(env *Env, t Type, base []any, v *jsonValue) ([]any, error) {
	fields, _ := t.Fields()
	out := make([]any, len(fields))
	for i, f := range fields {
		var def any
		if i < len(base) {
			def = base[i]
		}
		m := jsonField(v, f.Name)
		if m == nil {
			out[i] = def
			continue
		}
		x, err := populateField(env, f.Type, f.Name, def, m)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

// populateField converts the JSON value m of member name to type t; def
// is the field's value before, which a nested record starts from.
func populateField(env *Env, t Type, name string, def any, m *jsonValue) (any, error) {
	if m.kind == jsonNull {
		return nil, nil
	}
	switch {
	case t.Oid == OidJSON:
		return string(appendJSON(nil, m)), nil
	case t.Oid == OidJSONB:
		return string(appendJSONB(nil, m)), nil
	case t.IsArray() && m.kind == jsonArray:
		return populateArray(env, t, name, m)
	case t.IsArray() && m.kind != jsonString:
		return nil, pgerror.New(pgerror.InvalidTextRepresentation, "expected JSON array").
			WithHint("See the value of key \"%s\".", name)
	case t.IsComposite() && m.kind == jsonObject:
		base, _ := def.([]any)
		return populateComposite(env, t, base, m)
	case t.IsComposite() && m.kind == jsonArray:
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot call populate_composite on an array")
	case t.IsComposite() && m.kind != jsonString:
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot call populate_composite on a scalar")
	}
	text := m.str
	if m.kind != jsonString {
		text = string(appendJSON(nil, m))
	}
	in, err := lookupCast(Unknown, t, CastAssignment)
	if err != nil {
		return nil, err
	}
	return in(env, text)
}
