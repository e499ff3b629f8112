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
