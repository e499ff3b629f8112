package sqlexec

import (
	"errors"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Parameters of a domain. PostgreSQL gives a parameter a domain as its
// type where the parameter first takes its type from one: a value written
// to a column declared with the domain, a cast to the domain, or the
// client's own Parse or PREPARE naming it. ParameterDescription and
// pg_prepared_statements then show the domain, and Bind reads the value
// with the domain's input function, which checks the domain's constraints
// before the statement runs: a value that fails them fails the Bind, and
// nothing of the statement happens (no nextval of a column default, no
// trigger). fickle keeps the parameter's value of the domain's base type,
// as every value of a domain (ddl_domains.go), and checks it when the
// statement starts, before its privileges and its first row.

// setParamDomain notes that $n, which has just taken its type from domain
// dom, is of the domain; n 0 (not a parameter) is ignored.
func (b *binder) setParamDomain(n int, dom uint32) {
	if n <= 0 {
		return
	}
	for len(b.paramDomains) < n {
		b.paramDomains = append(b.paramDomains, 0)
	}
	b.paramDomains[n-1] = dom
}

// paramDomain is the domain $n is of, 0 for none.
func (b *binder) paramDomain(n int) uint32 {
	if n-1 < len(b.paramDomains) {
		return b.paramDomains[n-1]
	}
	return 0
}

// coerceToColumn converts e, a value written to column col (written as
// n), to the column's type by assignment; a parameter that takes its type
// there is of the column's domain, and a value converted to an array of
// a domain is checked as the conversion checks it (withConversionCheck).
func (b *binder) coerceToColumn(e *scalar, col *columnDesc, n *pg_query.Node) (*scalar, error) {
	param := e.param
	b.noteParamTarget(n, col.typ)
	out, err := b.coerce(e, col.typ, types.CastAssignment)
	dom := b.domainByOid(col.domain)
	if dom == nil || n == nil {
		if err == nil && col.domain != 0 {
			b.setParamDomain(param, col.domain)
		}
		return out, err
	}
	if err != nil {
		// array_in reads a string literal's elements with the domain's
		// input: its errors point at the literal.
		var pe *pgerror.Error
		if c := n.GetAConst(); c != nil && c.GetSval() != nil && errors.As(err, &pe) && pe.Position == 0 && b.catalogNow().holdsDomainArray(dom) {
			pe.Position = b.pos(c.Location)
		}
		return nil, err
	}
	b.setParamDomain(param, col.domain)
	return b.withConversionCheck(out, dom, n)
}

// domainParamType is the type $n takes when the client declares it with
// OID oid: the base type of the domain oid names, $n then being of the
// domain; ok is false when oid is no domain.
func (b *binder) domainParamType(n int, oid uint32) (t types.Type, ok bool) {
	dom := b.catalogNow().domainOrArrayByOid(oid)
	if dom == nil {
		return types.Type{}, false
	}
	b.setParamDomain(n, oid)
	t = dom.domain.base
	t.Typmod = -1
	return t, true
}

// paramChecks compiles the constraints of the parameters of a domain, nil
// when no parameter is of one.
func (b *binder) paramChecks() ([]domainCheck, error) {
	var checks []domainCheck
	add := func(i int, check domainCheck) {
		if checks == nil {
			checks = make([]domainCheck, max(len(b.paramDomains), len(b.params)))
		}
		if prev := checks[i]; prev != nil {
			checks[i] = func(x *execCtx, v any) error {
				if err := prev(x, v); err != nil {
					return err
				}
				return check(x, v)
			}
			return
		}
		checks[i] = check
	}
	for i, oid := range b.paramDomains {
		dom := b.domainByOid(oid)
		if dom == nil {
			continue
		}
		check, err := b.domainCheckFor(dom)
		if err != nil {
			return nil, err
		}
		add(i, check)
	}
	for i, t := range b.params {
		check, err := b.fieldDomainsCheck(t)
		if err != nil {
			return nil, err
		}
		if check != nil {
			add(i, check)
		}
	}
	return checks, nil
}

// fieldDomainsCheck is the check of a value of type t (a composite type, a
// table's row type or an array of one) against the domains the fields of
// its composite values are declared with, fields of nested composite
// values included, as record_in and record_recv run each field's domain
// input; nil when no such field has a domain.
func (b *binder) fieldDomainsCheck(t types.Type) (domainCheck, error) {
	if elem, isArray := t.Elem(); isArray {
		inner, err := b.fieldDomainsCheck(elem)
		if err != nil || inner == nil {
			return nil, err
		}
		return func(x *execCtx, v any) error {
			elems, _ := pgarray.Elems(v)
			for _, e := range elems {
				if e == nil {
					continue
				}
				if err := inner(x, e); err != nil {
					return err
				}
			}
			return nil
		}, nil
	}
	c := b.catalogNow()
	var td *typeDesc
	if tab, array := c.tableOfRowType(uint32(t.Oid)); tab != nil && !array {
		td = tab.rowTypeDesc()
	} else if ut := c.typeByOid(uint32(t.Oid)); ut != nil && ut.domain == nil {
		td = ut
	}
	if td == nil {
		return nil, nil
	}
	domains, err := b.fieldDomainChecks(td)
	if err != nil {
		return nil, err
	}
	nested := make([]domainCheck, len(td.fields))
	found := domains != nil
	for i, f := range td.fields {
		if nested[i], err = b.fieldDomainsCheck(f.Type); err != nil {
			return nil, err
		}
		found = found || nested[i] != nil
	}
	if !found {
		return nil, nil
	}
	return func(x *execCtx, v any) error {
		vals, ok := v.([]any)
		if !ok {
			return nil
		}
		for i, val := range vals {
			if i < len(nested) && nested[i] != nil && val != nil {
				if err := nested[i](x, val); err != nil {
					return err
				}
			}
			if i < len(domains) && domains[i] != nil {
				if err := domains[i](x, val); err != nil {
					return err
				}
			}
		}
		return nil
	}, nil
}

// checkParams checks x's parameters against the constraints of the
// domains they are of (stmtPlan.paramChecks).
func checkParams(x *execCtx, checks []domainCheck) error {
	for i, check := range checks {
		if check == nil || i >= len(x.params) {
			continue
		}
		if err := check(x, x.params[i]); err != nil {
			return err
		}
	}
	return nil
}

// noteParamTarget notes that the value n, when it is $k or $k::type, is
// assigned to a column of type t (binder.paramTargets).
func (b *binder) noteParamTarget(n *pg_query.Node, t types.Type) {
	if c := n.GetTypeCast(); c != nil {
		n = c.Arg
	}
	p := n.GetParamRef()
	if p == nil || p.Number < 1 {
		return
	}
	k := int(p.Number)
	for len(b.paramTargets) < k {
		b.paramTargets = append(b.paramTargets, types.Type{})
	}
	b.paramTargets[k-1] = t
}
