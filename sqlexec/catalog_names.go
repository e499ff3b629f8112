package sqlexec

import (
	"math"
	"slices"
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// catalogNames is the catalog as the object identifier types see it
// (types.CatalogResolver) for session s: names resolve along s's search
// path. cat fixes the catalog (a statement being bound); nil reads the
// current one.
type catalogNames struct {
	s   *Session
	cat *catalog
	// path, when set, is the search path relation names are read with
	// instead of the session's.
	path []string
}

func (n catalogNames) catalog() *catalog {
	if n.cat != nil {
		return n.cat
	}
	c, _ := n.s.catalog()
	return c
}

// RegIn reads the name of an object as its OID, for each object
// identifier type.
func (n catalogNames) RegIn(t types.Oid, text string) (int64, error) {
	switch t {
	case types.OidRegclass:
		return n.RelationOid(text)
	case types.OidRegtype:
		return n.typeOID(text)
	case types.OidRegproc:
		return n.procOID(text)
	case types.OidRegprocedure:
		return n.procedureOID(text)
	case types.OidRegoper:
		return n.operOID(text)
	case types.OidRegoperator:
		return n.operatorOID(text)
	case types.OidRegnamespace:
		return n.namespaceOID(text)
	case types.OidRegrole:
		return n.roleOID(text)
	case types.OidRegconfig:
		return n.tsRegIn(tsConfigKind, text)
	case types.OidRegdictionary:
		return n.tsRegIn(tsDictKind, text)
	}
	return 0, pgerror.Newf(pgerror.InternalError, "no object identifier type %d", t)
}

// RegOut prints the name of the object an OID identifies.
func (n catalogNames) RegOut(t types.Oid, oid int64) (string, bool) {
	switch t {
	case types.OidRegclass:
		return n.RelationName(oid)
	case types.OidRegtype:
		return n.typeName(uint32(oid), typmodNone)
	case types.OidRegproc:
		return n.procName(uint32(oid), false)
	case types.OidRegprocedure:
		return n.procName(uint32(oid), true)
	case types.OidRegoper:
		return n.operName(uint32(oid), false)
	case types.OidRegoperator:
		return n.operName(uint32(oid), true)
	case types.OidRegnamespace:
		name, ok := namespaceName(n.catalog(), uint32(oid))
		return types.QuoteIdent(name), ok
	case types.OidRegrole:
		return n.roleName(uint32(oid))
	case types.OidRegconfig:
		if name, ok := n.tsUserObjectName(tsConfigKind, oid); ok {
			return name, true
		}
		return tsObjectName(tsConfigNames(), oid)
	case types.OidRegdictionary:
		if name, ok := n.extensionDictionaryName(oid); ok {
			return name, true
		}
		if name, ok := n.tsUserObjectName(tsDictKind, oid); ok {
			return name, true
		}
		return tsObjectName(tsDictNames(), oid)
	}
	return "", false
}

// RelationOid is regclassin: the OID of the table, index or sequence a
// possibly qualified, possibly quoted name denotes. Errors are
// PostgreSQL's: 42602 for a malformed name, 42601 for too many dotted
// names, 3F000 for an unknown schema, 42P01 for an unknown relation.
func (n catalogNames) RelationOid(text string) (int64, error) {
	parts, err := n.qualifiedName(text, "relation")
	if err != nil {
		return 0, err
	}
	c := n.catalog()
	name := parts[len(parts)-1]
	path := n.path
	if path == nil {
		path = n.s.searchPath()
	}
	if len(parts) == 2 {
		path = []string{n.s.schemaAlias(parts[0])}
		if _, ok := c.schemas[path[0]]; !ok && path[0] != "pg_catalog" && path[0] != "information_schema" {
			return 0, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", path[0])
		}
	}
	if oid, ok := classIn(c, path, name); ok {
		return oid, nil
	}
	return 0, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", strings.Join(parts, "."))
}

// classIn is relationIn finding composite types' relations (relkind c)
// too, as regclass does.
func classIn(c *catalog, path []string, name string) (int64, bool) {
	for _, p := range path {
		if oid, ok := relationIn(c, []string{p}, name); ok {
			return oid, true
		}
		if sc := c.schemas[p]; sc != nil && sc.types[name] != nil && sc.types[name].relid != 0 {
			return int64(sc.types[name].relid), true
		}
	}
	return 0, false
}

// RelationName is regclassout: the relation's name, quoted where needed
// and qualified when the search path would not find it by that name.
func (n catalogNames) RelationName(oid int64) (string, bool) {
	c := n.catalog()
	schema, name, ok := relationByOid(c, oid)
	if t := compositeOfRelation(c, uint32(oid)); !ok && t != nil {
		schema, name, ok = t.schema, t.name, true
	}
	if !ok {
		return "", false
	}
	if found, ok := classIn(c, n.s.searchPath(), name); ok && found == oid {
		return types.QuoteIdent(name), true
	}
	return types.QuoteIdent(schema) + "." + types.QuoteIdent(name), true
}

// qualifiedName parses a possibly qualified name into one or two parts:
// a third part must name the current database (0A000 otherwise), more is
// 42601.
func (n catalogNames) qualifiedName(text, what string) ([]string, error) {
	parts, err := parseQualifiedName(text)
	if err != nil {
		return nil, err
	}
	switch len(parts) {
	case 1, 2:
		return parts, nil
	case 3:
		if parts[0] != n.s.database() {
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "cross-database references are not implemented: %s", strings.Join(parts, "."))
		}
		return parts[1:], nil
	}
	return nil, pgerror.Newf(pgerror.SyntaxError, "improper %s name (too many dotted names): %s", what, strings.Join(parts, "."))
}

// namespaceOID is regnamespacein.
func (n catalogNames) namespaceOID(text string) (int64, error) {
	parts, err := parseQualifiedName(text)
	if err != nil {
		return 0, err
	}
	if len(parts) != 1 {
		return 0, pgerror.New(pgerror.InvalidName, "invalid name syntax")
	}
	if oid, ok := namespaceByName(n.catalog(), n.s.schemaAlias(parts[0])); ok {
		return int64(oid), nil
	}
	return 0, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", parts[0])
}

// The built-in schemas besides pg_catalog, with PostgreSQL 15's OIDs.
const (
	oidPgToast = 99
)

// namespaceName returns the name of the schema with the OID.
func namespaceName(c *catalog, oid uint32) (string, bool) {
	switch oid {
	case oidPgCatalog:
		return "pg_catalog", true
	case oidInfoSchema:
		return "information_schema", true
	case oidPgToast:
		return "pg_toast", true
	}
	for _, sc := range c.schemas {
		if sc.oid == oid {
			return sc.name, true
		}
	}
	return "", false
}

func namespaceByName(c *catalog, name string) (uint32, bool) {
	switch name {
	case "pg_catalog":
		return oidPgCatalog, true
	case "information_schema":
		return oidInfoSchema, true
	case "pg_toast":
		return oidPgToast, true
	}
	if sc := c.schemas[name]; sc != nil {
		return sc.oid, true
	}
	return 0, false
}

// onPath reports whether a schema is searched by unqualified names
// (pg_catalog always is).
func (n catalogNames) onPath(schema string) bool {
	for _, p := range n.s.searchPath() {
		if p == schema {
			return true
		}
	}
	return false
}

// qualify prefixes a name with its schema when the search path does not
// reach it.
func (n catalogNames) qualify(namespace uint32, name string) string {
	schema, _ := namespaceName(n.catalog(), namespace)
	if n.onPath(schema) {
		return name
	}
	return types.QuoteIdent(schema) + "." + name
}

// parseTypeString reads a type name written as in SQL ('integer',
// 'character varying(10)', 'int4[]', 'pg_catalog.int4'), as PostgreSQL's
// parseTypeString does: the text must be a type name and nothing else.
func parseTypeString(text string) (*pg_query.TypeName, error) {
	invalid := pgerror.Newf(pgerror.SyntaxError, "invalid type name \"%s\"", text)
	tree, err := pg_query.Parse("SELECT NULL::" + text)
	if err != nil {
		return nil, invalid
	}
	if len(tree.Stmts) != 1 {
		return nil, invalid
	}
	st := tree.Stmts[0].Stmt.GetSelectStmt()
	if st == nil || len(st.TargetList) != 1 || len(st.FromClause) > 0 || st.WhereClause != nil || len(st.DistinctClause) > 0 ||
		len(st.GroupClause) > 0 || st.HavingClause != nil || len(st.WindowClause) > 0 || len(st.ValuesLists) > 0 ||
		len(st.SortClause) > 0 || st.LimitCount != nil || st.LimitOffset != nil || len(st.LockingClause) > 0 ||
		st.WithClause != nil || st.IntoClause != nil || st.Op != pg_query.SetOperation_SETOP_NONE {
		return nil, invalid
	}
	rt := st.TargetList[0].GetResTarget()
	if rt == nil || rt.Name != "" || len(rt.Indirection) > 0 {
		return nil, invalid
	}
	tc := rt.Val.GetTypeCast()
	if tc == nil || tc.Arg.GetAConst() == nil || !tc.Arg.GetAConst().Isnull || tc.TypeName.Setof {
		return nil, invalid
	}
	return tc.TypeName, nil
}

// typeOID is regtypein: the OID of the type a SQL type name denotes; its
// modifiers are dropped.
func (n catalogNames) typeOID(text string) (int64, error) {
	tn, err := parseTypeString(text)
	if err != nil {
		return 0, err
	}
	oid, err := n.typeByNames(strs(tn.Names))
	if err != nil {
		return 0, err
	}
	if len(tn.ArrayBounds) > 0 {
		arr := n.arrayTypeOf(oid)
		if arr == 0 {
			return 0, pgerror.Newf(pgerror.UndefinedObject, "could not find array type for data type %s", text)
		}
		oid = arr
	}
	return int64(oid), nil
}

// typeByNames finds a type by its possibly qualified name: a built-in
// type of pg_catalog or information_schema, or a table's row type (or its
// array, "_name").
func (n catalogNames) typeByNames(names []string) (uint32, error) {
	full := strings.Join(names, ".")
	if len(names) == 3 {
		if names[0] != n.s.database() {
			return 0, pgerror.Newf(pgerror.FeatureNotSupported, "cross-database references are not implemented: %s", full)
		}
		names = names[1:]
	}
	if len(names) > 2 {
		return 0, pgerror.Newf(pgerror.SyntaxError, "improper qualified name (too many dotted names): %s", full)
	}
	c := n.catalog()
	name := names[len(names)-1]
	path := n.s.searchPath()
	if len(names) == 2 {
		schema := n.s.schemaAlias(names[0])
		if _, ok := namespaceByName(c, schema); !ok {
			return 0, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", names[0])
		}
		path = []string{schema}
	}
	for _, schema := range path {
		nsp, ok := namespaceByName(c, schema)
		if !ok {
			continue
		}
		for _, bt := range builtinIndex().typesByName[name] {
			if bt.namespace == nsp {
				return bt.oid, nil
			}
		}
		if sc := c.schemas[schema]; sc != nil {
			if t := sc.tables[name]; t != nil {
				return t.rowType, nil
			}
			if v := sc.views[name]; v != nil {
				return viewRowTypeOID(v.oid), nil
			}
			if t := tableOfArrayType(sc, name); t != nil {
				return t.rowArray, nil
			}
			if base, ok := strings.CutPrefix(name, "_"); ok && sc.views[base] != nil {
				return viewRowTypeOID(sc.views[base].oid) | 1, nil
			}
			if t := sc.types[name]; t != nil {
				return t.oid, nil
			}
			if base, ok := strings.CutPrefix(name, "_"); ok && sc.types[base] != nil && sc.types[base].array != 0 {
				return sc.types[base].array, nil
			}
		}
	}
	return 0, pgerror.Newf(pgerror.UndefinedObject, "type \"%s\" does not exist", full)
}

// viewRowTypeOID is the OID of the row type of a view (its pg_type row,
// typrelid the view); the OID after it is its array type. They are derived
// from the view's OID, in a range no CREATE reaches. A table's are the
// OIDs its values carry (tableDesc.rowType, rowArray), so that a client
// finds in pg_type the type a result column or parameter is described by.
func viewRowTypeOID(rel uint32) uint32 { return 0x80000000 | rel<<1 }

// rowTypeRelation is a relation with a row type: a table or a view, with
// the OIDs of its row type and of the array type over it.
type rowTypeRelation struct {
	oid          uint32
	schema, name string
	typ, array   uint32
}

// tableRowTypeRelation is t as a relation with a row type.
func tableRowTypeRelation(t *tableDesc) *rowTypeRelation {
	return &rowTypeRelation{t.oid, t.schema, t.name, t.rowType, t.rowArray}
}

// viewRowType is v as a relation with a row type.
func viewRowType(v *viewDesc) *rowTypeRelation {
	return &rowTypeRelation{v.oid, v.schema, v.name, viewRowTypeOID(v.oid), viewRowTypeOID(v.oid) | 1}
}

// rowTypeRelations lists the tables and views in OID order.
func rowTypeRelations(c *catalog) []rowTypeRelation {
	var out []rowTypeRelation
	for _, t := range c.tables {
		out = append(out, *tableRowTypeRelation(t))
	}
	for _, v := range sortedViews(c) {
		out = append(out, *viewRowType(v))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].oid < out[j].oid })
	return out
}

// relationOfRowType returns the table or view whose row type (or, with
// array set, its array type) has the OID.
func relationOfRowType(c *catalog, oid uint32) (rel *rowTypeRelation, array bool) {
	if t, array := c.tableOfRowType(oid); t != nil {
		return tableRowTypeRelation(t), array
	}
	if oid&0xC0000000 != 0x80000000 {
		return nil, false
	}
	if v := viewByOid(c, oid&^0x80000000>>1); v != nil {
		return viewRowType(v), oid&1 == 1
	}
	return nil, false
}

// arrayTypeOf is pg_type.typarray of a type OID, 0 when it has none.
func (n catalogNames) arrayTypeOf(oid uint32) uint32 {
	if bt := builtinIndex().types[oid]; bt != nil {
		return bt.array
	}
	if rel, array := relationOfRowType(n.catalog(), oid); rel != nil && !array {
		return rel.array
	}
	if t := n.catalog().typeByOid(oid); t != nil {
		return t.array
	}
	return 0
}

// typeName is format_type(oid, typmod): fickle's own types as types
// prints them, the other built-in types by PostgreSQL's names, a table's
// row type by the table's name; qualified when the search path does not
// reach the type.
func (n catalogNames) typeName(oid uint32, typmod int32) (string, bool) {
	if t, ok := types.TypeByOid(types.Oid(oid)); ok {
		if elem, isArray := t.Elem(); isArray && typmod == typmodNone && elem.Oid == types.OidBpchar && t.LowerBound() == 1 {
			return "character[]", true
		}
		if typmod == typmodNone && t.Oid == types.OidBpchar {
			return "character", true
		}
		if typmod == -1 && t.Oid == types.OidBit {
			// bit is bit(1) to the grammar: a bit of any length prints
			// quoted, as format_type does.
			return `"bit"`, true
		}
		t.Typmod = max(typmod, -1)
		return types.FormatType(t), true
	}
	if bt := builtinIndex().types[oid]; bt != nil {
		if bt.trueArray {
			elem, _ := n.typeName(bt.elem, typmod)
			return elem + "[]", true
		}
		return n.qualify(bt.namespace, builtinTypeName(bt.name, typmod)), true
	}
	if t, array := n.catalog().typeByOidOrArray(oid); t != nil {
		name := types.QuoteIdent(t.name)
		if n.s.lookupType(n.catalog(), "", t.name) != t {
			name = types.QuoteIdent(t.schema) + "." + name
		}
		if array {
			name += "[]"
		}
		return name, true
	}
	if rel, array := relationOfRowType(n.catalog(), oid); rel != nil {
		name := types.QuoteIdent(rel.name)
		if !n.relationVisible(rel) {
			name = types.QuoteIdent(rel.schema) + "." + name
		}
		if array {
			name += "[]"
		}
		return name, true
	}
	return "", false
}

// relationVisible reports whether the search path reaches the relation by
// its name.
func (n catalogNames) relationVisible(rel *rowTypeRelation) bool {
	found, ok := relationIn(n.catalog(), n.s.searchPath(), rel.name)
	return ok && found == int64(rel.oid)
}

// typmodNone asks typeName for format_type(oid, NULL): the type without a
// modifier, which names bpchar character where typmod -1 names it bpchar.
const typmodNone int32 = math.MinInt32

// builtinTypeName is format_type's name of a built-in type fickle does not
// implement: the SQL spelling of time, timetz, bit and varbit, with their
// modifiers, and typname for the others.
func builtinTypeName(typname string, typmod int32) string {
	mod := ""
	if typmod >= 0 && typmod != typmodNone {
		mod = "(" + strings.TrimSpace(types.FormatText(types.Int4, int64(typmod), nil)) + ")"
	}
	switch typname {
	case "time":
		return "time" + mod + " without time zone"
	case "timetz":
		return "time" + mod + " with time zone"
	case "bit":
		return "bit" + mod
	case "varbit":
		return "bit varying" + mod
	}
	return types.QuoteIdent(typname)
}

// procsNamed returns the built-in and user functions a possibly
// qualified name reaches along the search path (where one hides those of
// its argument types behind it).
func (n catalogNames) procsNamed(text string) ([]*builtinProc, error) {
	parts, err := n.qualifiedName(text, "function")
	if err != nil {
		return nil, err
	}
	if len(parts) == 2 {
		if _, ok := namespaceByName(n.catalog(), n.s.schemaAlias(parts[0])); !ok {
			return nil, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", parts[0])
		}
	}
	var out []*builtinProc
	procs := builtinIndex().procsByName[parts[len(parts)-1]]
	if user := userProcsNamed(n.catalog(), parts[len(parts)-1]); len(user) > 0 {
		procs = append(append([]*builtinProc(nil), procs...), user...)
	}
	for _, p := range procs {
		schema, _ := namespaceName(n.catalog(), p.namespace)
		if len(parts) == 2 && schema == parts[0] || len(parts) == 1 && n.procVisible(p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// procOID is regprocin: the one function of that name.
func (n catalogNames) procOID(text string) (int64, error) {
	procs, err := n.procsNamed(text)
	if err != nil {
		return 0, err
	}
	switch len(procs) {
	case 0:
		return 0, pgerror.Newf(pgerror.UndefinedFunction, "function \"%s\" does not exist", text)
	case 1:
		return int64(procs[0].oid), nil
	}
	return 0, pgerror.Newf(pgerror.AmbiguousFunction, "more than one function named \"%s\"", text)
}

// procedureOID is regprocedurein: 'name(argtype, ...)'.
func (n catalogNames) procedureOID(text string) (int64, error) {
	name, args, err := n.nameAndArgTypes(text, false)
	if err != nil {
		return 0, err
	}
	procs, err := n.procsNamed(name)
	if err != nil {
		return 0, err
	}
	for _, p := range procs {
		if equalOIDs(p.args, args) {
			return int64(p.oid), nil
		}
	}
	return 0, pgerror.Newf(pgerror.UndefinedFunction, "function \"%s\" does not exist", text)
}

// procName is regprocout (and with args regprocedureout): the function's
// name, qualified unless the search path reaches it alone.
func (n catalogNames) procName(oid uint32, args bool) (string, bool) {
	p := builtinIndex().procs[oid]
	if p == nil {
		p = userProc(n.catalog(), n.catalog().funcByOID(oid))
	}
	if p == nil {
		return "", false
	}
	name := types.QuoteIdent(p.name)
	if unique, _ := n.procsNamed(name); len(unique) != 1 && !args || !n.procVisible(p) {
		schema, _ := namespaceName(n.catalog(), p.namespace)
		name = types.QuoteIdent(schema) + "." + name
	}
	if args {
		name += "(" + n.typeList(p.args) + ")"
	}
	return name, true
}

// procVisible is PostgreSQL's FunctionIsVisible: the function's schema is
// on the search path and no function of its name and argument types
// comes before it there (pgcrypto's gen_random_uuid() in public is
// hidden by pg_catalog's).
func (n catalogNames) procVisible(p *builtinProc) bool {
	procs := builtinIndex().procsByName[p.name]
	if user := userProcsNamed(n.catalog(), p.name); len(user) > 0 {
		procs = append(append([]*builtinProc(nil), procs...), user...)
	}
	for _, schema := range n.s.searchPath() {
		for _, q := range procs {
			if name, _ := namespaceName(n.catalog(), q.namespace); name == schema && slices.Equal(q.args, p.args) {
				return q.oid == p.oid
			}
		}
	}
	return false
}

func (n catalogNames) visible(namespace uint32) bool {
	schema, _ := namespaceName(n.catalog(), namespace)
	return n.onPath(schema)
}

// typeList prints argument types as regprocedure and regoperator do.
func (n catalogNames) typeList(oids []uint32) string {
	names := make([]string, len(oids))
	for i, o := range oids {
		if o == 0 {
			names[i] = "NONE"
			continue
		}
		names[i], _ = n.typeName(o, typmodNone)
	}
	return strings.Join(names, ",")
}

// nameAndArgTypes splits 'name(type, ...)' into the name and the types'
// OIDs; operators may write NONE for a missing operand.
func (n catalogNames) nameAndArgTypes(text string, operator bool) (string, []uint32, error) {
	open, end := strings.IndexByte(text, '('), strings.LastIndexByte(text, ')')
	if open < 0 || end < open || strings.TrimSpace(text[end+1:]) != "" {
		return "", nil, pgerror.New(pgerror.InvalidTextRepresentation, "expected a left parenthesis")
	}
	name := strings.TrimSpace(text[:open])
	var args []uint32
	if inner := strings.TrimSpace(text[open+1 : end]); inner != "" {
		for _, a := range splitTopLevel(inner) {
			a = strings.TrimSpace(a)
			if operator && strings.EqualFold(a, "none") {
				args = append(args, 0)
				continue
			}
			oid, err := n.typeOID(a)
			if err != nil {
				return "", nil, err
			}
			args = append(args, uint32(oid))
		}
	}
	return name, args, nil
}

// splitTopLevel splits s at commas outside parentheses and double quotes.
func splitTopLevel(s string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func equalOIDs(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// opersNamed returns the built-in operators a possibly qualified name
// reaches. Operator names are not identifiers: they are taken as written
// after the schema.
func (n catalogNames) opersNamed(text string) []*builtinOper {
	schema, name := splitOperName(text)
	var out []*builtinOper
	for _, o := range append(builtinIndex().opersByName[name], extensionOpers(n.catalog(), name)...) {
		s, _ := namespaceName(n.catalog(), o.namespace)
		if schema == s || schema == "" && n.onPath(s) {
			out = append(out, o)
		}
	}
	return out
}

// splitOperName splits an operator's possibly qualified name into its
// schema ("" for none) and the operator, taken as written.
func splitOperName(text string) (schema, name string) {
	name = strings.TrimSpace(text)
	if i := strings.LastIndexByte(name, '.'); i > 0 && strings.Trim(name[:i], "abcdefghijklmnopqrstuvwxyz_0123456789") == "" {
		return name[:i], name[i+1:]
	}
	return "", name
}

// operSchemaExists is the check regoperin makes before it looks an
// operator up: a schema named must exist (3F000). regoperatorin does not.
func (n catalogNames) operSchemaExists(text string) error {
	if schema, _ := splitOperName(text); schema != "" {
		if _, ok := namespaceByName(n.catalog(), n.s.schemaAlias(schema)); !ok {
			return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", schema)
		}
	}
	return nil
}

// operOID is regoperin: the one operator of that name.
func (n catalogNames) operOID(text string) (int64, error) {
	if err := n.operSchemaExists(text); err != nil {
		return 0, err
	}
	switch opers := n.opersNamed(text); len(opers) {
	case 0:
		return 0, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s", text)
	case 1:
		return int64(opers[0].oid), nil
	}
	return 0, pgerror.Newf(pgerror.AmbiguousFunction, "more than one operator named %s", text)
}

// operatorOID is regoperatorin: 'op(lefttype, righttype)'.
func (n catalogNames) operatorOID(text string) (int64, error) {
	name, args, err := n.nameAndArgTypes(text, true)
	if err != nil {
		return 0, err
	}
	if len(args) != 2 {
		return 0, pgerror.New(pgerror.TooManyArguments, "expected two argument types")
	}
	for _, o := range n.opersNamed(name) {
		if o.left == args[0] && o.right == args[1] {
			return int64(o.oid), nil
		}
	}
	return 0, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s", text)
}

// operName is regoperout (and with args regoperatorout).
func (n catalogNames) operName(oid uint32, args bool) (string, bool) {
	o := builtinIndex().opers[oid]
	if o == nil {
		o = extensionOper(n.catalog(), oid)
	}
	if o == nil {
		return "", false
	}
	name := o.name
	if !args && len(n.opersNamed(o.name)) != 1 || !n.visible(o.namespace) {
		schema, _ := namespaceName(n.catalog(), o.namespace)
		name = types.QuoteIdent(schema) + "." + name
	}
	if args {
		name += "(" + n.typeList([]uint32{o.left, o.right}) + ")"
	}
	return name, true
}
