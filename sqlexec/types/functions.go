package types

import (
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// funcEval evaluates a function on datums of its declared argument types.
// For strict functions no argument is nil.
type funcEval func(env *Env, args []any) (any, error)

// funcDef is a row of pg_proc: one overload of a scalar function.
type funcDef struct {
	candidate
	vol    Volatility
	strict bool
	eval   funcEval
}

// funcBuilder resolves a function whose signature is polymorphic or
// variadic over "any" (concat, greatest, nullif, json_build_object, ...):
// it receives the call's argument types and returns the resolved call, or
// ok=false when the types do not fit.
type funcBuilder func(args []Type) (f *Func, ok bool, err error)

var (
	functions = map[string][]funcDef{}
	builders  = map[string]funcBuilder{}
)

// addFunc registers a strict overload.
func addFunc(name string, vol Volatility, result Type, eval funcEval, args ...Type) {
	global.addFunc(name, vol, result, eval, args...)
}

// addFuncPolymorphic registers a strict overload of a polymorphic
// function for one set of concrete types, which arguments must have
// exactly.
func addFuncPolymorphic(name string, vol Volatility, result Type, eval funcEval, args ...Type) {
	global.addFuncPolymorphic(name, vol, result, eval, args...)
}

// addFuncNullable registers an overload that sees NULL arguments.
func addFuncNullable(name string, vol Volatility, result Type, eval funcEval, args ...Type) {
	global.addFuncNullable(name, vol, result, eval, args...)
}

// normalizeFuncName drops the pg_catalog schema and lower-cases.
func normalizeFuncName(name string) string {
	name = strings.ToLower(name)
	return strings.TrimPrefix(name, "pg_catalog.")
}

func resolveFunc(name string, args []Type) (*Func, error) {
	name = normalizeFuncName(name)
	b, ok := builders[name]
	for _, ft := range userRangeTables(name, args) {
		if ub, found := ft.builders[name]; found && !ok {
			b, ok = ub, true
		}
	}
	if ok {
		f, ok, err := b(args)
		if err != nil {
			return nil, err
		}
		if ok {
			f.Name = name
			return f, nil
		}
		// A name may have both a builder and fixed overloads
		// (width_bucket over an array, and over a range).
		if len(withUserFuncs(name, args)) == 0 {
			return nil, funcError(name, args, false)
		}
	}
	defs := withUserFuncs(name, args)
	if len(defs) == 0 {
		return nil, funcError(name, args, false)
	}
	cands := make([]candidate, len(defs))
	for i, d := range defs {
		cands[i] = d.candidate
	}
	chosen, err := chooseOverload(name, args, cands)
	if err != nil {
		if pgerror.GetCode(err) == pgerror.AmbiguousFunction && cands[0].polymorphic {
			// Every overload is one of a function PostgreSQL declares
			// over anyrange, which an untyped literal cannot settle.
			return nil, pgerror.New(pgerror.DatatypeMismatch, "could not determine polymorphic type anyrange because input has type unknown")
		}
		return nil, err
	}
	d := defs[chosen]
	fns, err := coerceArgs(args, d.args)
	if err != nil {
		return nil, err
	}
	return &Func{
		Name: name, Args: d.args, Result: d.result, Volatility: d.vol,
		Eval: wrapEval(fns, d.strict, d.eval),
	}, nil
}

// wrapEval applies the argument coercions and strictness around eval.
func wrapEval(fns []EnvCastFunc, strict bool, eval funcEval) func(*Env, []any) (any, error) {
	return func(env *Env, args []any) (any, error) {
		conv := args
		for i, f := range fns {
			if args[i] == nil {
				if strict {
					return nil, nil
				}
				continue
			}
			if f == nil {
				continue
			}
			if &conv[0] == &args[0] {
				conv = append([]any(nil), args...)
			}
			v, err := f(env, args[i])
			if err != nil {
				return nil, err
			}
			conv[i] = v
		}
		return eval(env, conv)
	}
}

func funcError(name string, args []Type, ambiguous bool) error {
	sig := name + "(" + typeList(args) + ")"
	if ambiguous {
		return pgerror.Newf(pgerror.AmbiguousFunction, "function %s is not unique", sig).
			WithHint("Could not choose a best candidate function. You might need to add explicit type casts.")
	}
	return pgerror.Newf(pgerror.UndefinedFunction, "function %s does not exist", sig).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
}
