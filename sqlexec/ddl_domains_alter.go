package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// alterDomain runs ALTER DOMAIN: SET/DROP DEFAULT, SET/DROP NOT NULL,
// ADD/DROP/VALIDATE CONSTRAINT. A new constraint (unless NOT VALID) and
// SET NOT NULL are checked against the values the columns of the domain,
// or of domains over it, hold.
func (d *ddl) alterDomain(ad *pg_query.AlterDomainStmt) error {
	b := d.binder("")
	tn := &pg_query.TypeName{Names: ad.TypeName}
	old := b.domainNamed(tn)
	if old == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "type \"%s\" does not exist", strings.Join(strs(ad.TypeName), "."))
	}
	if err := d.s.requireOwner(old.ownerRole(), "type", old.name); err != nil {
		return err
	}
	dom := *old.domain
	dom.checks = append([]*checkDesc(nil), old.domain.checks...)
	t := *old
	t.domain = &dom
	validate := false
	switch ad.Subtype {
	case "T":
		dom.def = nil
		if ad.Def != nil {
			e, err := b.expr(nil, ad.Def)
			if err != nil {
				return err
			}
			if _, err := b.coerce(e, dom.base, types.CastAssignment); err != nil {
				return err
			}
			dom.def = d.s.qualifiedCalls(d.cat, ad.Def)
		}
	case "N":
		dom.notNull = false
	case "O":
		dom.notNull, validate = true, !old.domain.notNull
	case "C":
		c := ad.Def.GetConstraint()
		if c == nil || c.Contype != pg_query.ConstrType_CONSTR_CHECK {
			return pgerror.Unsupported("this constraint in ALTER DOMAIN")
		}
		name := c.Conname
		for _, ck := range dom.checks {
			if ck.name == name {
				return pgerror.Newf(pgerror.DuplicateObject, "constraint \"%s\" for domain %s already exists", name, t.name)
			}
		}
		if name == "" {
			name = uniqueDomainCheckName(t.name, dom.checks)
		}
		if c.SkipValidation {
			return pgerror.Unsupported("NOT VALID domain constraints")
		}
		expr := d.s.qualifiedCalls(d.cat, c.RawExpr)
		dom.checks = append(dom.checks, &checkDesc{name: name, expr: expr, text: deparseExpr(expr)})
		validate = true
	case "X":
		kept := dom.checks[:0]
		for _, ck := range dom.checks {
			if ck.name != ad.Name {
				kept = append(kept, ck)
			}
		}
		if len(kept) == len(dom.checks) {
			if ad.MissingOk {
				d.notice(pgerror.SuccessfulCompletion, "constraint \"%s\" of domain \"%s\" does not exist, skipping", ad.Name, t.name)
				return nil
			}
			return pgerror.Newf(pgerror.UndefinedObject, "constraint \"%s\" of domain \"%s\" does not exist", ad.Name, t.name)
		}
		dom.checks = kept
		d.cat.setComment(constraintCommentKey(t.oid, ad.Name), "")
	case "V":
		found := false
		for _, ck := range dom.checks {
			found = found || ck.name == ad.Name
		}
		if !found {
			return pgerror.Newf(pgerror.UndefinedObject, "constraint \"%s\" of domain \"%s\" does not exist", ad.Name, t.name)
		}
		return nil // every constraint fickle holds is validated
	default:
		return pgerror.Unsupported("this form of ALTER DOMAIN")
	}
	if validate {
		if err := d.validateDomain(b, &t, ad.Subtype == "O"); err != nil {
			return err
		}
	}
	d.cat.schemas[t.schema].types[t.name] = &t
	return nil
}

// renameDomainConstraint runs ALTER DOMAIN name RENAME CONSTRAINT old TO
// new; the constraint's comment goes with it.
func (d *ddl) renameDomainConstraint(rs *pg_query.RenameStmt) error {
	old, err := d.domainOfConstraint(&pg_query.TypeName{Names: rs.Object.GetList().GetItems()})
	if err != nil {
		return err
	}
	if err := d.s.requireOwner(old.ownerRole(), "type", old.name); err != nil {
		return err
	}
	if findDomainCheck(old, rs.Subname) == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "constraint \"%s\" for domain %s does not exist", rs.Subname, old.name)
	}
	if findDomainCheck(old, rs.Newname) != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "constraint \"%s\" for domain %s already exists", rs.Newname, old.name)
	}
	dom := *old.domain
	dom.checks = make([]*checkDesc, len(old.domain.checks))
	for i, ck := range old.domain.checks {
		if ck.name == rs.Subname {
			renamed := *ck
			renamed.name = rs.Newname
			ck = &renamed
		}
		dom.checks[i] = ck
	}
	t := *old
	t.domain = &dom
	d.cat.schemas[t.schema].types[t.name] = &t
	if text, ok := d.cat.comments[constraintCommentKey(t.oid, rs.Subname)]; ok {
		d.cat.setComment(constraintCommentKey(t.oid, rs.Subname), "")
		d.cat.setComment(constraintCommentKey(t.oid, rs.Newname), text)
	}
	return nil
}

// validateDomain checks the values of every column of domain t (or of a
// domain over it) against t's constraints; nullsOnly reports NULLs only,
// as SET NOT NULL does.
func (d *ddl) validateDomain(b *binder, t *typeDesc, nullsOnly bool) error {
	check, err := b.domainCheckFor(t)
	if err != nil {
		return err
	}
	if col := d.cat.columnOfCompositeWith(t.oid); col != "" {
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot alter type \"%s\" because column \"%s\" uses it", t.name, col)
	}
	x := *d.x
	for _, tab := range sortedTables(d.cat) {
		for i, col := range tab.cols {
			if !d.cat.domainIsOver(col.domain, t.oid) {
				continue
			}
			if err := d.lockTable(tab, isolation.TableLockShare); err != nil {
				return err
			}
			err := d.scanRows(tab, func(row []any) error {
				v := row[i]
				if nullsOnly {
					if v == nil {
						return pgerror.Newf(pgerror.NotNullViolation, "column \"%s\" of table \"%s\" contains null values", col.name, tab.name)
					}
					return nil
				}
				if v == nil {
					return nil
				}
				if check(&x, v) != nil {
					return pgerror.Newf(pgerror.CheckViolation, "column \"%s\" of table \"%s\" contains values that violate the new constraint", col.name, tab.name)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// columnOfCompositeWith names a table column ("table.column") that holds
// values of domain oid (or of a domain over it) inside another type: an
// array of the domain, a composite type with an attribute of it, a domain
// over one of those, or arrays and composites of them in turn; "" when
// there is none. PostgreSQL does not check new domain constraints inside
// such columns but refuses the change (find_composite_type_dependencies),
// and so does fickle.
func (c *catalog) columnOfCompositeWith(oid uint32) string {
	holders := map[uint32]bool{}
	for _, sc := range c.schemas {
		for _, t := range sc.types {
			if t.domain != nil && t.array != 0 && c.domainIsOver(t.oid, oid) {
				holders[t.array] = true
			}
			for _, fd := range t.fieldDomains {
				if c.domainIsOver(fd, oid) {
					holders[t.oid] = true
				}
			}
		}
	}
	for grew := true; grew; {
		grew = false
		for _, sc := range c.schemas {
			for _, t := range sc.types {
				if holders[t.oid] {
					continue
				}
				held := t.domain != nil && c.typeHolds(t.domain.base, t.domain.parent, holders)
				for i, f := range t.fields {
					held = held || c.typeHolds(f.Type, t.fieldDomains[i], holders)
				}
				if held {
					holders[t.oid], grew = true, true
					if t.array != 0 {
						holders[t.array] = true
					}
				}
			}
		}
	}
	for _, tab := range sortedTables(c) {
		for _, col := range tab.cols {
			if c.typeHolds(col.typ, col.domain, holders) {
				return tab.name + "." + col.name
			}
		}
	}
	return ""
}

// domainIsOver reports whether domain oid is domain over, or a domain
// over it.
func (c *catalog) domainIsOver(oid, over uint32) bool {
	for oid != 0 {
		if oid == over {
			return true
		}
		t := c.typeByOid(oid)
		if t == nil || t.domain == nil {
			return false
		}
		oid = t.domain.parent
	}
	return false
}
