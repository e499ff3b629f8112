package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// pgTypeof compiles pg_typeof(expr): the regtype of expr's type, fixed
// when the statement is planned. A value of a domain type carries its base
// type here unless a cast gave it the domain, so where the argument may be
// of a domain it is refused rather than answered with the base type.
func (b *binder) pgTypeof(sc *scope, fc *pg_query.FuncCall) (*scalar, error) {
	e, err := b.expr(sc, fc.Args[0])
	if err != nil {
		return nil, err
	}
	oid := int64(e.typ.Oid)
	switch {
	case unresolved(e) || e.lit != nil || e.null:
		oid = int64(types.OidUnknown)
	case e.domain != nil:
		oid = int64(e.domain.oid)
	case !e.plain && b.mayBeOfDomain(fc.Args[0]) && b.cat.hasDomainOver(e.typ):
		return nil, b.errAt(pgerror.Unsupported("pg_typeof of a value that may be of a domain type"), fc.Location)
	}
	return &scalar{typ: types.Regtype, slot: -1, name: "pg_typeof", eval: func(*execCtx) (any, error) { return oid, nil }}, nil
}

// mayBeOfDomain reports whether the expression n may give a value of a
// domain type: constants, operators, tests and casts to another type give
// their declared types.
func (b *binder) mayBeOfDomain(n *pg_query.Node) bool {
	switch {
	case n.GetAConst() != nil, n.GetBoolExpr() != nil, n.GetNullTest() != nil, n.GetBooleanTest() != nil:
		return false
	case n.GetTypeCast() != nil:
		tn := n.GetTypeCast().TypeName
		return len(tn.ArrayBounds) == 0 && b.domainNamed(tn) != nil
	case n.GetAExpr() != nil:
		e := n.GetAExpr()
		if e.Kind == pg_query.A_Expr_Kind_AEXPR_NULLIF {
			return b.mayBeOfDomain(e.Lexpr)
		}
		return false
	}
	return true
}

// hasDomainOver reports whether some domain of the catalog has base type t,
// or, t being an array type, whether some domain's array type has it.
func (c *catalog) hasDomainOver(t types.Type) bool {
	elem, isArray := t.Elem()
	for _, sc := range c.schemas {
		for _, d := range sc.types {
			if d.domain == nil {
				continue
			}
			if d.domain.base.Oid == t.Oid || isArray && d.domain.base.Oid == elem.Oid && !d.domain.base.IsArray() {
				return true
			}
		}
	}
	return false
}
