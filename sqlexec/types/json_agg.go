package types

import (
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The JSON aggregates of PostgreSQL 15: json_agg and jsonb_agg collect
// their argument, NULLs included, into an array; json_object_agg and
// jsonb_object_agg collect key/value pairs into an object. Each value is
// converted as to_json / to_jsonb converts it, in the statement's
// settings (timestamps in its time zone). Over no rows they are NULL.

// isJSONAggregate reports whether name is one of them.
func isJSONAggregate(name string) bool {
	switch name {
	case "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg":
		return true
	}
	return false
}

// jsonAggregate resolves a JSON aggregate over arguments of types args.
// json_agg's argument is polymorphic, so an unknown literal has no type
// (42804); json_object_agg's are "any", an unknown one reads as text.
func jsonAggregate(name string, args []Type) (*Aggregate, error) {
	isB := strings.HasPrefix(name, "jsonb")
	object := strings.HasSuffix(name, "object_agg")
	if object && len(args) != 2 || !object && len(args) != 1 {
		return nil, funcError(name, args, false)
	}
	if !object && args[0].Oid == OidUnknown {
		return nil, pgerror.New(pgerror.DatatypeMismatch, "could not determine polymorphic type because input has type unknown")
	}
	ts := make([]Type, len(args))
	for i, t := range args {
		ts[i] = t
		if t.Oid == OidUnknown {
			ts[i] = Text
		}
	}
	result := JSON
	if isB {
		result = JSONB
	}
	return &Aggregate{Name: name, Args: args, Result: result, New: func(env *Env) Accumulator {
		if object {
			return &jsonObjectAggAcc{env: env, key: ts[0], val: ts[1], isB: isB}
		}
		return &jsonAggAcc{env: env, t: ts[0], isB: isB}
	}}, nil
}

// jsonAggAcc is json_agg's and jsonb_agg's state.
type jsonAggAcc struct {
	env   *Env
	t     Type
	isB   bool
	any   bool
	elems []*jsonValue
	text  []byte // json_agg's text so far
}

func (a *jsonAggAcc) Add(args []any) error {
	v := toJSONValue(a.env, a.t, args[0])
	if a.isB {
		a.elems = append(a.elems, v)
		a.any = true
		return nil
	}
	// json_agg_transfn's layout: ", " between elements, and a line break
	// before each array or row after the first.
	if !a.any {
		a.text = append(a.text, '[')
	} else {
		a.text = append(a.text, ", "...)
		if args[0] != nil && (a.t.IsArray() || a.t.IsRecord()) {
			a.text = append(a.text, "\n "...)
		}
	}
	a.any = true
	a.text = append(a.text, finishJSON(v, false)...)
	return nil
}

func (a *jsonAggAcc) Result() (any, error) {
	switch {
	case !a.any:
		return nil, nil
	case a.isB:
		return finishJSON(&jsonValue{kind: jsonArray, elems: a.elems}, true), nil
	}
	return string(a.text) + "]", nil
}

// jsonObjectAggAcc is json_object_agg's and jsonb_object_agg's state.
type jsonObjectAggAcc struct {
	env      *Env
	key, val Type
	isB      bool
	obj      *jsonValue // jsonb_object_agg's object so far
	text     []byte     // json_object_agg's text so far
}

func (a *jsonObjectAggAcc) Add(args []any) error {
	if args[0] == nil {
		return pgerror.New(pgerror.InvalidParameterValue, "field name must not be null")
	}
	if k := a.key; k.IsArray() || k.IsRecord() || k.Oid == OidJSON || k.Oid == OidJSONB {
		return pgerror.New(pgerror.InvalidParameterValue, "key value must be scalar, not array, composite, or json")
	}
	key := formatText(a.env, a.key, args[0])
	v := toJSONValue(a.env, a.val, args[1])
	if a.isB {
		if a.obj == nil {
			a.obj = &jsonValue{kind: jsonObject}
		}
		a.obj.keys = append(a.obj.keys, key)
		a.obj.vals = append(a.obj.vals, v)
		return nil
	}
	// json_object_agg_transfn's layout: "{ key : value, key : value }".
	if a.text == nil {
		a.text = append(a.text, "{ "...)
	} else {
		a.text = append(a.text, ", "...)
	}
	a.text = appendJSONString(a.text, key)
	a.text = append(a.text, " : "...)
	a.text = append(a.text, finishJSON(v, false)...)
	return nil
}

func (a *jsonObjectAggAcc) Result() (any, error) {
	switch {
	case a.isB && a.obj != nil:
		return finishJSON(a.obj, true), nil
	case a.text != nil:
		return string(a.text) + " }", nil
	}
	return nil, nil
}
