package sqlexec

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// The catalog rows of the user's enums, composite types and domains: their
// pg_type rows; a composite type is also a relation of kind 'c' with one
// pg_attribute row per field; a domain's CHECK constraints are
// pg_constraint rows naming it in contypid; and pg_depend ties them to
// what uses them. psql's \dT and \dD, pg_dump and ORMs' reflection read
// them.

// The input and binary input functions of every domain (domain_in,
// domain_recv): they check the domain's constraints, then call the base
// type's; output goes through the base type's own functions.
const oidDomainIn, oidDomainRecv = 2597, 2598

// The columns of pg_type rows, by place (typeCols in pgcatalog_builtin.go).
const (
	typColOID, typColName, typColNamespace, typColOwner        = 0, 1, 2, 3
	typColType, typColPreferred, typColRelid, typColSubscript  = 6, 8, 11, 12
	typColElem, typColArray, typColInput, typColReceive        = 13, 14, 15, 17
	typColModIn, typColModOut, typColNotNull, typColBaseType   = 19, 20, 24, 25
	typColTypmod, typColNDims, typColDefaultBin, typColDefault = 26, 27, 29, 30
	typColAlign                                                = 22
)

// The I/O and analyze functions of range and multirange types.
const (
	oidRangeIn, oidRangeOut, oidRangeRecv, oidRangeSend, oidRangeTypanalyze                          = 3834, 3835, 3836, 3837, 3916
	oidMultirangeIn, oidMultirangeOut, oidMultirangeRecv, oidMultirangeSend, oidMultirangeTypanalyze = 4231, 4232, 4233, 4234, 4242
)

// sortedUserTypes lists the catalog's enums, composite types and domains
// in OID order.
func sortedUserTypes(c *catalog) []*typeDesc {
	var out []*typeDesc
	for _, sc := range c.schemas {
		for _, t := range sc.types {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *typeDesc) int { return cmp.Compare(a.oid, b.oid) })
	return out
}

// userTypeRows are the pg_type rows of the user's types and their array
// types, domains last. A domain's row repeats its base type's storage and
// output columns, as CREATE DOMAIN copies them; other finds the row of a
// built-in type or a relation's row type. typacl, the last column, is what
// GRANT gave the type (NULL for an array type, which has no list).
func userTypeRows(s *Session, c *catalog, other func(oid uint32) []any) [][]any {
	var out [][]any
	byOID := map[uint32][]any{}
	add := func(row []any) {
		row[len(row)-1] = aclText(s, c, aclType, uint32(row[typColOID].(int64)))
		out = append(out, row)
		byOID[uint32(row[typColOID].(int64))] = row
	}
	ns, owner := func(t *typeDesc) int64 { return schemaOID(c, t.schema) }, func(t *typeDesc) int64 { return int64(t.ownerRole()) }
	array := func(t *typeDesc, align string) []any {
		return []any{int64(t.array), "_" + t.name, ns(t), owner(t), int64(-1), false, "b", "A", false, true, ",",
			int64(0), int64(arraySubscriptHandler), int64(t.oid), int64(0), int64(oidArrayIn), int64(oidArrayOut), int64(oidArrayRecv),
			int64(oidArraySend), int64(0), int64(0), int64(oidArrayTypanalyze), align, "x", false, int64(0), int64(-1), int64(0),
			int64(0), nil, nil, nil}
	}
	// A domain's OID comes from its cluster, an enum's or composite
	// type's from the process: the types under the domains go first.
	var domains, others []*typeDesc
	for _, t := range sortedUserTypes(c) {
		if t.domain != nil {
			domains = append(domains, t)
		} else {
			others = append(others, t)
		}
	}
	for _, t := range append(others, domains...) {
		switch {
		case t.enum != nil:
			add([]any{int64(t.oid), t.name, ns(t), owner(t), int64(4), true, "e", "E", false, true, ",",
				int64(0), int64(0), int64(0), int64(t.array), int64(oidEnumIn), int64(oidEnumOut), int64(oidEnumRecv),
				int64(oidEnumSend), int64(0), int64(0), int64(0), "i", "p", false, int64(0), int64(-1), int64(0), int64(0), nil, nil, nil})
			add(array(t, "i"))
		case t.domain != nil:
			base := uint32(t.domain.base.Oid)
			if t.domain.parent != 0 {
				base = t.domain.parent
			}
			under := byOID[base]
			if under == nil {
				under = other(base)
			}
			if under == nil {
				continue // over a type pg_type does not list
			}
			base = uint32(under[typColOID].(int64)) // a table's row type has two OIDs: pg_type's
			row := slices.Clone(under)
			row[typColOID], row[typColName], row[typColNamespace], row[typColOwner] = int64(t.oid), t.name, ns(t), owner(t)
			row[typColType], row[typColPreferred], row[typColRelid] = "d", false, int64(0)
			row[typColSubscript], row[typColElem], row[typColArray] = int64(0), int64(0), int64(t.array)
			row[typColInput], row[typColReceive] = int64(oidDomainIn), int64(oidDomainRecv)
			row[typColModIn], row[typColModOut] = int64(0), int64(0)
			row[typColNotNull], row[typColBaseType] = t.domain.notNull, int64(base)
			row[typColTypmod], row[typColNDims] = int64(-1), int64(0)
			if t.domain.parent == 0 {
				row[typColTypmod] = int64(t.domain.base.Typmod)
			}
			if t.domain.base.IsArray() && (t.domain.parent == 0 || c.isDomainArray(t.domain.parent)) {
				row[typColNDims] = int64(1)
			}
			row[typColDefaultBin], row[typColDefault] = nil, nil
			if t.domain.def != nil {
				bin := storedCoercion(t.domain.base.Oid, deparseExpr(t.domain.def))
				row[typColDefaultBin], row[typColDefault] = bin, decompile(s, c, bin, 0, false)
			}
			add(row)
			add(array(t, row[typColAlign].(string)))
		case t.rng != nil:
			align := "i"
			if sub := other(uint32(t.rng.sub.Oid)); sub != nil && sub[typColAlign] == "d" {
				align = "d"
			}
			kind, in, out, recv, send, analyze := "r", oidRangeIn, oidRangeOut, oidRangeRecv, oidRangeSend, oidRangeTypanalyze
			if t.rng.multi {
				kind, in, out, recv, send, analyze = "m", oidMultirangeIn, oidMultirangeOut, oidMultirangeRecv, oidMultirangeSend, oidMultirangeTypanalyze
			}
			add([]any{int64(t.oid), t.name, ns(t), owner(t), int64(-1), false, kind, "R", false, true, ",",
				int64(0), int64(0), int64(0), int64(t.array), int64(in), int64(out), int64(recv),
				int64(send), int64(0), int64(0), int64(analyze), align, "x", false, int64(0), int64(-1), int64(0), int64(0), nil, nil, nil})
			add(array(t, align))
		case t.citext:
			// text's row but for the names: fickle's citext has text's
			// I/O functions.
			text := other(uint32(types.OidText))
			if text == nil {
				continue
			}
			row := slices.Clone(text)
			row[typColOID], row[typColName], row[typColNamespace], row[typColOwner] = int64(t.oid), t.name, ns(t), owner(t)
			row[typColPreferred], row[typColArray] = false, int64(t.array)
			add(row)
			arr := array(t, "i")
			arr[len(arr)-4] = int64(oidDefaultCollation)
			add(arr)
		case t.hstore:
			if row := hstoreTypeRow(t, other(uint32(types.OidText))); row != nil {
				row[typColNamespace], row[typColOwner] = ns(t), owner(t)
				add(row)
				add(array(t, "i"))
			}
		case t.relid != 0:
			add([]any{int64(t.oid), t.name, ns(t), owner(t), int64(-1), false, "c", "C", false, true, ",",
				int64(t.relid), int64(0), int64(0), int64(t.array), int64(oidRecordIn), int64(oidRecordOut), int64(oidRecordRecv),
				int64(oidRecordSend), int64(0), int64(0), int64(0), "d", "x", false, int64(0), int64(-1), int64(0), int64(0), nil, nil, nil})
			add(array(t, "d"))
		}
	}
	return out
}

// compositeRelationRows are the pg_class rows of the composite types.
func compositeRelationRows(c *catalog) []relationRow {
	var out []relationRow
	for _, t := range sortedUserTypes(c) {
		if t.relid != 0 {
			out = append(out, relationRow{oid: t.relid, name: t.name, namespace: schemaOID(c, t.schema), kind: "c",
				rowType: int64(t.oid), tuples: -1, natts: t.natts(), owner: t.ownerRole()})
		}
	}
	return out
}

// compositeAttributeRows are the pg_attribute rows of the composite types'
// fields; a field declared with a domain names the domain, as a table's
// column does.
func compositeAttributeRows(c *catalog) [][]any {
	var out [][]any
	for _, t := range sortedUserTypes(c) {
		if t.relid == 0 {
			continue
		}
		for i, f := range t.fields {
			row := attributeRow(t.relid, f.Name, f.Type, int(t.attnum(i)), false, false, 0)
			if i < len(t.fieldDomains) && t.fieldDomains[i] != 0 {
				row[2] = int64(t.fieldDomains[i])
			}
			out = append(out, row)
		}
		for _, a := range t.dropped {
			// As RemoveAttributeById leaves it: renamed, without a type or
			// statistics target, its length, alignment and storage kept.
			row := attributeRow(t.relid, fmt.Sprintf("........pg.dropped.%d........", a.attnum), a.typ, int(a.attnum), false, false, 0)
			row[2], row[3], row[18] = int64(0), int64(0), true
			out = append(out, row)
		}
	}
	return out
}

// domainPrefix starts a stored domain CHECK expression, as "{domain OID}
// sql": VALUE in it is the value of domain OID that is checked.
const domainPrefix = "{domain "

// storedDomainCheck is pg_constraint.conbin of a CHECK of domain t.
func storedDomainCheck(t *typeDesc, ck *checkDesc) string {
	return domainPrefix + strconv.FormatUint(uint64(t.oid), 10) + "} " + ck.text
}

// domainOfStoredCheck splits a stored domain CHECK into its domain's OID
// and its SQL; ok is false for other stored expressions.
func domainOfStoredCheck(text string) (oid uint32, sql string, ok bool) {
	rest, ok := strings.CutPrefix(text, domainPrefix)
	if !ok {
		return 0, "", false
	}
	n, sql, found := strings.Cut(rest, "} ")
	id, err := strconv.ParseUint(n, 10, 32)
	if !found || err != nil {
		return 0, "", false
	}
	return uint32(id), sql, true
}

// domainConstraintRows are the pg_constraint rows of the domains' CHECK
// constraints (validated: fickle refuses NOT VALID ones). Their OIDs are
// synthesized from the domain's, as a table's constraints' are from the
// table's.
func domainConstraintRows(c *catalog) [][]any {
	var out [][]any
	for _, t := range sortedUserTypes(c) {
		if t.domain == nil {
			continue
		}
		for k, ck := range t.domain.checks {
			out = append(out, []any{int64(synthesizedOID(t.oid, k)), ck.name, schemaOID(c, t.schema), "c", false, false, true,
				int64(0), int64(t.oid), int64(0), int64(0), int64(0), " ", " ", " ", true, int64(0), false, nil, nil, nil, nil, nil,
				nil, nil, storedDomainCheck(t, ck)})
		}
	}
	return out
}

// domainCheckByOID finds the domain CHECK constraint with the OID.
func domainCheckByOID(c *catalog, oid uint32) (*typeDesc, *checkDesc) {
	if oid&0xC0000000 != 0xC0000000 {
		return nil, nil
	}
	t := c.typeByOid(oid &^ 0xC0000000 >> 6)
	if t == nil || t.domain == nil || int(oid&63) >= len(t.domain.checks) {
		return nil, nil
	}
	return t, t.domain.checks[oid&63]
}

// domainValueScope is the scope of a domain's CHECK expressions: VALUE,
// of the domain's base type, or of the domain it is over.
func domainValueScope(t *typeDesc) *scope {
	return &scope{cols: []scopeCol{{name: "value", typ: t.domain.base, knownType: true, knownDomain: t.domain.parent}}}
}

// userTypeOf is the pg_type OID of the user-defined type or table row type
// (or array of one) a column or field of type typ declared with domain (0
// for none) has, 0 for a built-in type.
func userTypeOf(c *catalog, typ types.Type, domain uint32) uint32 {
	if domain != 0 {
		return domain
	}
	if ut, _ := c.typeByOidOrArray(uint32(typ.Oid)); ut != nil {
		return uint32(typ.Oid)
	}
	if t, _ := c.tableOfRowType(uint32(typ.Oid)); t != nil {
		return uint32(typ.Oid)
	}
	return 0
}

// typeDependencyRows are the pg_depend rows of the user's types, as
// PostgreSQL records them: an array type and a composite type's relation
// on their type ('i'), a domain's CHECK on its domain ('a'), a domain on
// the user type under it, and each table column and composite field on
// the user type it has ('n'). pg_dump orders its CREATEs by them.
func typeDependencyRows(c *catalog) [][]any {
	var out [][]any
	dep := func(class, obj uint32, sub int, refClass, ref uint32, kind string) {
		out = append(out, []any{int64(class), int64(obj), int64(sub), int64(refClass), int64(ref), int64(0), kind})
	}
	for _, t := range sortedUserTypes(c) {
		if t.array != 0 {
			dep(oidPgType, t.array, 0, oidPgType, t.oid, "i")
		}
		if t.extension != 0 {
			// An extension's type is its member: pg_dump leaves it to
			// CREATE EXTENSION.
			dep(oidPgType, t.oid, 0, oidPgExtensionClass, t.extension, "e")
		}
		if t.relid != 0 {
			dep(oidPgClass, t.relid, 0, oidPgType, t.oid, "i")
			for i, f := range t.fields {
				var dom uint32
				if i < len(t.fieldDomains) {
					dom = t.fieldDomains[i]
				}
				if ut := userTypeOf(c, f.Type, dom); ut != 0 {
					dep(oidPgClass, t.relid, int(t.attnum(i)), oidPgType, ut, "n")
				}
			}
		}
		if t.domain == nil {
			continue
		}
		for k := range t.domain.checks {
			dep(oidPgConstraint, synthesizedOID(t.oid, k), 0, oidPgType, t.oid, "a")
		}
		if under := userTypeOf(c, t.domain.base, t.domain.parent); under != 0 {
			dep(oidPgType, t.oid, 0, oidPgType, under, "n")
		}
	}
	for _, t := range sortedTables(c) {
		for _, col := range t.cols {
			if ut := userTypeOf(c, col.typ, col.domain); ut != 0 {
				dep(oidPgClass, t.oid, int(col.attnum), oidPgType, ut, "n")
			}
		}
	}
	return out
}

// compositeOfRelation returns the composite type whose pg_class OID is
// relid, nil for none.
func compositeOfRelation(c *catalog, relid uint32) *typeDesc {
	if relid == 0 {
		return nil
	}
	for _, sc := range c.schemas {
		for _, t := range sc.types {
			if t.relid == relid {
				return t
			}
		}
	}
	return nil
}
