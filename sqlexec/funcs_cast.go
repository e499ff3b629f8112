package sqlexec

import (
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// A call of a type's name with one argument, T(x), that no function of
// fickle's fits is the cast PostgreSQL makes of it (func_get_detail): the
// functions pg_cast converts with are named after the type they make
// (date(timestamptz), int8(int4)), so a call of one is that cast; a call
// whose argument converts to T through the types' text forms, or between
// binary-compatible types, is a cast too (text(5), date(varchar));
// otherwise the cast functions named T are candidates as any overloads
// are, the argument coerced to the one chosen.

// pgCasts is what func_get_detail reads of pg_cast: each source and
// target's castmethod ('f' a function, 'b' binary-compatible, 'i' the
// text forms), and the OIDs of the functions it converts with.
var pgCasts = sync.OnceValue(func() (c struct {
	methods   map[[2]uint32]byte
	functions map[uint32]bool
}) {
	c.methods, c.functions = map[[2]uint32]byte{}, map[uint32]bool{}
	eachRow(pgdata.Load(pgdata.PgCast), func(get func(string) string) {
		c.methods[[2]uint32{atou(get("castsource")), atou(get("casttarget"))}] = get("castmethod")[0]
		if f := atou(get("castfunc")); f != 0 {
			c.functions[f] = true
		}
	})
	return c
})

// castFunctionCall compiles fc, a call of one argument arg (bound) that no
// function of fickle's fits, as the cast it is in PostgreSQL; ok is false
// when fc names no type or the call is no cast.
func (b *binder) castFunctionCall(fc *pg_query.FuncCall, arg *scalar) (e *scalar, ok bool, err error) {
	tn := &pg_query.TypeName{Names: fc.Funcname, Typemod: -1, Location: fc.Location}
	t, terr := b.typeName(tn)
	if terr != nil {
		return nil, false, nil
	}
	names := strs(fc.Funcname)
	name := names[len(names)-1]
	named := func(e *scalar, err error) (*scalar, bool, error) {
		if err == nil {
			e.name, e.weakName = name, false
		}
		return e, true, err
	}
	castTo := func(arg *scalar, to types.Type) (*scalar, bool, error) {
		return named(b.castTo(arg, to, &pg_query.TypeCast{Arg: fc.Args[0], TypeName: tn, Location: fc.Location}))
	}
	var from, to []types.Type
	for _, p := range builtinIndex().procsByName[name] {
		if p.namespace != oidPgCatalog || p.kind != 'f' || len(p.args) != 1 || !pgCasts().functions[p.oid] {
			continue
		}
		in, inOK := types.TypeByOid(types.Oid(p.args[0]))
		out, outOK := types.TypeByOid(types.Oid(p.rettype))
		if !inOK || !outOK {
			continue
		}
		if in.Oid == arg.typ.Oid {
			return castTo(arg, out)
		}
		from, to = append(from, in), append(to, out)
	}
	if coercionCall(arg.typ, t) {
		return castTo(arg, t)
	}
	overloads := make([][]types.Type, len(from))
	for i, in := range from {
		overloads[i] = []types.Type{in}
	}
	i, cerr := types.ChooseOverload(name, []types.Type{arg.typ}, overloads)
	if cerr != nil {
		return nil, false, nil
	}
	in, err := b.coerce(arg, from[i], types.CastImplicit)
	if err != nil {
		return nil, true, err
	}
	return castTo(in, to[i])
}

// coercionCall reports whether T(x), x of type from and T the type to, is
// a cast without a function, as func_get_detail's coercion check decides:
// the types are binary-compatible, or convert through their text forms
// (not a row to a string type, which record_out would make of it).
func coercionCall(from, to types.Type) bool {
	if from.Oid == to.Oid {
		return true
	}
	switch pgCasts().methods[[2]uint32{uint32(from.Oid), uint32(to.Oid)}] {
	case 'b', 'i':
		return true
	case 'f':
		return false
	}
	if from.IsArray() || to.IsArray() {
		return false
	}
	if to.Category() == types.CategoryString {
		return !from.IsComposite() && from.Oid != types.OidRecord
	}
	return from.Category() == types.CategoryString
}
