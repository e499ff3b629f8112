package sqlexec

import (
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// builtinArgs compiles the arguments of a call of the built-in function
// name. Arguments passed by name (make_interval(days => 3), jsonb_path_query(
// j, p, silent => true)) are placed by pg_proc's parameter names, and the
// parameters left out take the defaults package types declares for them; the
// call is then resolved positionally like any other.
func (b *binder) builtinArgs(sc *scope, name string, argNodes []*pg_query.Node, loc int32) ([]*scalar, error) {
	positional := 0
	var names []string
	args := make([]*scalar, len(argNodes))
	for i, n := range argNodes {
		if na := n.GetNamedArgExpr(); na != nil {
			n = na.Arg
			names = append(names, na.Name)
		} else if names != nil {
			return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "positional argument cannot follow named argument"), exprLocation(n))
		} else {
			positional++
		}
		e, err := b.expr(sc, n)
		if err != nil {
			return nil, err
		}
		args[i] = e
	}
	if names == nil {
		return args, nil
	}
	for _, p := range builtinIndex().procsByName[name] {
		if full, ok := b.placeNamedArgs(p, args, positional, names); ok {
			return full, nil
		}
	}
	return nil, b.errAt(b.noRoutine(name, argNodes, args, 'f'), loc)
}

// placeNamedArgs orders a call's arguments as the parameters of p, filling
// the parameters left out with their defaults; false when the names do
// not fit p or a parameter without default stays empty.
func (b *binder) placeNamedArgs(p *builtinProc, args []*scalar, positional int, names []string) ([]*scalar, bool) {
	if len(p.argNames) != len(p.args) || len(args) > len(p.args) {
		return nil, false
	}
	full := make([]*scalar, len(p.args))
	copy(full, args[:positional])
	for i, n := range names {
		pos := -1
		for j, pn := range p.argNames {
			if pn == n {
				pos = j
			}
		}
		if pos < positional || full[pos] != nil {
			return nil, false
		}
		full[pos] = args[positional+i]
	}
	defaults := types.ArgDefaults(p.name)
	first := len(p.args) - p.nDefaults
	for j := range full {
		if full[j] != nil {
			continue
		}
		d := j - (len(p.args) - len(defaults))
		if j < first || d < 0 || d >= len(defaults) {
			return nil, false
		}
		t, _ := types.TypeByOid(types.Oid(p.args[j]))
		full[j] = &scalar{typ: t, eval: constEval(defaults[d]), slot: -1}
	}
	return full, true
}
