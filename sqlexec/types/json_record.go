package types

import "strconv"

// recordToJSON is to_json of a record or composite value, as PostgreSQL's
// composite_to_json writes it: an object of the fields by name (f1, f2, ...
// for a record of unknown shape), in field order, with no spaces.
func recordToJSON(env *Env, t Type, vals []any) *jsonValue {
	fields, _ := t.Fields()
	obj := &jsonValue{kind: jsonObject}
	src := []byte{'{'}
	for i, v := range vals {
		name, ft := "f"+strconv.Itoa(i+1), Type{Oid: OidUnknown, Typmod: -1}
		if i < len(fields) {
			name, ft = fields[i].Name, fields[i].Type
		}
		jv := toJSONValue(env, ft, v)
		obj.keys = append(obj.keys, name)
		obj.vals = append(obj.vals, jv)
		if i > 0 {
			src = append(src, ',')
		}
		src = appendJSONString(src, name)
		src = append(src, ':')
		src = appendJSONBuilt(src, jv)
	}
	obj.src = string(append(src, '}'))
	return obj
}

// rowToJSONBuilder is row_to_json(record [, pretty bool]): the record as a
// json object of its fields, a line feed after each comma between them
// when pretty.
func rowToJSONBuilder(args []Type) (*Func, bool, error) {
	if len(args) < 1 || len(args) > 2 || !args[0].IsRecord() || len(args) == 2 && args[1] != Bool && args[1].Oid != OidUnknown {
		return nil, false, nil
	}
	fargs := []Type{args[0]}
	if len(args) == 2 {
		fargs = append(fargs, Bool)
	}
	return &Func{Args: fargs, Result: JSON, Volatility: Stable, Eval: func(env *Env, a []any) (any, error) {
		if a[0] == nil || len(a) == 2 && a[1] == nil {
			return nil, nil
		}
		pretty := len(a) == 2 && a[1] == true
		if s, ok := a[len(a)-1].(string); ok && len(a) == 2 { // an unknown literal
			v, err := parseBool(s)
			if err != nil {
				return nil, err
			}
			pretty = v == true
		}
		obj := recordToJSON(env, args[0], a[0].([]any))
		if !pretty {
			return obj.src, nil
		}
		src := []byte{'{'}
		for i, name := range obj.keys {
			if i > 0 {
				src = append(src, ",\n "...)
			}
			src = appendJSONString(src, name)
			src = append(src, ':')
			src = appendJSONBuilt(src, obj.vals[i])
		}
		return string(append(src, '}')), nil
	}}, true, nil
}

func init() {
	builders["row_to_json"] = rowToJSONBuilder
}
