package types

import (
	"math"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/jackc/pgx/v5/pgtype"
)

// Functions whose arguments are "any" or polymorphic are resolved by
// builders rather than by candidate selection.
func init() {
	builders["concat"] = func(args []Type) (*Func, bool, error) {
		return &Func{Args: args, Result: Text, Volatility: Stable, Eval: func(env *Env, a []any) (any, error) {
			return concatValues(env, args, a, ""), nil
		}}, true, nil
	}
	for _, name := range []string{"num_nulls", "num_nonnulls"} {
		nulls := name == "num_nulls"
		builders[name] = func(args []Type) (*Func, bool, error) {
			if len(args) == 0 {
				return nil, false, nil
			}
			return &Func{Args: args, Result: Int4, Volatility: Immutable, Eval: func(_ *Env, a []any) (any, error) {
				n := int64(0)
				for _, v := range a {
					if (v == nil) == nulls {
						n++
					}
				}
				return n, nil
			}}, true, nil
		}
	}
	// quote_literal(anyelement) and quote_nullable(anyelement) quote the
	// value cast to text ($1::text: true, not t); text itself takes the
	// text overloads.
	for _, name := range []string{"quote_literal", "quote_nullable"} {
		nullable := name == "quote_nullable"
		builders[name] = func(args []Type) (*Func, bool, error) {
			if len(args) != 1 || args[0].Oid == OidUnknown || canCoerce(args[0], Text, CastImplicit) {
				return nil, false, nil
			}
			toText, err := lookupCast(args[0], Text, CastExplicit)
			if err != nil || toText == nil {
				return nil, false, nil
			}
			return &Func{Args: args, Result: Text, Volatility: Stable, Eval: func(env *Env, a []any) (any, error) {
				if a[0] == nil {
					if nullable {
						return "NULL", nil
					}
					return nil, nil
				}
				v, err := toText(env, a[0])
				if err != nil {
					return nil, err
				}
				return quoteLiteral(v.(string)), nil
			}}, true, nil
		}
	}
	builders["concat_ws"] = func(args []Type) (*Func, bool, error) {
		if len(args) == 0 || !canCoerce(args[0], Text, CastImplicit) {
			return nil, false, nil
		}
		sepCast, err := lookupCast(args[0], Text, CastImplicit)
		if err != nil {
			return nil, false, err
		}
		return &Func{Args: args, Result: Text, Volatility: Stable, Eval: func(env *Env, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			sep, err := sepCast(env, a[0])
			if err != nil {
				return nil, err
			}
			return concatValues(env, args[1:], a[1:], sep.(string)), nil
		}}, true, nil
	}
	for _, name := range []string{"greatest", "least"} {
		sign := 1
		if name == "least" {
			sign = -1
		}
		builders[name] = func(args []Type) (*Func, bool, error) {
			if len(args) == 0 {
				return nil, false, nil
			}
			t, err := commonType(strings.ToUpper(name), args)
			if err != nil {
				return nil, false, err
			}
			fns, err := coerceArgs(args, repeatType(t, len(args)))
			if err != nil {
				return nil, false, err
			}
			return &Func{Args: repeatType(t, len(args)), Result: t, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
				var best any
				for i, v := range a {
					if v == nil {
						continue
					}
					if fns[i] != nil {
						var err error
						if v, err = fns[i](env, v); err != nil {
							return nil, err
						}
					}
					if best == nil || compare(t, v, best)*sign > 0 {
						best = v
					}
				}
				return best, nil
			}}, true, nil
		}
	}
	builders["nullif"] = func(args []Type) (*Func, bool, error) {
		if len(args) != 2 {
			return nil, false, nil
		}
		eq, err := resolveBinaryOp("=", args[0], args[1])
		if err != nil {
			return nil, false, err
		}
		// The result has the type of the = operator's left operand, to
		// which the first argument is converted (varchar is text,
		// int4 against numeric numeric), as PostgreSQL's NULLIF.
		result := eq.Left
		conv, err := lookupCast(args[0], result, CastImplicit)
		if err != nil {
			return nil, false, err
		}
		return &Func{Args: []Type{eq.Left, eq.Right}, Result: result, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
			if a[0] != nil && a[1] != nil {
				same, err := eq.EvalEnv(env, a[0], a[1])
				if err != nil {
					return nil, err
				}
				if same == true {
					return nil, nil
				}
			}
			if a[0] == nil || conv == nil {
				return a[0], nil
			}
			return conv(env, a[0])
		}}, true, nil
	}
	for _, name := range []string{"json_build_object", "jsonb_build_object"} {
		isB := name == "jsonb_build_object"
		builders[name] = func(args []Type) (*Func, bool, error) {
			if len(args)%2 != 0 {
				return nil, false, pgerror.New(pgerror.InvalidParameterValue, "argument list must have even number of elements").
					WithHint("The arguments of %s() must consist of alternating keys and values.", name)
			}
			return jsonBuilder(args, isB, func(env *Env, a []any) (any, error) {
				obj := &jsonValue{kind: jsonObject}
				for i := 0; i < len(a); i += 2 {
					if a[i] == nil {
						return nil, pgerror.Newf(pgerror.InvalidParameterValue, "argument %d cannot be null", i+1).
							WithHint("Object keys should be text.")
					}
					if k := args[i]; k.IsArray() || k.Oid == OidRecord || k.Oid == OidJSON || k.Oid == OidJSONB {
						return nil, pgerror.New(pgerror.InvalidParameterValue, "key value must be scalar, not array, composite, or json")
					}
					obj.keys = append(obj.keys, formatText(env, args[i], a[i]))
					obj.vals = append(obj.vals, toJSONValue(env, args[i+1], a[i+1]))
				}
				return finishJSON(obj, isB), nil
			}), true, nil
		}
	}
	for _, name := range []string{"json_build_array", "jsonb_build_array"} {
		isB := name == "jsonb_build_array"
		builders[name] = func(args []Type) (*Func, bool, error) {
			return jsonBuilder(args, isB, func(env *Env, a []any) (any, error) {
				arr := &jsonValue{kind: jsonArray}
				for i, v := range a {
					arr.elems = append(arr.elems, toJSONValue(env, args[i], v))
				}
				return finishJSON(arr, isB), nil
			}), true, nil
		}
	}
	for _, name := range []string{"to_json", "to_jsonb"} {
		isB := name == "to_jsonb"
		builders[name] = func(args []Type) (*Func, bool, error) {
			if len(args) != 1 {
				return nil, false, nil
			}
			if args[0].Oid == OidUnknown {
				return nil, false, pgerror.New(pgerror.DatatypeMismatch, "could not determine polymorphic type because input has type unknown")
			}
			f := jsonBuilder(args, isB, func(env *Env, a []any) (any, error) {
				if a[0] == nil {
					return nil, nil
				}
				return finishJSON(toJSONValue(env, args[0], a[0]), isB), nil
			})
			return f, true, nil
		}
	}
	for _, t := range []Type{JSON, JSONB} {
		isB := t == JSONB
		prefix := "json"
		if isB {
			prefix = "jsonb"
		}
		addFunc(prefix+"_typeof", Immutable, Text, func(_ *Env, a []any) (any, error) {
			return []string{"null", "string", "number", "boolean", "array", "object"}[mustParseJSON(a[0].(string)).kind], nil
		}, t)
		addFunc(prefix+"_array_length", Immutable, Int4, func(_ *Env, a []any) (any, error) {
			v := mustParseJSON(a[0].(string))
			if v.kind != jsonArray {
				what := "a scalar"
				if v.kind == jsonObject {
					what = "a non-array"
				}
				return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot get array length of %s", what)
			}
			return int64(len(v.elems)), nil
		}, t)
		addFunc(prefix+"_strip_nulls", Immutable, t, func(_ *Env, a []any) (any, error) {
			v := stripNulls(mustParseJSON(a[0].(string)))
			if isB {
				return string(appendJSONB(nil, v)), nil
			}
			return string(appendJSONCompact(nil, v)), nil
		}, t)
	}
	addFunc("jsonb_pretty", Immutable, Text, func(_ *Env, a []any) (any, error) {
		return string(appendJSONPretty(nil, mustParseJSON(a[0].(string)), 0)), nil
	}, JSONB)
}

func repeatType(t Type, n int) []Type {
	ts := make([]Type, n)
	for i := range ts {
		ts[i] = t
	}
	return ts
}

// concatValues joins the text output of the non-NULL values with sep.
func concatValues(env *Env, ts []Type, vals []any, sep string) string {
	var sb strings.Builder
	first := true
	for i, v := range vals {
		if v == nil {
			continue
		}
		if !first {
			sb.WriteString(sep)
		}
		first = false
		sb.WriteString(outputText(env, ts[i], v))
	}
	return sb.String()
}

// outputText is a value's text output as the "any" arguments of concat
// and format print it (booleans as t and f).
func outputText(env *Env, t Type, v any) string {
	if t.Oid == OidBool {
		return formatBool(v.(bool))
	}
	return formatText(env, t, v)
}

func jsonBuilder(args []Type, isB bool, eval func(*Env, []any) (any, error)) *Func {
	result := JSON
	if isB {
		result = JSONB
	}
	return &Func{Args: args, Result: result, Volatility: Stable, Eval: eval}
}

// finishJSON prints a built document: jsonb normalized, json in the
// spacing of json_build_object (" : " between key and value, ", " between
// members).
func finishJSON(v *jsonValue, isB bool) string {
	if isB {
		normalizeJSONB(v)
		return string(appendJSONB(nil, v))
	}
	return string(appendJSONBuilt(nil, v))
}

// appendJSONBuilt prints a json value built by json_build_*: embedded json
// values keep their text.
func appendJSONBuilt(buf []byte, v *jsonValue) []byte {
	if v.src != "" {
		return append(buf, v.src...)
	}
	switch v.kind {
	case jsonArray:
		buf = append(buf, '[')
		for i, e := range v.elems {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendJSONBuilt(buf, e)
		}
		return append(buf, ']')
	case jsonObject:
		buf = append(buf, '{')
		for i, k := range v.keys {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendJSONString(buf, k)
			buf = append(buf, " : "...)
			buf = appendJSONBuilt(buf, v.vals[i])
		}
		return append(buf, '}')
	}
	return appendJSONB(buf, v)
}

// appendJSONCompact prints json without spaces, as json_strip_nulls does.
func appendJSONCompact(buf []byte, v *jsonValue) []byte {
	switch v.kind {
	case jsonArray:
		buf = append(buf, '[')
		for i, e := range v.elems {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSONCompact(buf, e)
		}
		return append(buf, ']')
	case jsonObject:
		buf = append(buf, '{')
		for i, k := range v.keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSONString(buf, k)
			buf = append(buf, ':')
			buf = appendJSONCompact(buf, v.vals[i])
		}
		return append(buf, '}')
	case jsonNumber:
		if v.src != "" {
			return append(buf, v.src...)
		}
	}
	return appendJSONB(buf, v)
}

// appendJSONPretty is jsonb_pretty: four-space indentation.
func appendJSONPretty(buf []byte, v *jsonValue, depth int) []byte {
	indent := func(d int) { buf = append(buf, strings.Repeat("    ", d)...) }
	switch v.kind {
	case jsonArray:
		if len(v.elems) == 0 {
			return append(buf, "[\n"+strings.Repeat("    ", depth)+"]"...)
		}
		buf = append(buf, "[\n"...)
		for i, e := range v.elems {
			indent(depth + 1)
			buf = appendJSONPretty(buf, e, depth+1)
			if i < len(v.elems)-1 {
				buf = append(buf, ',')
			}
			buf = append(buf, '\n')
		}
		indent(depth)
		return append(buf, ']')
	case jsonObject:
		if len(v.keys) == 0 {
			return append(buf, "{\n"+strings.Repeat("    ", depth)+"}"...)
		}
		buf = append(buf, "{\n"...)
		for i, k := range v.keys {
			indent(depth + 1)
			buf = appendJSONString(buf, k)
			buf = append(buf, ": "...)
			buf = appendJSONPretty(buf, v.vals[i], depth+1)
			if i < len(v.keys)-1 {
				buf = append(buf, ',')
			}
			buf = append(buf, '\n')
		}
		indent(depth)
		return append(buf, '}')
	}
	return appendJSONB(buf, v)
}

func stripNulls(v *jsonValue) *jsonValue {
	switch v.kind {
	case jsonArray:
		out := &jsonValue{kind: jsonArray}
		for _, e := range v.elems {
			out.elems = append(out.elems, stripNulls(e))
		}
		return out
	case jsonObject:
		out := &jsonValue{kind: jsonObject}
		for i, k := range v.keys {
			if v.vals[i].kind == jsonNull {
				continue
			}
			out.keys = append(out.keys, k)
			out.vals = append(out.vals, stripNulls(v.vals[i]))
		}
		return out
	}
	return v
}

// toJSONValue is to_json's conversion of a datum: numbers stay numbers
// (non-finite ones become strings), booleans and NULL map to their JSON
// values, json and jsonb are embedded, dates and timestamps are ISO 8601
// strings, arrays JSON arrays, everything else is its text output as a
// string.
func toJSONValue(env *Env, t Type, v any) *jsonValue {
	if v == nil {
		return &jsonValue{kind: jsonNull}
	}
	switch x := v.(type) {
	case []any, *pgarray.Array:
		if r, ok := x.([]any); ok && t.IsRecord() {
			return recordToJSON(env, t, r)
		}
		return arrayToJSON(env, t, x)
	case bool:
		return &jsonValue{kind: jsonBool, b: x}
	case int64:
		if t.Oid != OidOid && t.Oid != OidTime && t.Oid != OidMoney && !isRegType(t.Oid) {
			return &jsonValue{kind: jsonNumber, num: apd.New(x, 0)}
		}
	case float64:
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			bits := 64
			if t.Oid == OidFloat4 {
				bits = 32
			}
			return numberJSON(formatFloat(x, bits))
		}
	case *apd.Decimal:
		if x.Form == apd.Finite {
			return &jsonValue{kind: jsonNumber, num: x}
		}
	case time.Time:
		return &jsonValue{kind: jsonString, str: jsonTime(t, x, env.location())}
	case Hstore:
		// hstore's cast to json, which datum_to_json calls, as it does
		// any type's.
		return mustParseJSON(HstoreToJSON(x, false))
	case pgtype.Interval:
	case string:
		switch t.Oid {
		case OidJSON:
			j := mustParseJSON(x)
			return j
		case OidJSONB:
			// Embedded in json, a jsonb value keeps its jsonb text.
			j := mustParseJSON(x)
			clearSrc(j)
			j.src = x
			return j
		}
	}
	return &jsonValue{kind: jsonString, str: formatText(env, t, v)}
}

func clearSrc(v *jsonValue) {
	v.src = ""
	for _, e := range v.elems {
		clearSrc(e)
	}
	for _, e := range v.vals {
		clearSrc(e)
	}
}

// jsonTime is the ISO 8601 form to_json gives dates and timestamps.
func jsonTime(t Type, v time.Time, loc *time.Location) string {
	switch {
	case v.Equal(InfinityTime):
		return "infinity"
	case v.Equal(NegInfinityTime):
		return "-infinity"
	}
	switch t.Oid {
	case OidDate:
		return formatDate(v, DateStyle{})
	case OidTimestamp:
		return strings.Replace(formatTimestamp(v, nil, false, DateStyle{}), " ", "T", 1)
	}
	s := formatTimestamp(v, loc, true, DateStyle{})
	s = strings.Replace(s, " ", "T", 1)
	// Offsets are written in full: +00:00, -03:30.
	if i := strings.LastIndexAny(s, "+-"); i > 10 && len(s)-i == 3 {
		s += ":00"
	}
	return s
}
