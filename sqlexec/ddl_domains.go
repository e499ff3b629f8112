package sqlexec

import (
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Domains (CREATE DOMAIN name AS type [DEFAULT e] [NOT NULL] [CHECK (...)]).
// A domain's values are its base type's datums and expressions see them
// with the base type, so every operator and function of the base type
// applies; the domain matters where a value becomes of the domain: a cast
// to it, a write to a column of it, a field of it that json populates.
// There its NOT NULL (23502) and CHECK constraints (23514) are checked, a
// domain over a domain checking its parent's first.
//
// Every domain has an array type (_name, pg_type.typarray), whose values
// are arrays of the base type. fickle treats it where a column, a cast or
// a composite field declares it as it treats a domain with no constraints
// of its own (domainArrayType): a value becomes of it by passing the
// element domain's constraints element by element, as PostgreSQL's
// coercion to an array of a domain checks each element.

// domainDesc is what a typeDesc of a domain adds.
type domainDesc struct {
	base    types.Type
	parent  uint32 // the domain this one is over, 0 over a plain type
	notNull bool
	def     *pg_query.Node
	checks  []*checkDesc
	// elem is, for the array type of a domain (domainArrayType), the
	// domain its elements are of; 0 for a domain.
	elem uint32
}

// domainArrayType is the array type of domain t as a type declared with
// it sees it: a domain-like descriptor whose values are arrays of t's base
// type, each element checked against t. ok is false when t's base type is
// itself an array, whose arrays fickle cannot represent.
func domainArrayType(t *typeDesc) (*typeDesc, bool) {
	arr, ok := types.ArrayOf(t.domain.base)
	if !ok || t.domain.base.IsArray() || t.array == 0 {
		return nil, false
	}
	return &typeDesc{oid: t.array, schema: t.schema, name: "_" + t.name, owner: t.owner,
		domain: &domainDesc{base: arr, elem: t.oid}}, true
}

// domainOrArrayByOid returns the domain with the OID, or the array type of
// a domain as domainArrayType gives it; nil for other OIDs.
func (c *catalog) domainOrArrayByOid(oid uint32) *typeDesc {
	if oid == 0 {
		return nil
	}
	t, array := c.typeByOidOrArray(oid)
	if t == nil || t.domain == nil || t.domain.elem != 0 {
		return nil
	}
	if !array {
		return t
	}
	at, _ := domainArrayType(t)
	return at
}

// isDomainArray reports whether oid is the array type of a domain.
func (c *catalog) isDomainArray(oid uint32) bool {
	t := c.domainOrArrayByOid(oid)
	return t != nil && t.domain.elem != 0
}

// declaredType resolves a type name where a value is declared with it (a
// column, a composite type's attribute, a cast, a domain's base type): the
// type and the domain, or array type of a domain, it names (nil for none).
// Arrays of domains are resolved here; typeName refuses them elsewhere.
func (b *binder) declaredType(tn *pg_query.TypeName) (types.Type, *typeDesc, error) {
	if len(tn.ArrayBounds) == 0 || tn.PctType || tn.Setof {
		t, err := b.typeName(tn)
		if err != nil {
			return types.Type{}, nil, err
		}
		return t, b.domainNamed(tn), nil
	}
	dom := b.domainNamed(tn)
	if dom == nil {
		t, err := b.typeName(tn)
		return t, nil, err
	}
	elemName := &pg_query.TypeName{Names: tn.Names, TypeOid: tn.TypeOid, Typmods: tn.Typmods, Typemod: tn.Typemod, Location: tn.Location}
	if _, err := b.typeName(elemName); err != nil {
		return types.Type{}, nil, err
	}
	at, ok := domainArrayType(dom)
	if !ok {
		return types.Type{}, nil, b.errAt(pgerror.Unsupported("arrays of domains over array types"), tn.Location)
	}
	return at.domain.base, at, nil
}

// domainNamed returns the domain a type name names, nil when it names
// another type or none.
func (b *binder) domainNamed(tn *pg_query.TypeName) *typeDesc {
	names := strs(tn.Names)
	if len(names) == 1 {
		if _, err := types.TypeByName(names, nil); err == nil {
			return nil // a built-in type comes first on the search path
		}
	}
	cat := b.catalogNow()
	var t *typeDesc
	switch len(names) {
	case 1:
		t = b.s.lookupType(cat, "", names[0])
	case 2:
		t = b.s.lookupType(cat, names[0], names[1])
	}
	if t == nil || t.domain == nil {
		return nil
	}
	return t
}

// domainDefault is the DEFAULT of domain t or of the nearest domain under
// it that has one; nil for none.
func (c *catalog) domainDefault(t *typeDesc) *pg_query.Node {
	for d := t; d != nil; d = c.typeByOid(d.domain.parent) {
		if d.domain.def != nil {
			return d.domain.def
		}
	}
	return nil
}

// catalogNow is the catalog the binder binds against.
func (b *binder) catalogNow() *catalog {
	if b.cat != nil {
		return b.cat
	}
	c, _ := b.s.catalog()
	return c
}

// domainByOid returns the domain with the OID, nil for 0 or none.
func (b *binder) domainByOid(oid uint32) *typeDesc {
	return b.catalogNow().domainOrArrayByOid(oid)
}

// domainCheck is the check of domain t's constraints on a value.
type domainCheck func(x *execCtx, v any) error

// domainCheckFor compiles the constraints of domain t and of the domains
// it is over.
func (b *binder) domainCheckFor(t *typeDesc) (domainCheck, error) {
	if t.domain.elem != 0 {
		return b.domainArrayCheck(t)
	}
	var parent domainCheck
	if p := b.domainByOid(t.domain.parent); p != nil {
		var err error
		if parent, err = b.domainCheckFor(p); err != nil {
			return nil, err
		}
	}
	sc := domainValueScope(t)
	checks := make([]*scalar, len(t.domain.checks))
	for i, ck := range t.domain.checks {
		e, err := b.cond(sc, ck.expr, "CHECK")
		if err != nil {
			return nil, err
		}
		checks[i] = e
	}
	notNull, name := t.domain.notNull, t.name
	return func(x *execCtx, v any) error {
		if parent != nil {
			if err := parent(x, v); err != nil {
				return err
			}
		}
		if v == nil && notNull {
			return pgerror.Newf(pgerror.NotNullViolation, "domain %s does not allow null values", name)
		}
		if len(checks) == 0 {
			return nil
		}
		c := *x
		c.row = []any{v}
		for i, ck := range checks {
			ok, err := ck.eval(&c)
			if err != nil {
				return err
			}
			if ok == false {
				return pgerror.Newf(pgerror.CheckViolation, "value for domain %s violates check constraint \"%s\"", name, t.domain.checks[i].name)
			}
		}
		return nil
	}, nil
}

// domainArrayCheck is the check of a value of the array type of a domain
// (domainArrayType): every element, NULLs included, passes the element
// domain's constraints.
func (b *binder) domainArrayCheck(t *typeDesc) (domainCheck, error) {
	dom := b.domainByOid(t.domain.elem)
	if dom == nil {
		return nil, pgerror.Newf(pgerror.UndefinedObject, "type with OID %d does not exist", t.domain.elem)
	}
	elem, err := b.domainCheckFor(dom)
	if err != nil {
		return nil, err
	}
	pos, stored := b.literalPos, b.storedCheck
	return func(x *execCtx, v any) error {
		if v == nil {
			return nil
		}
		_, _, elems, _ := pgarray.Shape(v)
		for _, e := range elems {
			if e == nil && stored {
				continue
			}
			if err := elem(x, e); err != nil {
				if pe, ok := err.(*pgerror.Error); ok && pos > 0 && pe.Position == 0 {
					pe.Position = pos
				}
				return err
			}
		}
		return nil
	}, nil
}

// withConversionCheck returns e, written as n and converted to a column
// declared with t, a domain that is or is over the array type of a
// domain, checked against t as PostgreSQL's conversion checks it: every
// element, NULLs included (the column's check where the row is written
// leaves NULL elements alone), and the errors of the elements of a string
// literal, which array_in checks, point at the literal. A value of t
// already is left as it is.
func (b *binder) withConversionCheck(e *scalar, t *typeDesc, n *pg_query.Node) (*scalar, error) {
	if !b.catalogNow().holdsDomainArray(t) || e.domain != nil && e.domain.oid == t.oid {
		return e, nil
	}
	saved := b.literalPos
	defer func() { b.literalPos = saved }()
	if c := n.GetAConst(); c != nil && c.GetSval() != nil {
		b.literalPos = b.pos(c.Location)
	}
	return b.withDomainCheck(e, t)
}

// holdsDomainArray reports whether domain t is, or is over, the array
// type of a domain.
func (c *catalog) holdsDomainArray(t *typeDesc) bool { return c.domainArrayUnder(t) != nil }

// domainArrayUnder is the array type of a domain that t is or is over
// (as domainArrayType gives it), nil for none.
func (c *catalog) domainArrayUnder(t *typeDesc) *typeDesc {
	for d := t; d != nil && d.domain != nil; d = c.domainOrArrayByOid(d.domain.parent) {
		if d.domain.elem != 0 {
			return d
		}
	}
	return nil
}

// withDomainCheck returns e checked against domain t's constraints.
func (b *binder) withDomainCheck(e *scalar, t *typeDesc) (*scalar, error) {
	check, err := b.domainCheckFor(t)
	if err != nil {
		return nil, err
	}
	inner := e.eval
	out := *e
	out.lit, out.null, out.slot, out.domain = nil, false, -1, t
	out.eval = func(x *execCtx) (any, error) {
		v, err := inner(x)
		if err != nil {
			return nil, err
		}
		return v, check(x, v)
	}
	return &out, nil
}

// createDomain runs CREATE DOMAIN.
func (d *ddl) createDomain(cs *pg_query.CreateDomainStmt) error {
	names := strs(cs.Domainname)
	schemaName, name := "", names[len(names)-1]
	if len(names) == 2 {
		schemaName = names[0]
	} else if len(names) > 2 {
		return pgerror.Unsupported("cross-database references")
	}
	schema, err := d.creationSchema(schemaName)
	if err != nil {
		return err
	}
	if d.relationExists(schema, name) {
		return pgerror.Newf(pgerror.DuplicateObject, "type \"%s\" already exists", name)
	}
	if cs.CollClause != nil {
		return pgerror.Unsupported("COLLATE in CREATE DOMAIN")
	}
	b := d.binder("")
	base, under, err := b.declaredType(cs.TypeName)
	if err != nil {
		return err
	}
	if err := b.requireTypeNameUsage(cs.TypeName, uint32(base.Oid)); err != nil {
		return err
	}
	if base.Oid == types.OidUnknown || base.Oid == types.OidRecord || base.Oid == types.OidVoid || base.Oid == types.OidTrigger {
		return pgerror.Newf(pgerror.DatatypeMismatch, "\"%s\" is not a valid base type for a domain", base)
	}
	dom := &domainDesc{base: base}
	if under != nil {
		dom.parent = under.oid
	}
	t := &typeDesc{oid: d.cat.newOID(), schema: schema, name: name, domain: dom, owner: d.s.currentRole()}
	t.array = d.cat.newOID()
	nullSeen := false
	for _, n := range cs.Constraints {
		c := n.GetConstraint()
		switch c.Contype {
		case pg_query.ConstrType_CONSTR_NOTNULL, pg_query.ConstrType_CONSTR_NULL:
			isNotNull := c.Contype == pg_query.ConstrType_CONSTR_NOTNULL
			if nullSeen && dom.notNull != isNotNull {
				return pgerror.New(pgerror.SyntaxError, "conflicting NULL/NOT NULL constraints")
			}
			nullSeen, dom.notNull = true, isNotNull
		case pg_query.ConstrType_CONSTR_DEFAULT:
			if dom.def != nil {
				return pgerror.New(pgerror.SyntaxError, "multiple default expressions")
			}
			e, err := b.expr(nil, c.RawExpr)
			if err != nil {
				return err
			}
			if _, err := b.coerce(e, base, types.CastAssignment); err != nil {
				return err
			}
			dom.def = b.s.qualifiedCalls(b.cat, c.RawExpr)
		case pg_query.ConstrType_CONSTR_CHECK:
			if c.IsNoInherit {
				return pgerror.New(pgerror.InvalidObjectDefinition, "check constraints for domains cannot be marked NO INHERIT")
			}
			expr := b.s.qualifiedCalls(b.cat, c.RawExpr)
			ck := &checkDesc{name: c.Conname, expr: expr, text: deparseExpr(expr)}
			if ck.name == "" {
				ck.name = uniqueDomainCheckName(name, dom.checks)
			}
			dom.checks = append(dom.checks, ck)
		default:
			return pgerror.Unsupported("this constraint on a domain")
		}
	}
	if _, err := b.domainCheckFor(t); err != nil {
		return err
	}
	d.cat.schemas[schema].types[name] = t
	d.applyTypeDefaultACL(t)
	return nil
}

// uniqueDomainCheckName is PostgreSQL's name for an unnamed domain CHECK
// constraint: name_check, then name_check1, ...
func uniqueDomainCheckName(domain string, checks []*checkDesc) string {
	base := domain + "_check"
	for i := 0; ; i++ {
		n := base
		if i > 0 {
			n += strconv.Itoa(i)
		}
		used := false
		for _, c := range checks {
			used = used || c.name == n
		}
		if !used {
			return n
		}
	}
}

// dropDomains runs DROP DOMAIN, which keeps a domain in use (2BP01) and
// refuses CASCADE, as dropTypes does.
func (d *ddl) dropDomains(ds *pg_query.DropStmt) error {
	return d.dropNamedTypes(ds, "DROP DOMAIN", d.binder("").domainNamed)
}

// routineDomainOf is the domain a routine's parameter or result type
// names, the zero routineDomain when it names another type.
func (b *binder) routineDomainOf(tn *pg_query.TypeName) routineDomain {
	if len(tn.ArrayBounds) > 0 {
		return routineDomain{}
	}
	t := b.domainNamed(tn)
	if t == nil {
		return routineDomain{}
	}
	name := types.QuoteIdent(t.name)
	if b.s.lookupType(b.catalogNow(), "", t.name) != t {
		name = types.QuoteIdent(t.schema) + "." + name
	}
	return routineDomain{oid: t.oid, name: name}
}

// columnDomain is, for a reference to table column c, the domain the
// column is of, or plain when it is of no domain; nil and false for a
// column of another FROM item, whose type fickle does not follow to a
// domain.
func (b *binder) columnDomain(c scopeCol) (dom *typeDesc, plain bool) {
	if c.knownType {
		if d := b.domainByOid(c.knownDomain); d != nil && d.domain != nil {
			return d, false
		}
		return nil, c.knownDomain == 0
	}
	if c.tableOID == 0 || c.attnum <= 0 || c.usingType.Oid != 0 {
		return nil, false
	}
	t := b.catalogNow().tables[c.tableOID]
	if t == nil {
		return nil, false
	}
	for _, col := range t.cols {
		if col.attnum != c.attnum {
			continue
		}
		if col.domain == 0 {
			return nil, true
		}
		if d := b.domainByOid(col.domain); d != nil && d.domain != nil {
			return d, false
		}
		return nil, false
	}
	return nil, false
}
