package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// builtinParam is a named parameter of a built-in function; dflt makes the
// default when the parameter has one.
type builtinParam struct {
	name string
	dflt func(loc int32) *pg_query.Node
}

func textDefault(s string) func(int32) *pg_query.Node {
	return func(loc int32) *pg_query.Node { return pg_query.MakeAConstStrNode(s, loc) }
}

func boolDefault(v bool) func(int32) *pg_query.Node {
	return func(loc int32) *pg_query.Node {
		return &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{
			Val: &pg_query.A_Const_Boolval{Boolval: &pg_query.Boolean{Boolval: v}}, Location: loc}}}
	}
}

// builtinParams are the parameters, as pg_proc names them, of the built-in
// functions that calls may pass arguments to by name.
var builtinParams = map[string][]builtinParam{
	"jsonb_set_lax": {{name: "jsonb_in"}, {name: "path"}, {name: "replacement"},
		{name: "create_if_missing", dflt: boolDefault(true)}, {name: "null_value_treatment", dflt: textDefault("use_json_null")}},
}

func init() {
	for _, f := range []string{"exists", "match", "query", "query_array", "query_first"} {
		for _, suffix := range []string{"", "_tz"} {
			builtinParams["jsonb_path_"+f+suffix] = []builtinParam{{name: "target"}, {name: "path"},
				{name: "vars", dflt: textDefault("{}")}, {name: "silent", dflt: boolDefault(false)}}
		}
	}
}

// positionalArgs rewrites a call of a built-in function with named
// arguments (f(a, silent => true)) to the positional call it means, the
// parameters skipped over taking their defaults. A call without named
// arguments, or of a function not in builtinParams, is returned as is.
func (b *binder) positionalArgs(name string, fc *pg_query.FuncCall) (*pg_query.FuncCall, error) {
	params, known := builtinParams[name]
	named := false
	for _, a := range fc.Args {
		named = named || a.GetNamedArgExpr() != nil
	}
	if !named || !known {
		return fc, nil
	}
	noSuch := func() error {
		return b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s does not exist", b.callSignature(name, fc.Args)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), fc.Location)
	}
	slots := make([]*pg_query.Node, len(params))
	last := -1
	for i, a := range fc.Args {
		na := a.GetNamedArgExpr()
		if na == nil {
			if i >= len(params) {
				return nil, noSuch()
			}
			slots[i], last = a, i
			continue
		}
		j := 0
		for j < len(params) && params[j].name != na.Name {
			j++
		}
		if j == len(params) || slots[j] != nil {
			return nil, noSuch()
		}
		slots[j], last = na.Arg, max(last, j)
	}
	for i := 0; i <= last; i++ {
		if slots[i] == nil {
			if params[i].dflt == nil {
				return nil, noSuch()
			}
			slots[i] = params[i].dflt(fc.Location)
		}
	}
	out := proto.Clone(fc).(*pg_query.FuncCall)
	out.Args = slots[:last+1]
	return out, nil
}
