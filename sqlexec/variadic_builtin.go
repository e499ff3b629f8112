package sqlexec

import (
	"slices"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// variadicBuiltins are the built-in functions PostgreSQL 15 declares
// VARIADIC that fickle has, with the number of fixed arguments before the
// variadic ones. f(..., VARIADIC arr) passes the elements of arr as the
// variadic arguments.
var variadicBuiltins = map[string]int{
	"concat": 0, "concat_ws": 1, "format": 1,
	"json_build_array": 0, "json_build_object": 0, "jsonb_build_array": 0, "jsonb_build_object": 0,
	"num_nulls": 0, "num_nonnulls": 0,
	"int4multirange": 0, "int8multirange": 0, "nummultirange": 0, "datemultirange": 0, "tsmultirange": 0, "tstzmultirange": 0,
	"json_extract_path": 1, "json_extract_path_text": 1, "jsonb_extract_path": 1, "jsonb_extract_path_text": 1,
}

// variadicBuiltinCall compiles name(fixed..., VARIADIC arr) for a built-in
// function: the call is resolved for the number of elements arr has when
// it is evaluated. A NULL arr makes the result NULL, except for format,
// which then has no variadic arguments.
func (b *binder) variadicBuiltinCall(sc *scope, name string, fc *pg_query.FuncCall) (*scalar, error) {
	args := make([]*scalar, len(fc.Args))
	for i, a := range fc.Args {
		e, err := b.expr(sc, a)
		if err != nil {
			return nil, err
		}
		args[i] = e
	}
	fixed, ok := variadicBuiltins[name]
	last := args[len(args)-1]
	if !last.typ.IsArray() || unresolved(last) || last.null {
		return nil, b.errAt(pgerror.New(pgerror.DatatypeMismatch, "VARIADIC argument must be an array"), exprLocation(fc.Args[len(fc.Args)-1]))
	}
	// asWritten is the error of the call with the array as one argument:
	// for a function fickle lacks, or one PostgreSQL does not declare
	// VARIADIC, that names what is wrong.
	asWritten := func() error {
		ts := make([]types.Type, len(args))
		for i, a := range args {
			ts[i] = a.typ
		}
		if _, err := types.ResolveFunc(name, ts); err != nil {
			return b.withPos(err, fc.Location)
		}
		return b.errAt(pgerror.Unsupported("VARIADIC in a call of "+name), fc.Location)
	}
	if !ok || len(args) != fixed+1 {
		return nil, asWritten()
	}
	elem, _ := last.typ.Elem()
	elem.Typmod = -1
	ts := make([]types.Type, fixed)
	refs, volatile := last.refs, last.volatile
	for i, a := range args[:fixed] {
		if unresolved(a) {
			if _, err := b.fix(a, types.Text); err != nil {
				return nil, err
			}
		}
		ts[i] = a.typ
		refs |= a.refs
		volatile = volatile || a.volatile
	}
	// The call must resolve with variadic arguments of the element type.
	probe, err := types.ResolveFunc(name, append(append([]types.Type(nil), ts...), elem, elem))
	if err != nil {
		return nil, asWritten()
	}
	mr, _ := types.TypeByName([]string{name}, nil)
	multirange := mr.IsMultirange()
	var mu sync.Mutex
	byCount := map[int]*types.Func{}
	resolve := func(n int) (*types.Func, error) {
		mu.Lock()
		defer mu.Unlock()
		if f := byCount[n]; f != nil {
			return f, nil
		}
		argTypes := append([]types.Type(nil), ts...)
		for range n {
			argTypes = append(argTypes, elem)
		}
		f, err := types.ResolveFunc(name, argTypes)
		if err != nil {
			return nil, err
		}
		byCount[n] = f
		return f, nil
	}
	return &scalar{typ: probe.Result, slot: -1, refs: refs, volatile: volatile || probe.Volatility == types.Volatile, name: name, eval: func(x *execCtx) (any, error) {
		vals := make([]any, 0, fixed+1)
		for _, a := range args[:fixed] {
			v, err := a.eval(x)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		arr, err := last.eval(x)
		if err != nil {
			return nil, err
		}
		if arr == nil && name != "format" {
			return nil, nil
		}
		elems, _ := pgarray.Elems(arr)
		if multirange {
			// multirange_constructor2's checks, which the call with one
			// range, strict, would not make.
			if dims, _, _ := types.ArrayShapeOf(last.typ, arr); len(dims) > 1 {
				return nil, pgerror.New(pgerror.CardinalityViolation, "multiranges cannot be constructed from multidimensional arrays")
			}
			if slices.Contains(elems, nil) {
				return nil, pgerror.New(pgerror.NullValueNotAllowed, "multirange values cannot contain null members")
			}
		}
		f, err := resolve(len(elems))
		if err != nil {
			return nil, err
		}
		return f.Eval(x.env, append(vals, elems...))
	}}, nil
}
