package sqlexec

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// compositeOIDs numbers composite types and their array types apart from
// every cluster's other objects: package types keeps their definitions in
// one registry for the process, and several clusters (tests, fickletest,
// explore's runs) may share a process, where each cluster's own counter
// would give two of them the same OIDs.
var compositeOIDs atomic.Uint32

func init() { compositeOIDs.Store(1 << 30) }

// registerComposite gives package types a composite type's fields, each
// with the domain it was declared with (domains parallel to fields, 0 for
// none).
func registerComposite(oid, array uint32, name string, fields []types.Field, domains []uint32) {
	fields = slices.Clone(fields)
	for i := range fields {
		if i < len(domains) {
			fields[i].Domain = types.Oid(domains[i])
		}
	}
	types.RegisterComposite(types.Oid(oid), types.Oid(array), name, fields)
}

// newCompositeOID returns an OID no other composite type, and no object of
// any cluster, has.
func newCompositeOID() uint32 { return compositeOIDs.Add(1) - 1 }

// User-defined types: composite types (CREATE TYPE name AS (...)) and
// domains (ddl_domains.go). A type
// lives in a schema beside its tables, under a name no relation of the
// schema has (a composite type is a relation of kind 'c' in PostgreSQL).
// Its OID is its types.Type's OID; package types learns its fields from
// types.RegisterComposite when the type is created.

// typeDesc describes a user-defined type: a composite type (fields) or a
// domain (domain set).
type typeDesc struct {
	oid    uint32
	schema string
	name   string
	fields []types.Field
	// fieldDomains holds, per field, the domain the field was declared
	// with (nil for none); fields holds its base type.
	fieldDomains []uint32
	domain       *domainDesc
	// enum is an enum type's labels (ddl_enums.go).
	enum *enumType
	// rng is a range or multirange type's subtype and pair (ddl_ranges.go).
	rng *rangeDesc
	// array is the OID of the type's array type (for a domain, see
	// domainArrayType).
	array uint32
	// relid is a composite type's pg_class OID (relkind 'c'), which its
	// pg_attribute rows hang off; 0 for other types.
	relid uint32
	// citext marks the citext extension's type (extension_citext.go), of
	// extension extension.
	citext bool
	// hstore marks the hstore extension's type (extension_hstore.go).
	hstore    bool
	extension uint32
	// owner is the role that created the type (or was given it by ALTER
	// ... OWNER TO); 0 for the bootstrap superuser.
	owner uint32
	// attnums are a composite type's fields' pg_attribute numbers, nil
	// while they are 1, 2, ...; dropped are the numbers of the attributes
	// ALTER TYPE ... DROP ATTRIBUTE removed, whose pg_attribute rows
	// PostgreSQL keeps (ddl_alter_composite.go).
	attnums []int16
	dropped []droppedAttr
}

// droppedAttr is an attribute DROP ATTRIBUTE removed from a composite type:
// its number and the type it had, which its pg_attribute row keeps.
type droppedAttr struct {
	attnum int16
	typ    types.Type
}

// attnum is the pg_attribute number of t's field i.
func (t *typeDesc) attnum(i int) int16 {
	if t.attnums == nil {
		return int16(i + 1)
	}
	return t.attnums[i]
}

// natts is pg_class.relnatts of composite type t: its fields and the
// attributes dropped from it.
func (t *typeDesc) natts() int { return len(t.fields) + len(t.dropped) }

// ownerRole is the OID of the role that owns t: pg_type.typowner, and the
// role DROP and ALTER of the type need.
func (t *typeDesc) ownerRole() uint32 {
	if t.owner == 0 {
		return oidBootstrapSuperuser
	}
	return t.owner
}

// typ is the type the values of t have: a domain's base type.
func (t *typeDesc) typ() types.Type {
	if t.domain != nil {
		return t.domain.base
	}
	return types.Type{Oid: types.Oid(t.oid), Typmod: -1}
}

// lookupType finds a user-defined type by optional schema and name along
// the search path; nil when there is none.
func (s *Session) lookupType(c *catalog, schema, name string) *typeDesc {
	if schema != "" {
		if sc := c.schemas[s.schemaAlias(schema)]; sc != nil {
			return sc.types[name]
		}
		return nil
	}
	for _, p := range s.searchPath() {
		if sc := c.schemas[p]; sc != nil {
			if t := sc.types[name]; t != nil {
				return t
			}
		}
	}
	return nil
}

// typeByOidOrArray returns the user-defined type with the OID or whose
// array type has it (array true); nil when there is none.
func (c *catalog) typeByOidOrArray(oid uint32) (t *typeDesc, array bool) {
	for _, sc := range c.schemas {
		for _, t := range sc.types {
			if t.oid == oid || t.array == oid && oid != 0 {
				return t, t.array == oid
			}
		}
	}
	return nil, false
}

// typeByOid returns the user-defined type with the OID, or nil.
func (c *catalog) typeByOid(oid uint32) *typeDesc {
	for _, sc := range c.schemas {
		for _, t := range sc.types {
			if t.oid == oid {
				return t
			}
		}
	}
	return nil
}

// userType resolves a type name to a user-defined type of the binder's
// catalog; ok is false when none has the name.
func (b *binder) userType(names []string) (types.Type, bool) {
	cat := b.catalogNow()
	var t *typeDesc
	switch len(names) {
	case 1:
		t = b.s.lookupTypeOrRowType(cat, "", names[0])
	case 2:
		t = b.s.lookupTypeOrRowType(cat, names[0], names[1])
	}
	if t == nil {
		return types.Type{}, false
	}
	return t.typ(), true
}

// createCompositeType runs CREATE TYPE name AS (field type, ...).
func (d *ddl) createCompositeType(cs *pg_query.CompositeTypeStmt) error {
	rv := cs.Typevar
	schema, err := d.creationSchema(rv.Schemaname)
	if err != nil {
		return err
	}
	if d.relationExists(schema, rv.Relname) {
		return pgerror.Newf(pgerror.DuplicateObject, "type \"%s\" already exists", rv.Relname)
	}
	if err := d.checkTablespace("", isTempSchema(schema), false); err != nil {
		return err
	}
	b := d.binder("")
	t := &typeDesc{oid: newCompositeOID(), array: newCompositeOID(), relid: d.cat.newOID(), schema: schema, name: rv.Relname, owner: d.s.currentRole()}
	seen := map[string]bool{}
	for _, n := range cs.Coldeflist {
		cd := n.GetColumnDef()
		if cd == nil {
			return pgerror.Unsupported("this form of CREATE TYPE")
		}
		if seen[cd.Colname] {
			return pgerror.Newf(pgerror.DuplicateColumn, "column \"%s\" specified more than once", cd.Colname)
		}
		seen[cd.Colname] = true
		if len(cd.Constraints) > 0 || cd.CollClause != nil {
			return pgerror.Unsupported("constraints and collations of composite type attributes")
		}
		ft, fd, err := b.declaredType(cd.TypeName)
		if err != nil {
			return err
		}
		var dom uint32
		if fd != nil {
			dom = fd.oid
		}
		if err := d.s.requireColumnTypeUsage(d.cat, uint32(ft.Oid), dom); err != nil {
			return err
		}
		t.fieldDomains = append(t.fieldDomains, dom)
		if ft.Oid == types.OidUnknown || ft.Oid == types.OidRecord {
			return pgerror.Newf(pgerror.InvalidTableDefinition, "column \"%s\" has pseudo-type %s", cd.Colname, ft)
		}
		t.fields = append(t.fields, types.Field{Name: cd.Colname, Type: ft})
	}
	registerComposite(t.oid, t.array, t.name, t.fields, t.fieldDomains)
	d.cat.schemas[schema].types[t.name] = t
	d.applyTypeDefaultACL(t)
	return nil
}

// dropTypes runs DROP TYPE. A type that a column or another type uses is
// kept (2BP01); CASCADE, which would drop those columns, is refused.
func (d *ddl) dropTypes(ds *pg_query.DropStmt) error {
	return d.dropNamedTypes(ds, "DROP TYPE", func(tn *pg_query.TypeName) *typeDesc {
		names := strs(tn.Names)
		switch len(names) {
		case 1:
			return d.s.lookupType(d.cat, "", names[0])
		case 2:
			return d.s.lookupType(d.cat, names[0], names[1])
		}
		return nil
	})
}

// dropNamedTypes drops the types a DROP TYPE or DROP DOMAIN names, found by
// lookup: a name that finds none is 42704, or a NOTICE under IF EXISTS.
func (d *ddl) dropNamedTypes(ds *pg_query.DropStmt, stmt string, lookup func(*pg_query.TypeName) *typeDesc) error {
	var drop []*typeDesc
	for _, o := range ds.Objects {
		tn := o.GetTypeName()
		if tn == nil {
			return pgerror.Unsupported("this form of " + stmt)
		}
		t := lookup(tn)
		if t == nil {
			shown := strings.Join(strs(tn.Names), ".")
			if ds.MissingOk {
				d.notice(pgerror.SuccessfulCompletion, "type \"%s\" does not exist, skipping", shown)
				continue
			}
			return pgerror.Newf(pgerror.UndefinedObject, "type \"%s\" does not exist", shown)
		}
		if err := d.s.requireOwner(t.ownerRole(), "type", t.name); err != nil {
			return err
		}
		if err := d.extensionMemberType(t); err != nil {
			return err
		}
		drop = append(drop, t)
	}
	drop, err := d.withRangePairs(drop)
	if err != nil {
		return err
	}
	return d.dropUserTypes(drop, ds.Behavior == pg_query.DropBehavior_DROP_CASCADE)
}

// usesType reports whether a value of type ft (or an array of them), of
// domain dom (0 for none), is of type t.
func usesType(t *typeDesc, ft types.Type, dom uint32) bool {
	if e, ok := ft.Elem(); ok {
		ft = e
	}
	return dom == t.oid || t.domain != nil && t.array != 0 && dom == t.array || t.domain == nil && uint32(ft.Oid) == t.oid
}

// routineUsesType reports whether f returns or takes a value of type t.
func routineUsesType(f *funcDesc, t *typeDesc) bool {
	return usesType(t, f.result, f.resultDom.oid) || slices.ContainsFunc(f.params, func(p funcParam) bool { return usesType(t, p.typ, p.dom.oid) })
}

// dropTypedRoutines drops, for DROP ... CASCADE, the routines that return
// or take values of type t, and what depends on them, and returns the
// lines of PostgreSQL's notice that name the routines.
func (d *ddl) dropTypedRoutines(t *typeDesc) ([]string, error) {
	var fs []*funcDesc
	for _, sc := range d.cat.schemas {
		for _, overloads := range sc.funcs {
			for _, f := range overloads {
				if routineUsesType(f, t) {
					fs = append(fs, f)
				}
			}
		}
	}
	slices.SortFunc(fs, func(a, b *funcDesc) int { return cmp.Compare(a.oid, b.oid) })
	dropping := map[*funcDesc]bool{}
	for _, f := range fs {
		dropping[f] = true
	}
	var lines []string
	for _, f := range fs {
		if err := d.checkRoutineDependents(f, dropping, true); err != nil {
			return nil, err
		}
		d.removeRoutine(f)
		lines = append(lines, f.kindName()+" "+f.objectSignature())
	}
	return lines, nil
}

// dropUserTypes drops types that nothing outside them uses.
func (d *ddl) dropUserTypes(drop []*typeDesc, cascade bool) error {
	dropping := map[uint32]bool{}
	for _, t := range drop {
		dropping[t.oid] = true
	}
	// lines name what CASCADE drops besides the types named, in one
	// notice: the domains and range types over them, the routines.
	var lines []string
	if cascade {
		drop = d.cat.withDependentDomains(drop)
		for _, t := range drop {
			if (t.domain != nil || t.rng != nil && !t.rng.multi) && !dropping[t.oid] {
				lines = append(lines, "type "+d.s.visibleName(t.schema, t.name))
			}
			dropping[t.oid] = true
		}
	}
	for _, t := range drop {
		if cascade {
			if err := d.dropTypedColumns(t, nil); err != nil {
				return err
			}
			fs, err := d.dropTypedRoutines(t)
			if err != nil {
				return err
			}
			lines = append(lines, fs...)
		}
		if deps := d.cat.typeDependentsOf(t, dropping, d.s.visibleName); len(deps) > 0 {
			if cascade {
				return pgerror.Unsupported("DROP ... CASCADE of a type that " + deps[0].text + " depends on")
			}
			named := t
			if t.rng != nil && t.rng.multi {
				named = d.cat.typeByOid(t.rng.pair)
			}
			lines := make([]string, len(deps))
			for i, dep := range deps {
				lines[i] = dep.text + " depends on type " + d.s.visibleName(t.schema, t.name)
				if dep.array {
					lines[i] += "[]"
				}
			}
			return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop type %s because other objects depend on it", d.s.visibleName(named.schema, named.name)).
				WithDetail("%s", strings.Join(lines, "\n")).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
	}
	d.cascadeNotice(lines)
	for _, t := range drop {
		if t.rng != nil && !t.rng.multi {
			oid := types.Oid(t.oid)
			d.onCommit = append(d.onCommit, func() { types.UnregisterRangeNames(oid) })
		}
		delete(d.cat.schemas[t.schema].types, t.name)
		delete(d.cat.acls, aclKey{kind: aclType, oid: t.oid})
		d.cat.dropComments(t.oid)
		if t.array != 0 {
			d.cat.dropComments(t.array)
		}
	}
	return nil
}

// withDependentDomains returns types and the domains and range types over
// them (or over those, ...), a range type with its multirange type, which
// DROP ... CASCADE drops too.
func (c *catalog) withDependentDomains(types []*typeDesc) []*typeDesc {
	seen := map[uint32]bool{}
	for _, t := range types {
		seen[t.oid] = true
		if t.domain != nil && t.array != 0 {
			seen[t.array] = true // a domain over an array of a domain goes too
		}
	}
	for grew := true; grew; {
		grew = false
		for _, sc := range c.schemas {
			names := make([]string, 0, len(sc.types))
			for n := range sc.types {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				t := sc.types[n]
				if r := t.rng; r != nil && !r.multi && !seen[t.oid] {
					sub := r.sub
					if e, ok := sub.Elem(); ok {
						sub = e
					}
					if seen[uint32(sub.Oid)] {
						seen[t.oid], seen[r.pair], grew = true, true, true
						types = append(types, t, c.typeByOid(r.pair))
					}
					continue
				}
				if t.domain == nil || seen[t.oid] {
					continue
				}
				base := t.domain.base
				if e, ok := base.Elem(); ok {
					base = e
				}
				if seen[t.domain.parent] || seen[uint32(base.Oid)] {
					seen[t.oid], grew = true, true
					if t.array != 0 {
						seen[t.array] = true
					}
					types = append(types, t)
				}
			}
		}
	}
	return types
}

// dropTypedColumns drops the table columns of type t (or of an array of
// it, or of a domain over it), as DROP TYPE ... CASCADE does, but those of
// the tables in dropping, which go whole.
func (d *ddl) dropTypedColumns(t *typeDesc, dropping map[uint32]bool) error {
	typed := map[uint32][]string{}
	for _, tab := range sortedTables(d.cat) {
		if dropping[tab.oid] || tab.matview != nil {
			continue // a materialized view goes whole (typeDependent)
		}
		for _, col := range tab.cols {
			elem := col.typ
			if e, ok := elem.Elem(); ok {
				elem = e
			}
			if d.cat.domainIsOver(col.domain, t.oid) || t.domain == nil && uint32(elem.Oid) == t.oid || t.domain != nil && t.array != 0 && col.domain == t.array {
				typed[tab.oid] = append(typed[tab.oid], col.name)
			}
		}
	}
	// A partition key cannot lose a column: its table goes, partitions
	// included, before the other tables lose theirs.
	for _, tab := range sortedTables(d.cat) {
		if slices.ContainsFunc(typed[tab.oid], tab.part.keyColumn) {
			d.notice(pgerror.SuccessfulCompletion, "drop cascades to table %s", d.s.visibleName(tab.schema, tab.name))
			if err := d.dropTables([]*tableDesc{tab}, true); err != nil {
				return err
			}
		}
	}
	for _, tab := range sortedTables(d.cat) {
		cols := typed[tab.oid]
		if len(cols) == 0 {
			continue
		}
		if err := d.lockTable(tab, isolation.TableLockAccessExclusive); err != nil {
			return err
		}
		nt := tab.clone()
		for _, name := range cols {
			d.notice(pgerror.SuccessfulCompletion, "drop cascades to column %s of table %s", name, d.s.visibleName(tab.schema, tab.name))
			if err := d.dropColumn(nt, &pg_query.AlterTableCmd{Name: name, Behavior: pg_query.DropBehavior_DROP_CASCADE}); err != nil {
				return err
			}
		}
		d.cat.putTable(nt)
	}
	return nil
}

// typeDependent names the first object outside dropping (types and
// tables) that uses type t: a table's column (the table when its partition key uses the column), a
// composite type's attribute (directly or as an array's element) or a
// domain over it; "" when none does. name prints an object's name in
// its schema as the description should (Session.visibleName).
func (c *catalog) typeDependent(t *typeDesc, dropping map[uint32]bool, name func(schema, name string) string) string {
	if deps := c.typeDependents(t, dropping, name); len(deps) > 0 {
		return deps[0]
	}
	return ""
}

// typeDependents names every object outside dropping that uses type t,
// as typeDependent does, in the order PostgreSQL's DETAIL lists them.
func (c *catalog) typeDependents(t *typeDesc, dropping map[uint32]bool, name func(schema, name string) string) []string {
	deps := c.typeDependentsOf(t, dropping, name)
	out := make([]string, len(deps))
	for i, d := range deps {
		out[i] = d.text
	}
	return out
}

// typeDependent is an object that uses a type: its description and
// whether it uses the type's array type (PostgreSQL's DETAIL then says it
// depends on "type[]").
type typeDependent struct {
	text  string
	array bool
}

// typeDependentsOf lists the objects outside dropping that use type t in
// the order PostgreSQL's DETAIL lists them: the order they were made in
// (their OIDs), a table's columns in its order.
func (c *catalog) typeDependentsOf(t *typeDesc, dropping map[uint32]bool, name func(schema, name string) string) []typeDependent {
	var viaArray bool
	uses := func(ft types.Type, dom uint32) bool {
		used := usesType(t, ft, dom)
		viaArray = used && (dom == 0 && ft.IsArray() || dom != 0 && dom == t.array)
		return used
	}
	type dependent struct {
		oid uint32
		sub int
		typeDependent
	}
	var deps []dependent
	add := func(oid uint32, sub int, text string) {
		deps = append(deps, dependent{oid, sub, typeDependent{text, viaArray}})
		viaArray = false
	}
	for schema, sc := range c.schemas {
		for _, v := range sc.views {
			if !dropping[v.oid] && slices.Contains(v.types, t.oid) {
				add(v.oid, 0, "view "+name(schema, v.name))
			}
		}
		for _, tab := range sc.tables {
			if dropping[tab.oid] {
				continue
			}
			if tab.matview != nil {
				// It depends on the type as a whole, through its query or
				// its columns.
				if slices.Contains(tab.matview.types, t.oid) || slices.ContainsFunc(tab.cols, func(col *columnDesc) bool { return uses(col.typ, col.domain) }) {
					viaArray = false
					add(tab.oid, 0, "materialized view "+name(schema, tab.name))
				}
				continue
			}
			for _, col := range tab.cols {
				switch {
				case !uses(col.typ, col.domain):
				case tab.part.keyColumn(col.name):
					add(tab.oid, 0, "table "+name(schema, tab.name))
				default:
					add(tab.oid, int(col.attnum), "column "+col.name+" of table "+name(schema, tab.name))
				}
			}
		}
		for _, other := range sc.types {
			if dropping[other.oid] {
				continue
			}
			for i, f := range other.fields {
				if uses(f.Type, other.fieldDomains[i]) {
					add(other.oid, i+1, "column "+f.Name+" of composite type "+name(schema, other.name))
				}
			}
			if dom := other.domain; dom != nil && uses(dom.base, dom.parent) {
				add(other.oid, 0, "type "+name(schema, other.name))
			}
			if r := other.rng; r != nil && !r.multi && uses(r.sub, 0) {
				add(other.oid, 0, "type "+name(schema, other.name))
			}
		}
		for _, fs := range sc.funcs {
			for _, f := range fs {
				if routineUsesType(f, t) && (f.extension == 0 || f.extension != t.extension) {
					add(f.oid, 0, f.kindName()+" "+f.objectSignature())
				}
			}
		}
	}
	for _, oc := range opclassesOverType(c, t.oid) {
		add(oc.oid, 0, "operator class "+name(oc.schema, oc.name)+" for access method "+oc.method)
	}
	slices.SortFunc(deps, func(a, b dependent) int {
		return cmp.Or(cmp.Compare(a.oid, b.oid), cmp.Compare(a.sub, b.sub), strings.Compare(a.text, b.text))
	})
	out := make([]typeDependent, len(deps))
	for i, d := range deps {
		out[i] = d.typeDependent
	}
	return slices.Compact(out)
}
