package sqlexec

import (
	"maps"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// citext 1.6: CREATE EXTENSION citext creates the type citext and its
// array type in the extension's schema (package types implements them:
// types/citext.go); DROP EXTENSION drops them, refusing (2BP01) while a
// column, a domain, a composite type or a routine uses them.

func init() {
	registerExtension(&availableExtension{name: "citext", version: "1.6", library: "citext", relocatable: true,
		comment: "data type for case-insensitive character strings", createTypes: createCitextType,
		otherVersions: []string{"1.4", "1.5"}})
}

// createCitextType creates ext's type citext in schema.
func createCitextType(d *ddl, schema string, ext *extensionDesc) error {
	if d.cat.schemas[schema].types["citext"] != nil || d.relationExists(schema, "citext") {
		return pgerror.Newf(pgerror.DuplicateObject, "type \"citext\" already exists")
	}
	t := &typeDesc{oid: newCompositeOID(), array: newCompositeOID(), schema: schema, name: "citext", citext: true,
		extension: ext.oid, owner: d.s.currentRole()}
	types.RegisterCitext(types.Oid(t.oid), types.Oid(t.array), t.name)
	d.cat.schemas[schema].types[t.name] = t
	return nil
}

// extensionTypes lists ext's types.
func (d *ddl) extensionTypes(ext *extensionDesc) []*typeDesc {
	var out []*typeDesc
	for _, t := range d.cat.schemas[ext.schema].types {
		if t.extension == ext.oid {
			out = append(out, t)
		}
	}
	return out
}

// dropExtensionTypes drops ext's types, or names (as the lines of 2BP01's
// detail) what uses them. CASCADE drops the table columns of the types
// (or arrays of them); it is refused when anything else uses them (a
// domain, a composite type, a routine) or a column is a partition key.
func (d *ddl) dropExtensionTypes(ext *extensionDesc, cascade bool) ([]string, error) {
	ts := d.extensionTypes(ext)
	var details, lines []string
	cols := map[uint32][]string{}
	for _, t := range ts {
		for _, tab := range sortedTables(d.cat) {
			for _, col := range tab.cols {
				name := t.name
				switch {
				case col.domain != 0:
					continue
				case uint32(col.typ.Oid) == t.array:
					name += "[]"
				case uint32(col.typ.Oid) != t.oid:
					continue
				}
				if cascade && tab.part.keyColumn(col.name) {
					return nil, pgerror.Unsupported("DROP EXTENSION ... CASCADE of a type a partition key uses")
				}
				details = append(details, "column "+col.name+" of table "+tab.name+" depends on type "+name)
				lines = append(lines, "column "+col.name+" of table "+tab.name)
				cols[tab.oid] = append(cols[tab.oid], col.name)
			}
		}
		if v := d.viewUsingType(t); v != "" {
			return nil, pgerror.Unsupported("DROP EXTENSION " + ext.name + " while view " + v + " may use its type")
		}
		dropping := map[uint32]bool{}
		for oid := range cols {
			dropping[oid] = true
		}
		if dep := d.cat.typeDependent(t, dropping, d.s.visibleName); dep != "" {
			if cascade {
				return nil, pgerror.Unsupported("DROP EXTENSION ... CASCADE of a type that " + dep + " uses")
			}
			details = append(details, dep+" depends on type "+t.name)
		}
	}
	slices.Reverse(details)
	slices.Reverse(lines)
	if len(details) > 0 && !cascade {
		return details, nil
	}
	d.cascadeNotice(lines)
	for _, tab := range sortedTables(d.cat) {
		names := cols[tab.oid]
		if len(names) == 0 {
			continue
		}
		if err := d.lockTable(tab, isolation.TableLockAccessExclusive); err != nil {
			return nil, err
		}
		nt := tab.clone()
		for _, name := range names {
			if err := d.dropColumn(nt, &pg_query.AlterTableCmd{Name: name, Behavior: pg_query.DropBehavior_DROP_CASCADE}); err != nil {
				return nil, err
			}
		}
		d.cat.putTable(nt)
	}
	for _, t := range ts {
		delete(d.cat.schemas[t.schema].types, t.name)
		d.cat.dropComments(t.oid)
		d.cat.dropComments(t.array)
	}
	return nil, nil
}

// citextSetFunc is fn, regexp_matches or regexp_split_to_table, as a call
// with args resolves it where citext is among the arguments' types: the
// built-in function, or the extension's overload over (citext, citext [,
// text]), which calls it with the flags 'i' added unless they say 'c'.
func (b *binder) citextSetFunc(name string, fn *setFunc, args []*scalar) (*setFunc, error) {
	var ct types.Type
	inputs := make([]types.Type, len(args))
	for i, a := range args {
		inputs[i] = a.typ
		if a.typ.IsCitext() {
			ct = a.typ
		}
	}
	if ct.Oid == 0 {
		return fn, nil
	}
	text := types.Text
	overloads := [][]types.Type{{text, text}, {text, text, text}, {ct, ct}, {ct, ct, text}}
	chosen, err := types.ChooseOverload(name, inputs, overloads)
	if err != nil {
		return nil, err
	}
	if chosen < 2 {
		return fn, nil
	}
	if err := b.citextOutOfPath(ct); err != nil {
		return nil, err
	}
	rows := fn.rows
	withFlags := *fn
	withFlags.rows = func(x *execCtx, vals []any) ([][]any, error) { return rows(x, types.CitextRegexArgs(vals)) }
	return &withFlags, nil
}

// citextOutOfPath refuses a call of citext's operators, functions or
// aggregates (one declared over the argument types declared) when the
// extension's schema is not on the session's search_path: PostgreSQL
// then does not see them and resolves the call over text, case-sensitive,
// through the implicit cast, which fickle does not do.
func (b *binder) citextOutOfPath(declared ...types.Type) *pgerror.Error {
	for _, t := range declared {
		if !t.IsCitext() {
			continue
		}
		td := b.catalogNow().typeByOid(uint32(t.Oid))
		if td == nil || slices.Contains(b.s.searchPath(), td.schema) {
			continue
		}
		return pgerror.Unsupported("the citext extension's operators and functions of schema \"" + td.schema + "\", which is not on search_path,")
	}
	return nil
}

// extensionMemberType refuses DROP TYPE of an extension's type (2BP01),
// which only DROP EXTENSION drops.
func (d *ddl) extensionMemberType(t *typeDesc) error {
	if t.extension == 0 {
		return nil
	}
	for _, ext := range d.cat.extensions {
		if ext.oid != t.extension {
			continue
		}
		name := t.name
		if !slices.Contains(d.s.searchPath(), t.schema) {
			name = types.QuoteIdent(t.schema) + "." + types.QuoteIdent(t.name)
		}
		return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop type %s because extension %s requires it", name, ext.name).
			WithHint("You can drop extension %s instead.", ext.name)
	}
	return nil
}

// visibleCitext is the citext type of the catalog on the session's
// search_path; ok is false when the extension is not installed there.
func (b *binder) visibleCitext() (types.Type, bool) {
	cat := b.catalogNow()
	for _, schema := range b.s.searchPath() {
		if sc := cat.schemas[schema]; sc != nil {
			if t := sc.types["citext"]; t != nil && t.citext {
				return t.typ(), true
			}
		}
	}
	return types.Type{}, false
}

// viewUsingType names a view (or materialized view) that may use type t:
// one with a column of it, or whose query names it; "" for none. fickle
// does not record, as PostgreSQL does, which operators and functions a
// view's query calls.
func (d *ddl) viewUsingType(t *typeDesc) string {
	for _, sc := range sortedSchemas(d.cat) {
		for _, name := range slices.Sorted(maps.Keys(sc.views)) {
			v := sc.views[name]
			uses := slices.ContainsFunc(v.cols, func(c viewCol) bool {
				return uint32(c.typ.Oid) == t.oid || uint32(c.typ.Oid) == t.array
			})
			walk(v.query, func(n *pg_query.Node) bool {
				tn := n.GetTypeName()
				if tc := n.GetTypeCast(); tc != nil {
					tn = tc.TypeName
				}
				if tn != nil && strings.EqualFold(lastName(tn.Names), t.name) {
					uses = true
				}
				return !uses
			})
			if uses {
				return v.name
			}
		}
	}
	return ""
}
