package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Set-returning functions in a SELECT list (SELECT unnest(a), ...): each
// row the query would return becomes as many rows as its longest set, the
// sets running side by side and shorter ones padded with NULLs, as since
// PostgreSQL 10. fickle takes unnest, generate_series and
// generate_subscripts as a whole select-list item; a set-returning call
// inside another expression stays 0A000.

// srfSet is the value a set-returning select-list item computes for one
// row: the values of the rows it makes.
type srfSet []any

// isTargetSRF reports whether a function of this name returns a set when
// called in a select list.
func isTargetSRF(name string) bool {
	switch name {
	case "unnest", "generate_series", "generate_subscripts":
		return true
	}
	return false
}

// srfTarget compiles a set-returning call that is a whole select-list
// item.
func (b *binder) srfTarget(sc *scope, fc *pg_query.FuncCall) (*scalar, error) {
	name := strings.ToLower(lastName(fc.Funcname))
	if fc.AggStar || fc.AggDistinct || fc.Over != nil || len(fc.AggOrder) > 0 || fc.AggFilter != nil {
		return nil, b.errAt(pgerror.Newf(pgerror.WrongObjectType, "%s is not an aggregate function", name), fc.Location)
	}
	args := make([]*scalar, len(fc.Args))
	for i, a := range fc.Args {
		e, err := b.expr(sc, a)
		if err != nil {
			return nil, err
		}
		args[i] = e
	}
	bad := func() error {
		ts := make([]string, len(args))
		for i, a := range args {
			ts[i] = a.typ.String()
		}
		return b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(ts, ", ")), fc.Location)
	}
	var typ types.Type
	var set func(vals []any) (srfSet, error)
	switch {
	case name == "unnest" && len(args) == 1 && args[0].typ.IsArray():
		typ, _ = args[0].typ.Elem()
		set = func(vals []any) (srfSet, error) { return srfSet(vals[0].([]any)), nil }
	case name == "generate_subscripts" && (len(args) == 2 || len(args) == 3) && args[0].typ.IsArray():
		var err error
		if args[1], err = b.coerce(args[1], types.Int4, types.CastImplicit); err != nil {
			return nil, err
		}
		if len(args) == 3 {
			if args[2], err = b.coerce(args[2], types.Bool, types.CastImplicit); err != nil {
				return nil, err
			}
		}
		typ = types.Int4
		set = func(vals []any) (srfSet, error) {
			n := int64(len(vals[0].([]any)))
			if vals[1].(int64) != 1 || n == 0 {
				return nil, nil // fickle's arrays have one dimension
			}
			out := make(srfSet, n)
			for i := range out {
				out[i] = int64(i) + 1
				if len(vals) == 3 && vals[2] == true {
					out[i] = n - int64(i)
				}
			}
			return out, nil
		}
	case name == "generate_series" && (len(args) == 2 || len(args) == 3):
		typ = types.Int4
		for i := range args {
			if unresolved(args[i]) || args[i].lit != nil {
				var err error
				if args[i], err = b.coerce(args[i], types.Int4, types.CastImplicit); err != nil {
					return nil, err
				}
			}
			switch args[i].typ.Oid {
			case types.OidInt2, types.OidInt4:
			case types.OidInt8:
				typ = types.Int8
			default:
				return nil, b.errAt(pgerror.Unsupported("generate_series over "+args[i].typ.String()), fc.Location)
			}
		}
		set = func(vals []any) (srfSet, error) {
			step := int64(1)
			if len(vals) == 3 {
				step = vals[2].(int64)
			}
			if step == 0 {
				return nil, pgerror.New(pgerror.InvalidParameterValue, "step size cannot equal zero")
			}
			var out srfSet
			for v := vals[0].(int64); (step > 0 && v <= vals[1].(int64)) || (step < 0 && v >= vals[1].(int64)); v += step {
				out = append(out, v)
			}
			return out, nil
		}
	default:
		if name == "unnest" && len(args) == 1 && (unresolved(args[0]) || args[0].lit != nil || args[0].null) {
			return nil, b.errAt(pgerror.New(pgerror.AmbiguousFunction, "function unnest(unknown) is not unique").
				WithHint("Could not choose a best candidate function. You might need to add explicit type casts."), fc.Location)
		}
		return nil, bad()
	}
	var refs uint64
	for _, a := range args {
		refs |= a.refs
	}
	return &scalar{typ: typ, slot: -1, refs: refs, volatile: true, srf: true, name: name, eval: func(x *execCtx) (any, error) {
		vals := make([]any, len(args))
		for i, a := range args {
			v, err := a.eval(x)
			if err != nil || v == nil {
				return srfSet(nil), err // a NULL argument makes no rows
			}
			vals[i] = v
		}
		return set(vals)
	}}, nil
}

// srfColumns returns the positions of the set-returning items of outs.
func srfColumns(outs []*scalar) []int {
	var cols []int
	for i, o := range outs {
		if o.srf {
			cols = append(cols, i)
		}
	}
	return cols
}

// expandSRF turns a row whose srf columns hold sets into the rows they
// make: as many as the longest set, shorter ones padded with NULLs.
func expandSRF(row []any, srf []int) [][]any {
	n := 0
	for _, c := range srf {
		n = max(n, len(row[c].(srfSet)))
	}
	out := make([][]any, n)
	for i := range out {
		r := append([]any(nil), row...)
		for _, c := range srf {
			set := row[c].(srfSet)
			r[c] = nil
			if i < len(set) {
				r[c] = set[i]
			}
		}
		out[i] = r
	}
	return out
}
