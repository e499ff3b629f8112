package types

import (
	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// The functions that take json documents apart (their set-returning forms
// run in package sqlexec on these) and json_object.
func init() {
	textArray := Type{arrayTypes[OidText], -1}
	for _, t := range []Type{JSON, JSONB} {
		isB := t.Oid == OidJSONB
		prefix := "json"
		if isB {
			prefix = "jsonb"
		}
		object := func(_ *Env, a []any) (any, error) {
			var keys, vals []any
			if len(a) == 1 {
				dims, _, arr, _ := pgarray.Shape(a[0])
				switch {
				case len(dims) == 1 && len(arr)%2 != 0:
					return nil, pgerror.New(pgerror.ArraySubscriptError, "array must have even number of elements")
				case len(dims) == 2 && dims[1] != 2:
					return nil, pgerror.New(pgerror.ArraySubscriptError, "array must have two columns")
				case len(dims) > 2:
					return nil, pgerror.New(pgerror.ArraySubscriptError, "wrong number of array subscripts")
				}
				for i := 0; i < len(arr); i += 2 {
					keys, vals = append(keys, arr[i]), append(vals, arr[i+1])
				}
			} else {
				kdims, _, k, _ := pgarray.Shape(a[0])
				vdims, _, v, _ := pgarray.Shape(a[1])
				if len(kdims) > 1 || len(kdims) != len(vdims) {
					return nil, pgerror.New(pgerror.ArraySubscriptError, "wrong number of array subscripts")
				}
				keys, vals = k, v
				if len(keys) != len(vals) {
					return nil, pgerror.New(pgerror.ArraySubscriptError, "mismatched array dimensions")
				}
			}
			obj := &jsonValue{kind: jsonObject}
			for i, k := range keys {
				if k == nil {
					return nil, pgerror.New(pgerror.NullValueNotAllowed, "null value not allowed for object key")
				}
				v := &jsonValue{kind: jsonNull}
				if vals[i] != nil {
					v = &jsonValue{kind: jsonString, str: vals[i].(string)}
				}
				obj.keys, obj.vals = append(obj.keys, k.(string)), append(obj.vals, v)
			}
			return finishJSON(obj, isB), nil
		}
		addFunc(prefix+"_object", Immutable, t, object, textArray)
		addFunc(prefix+"_object", Immutable, t, object, textArray, textArray)
		for _, asText := range []bool{false, true} {
			name := prefix + "_extract_path"
			if asText {
				name += "_text"
			}
			builders[name] = func(args []Type) (*Func, bool, error) {
				if len(args) < 2 {
					return nil, false, nil
				}
				casts := make([]EnvCastFunc, len(args))
				want := append([]Type{t}, repeatType(Text, len(args)-1)...)
				for i, a := range args {
					if !canCoerce(a, want[i], CastImplicit) {
						return nil, false, nil
					}
					c, err := lookupCast(a, want[i], CastImplicit)
					if err != nil {
						return nil, false, err
					}
					casts[i] = c
				}
				result := t
				if asText {
					result = Text
				}
				return &Func{Args: want, Result: result, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
					conv := make([]any, len(a))
					for i, v := range a {
						if v == nil {
							if i == 0 {
								return nil, nil
							}
							continue
						}
						c, err := casts[i](env, v)
						if err != nil {
							return nil, err
						}
						conv[i] = c
					}
					v := jsonPath(mustParseJSON(conv[0].(string)), conv[1:])
					switch {
					case v == nil:
						return nil, nil
					case asText:
						return jsonText(v, isB), nil
					}
					return jsonOut(v, isB), nil
				}}, true, nil
			}
		}
	}
}

// JSONEach is json_each and kin (fn names the function for errors): a row
// (key, value) per member of an object, the value as json(b), or as text
// when asText (strings unquoted, null as NULL).
func JSONEach(fn, doc string, isB, asText bool) ([][]any, error) {
	v := mustParseJSON(doc)
	switch {
	case v.kind == jsonObject:
	case isB:
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot call %s on a non-object", fn)
	case v.kind == jsonArray:
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot deconstruct an array as an object")
	default:
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot deconstruct a scalar")
	}
	rows := make([][]any, len(v.keys))
	for i, k := range v.keys {
		var val any = jsonOut(v.vals[i], isB)
		if asText {
			val = jsonText(v.vals[i], isB)
		}
		rows[i] = []any{k, val}
	}
	return rows, nil
}

// JSONObjectKeys is json_object_keys and jsonb_object_keys.
func JSONObjectKeys(fn, doc string, isB bool) ([][]any, error) {
	v := mustParseJSON(doc)
	switch v.kind {
	case jsonObject:
	case jsonArray:
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot call %s on an array", fn)
	default:
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot call %s on a scalar", fn)
	}
	rows := make([][]any, len(v.keys))
	for i, k := range v.keys {
		rows[i] = []any{k}
	}
	return rows, nil
}

// JSONArrayElements is json_array_elements and kin: a row per element,
// as json(b) or as text when asText.
func JSONArrayElements(doc string, isB, asText bool) ([][]any, error) {
	v := mustParseJSON(doc)
	switch v.kind {
	case jsonArray:
	case jsonObject:
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot extract elements from an object")
	default:
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot extract elements from a scalar")
	}
	rows := make([][]any, len(v.elems))
	for i, e := range v.elems {
		var val any = jsonOut(e, isB)
		if asText {
			val = jsonText(e, isB)
		}
		rows[i] = []any{val}
	}
	return rows, nil
}
