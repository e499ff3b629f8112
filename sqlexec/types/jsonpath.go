package types

import (
	"math"
	"sync"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/jsonpath"
)

// A jsonpath datum is its normalized text (jsonpath_out of jsonpath_in),
// parsed again, through a cache, when a path is evaluated.

// pathHost gives the jsonpath evaluator numeric's arithmetic, float8's
// input and PostgreSQL's regular expressions.
var pathHost = &jsonpath.Host{
	Arith: func(op jsonpath.Kind, a, b *apd.Decimal) (*apd.Decimal, error) {
		var r any
		var err error
		switch op {
		case jsonpath.KindAdd, jsonpath.KindSub:
			r, err = numericAdd(a, b, op == jsonpath.KindSub)
		case jsonpath.KindMul:
			r, err = numericMul(a, b)
		case jsonpath.KindDiv:
			r, err = numericDiv(a, b)
		default:
			r, err = numericMod(a, b)
		}
		if err != nil {
			return nil, err
		}
		return r.(*apd.Decimal), nil
	},
	Unary: func(op jsonpath.Kind, a *apd.Decimal) *apd.Decimal {
		switch op {
		case jsonpath.KindMinus:
			return numericNeg(a)
		case jsonpath.KindAbs:
			return numericAbs(a)
		}
		mode := apd.RoundFloor
		if op == jsonpath.KindCeiling {
			mode = apd.RoundCeiling
		}
		r, err := roundNumeric(a, 0, mode)
		if err != nil {
			return a
		}
		return r.(*apd.Decimal)
	},
	Double: func(s string) (*apd.Decimal, bool) {
		f, err := parseFloat(Float8, s)
		if err != nil || math.IsInf(f.(float64), 0) || math.IsNaN(f.(float64)) {
			return nil, false
		}
		d, err := floatToNumeric(OidFloat8)(nil, f)
		if err != nil {
			return nil, false
		}
		return d.(*apd.Decimal), true
	},
	Regex:    compileLikeRegex,
	Datetime: pathDatetimeItem,
}

// hostFor is pathHost with datetime comparisons in env's session time
// zone and transaction date.
func hostFor(env *Env) *jsonpath.Host {
	h := *pathHost
	h.CompareDatetime = func(a, b *jsonpath.Value, useTz bool) (int, bool, error) {
		return comparePathDatetimes(env, a.Datum.(*pathDatetime), b.Datum.(*pathDatetime), useTz)
	}
	return &h
}

// compileLikeRegex compiles a like_regex pattern under its XQuery flags:
// by default '.' does not match a newline ("s" lets it) and ^ $ anchor the
// whole string ("m" anchors lines); "q" takes the pattern literally.
func compileLikeRegex(pattern string, flags uint8) (func(string) bool, error) {
	f := regexFlags{fold: flags&jsonpath.FlagICase != 0, literal: flags&jsonpath.FlagQuote != 0,
		dotNoNewline: flags&jsonpath.FlagDotAll == 0, lineAnchors: flags&jsonpath.FlagMLine != 0}
	re, err := compileRegexFlags(pattern, f)
	if err != nil {
		return nil, err
	}
	return re.MatchString, nil
}

// pathCache keeps parsed paths by their text; it stops growing at
// maxCachedPaths entries.
var pathCache struct {
	mu sync.Mutex
	m  map[string]*jsonpath.Path
}

const maxCachedPaths = 1024

// parsedPath returns the parsed form of a jsonpath datum.
func parsedPath(s string) (*jsonpath.Path, error) {
	pathCache.mu.Lock()
	p, ok := pathCache.m[s]
	pathCache.mu.Unlock()
	if ok {
		return p, nil
	}
	p, err := jsonpath.Parse(s, compileLikeRegex)
	if err != nil {
		return nil, err
	}
	pathCache.mu.Lock()
	if pathCache.m == nil {
		pathCache.m = map[string]*jsonpath.Path{}
	}
	if len(pathCache.m) < maxCachedPaths {
		pathCache.m[s] = p
	}
	pathCache.mu.Unlock()
	return p, nil
}

// parseJSONPath is jsonpath_in: the normalized text of the parsed path.
func parseJSONPath(s string) (any, error) {
	if err := checkUTF8(s); err != nil {
		return nil, err
	}
	p, err := jsonpath.Parse(s, compileLikeRegex)
	if err != nil {
		return nil, err
	}
	return p.String(), nil
}

// toPathValue converts a parsed jsonb document for the evaluator.
func toPathValue(v *jsonValue) *jsonpath.Value {
	switch v.kind {
	case jsonString:
		return &jsonpath.Value{Kind: jsonpath.String, Str: v.str}
	case jsonNumber:
		return &jsonpath.Value{Kind: jsonpath.Numeric, Num: v.num}
	case jsonBool:
		return &jsonpath.Value{Kind: jsonpath.Bool, Bool: v.b}
	case jsonArray:
		out := &jsonpath.Value{Kind: jsonpath.Array, Elems: make([]*jsonpath.Value, len(v.elems))}
		for i, e := range v.elems {
			out.Elems[i] = toPathValue(e)
		}
		return out
	case jsonObject:
		out := &jsonpath.Value{Kind: jsonpath.Object, Keys: v.keys, Vals: make([]*jsonpath.Value, len(v.vals))}
		for i, e := range v.vals {
			out.Vals[i] = toPathValue(e)
		}
		return out
	}
	return &jsonpath.Value{Kind: jsonpath.Null}
}

// fromPathValue is the jsonb text of an item the evaluator found.
func fromPathValue(v *jsonpath.Value) string {
	return string(appendJSONB(nil, jsonFromPath(v)))
}

func jsonFromPath(v *jsonpath.Value) *jsonValue {
	switch v.Kind {
	case jsonpath.Datetime:
		return &jsonValue{kind: jsonString, str: v.Datum.(*pathDatetime).encode()}
	case jsonpath.String:
		return &jsonValue{kind: jsonString, str: v.Str}
	case jsonpath.Numeric:
		return &jsonValue{kind: jsonNumber, num: normalizeDecimal(v.Num)}
	case jsonpath.Bool:
		return &jsonValue{kind: jsonBool, b: v.Bool}
	case jsonpath.Array:
		out := &jsonValue{kind: jsonArray, elems: make([]*jsonValue, len(v.Elems))}
		for i, e := range v.Elems {
			out.elems[i] = jsonFromPath(e)
		}
		return out
	case jsonpath.Object:
		out := &jsonValue{kind: jsonObject, keys: v.Keys, vals: make([]*jsonValue, len(v.Vals))}
		for i, e := range v.Vals {
			out.vals[i] = jsonFromPath(e)
		}
		return out
	}
	return &jsonValue{kind: jsonNull}
}

// pathCall reads the arguments of a jsonb_path_* function: the document,
// the path, the variables (nil for the operators, which have none) and
// silent; tz is set for the _tz functions.
func pathCall(tz bool, args []any) (*jsonpath.Path, *jsonpath.Value, jsonpath.Options, error) {
	p, err := parsedPath(args[1].(string))
	if err != nil {
		return nil, nil, jsonpath.Options{}, err
	}
	o := jsonpath.Options{UseTz: tz}
	if len(args) > 2 {
		o.Vars = toPathValue(mustParseJSON(args[2].(string)))
	} else if len(args) == 2 {
		o.Silent = true
	}
	if len(args) > 3 {
		o.Silent = args[3].(bool)
	}
	return p, toPathValue(mustParseJSON(args[0].(string))), o, nil
}

func boolOrNull(b *bool, err error) (any, error) {
	if err != nil || b == nil {
		return nil, err
	}
	return *b, nil
}

// JSONPathQuery is jsonb_path_query, or jsonb_path_query_tz when tz: the
// jsonb text of every item found.
func JSONPathQuery(env *Env, tz bool, args []any) ([]string, error) {
	p, doc, o, err := pathCall(tz, args)
	if err != nil {
		return nil, err
	}
	items, err := jsonpath.Query(hostFor(env), p, doc, o)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = fromPathValue(it)
	}
	return out, nil
}

func registerJSONPathOperators() {
	exists := func(tz bool) funcEval {
		return func(env *Env, args []any) (any, error) {
			p, doc, o, err := pathCall(tz, args)
			if err != nil {
				return nil, err
			}
			return boolOrNull(jsonpath.Exists(hostFor(env), p, doc, o))
		}
	}
	match := func(tz bool) funcEval {
		return func(env *Env, args []any) (any, error) {
			p, doc, o, err := pathCall(tz, args)
			if err != nil {
				return nil, err
			}
			return boolOrNull(jsonpath.Match(hostFor(env), p, doc, o))
		}
	}
	queryArray := func(tz bool) funcEval {
		return func(env *Env, args []any) (any, error) {
			items, err := JSONPathQuery(env, tz, args)
			if err != nil {
				return nil, err
			}
			buf := []byte{'['}
			for i, it := range items {
				if i > 0 {
					buf = append(buf, ", "...)
				}
				buf = append(buf, it...)
			}
			return string(append(buf, ']')), nil
		}
	}
	queryFirst := func(tz bool) funcEval {
		return func(env *Env, args []any) (any, error) {
			items, err := JSONPathQuery(env, tz, args)
			if err != nil || len(items) == 0 {
				return nil, err
			}
			return items[0], nil
		}
	}
	addBinary("@?", JSONB, JSONPath, Bool, func(env *Env, a, b any) (any, error) { return exists(false)(env, []any{a, b}) })
	addBinary("@@", JSONB, JSONPath, Bool, func(env *Env, a, b any) (any, error) { return match(false)(env, []any{a, b}) })
	// The functions take vars (default '{}') and silent (default false);
	// the _tz variants let datetime comparisons use the session time zone.
	for _, f := range []string{"exists", "match", "query", "query_array", "query_first"} {
		for _, suffix := range []string{"", "_tz"} {
			argDefaults["jsonb_path_"+f+suffix] = []any{"{}", false}
		}
	}
	for _, suffix := range []string{"", "_tz"} {
		vol := Immutable
		tz := suffix != ""
		if tz {
			vol = Stable
		}
		for name, f := range map[string]struct {
			eval   funcEval
			result Type
		}{"exists": {exists(tz), Bool}, "match": {match(tz), Bool}, "query_array": {queryArray(tz), JSONB}, "query_first": {queryFirst(tz), JSONB}} {
			name = "jsonb_path_" + name + suffix
			withDefaults := func(env *Env, args []any) (any, error) {
				return f.eval(env, withArgDefaults(name, args, 4))
			}
			addFunc(name, vol, f.result, withDefaults, JSONB, JSONPath)
			addFunc(name, vol, f.result, withDefaults, JSONB, JSONPath, JSONB)
			addFunc(name, vol, f.result, f.eval, JSONB, JSONPath, JSONB, Bool)
		}
	}
}
