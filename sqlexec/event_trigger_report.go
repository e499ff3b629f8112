package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// What pg_event_trigger_ddl_commands() and
// pg_event_trigger_dropped_objects() report, worked out from the catalogs
// a command started and ended with. PostgreSQL lists the objects a DROP
// removes in the order its dependency walk deletes them (findDependentObjects
// orders an object's dependents by OID), and the commands a CREATE ran
// in the order transformCreateStmt split it into; where fickle cannot tell
// that order or an object's identity, the functions refuse rather than
// report another list.

// objRef names one object of a catalog for the comparison of two.
type objRef struct {
	kind string
	oid  uint32
	sub  int32
}

// catalogObjects are the objects of c whose removal a DROP reports; the
// counts of a table's constraints stand for them (they have no OIDs
// fickle keeps).
func catalogObjects(c *catalog) map[objRef]bool {
	out := map[objRef]bool{}
	for _, sc := range c.schemas {
		out[objRef{"schema", sc.oid, 0}] = true
		for _, q := range sc.seqs {
			out[objRef{"rel", q.oid, 0}] = true
		}
		for _, ix := range sc.indexes {
			out[objRef{"rel", ix.oid, 0}] = true
		}
		for _, v := range sc.views {
			out[objRef{"rel", v.oid, 0}] = true
		}
		for _, fs := range sc.funcs {
			for _, f := range fs {
				out[objRef{"func", f.oid, 0}] = true
			}
		}
		for _, t := range sc.types {
			out[objRef{"type", t.oid, 0}] = true
		}
	}
	for _, t := range c.tables {
		out[objRef{"rel", t.oid, 0}] = true
		for _, col := range t.cols {
			out[objRef{"col", t.oid, int32(col.attnum)}] = true
			if _, ok := storedDefault(col); ok {
				out[objRef{"default", t.oid, int32(col.attnum)}] = true
			}
		}
		for i := range t.checks {
			out[objRef{"check", t.oid, int32(i)}] = true
		}
		for i := range t.fks {
			out[objRef{"fk", t.oid, int32(i)}] = true
		}
		if t.pk != nil {
			out[objRef{"pk", t.oid, 0}] = true
		}
		for _, ix := range t.indexes {
			out[objRef{"rel", ix.oid, 0}] = true
		}
		for _, tr := range t.triggers {
			out[objRef{"trigger", tr.oid, 0}] = true
		}
		for _, p := range t.policies {
			out[objRef{"policy", p.oid, 0}] = true
		}
		for _, r := range t.rules {
			out[objRef{"rule", r.oid, 0}] = true
		}
		for _, st := range t.statsExts {
			out[objRef{"statistics", st.oid, 0}] = true
		}
	}
	for oid := range c.collations {
		out[objRef{"collation", oid, 0}] = true
	}
	for oid := range c.conversions {
		out[objRef{"conversion", oid, 0}] = true
	}
	for _, p := range c.publications {
		out[objRef{"publication", p.oid, 0}] = true
	}
	for _, f := range c.fdws {
		out[objRef{"fdw", f.oid, 0}] = true
	}
	for _, sv := range c.servers {
		out[objRef{"server", sv.oid, 0}] = true
	}
	for oid := range c.userMappings {
		out[objRef{"user mapping", oid, 0}] = true
	}
	for _, e := range c.extensions {
		out[objRef{"extension", e.oid, 0}] = true
	}
	for oid := range c.operators {
		out[objRef{"operator", oid, 0}] = true
	}
	return out
}

// droppedObjects are the objects of before that after lacks.
func droppedObjects(before, after *catalog) map[objRef]bool {
	b, a := catalogObjects(before), catalogObjects(after)
	out := map[objRef]bool{}
	for o := range b {
		if !a[o] {
			out[o] = true
		}
	}
	return out
}

// droppedAnything says whether the command between before and after
// dropped objects, which makes PostgreSQL fire sql_drop.
func droppedAnything(before, after *catalog) bool {
	return len(droppedObjects(before, after)) > 0
}

// droppedObjectRow is a row of pg_event_trigger_dropped_objects().
type droppedObjectRow struct {
	classid, objid   uint32
	objsubid         int32
	original, normal bool
	temp             bool
	objType          string
	schema, name     any
	identity         string
	addrNames        []string
	addrArgs         []string
}

func (r droppedObjectRow) values() []any {
	return []any{int64(r.classid), int64(r.objid), int64(r.objsubid), r.original, r.normal, r.temp, r.objType, r.schema,
		r.name, r.identity, textArrayOf(r.addrNames), textArrayOf(r.addrArgs)}
}

func textArrayOf(vals []string) any {
	elems := make([]any, len(vals))
	for i, v := range vals {
		elems[i] = v
	}
	if len(elems) == 0 {
		return pgarray.Make(nil, nil, nil)
	}
	return pgarray.Make([]int{len(elems)}, []int{1}, elems)
}

// reportSchema is the schema name a report shows: pg_temp for the
// session's temporary schema, as getObjectIdentity writes it.
func reportSchema(name string) string {
	if isTempSchema(name) {
		return "pg_temp"
	}
	return name
}

// qualifiedIdent is schema.name, each quoted where needed.
func qualifiedIdent(schema, name string) string {
	return types.QuoteIdent(reportSchema(schema)) + "." + types.QuoteIdent(name)
}

// droppedReport works out the rows of pg_event_trigger_dropped_objects()
// for the command of st, or refuses.
func (st *evtState) droppedReport(s *Session) ([][]any, error) {
	if st.droppedSet {
		return st.dropped, st.droppedErr
	}
	st.droppedSet = true
	rows, err := dropReportRows(s, st)
	if err != nil {
		st.droppedErr = err
		return nil, err
	}
	for _, r := range rows {
		st.dropped = append(st.dropped, r.values())
	}
	return st.dropped, nil
}

func unknownDrop(tag string) error {
	return pgerror.Unsupported("pg_event_trigger_dropped_objects() for objects " + tag + " drops with these dependencies")
}

// dropReportRows lists the objects the command dropped in PostgreSQL's
// order: each original object (the last named first), then what went with
// it, oldest first. The objects fickle can order are schemas, tables
// without a TOAST table or key constraints with at most one part beside
// their row type (a default, an index, a trigger without WHEN or
// columns), indexes, routines, triggers and columns.
func dropReportRows(s *Session, st *evtState) ([]droppedObjectRow, error) {
	before, after := st.before, st.after
	dropped := droppedObjects(before, after)
	seen := map[objRef]bool{}
	var groups [][]droppedObjectRow
	take := func(o objRef) { seen[o] = true }
	tableRows := func(t *tableDesc, original, normal bool) ([]droppedObjectRow, error) {
		temp := isTempSchema(t.schema)
		schema := reportSchema(t.schema)
		ident := qualifiedIdent(t.schema, t.name)
		if t.matview != nil || t.foreign != nil || t.part != nil || t.bound != nil || len(t.parents) > 0 || len(before.children(t.oid)) > 0 {
			return nil, unknownDrop(st.tag)
		}
		rows := []droppedObjectRow{
			{classid: oidPgClass, objid: t.oid, original: original, normal: normal, temp: temp, objType: "table", schema: schema,
				name: t.name, identity: ident, addrNames: []string{schema, t.name}},
			{classid: oidPgType, objid: t.rowType, temp: temp, objType: "type", schema: schema, name: t.name, identity: ident,
				addrNames: []string{ident}},
			{classid: oidPgType, objid: t.rowArray, temp: temp, objType: "type", schema: schema, name: arrayTypeName(t),
				identity: ident + "[]", addrNames: []string{ident + "[]"}},
		}
		take(objRef{"rel", t.oid, 0})
		var parts []droppedObjectRow
		for _, col := range t.cols {
			take(objRef{"col", t.oid, int32(col.attnum)})
			if _, ok := storedDefault(col); ok {
				take(objRef{"default", t.oid, int32(col.attnum)})
				if len(defaultSequenceOIDs(s, before, col)) > 0 {
					return nil, unknownDrop(st.tag)
				}
				parts = append(parts, droppedObjectRow{classid: oidPgAttrdef, objid: uint32(int64(t.oid)<<16 | int64(col.attnum)),
					temp: temp, objType: "default value", schema: schema, identity: "for " + ident + "." + types.QuoteIdent(col.name),
					addrNames: []string{schema, t.name, col.name}})
			}
		}
		if len(t.checks) > 0 || len(t.fks) > 0 || len(t.rules) > 0 || len(t.policies) > 0 || t.pkIndex != nil && t.pk == nil {
			return nil, unknownDrop(st.tag)
		}
		// A table's TOAST table and the OIDs of its key constraints'
		// objects are PostgreSQL's alone.
		if t.pk != nil || hasToastTable(t) {
			return nil, unknownDrop(st.tag)
		}
		for _, ix := range t.indexes {
			take(objRef{"rel", ix.oid, 0})
			if ix.exclusion || ix.constraint {
				return nil, unknownDrop(st.tag)
			}
			parts = append(parts, indexRow(t.schema, ix, false, false))
		}
		for _, tr := range t.triggers {
			take(objRef{"trigger", tr.oid, 0})
			if tr.when != nil || len(tr.cols) > 0 {
				return nil, unknownDrop(st.tag)
			}
			parts = append(parts, triggerRow(t, tr.oid, tr.name, false))
		}
		if len(parts) > 1 {
			return nil, unknownDrop(st.tag)
		}
		return append(rows, parts...), nil
	}
	funcRow := func(f *funcDesc, original, normal bool) (droppedObjectRow, error) {
		take(objRef{"func", f.oid, 0})
		args, ok := identityArgs(f)
		if !ok {
			return droppedObjectRow{}, unknownDrop(st.tag)
		}
		kind := "function"
		if f.kind == 'p' {
			kind = "procedure"
		}
		schema := reportSchema(f.schema)
		ident := qualifiedIdent(f.schema, f.name) + "(" + joinComma(args) + ")"
		return droppedObjectRow{classid: oidPgProc, objid: f.oid, original: original, normal: normal, temp: isTempSchema(f.schema),
			objType: kind, schema: schema, identity: ident, addrNames: []string{schema, f.name}, addrArgs: args}, nil
	}
	// The schemas dropped, with their members, oldest first.
	for _, sc := range sortedSchemas(before) {
		if !dropped[objRef{"schema", sc.oid, 0}] {
			continue
		}
		take(objRef{"schema", sc.oid, 0})
		group := []droppedObjectRow{{classid: oidPgNamespace, objid: sc.oid, original: true, temp: isTempSchema(sc.name),
			objType: "schema", name: sc.name, identity: types.QuoteIdent(sc.name), addrNames: []string{sc.name}}}
		type member struct {
			oid  uint32
			rows func() ([]droppedObjectRow, error)
		}
		var members []member
		for _, t := range sc.tables {
			members = append(members, member{t.oid, func() ([]droppedObjectRow, error) { return tableRows(t, false, true) }})
		}
		for _, fs := range sc.funcs {
			for _, f := range fs {
				members = append(members, member{f.oid, func() ([]droppedObjectRow, error) {
					r, err := funcRow(f, false, true)
					return []droppedObjectRow{r}, err
				}})
			}
		}
		slices.SortFunc(members, func(a, b member) int { return int(a.oid) - int(b.oid) })
		for _, m := range members {
			rows, err := m.rows()
			if err != nil {
				return nil, err
			}
			group = append(group, rows...)
		}
		groups = append(groups, group)
	}
	if len(groups) > 0 && st.node.GetDropStmt() == nil {
		return nil, unknownDrop(st.tag)
	}
	// The objects the command named itself.
	if ds := st.node.GetDropStmt(); ds != nil && len(groups) == 0 {
		for _, t := range sortedTables(before) {
			if dropped[objRef{"rel", t.oid, 0}] && !seen[objRef{"rel", t.oid, 0}] && ds.RemoveType == pg_query.ObjectType_OBJECT_TABLE {
				rows, err := tableRows(t, true, false)
				if err != nil {
					return nil, err
				}
				groups = append(groups, rows)
			}
		}
		for _, sc := range sortedSchemas(before) {
			for _, fs := range sc.funcs {
				for _, f := range fs {
					if dropped[objRef{"func", f.oid, 0}] && !seen[objRef{"func", f.oid, 0}] {
						r, err := funcRow(f, true, false)
						if err != nil {
							return nil, err
						}
						groups = append(groups, []droppedObjectRow{r})
					}
				}
			}
			for _, ix := range sc.indexes {
				if dropped[objRef{"rel", ix.oid, 0}] && !seen[objRef{"rel", ix.oid, 0}] && !ix.constraint && !ix.exclusion {
					take(objRef{"rel", ix.oid, 0})
					groups = append(groups, []droppedObjectRow{indexRow(sc.name, ix, true, false)})
				}
			}
		}
		for _, t := range sortedTables(before) {
			for _, tr := range t.triggers {
				if dropped[objRef{"trigger", tr.oid, 0}] && !seen[objRef{"trigger", tr.oid, 0}] {
					take(objRef{"trigger", tr.oid, 0})
					groups = append(groups, []droppedObjectRow{triggerRow(t, tr.oid, tr.name, true)})
				}
			}
		}
	}
	if at := st.node.GetAlterTableStmt(); at != nil {
		for _, t := range sortedTables(before) {
			for _, col := range t.cols {
				o := objRef{"col", t.oid, int32(col.attnum)}
				if !dropped[o] || !after.hasTable(t.oid) {
					continue
				}
				take(o)
				schema := reportSchema(t.schema)
				groups = append(groups, []droppedObjectRow{{classid: oidPgClass, objid: t.oid, objsubid: int32(col.attnum), original: true,
					temp: isTempSchema(t.schema), objType: "table column", schema: schema,
					identity: qualifiedIdent(t.schema, t.name) + "." + types.QuoteIdent(col.name), addrNames: []string{schema, t.name, col.name}}})
			}
		}
	}
	for o := range dropped {
		if !seen[o] {
			return nil, unknownDrop(st.tag)
		}
	}
	if len(groups) > 1 && st.node.GetDropStmt() != nil && len(st.node.GetDropStmt().Objects) != len(groups) {
		return nil, unknownDrop(st.tag)
	}
	var out []droppedObjectRow
	for i := len(groups) - 1; i >= 0; i-- {
		out = append(out, groups[i]...)
	}
	return out, nil
}

func (c *catalog) hasTable(oid uint32) bool { return c.tables[oid] != nil }

func joinComma(parts []string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ","
		}
		out += p
	}
	return out
}

func indexRow(schemaName string, ix *indexDesc, original, normal bool) droppedObjectRow {
	schema := reportSchema(schemaName)
	return droppedObjectRow{classid: oidPgClass, objid: ix.oid, original: original, normal: normal, temp: isTempSchema(schemaName),
		objType: "index", schema: schema, name: ix.name, identity: qualifiedIdent(schemaName, ix.name), addrNames: []string{schema, ix.name}}
}

func triggerRow(t *tableDesc, oid uint32, name string, original bool) droppedObjectRow {
	schema := reportSchema(t.schema)
	return droppedObjectRow{classid: oidPgTrigger, objid: oid, original: original, temp: isTempSchema(t.schema), objType: "trigger",
		schema: schema, identity: types.QuoteIdent(name) + " on " + qualifiedIdent(t.schema, t.name), addrNames: []string{schema, t.name, name}}
}

// identityTypeNames are the types format_type_be_qualified names without
// a schema, by the SQL name it gives them.
var identityTypeNames = map[types.Oid]string{types.OidInt2: "smallint", types.OidInt4: "integer", types.OidInt8: "bigint",
	types.OidBool: "boolean", types.OidFloat4: "real", types.OidFloat8: "double precision", types.OidNumeric: "numeric"}

// identityArgs are f's argument types as getObjectIdentity writes them,
// false for a type fickle does not know that form of.
func identityArgs(f *funcDesc) ([]string, bool) {
	var out []string
	for _, t := range f.inputTypes() {
		name, ok := identityTypeNames[t.Oid]
		if !ok {
			return nil, false
		}
		out = append(out, name)
	}
	return out, true
}

// ddlCommandRows works out the rows of pg_event_trigger_ddl_commands()
// for the command of st, or refuses: a DROP reports none; a command that
// made or changed one object reports it; CREATE TABLE reports the table
// and its one index.
func ddlCommandRows(s *Session, st *evtState) ([][]any, error) {
	if st.after == nil {
		return nil, nil // ddl_command_start and sql_drop run before the command is collected
	}
	refuse := pgerror.Unsupported("pg_event_trigger_ddl_commands() after " + st.tag + " of this form")
	row := func(class, oid uint32, sub int32, objType string, schema any, ident string) []any {
		return []any{int64(class), int64(oid), int64(sub), st.tag, objType, schema, ident, false, ddlCommandValue("")}
	}
	created := func(kind string) []objRef {
		b, a := catalogObjects(st.before), catalogObjects(st.after)
		var out []objRef
		for o := range a {
			if !b[o] && o.kind == kind {
				out = append(out, o)
			}
		}
		slices.SortFunc(out, func(x, y objRef) int { return int(x.oid) - int(y.oid) })
		return out
	}
	relRow := func(tag string, oid uint32) ([]any, bool) {
		c := st.after
		if t := c.tables[oid]; t != nil && t.matview == nil && t.foreign == nil {
			r := row(oidPgClass, oid, 0, "table", reportSchema(t.schema), qualifiedIdent(t.schema, t.name))
			r[3] = tag
			return r, true
		}
		for _, sc := range c.schemas {
			for _, ix := range sc.indexes {
				if ix.oid == oid {
					r := row(oidPgClass, oid, 0, "index", reportSchema(sc.name), qualifiedIdent(sc.name, ix.name))
					r[3] = tag
					return r, true
				}
			}
			for _, q := range sc.seqs {
				if q.oid == oid {
					r := row(oidPgClass, oid, 0, "sequence", reportSchema(sc.name), qualifiedIdent(sc.name, q.name))
					r[3] = tag
					return r, true
				}
			}
			for _, v := range sc.views {
				if v.oid == oid {
					r := row(oidPgClass, oid, 0, "view", reportSchema(sc.name), qualifiedIdent(sc.name, v.name))
					r[3] = tag
					return r, true
				}
			}
		}
		return nil, false
	}
	if rows, ok := objectCommandRows(st, row); ok {
		return rows, nil
	}
	switch v := st.node.Node.(type) {
	case *pg_query.Node_DropStmt:
		return nil, nil
	case *pg_query.Node_CreateStmt:
		rels := created("rel")
		if len(created("func"))+len(created("type")) > 0 || v.CreateStmt.OfTypename != nil || len(v.CreateStmt.InhRelations) > 0 && v.CreateStmt.Partbound == nil {
			return nil, refuse
		}
		var table *tableDesc
		for _, o := range rels {
			if t := st.after.tables[o.oid]; t != nil {
				if table != nil {
					return nil, refuse
				}
				table = t
			}
		}
		if table == nil {
			return nil, nil // IF NOT EXISTS found the table
		}
		if len(table.fks) > 0 || hasElement(v.CreateStmt.TableElts, func(n *pg_query.Node) bool { return n.GetTableLikeClause() != nil }) {
			return nil, refuse
		}
		out := [][]any{}
		r, _ := relRow("CREATE TABLE", table.oid)
		out = append(out, r)
		var own []uint32
		for _, o := range rels {
			if o.oid == table.oid {
				continue
			}
			ix := indexByOID(st.after, o.oid)
			if ix == nil {
				return nil, refuse // a sequence of a serial or identity column
			}
			if ix.cloned || ix.parent != 0 {
				continue
			}
			own = append(own, o.oid)
		}
		if table.pk != nil && table.pkIndex == nil && !table.pkCloned && table.pkParent == 0 {
			return nil, refuse // the primary key's index has no OID of its own here
		}
		if len(own) > 1 {
			return nil, refuse
		}
		for _, oid := range own {
			r, _ := relRow("CREATE INDEX", oid)
			out = append(out, r)
		}
		return out, nil
	case *pg_query.Node_IndexStmt, *pg_query.Node_CreateSeqStmt, *pg_query.Node_ViewStmt:
		rels := created("rel")
		if len(rels) == 0 {
			return nil, refuse
		}
		if len(rels) != 1 {
			return nil, refuse
		}
		r, ok := relRow(st.tag, rels[0].oid)
		if !ok {
			return nil, refuse
		}
		return [][]any{r}, nil
	case *pg_query.Node_CreateFunctionStmt:
		fs := created("func")
		if len(fs) != 1 {
			return nil, refuse
		}
		f := st.after.funcByOID(fs[0].oid)
		args, ok := identityArgs(f)
		if !ok || f == nil {
			return nil, refuse
		}
		kind := "function"
		if f.kind == 'p' {
			kind = "procedure"
		}
		return [][]any{row(oidPgProc, f.oid, 0, kind, reportSchema(f.schema), qualifiedIdent(f.schema, f.name)+"("+joinComma(args)+")")}, nil
	case *pg_query.Node_CreateSchemaStmt:
		if len(v.CreateSchemaStmt.SchemaElts) > 0 {
			return nil, refuse
		}
		ss := created("schema")
		if len(ss) != 1 {
			return nil, refuse
		}
		for _, sc := range st.after.schemas {
			if sc.oid == ss[0].oid {
				return [][]any{row(oidPgNamespace, sc.oid, 0, "schema", nil, types.QuoteIdent(sc.name))}, nil
			}
		}
	}
	return nil, refuse
}

func hasElement(ns []*pg_query.Node, f func(*pg_query.Node) bool) bool {
	for _, n := range ns {
		if f(n) {
			return true
		}
	}
	return false
}

// indexByOID is the index of c with OID oid, nil for none.
func indexByOID(c *catalog, oid uint32) *indexDesc {
	for _, sc := range c.schemas {
		for _, ix := range sc.indexes {
			if ix.oid == oid {
				return ix
			}
		}
	}
	for _, t := range c.tables {
		for _, ix := range t.indexes {
			if ix.oid == oid {
				return ix
			}
		}
	}
	return nil
}

// ddlCommandValue is the value of the command column, of type
// pg_ddl_command, which neither PostgreSQL nor fickle can display.
type ddlCommandValue = string

var ddlCommandFields = []types.Field{{Name: "classid", Type: types.OidType}, {Name: "objid", Type: types.OidType},
	{Name: "objsubid", Type: types.Int4}, {Name: "command_tag", Type: types.Text}, {Name: "object_type", Type: types.Text},
	{Name: "schema_name", Type: types.Text}, {Name: "object_identity", Type: types.Text}, {Name: "in_extension", Type: types.Bool},
	{Name: "command", Type: types.PgDDLCommand}}

var droppedObjectFields = func() []types.Field {
	textArray, _ := types.ArrayOf(types.Text)
	return []types.Field{{Name: "classid", Type: types.OidType}, {Name: "objid", Type: types.OidType},
		{Name: "objsubid", Type: types.Int4}, {Name: "original", Type: types.Bool}, {Name: "normal", Type: types.Bool},
		{Name: "is_temporary", Type: types.Bool}, {Name: "object_type", Type: types.Text}, {Name: "schema_name", Type: types.Text},
		{Name: "object_name", Type: types.Text}, {Name: "object_identity", Type: types.Text}, {Name: "address_names", Type: textArray},
		{Name: "address_args", Type: textArray}}
}()

// eventTriggerSetFuncs are pg_event_trigger_ddl_commands() and
// pg_event_trigger_dropped_objects().
func eventTriggerSetFuncs() map[string]*setFunc {
	noArgs := func(name string, fields []types.Field) func(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
		return func(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
			if len(args) != 0 {
				return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args)), loc)
			}
			return fields, nil
		}
	}
	return map[string]*setFunc{"pg_event_trigger_ddl_commands": {schema: "pg_catalog", volatile: true,
		bind: noArgs("pg_event_trigger_ddl_commands", ddlCommandFields),
		rows: func(x *execCtx, _ []any) ([][]any, error) {
			st := x.s.currentEvtState()
			cat, _ := x.s.catalog()
			if st == nil || !st.tracksCommands(cat) {
				return nil, eventTriggerProtocolError("pg_event_trigger_ddl_commands()", "an event trigger function")
			}
			return ddlCommandRows(x.s, st)
		}},
		"pg_event_trigger_dropped_objects": {schema: "pg_catalog", volatile: true,
			bind: noArgs("pg_event_trigger_dropped_objects", droppedObjectFields),
			rows: func(x *execCtx, _ []any) ([][]any, error) {
				st := x.s.currentEvtState()
				if st == nil || !st.inSQLDrop {
					return nil, eventTriggerProtocolError("pg_event_trigger_dropped_objects()", "a sql_drop event trigger function")
				}
				return st.droppedReport(x.s)
			}},
	}
}

// ddlCommandOutputError refuses a statement whose result has a column of
// type pg_ddl_command, whose values PostgreSQL cannot display ("cannot
// display a value of type pg_ddl_command" for each row it returns).
func ddlCommandOutputError(cols []outCol) error {
	for _, c := range cols {
		if c.typ.Oid == types.OidPgDDLCommand {
			return pgerror.Unsupported("a result column of type pg_ddl_command")
		}
	}
	return nil
}
