package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// USAGE on user-defined types, as PostgreSQL keeps it in pg_type.typacl:
// GRANT and REVOKE ON TYPE | DOMAIN edit a type's list (NULL until then:
// USAGE for PUBLIC and the owner), ALTER DEFAULT PRIVILEGES ... ON TYPES
// sets the list a new type starts with, and the statements that build a
// relation's columns or a routine's signature from a type need USAGE on it.
// Casts and PL/pgSQL variables do not, as in PostgreSQL. A true array type
// has no list of its own: its element type's decides.

// aclTypeOID is the OID whose list decides the privileges on type oid: its
// element type's for an array of a user-defined type, else its own.
func aclTypeOID(c *catalog, oid uint32) uint32 {
	if t, array := c.typeByOidOrArray(oid); t != nil && array {
		return t.oid
	}
	return oid
}

// requireTypeUsage fails with PostgreSQL's 42501 unless the current role
// holds USAGE on the type of OID oid (a domain's OID for a domain), or on
// its element type for an array, as PostgreSQL checks the types of new
// columns, attributes and routine signatures. Built-in types always pass:
// their privileges cannot be changed in fickle.
func (s *Session) requireTypeUsage(c *catalog, oid uint32) error {
	t, _ := c.typeByOidOrArray(oid)
	if t == nil || s.hasPrivilege(s.currentRole(), aclType, t.oid, []byte("U")) {
		return nil
	}
	name, _ := catalogNames{s: s, cat: c}.typeName(t.oid, -1)
	return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for type %s", name)
}

// requireColumnTypeUsage is requireTypeUsage for a column of the type of
// OID typOID declared with domain dom (0 for none: typOID decides).
func (s *Session) requireColumnTypeUsage(c *catalog, typOID, dom uint32) error {
	if dom != 0 {
		typOID = dom
	}
	return s.requireTypeUsage(c, typOID)
}

// requireTypeNameUsage is requireTypeUsage for the type tn names, which
// resolved to the type of OID typOID (a domain's base type).
func (b *binder) requireTypeNameUsage(tn *pg_query.TypeName, typOID uint32) error {
	var dom uint32
	if d := b.domainNamed(&pg_query.TypeName{Names: tn.Names}); d != nil && len(tn.ArrayBounds) == 0 {
		dom = d.oid
	}
	return b.s.requireColumnTypeUsage(b.catalogNow(), typOID, dom)
}

// grantTypes resolves the types a GRANT or REVOKE ON TYPE | DOMAIN names,
// with PostgreSQL's errors for an array type and, ON DOMAIN, for a type
// that is not a domain. Built-in types and the row types of tables keep
// their privileges: changing them is refused.
func (d *ddl) grantTypes(gs *pg_query.GrantStmt, n *pg_query.Node) (aclObject, error) {
	var names []*pg_query.Node
	if l := n.GetList(); l != nil {
		names = l.Items
	} else {
		names = []*pg_query.Node{n}
	}
	b := d.binder("")
	tn := &pg_query.TypeName{Names: names, Location: -1}
	arrayErr := pgerror.New(pgerror.InvalidGrantOperation, "cannot set privileges of array types").
		WithHint("Set the privileges of the element type instead.")
	typ, err := b.typeName(tn)
	if err != nil {
		// A user-defined type's array type, by its name _type, which
		// fickle's type names do not resolve.
		parts := strs(names)
		last := parts[len(parts)-1]
		if elem, ok := strings.CutPrefix(last, "_"); ok && len(parts) <= 2 {
			if t := d.s.lookupType(d.cat, strings.Join(parts[:len(parts)-1], ""), elem); t != nil && t.array != 0 {
				return aclObject{}, arrayErr
			}
		}
		return aclObject{}, err
	}
	t, array := d.cat.typeByOidOrArray(uint32(typ.Oid))
	if dom := b.domainNamed(tn); dom != nil {
		t, array = dom, false
	}
	if array || typ.IsArray() {
		return aclObject{}, arrayErr
	}
	if t == nil {
		return aclObject{}, pgerror.Unsupported("GRANT and REVOKE on built-in types and the row types of tables")
	}
	if gs.Objtype == pg_query.ObjectType_OBJECT_DOMAIN && t.domain == nil {
		return aclObject{}, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a domain", t.name)
	}
	return aclObject{aclType, t.oid}, nil
}

// applyTypeDefaultACL gives type t, just created, the list the default
// privileges on types set for its owner and schema. Array types and the
// row types of tables get none, as in PostgreSQL.
func (d *ddl) applyTypeDefaultACL(t *typeDesc) {
	d.applyDefaultACL(aclType, t.oid, t.ownerRole(), uint32(schemaOID(d.cat, t.schema)))
}

// requireColumnsTypeUsage checks USAGE on the types of every column of
// table t, which the statement creates: the columns it copies (LIKE,
// INHERITS, PARTITION OF) or derives from a query (CREATE TABLE AS) need it
// as the ones it declares do.
func (d *ddl) requireColumnsTypeUsage(t *tableDesc) error {
	for _, col := range t.cols {
		if err := d.s.requireColumnTypeUsage(d.cat, uint32(col.typ.Oid), col.domain); err != nil {
			return err
		}
	}
	return nil
}
