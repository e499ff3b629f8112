package types

import (
	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// The jsonb functions and operators that build a modified document:
// jsonb_set, jsonb_set_lax, jsonb_insert, the deletions (-, #-,
// jsonb_delete*), and the function forms of the containment and existence
// operators.
func init() {
	textArray := Type{arrayTypes[OidText], -1}
	jb := func(v *jsonValue) any { return string(appendJSONB(nil, v)) }
	doc := func(a any) *jsonValue { return mustParseJSON(a.(string)) }

	deleteKey := func(_ *Env, a, b any) (any, error) {
		out, err := jsonbDeleteKeys(doc(a), []any{b})
		if err != nil {
			return nil, err
		}
		return jb(out), nil
	}
	deleteKeys := func(_ *Env, a, b any) (any, error) {
		keys, err := oneDimElems(b, pgerror.ArraySubscriptError)
		if err != nil {
			return nil, err
		}
		out, err := jsonbDeleteKeys(doc(a), keys)
		if err != nil {
			return nil, err
		}
		return jb(out), nil
	}
	deleteIndex := func(_ *Env, a, b any) (any, error) {
		out, err := jsonbDeleteIndex(doc(a), b.(int64))
		if err != nil {
			return nil, err
		}
		return jb(out), nil
	}
	deletePath := func(_ *Env, a, b any) (any, error) {
		path, err := oneDimElems(b, pgerror.InvalidParameterValue)
		if err != nil {
			return nil, err
		}
		out, err := jsonbDeletePath(doc(a), path)
		if err != nil {
			return nil, err
		}
		return jb(out), nil
	}
	addBinary("-", JSONB, Text, JSONB, deleteKey)
	addBinary("-", JSONB, textArray, JSONB, deleteKeys)
	addBinary("-", JSONB, Int4, JSONB, deleteIndex)
	addBinary("#-", JSONB, textArray, JSONB, deletePath)
	binary := func(f opFunc) funcEval {
		return func(env *Env, a []any) (any, error) { return f(env, a[0], a[1]) }
	}
	addFunc("jsonb_delete", Immutable, JSONB, binary(deleteKey), JSONB, Text)
	addFunc("jsonb_delete", Immutable, JSONB, binary(deleteKeys), JSONB, textArray)
	addFunc("jsonb_delete", Immutable, JSONB, binary(deleteIndex), JSONB, Int4)
	addFunc("jsonb_delete_path", Immutable, JSONB, binary(deletePath), JSONB, textArray)

	set := func(_ *Env, a []any) (any, error) {
		create := len(a) < 4 || a[3].(bool)
		path, err := oneDimElems(a[1], pgerror.InvalidParameterValue)
		if err != nil {
			return nil, err
		}
		out, err := jsonbSet(doc(a[0]), doc(a[2]), path, create)
		if err != nil {
			return nil, err
		}
		return jb(out), nil
	}
	addFunc("jsonb_set", Immutable, JSONB, set, JSONB, textArray, JSONB)
	addFunc("jsonb_set", Immutable, JSONB, set, JSONB, textArray, JSONB, Bool)
	insert := func(_ *Env, a []any) (any, error) {
		after := len(a) > 3 && a[3].(bool)
		path, err := oneDimElems(a[1], pgerror.InvalidParameterValue)
		if err != nil {
			return nil, err
		}
		out, err := jsonbInsert(doc(a[0]), doc(a[2]), path, after)
		if err != nil {
			return nil, err
		}
		return jb(out), nil
	}
	addFunc("jsonb_insert", Immutable, JSONB, insert, JSONB, textArray, JSONB)
	addFunc("jsonb_insert", Immutable, JSONB, insert, JSONB, textArray, JSONB, Bool)
	setLax := func(env *Env, a []any) (any, error) {
		treatment := any("use_json_null")
		if len(a) > 4 {
			treatment = a[4]
		}
		if treatment == nil {
			return nil, pgerror.New(pgerror.NullValueNotAllowed, nullTreatmentMessage)
		}
		if a[0] == nil || a[1] == nil || len(a) > 3 && a[3] == nil {
			return nil, nil
		}
		if a[2] != nil {
			return set(env, a[:min(len(a), 4)])
		}
		switch treatment.(string) {
		case "raise_exception":
			return nil, pgerror.New(pgerror.NullValueNotAllowed, "JSON value must not be null").
				WithDetail("Exception was raised because null_value_treatment is \"raise_exception\".").
				WithHint("To avoid, either change the null_value_treatment argument or ensure that an SQL NULL is not passed.")
		case "use_json_null":
			args := append([]any{a[0], a[1], "null"}, a[3:min(len(a), 4)]...)
			return set(env, args)
		case "delete_key":
			return deletePath(env, a[0], a[1])
		case "return_target":
			return a[0], nil
		}
		return nil, pgerror.New(pgerror.InvalidParameterValue, nullTreatmentMessage)
	}
	argDefaults["jsonb_set_lax"] = []any{true, "use_json_null"}
	addFuncNullable("jsonb_set_lax", Immutable, JSONB, setLax, JSONB, textArray, JSONB)
	addFuncNullable("jsonb_set_lax", Immutable, JSONB, setLax, JSONB, textArray, JSONB, Bool)
	addFuncNullable("jsonb_set_lax", Immutable, JSONB, setLax, JSONB, textArray, JSONB, Bool, Text)

	addFunc("jsonb_concat", Immutable, JSONB, func(_ *Env, a []any) (any, error) {
		return jb(jsonbConcat(doc(a[0]), doc(a[1]))), nil
	}, JSONB, JSONB)
	addFunc("jsonb_contains", Immutable, Bool, func(_ *Env, a []any) (any, error) {
		return jsonbContains(doc(a[0]), doc(a[1]), true), nil
	}, JSONB, JSONB)
	addFunc("jsonb_contained", Immutable, Bool, func(_ *Env, a []any) (any, error) {
		return jsonbContains(doc(a[1]), doc(a[0]), true), nil
	}, JSONB, JSONB)
	addFunc("jsonb_exists", Immutable, Bool, func(_ *Env, a []any) (any, error) {
		return jsonbExists(doc(a[0]), a[1].(string)), nil
	}, JSONB, Text)
	for name, all := range map[string]bool{"jsonb_exists_any": false, "jsonb_exists_all": true} {
		addFunc(name, Immutable, Bool, func(_ *Env, a []any) (any, error) {
			return jsonbExistsKeys(doc(a[0]), flatElems(a[1]), all), nil
		}, JSONB, textArray)
	}
}

// oneDimElems returns the elements of an array that must have at most one
// dimension (a path, a list of keys), or PostgreSQL's "wrong number of
// array subscripts" with the function's SQLSTATE.
func oneDimElems(v any, code pgerror.Code) ([]any, error) {
	dims, _, elems, _ := pgarray.Shape(v)
	if len(dims) > 1 {
		return nil, pgerror.New(code, "wrong number of array subscripts")
	}
	return elems, nil
}

const nullTreatmentMessage = `null_value_treatment must be "delete_key", "return_target", "use_json_null", or "raise_exception"`

// jsonbExistsKeys is ?| (all false) and ?& (all true): whether any or all
// of the keys exist; NULL keys are ignored.
func jsonbExistsKeys(v *jsonValue, keys []any, all bool) bool {
	for _, k := range keys {
		if k == nil {
			continue
		}
		if jsonbExists(v, k.(string)) != all {
			return !all
		}
	}
	return all
}

// jsonbDeleteKeys is jsonb - text and jsonb - text[]: the object without
// those keys, or the array without the string elements equal to one of
// them. NULL keys are ignored.
func jsonbDeleteKeys(v *jsonValue, keys []any) (*jsonValue, error) {
	if isJSONScalar(v) {
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot delete from scalar")
	}
	drop := map[string]bool{}
	for _, k := range keys {
		if k != nil {
			drop[k.(string)] = true
		}
	}
	if v.kind == jsonArray {
		out := &jsonValue{kind: jsonArray}
		for _, e := range v.elems {
			if e.kind != jsonString || !drop[e.str] {
				out.elems = append(out.elems, e)
			}
		}
		return out, nil
	}
	out := &jsonValue{kind: jsonObject}
	for i, k := range v.keys {
		if !drop[k] {
			out.keys = append(out.keys, k)
			out.vals = append(out.vals, v.vals[i])
		}
	}
	return out, nil
}

// jsonbDeleteIndex is jsonb - int: the array without element i (negative
// counts from the end; out of range deletes nothing).
func jsonbDeleteIndex(v *jsonValue, i int64) (*jsonValue, error) {
	switch v.kind {
	case jsonObject:
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot delete from object using integer index")
	case jsonArray:
	default:
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot delete from scalar")
	}
	n := int64(len(v.elems))
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return v, nil
	}
	out := &jsonValue{kind: jsonArray}
	out.elems = append(append(out.elems, v.elems[:i]...), v.elems[i+1:]...)
	return out, nil
}
