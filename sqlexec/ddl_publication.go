package sqlexec

import (
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Publications (CREATE/ALTER/DROP PUBLICATION) are catalog objects only:
// fickle decodes no WAL and replicates nothing. They still change answers,
// as in PostgreSQL: an UPDATE or DELETE of a published table must have a
// replica identity that covers the publications' row filters and column
// lists (ddl_publication_check.go), and the catalogs and psql's \dRp and
// \d show them (ddl_publication_catalog.go). They live in the
// transactional catalog, so ROLLBACK undoes them.

// oidPgPublicationClass is pg_publication's OID, the class of
// publications' comments.
const oidPgPublicationClass = 6104

// publicationDesc is one publication: a pg_publication row and its
// pg_publication_rel and pg_publication_namespace rows. A descriptor is
// never changed once in a catalog; a statement changes a copy (with).
type publicationDesc struct {
	oid   uint32
	name  string
	owner uint32
	// allTables is FOR ALL TABLES.
	allTables bool
	// insert, update, delete and truncate are the publish option's
	// actions; viaRoot is publish_via_partition_root.
	insert, update, delete, truncate bool
	viaRoot                          bool
	// rels are the tables named (pg_publication_rel) and schemas the
	// schemas of TABLES IN SCHEMA (pg_publication_namespace), in the order
	// they were added. Members whose table or schema was dropped are
	// ignored (live).
	rels    []*pubRel
	schemas []pubSchema
}

// pubRel is a table of a publication: its row filter (SQL text, "" for
// none, and the attnums of the columns it reads) and its column list
// (sorted attnums, nil for none).
type pubRel struct {
	oid      uint32
	rel      uint32
	qual     string
	qualNode *pg_query.Node
	qualCols []int16
	cols     []int16
}

// pubSchema is a schema whose tables a publication publishes.
type pubSchema struct {
	oid, nsp uint32
}

// with returns a copy of p that a statement may change.
func (p *publicationDesc) with() *publicationDesc {
	n := *p
	n.rels = slices.Clone(p.rels)
	n.schemas = slices.Clone(p.schemas)
	return &n
}

// liveRels are p's tables that still exist.
func (c *catalog) liveRels(p *publicationDesc) []*pubRel {
	var out []*pubRel
	for _, r := range p.rels {
		if c.tables[r.rel] != nil {
			out = append(out, r)
		}
	}
	return out
}

// liveSchemas are p's schemas that still exist.
func (c *catalog) liveSchemas(p *publicationDesc) []pubSchema {
	var out []pubSchema
	for _, s := range p.schemas {
		if c.schemaByOID(s.nsp) != nil {
			out = append(out, s)
		}
	}
	return out
}

// relOf is p's entry for table oid, nil when the table is not named.
func (c *catalog) relOf(p *publicationDesc, oid uint32) *pubRel {
	for _, r := range p.rels {
		if r.rel == oid && c.tables[oid] != nil {
			return r
		}
	}
	return nil
}

// hasSchema reports whether p publishes the tables of schema nsp.
func (c *catalog) hasSchema(p *publicationDesc, nsp uint32) bool {
	return slices.ContainsFunc(c.liveSchemas(p), func(s pubSchema) bool { return s.nsp == nsp })
}

// schemaByOID is the schema of OID oid, nil for none.
func (c *catalog) schemaByOID(oid uint32) *schemaDesc {
	for _, sc := range c.schemas {
		if sc.oid == oid {
			return sc
		}
	}
	return nil
}

// sortedPublications are the catalog's publications in OID order.
func (c *catalog) sortedPublications() []*publicationDesc {
	out := make([]*publicationDesc, 0, len(c.publications))
	for _, p := range c.publications {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *publicationDesc) int { return int(a.oid) - int(b.oid) })
	return out
}

// publicationByOID is the publication of OID oid, nil for none.
func (c *catalog) publicationByOID(oid uint32) *publicationDesc {
	for _, p := range c.publications {
		if p.oid == oid {
			return p
		}
	}
	return nil
}

// publicationOptions parses WITH (publish = '...', publish_via_partition_root
// = ...) into p as PostgreSQL's parse_publication_options does; it reports
// which of the two were given.
func (d *ddl) publicationOptions(p *publicationDesc, opts []*pg_query.Node) (publishGiven, viaRootGiven bool, err error) {
	for _, o := range opts {
		def := o.GetDefElem()
		switch def.Defname {
		case "publish":
			if publishGiven {
				return false, false, d.conflictingOption(def)
			}
			publishGiven = true
			p.insert, p.update, p.delete, p.truncate = false, false, false, false
			if def.Arg == nil {
				return false, false, pgerror.Newf(pgerror.SyntaxError, "%s requires a parameter", def.Defname)
			}
			value := defElemString(def)
			names, ok := splitIdentifierList(value)
			if !ok {
				return false, false, pgerror.New(pgerror.SyntaxError, "invalid list syntax in parameter \"publish\"")
			}
			for _, n := range names {
				switch n {
				case "insert":
					p.insert = true
				case "update":
					p.update = true
				case "delete":
					p.delete = true
				case "truncate":
					p.truncate = true
				default:
					return false, false, pgerror.Newf(pgerror.SyntaxError, "unrecognized value for publication option \"publish\": \"%s\"", n)
				}
			}
		case "publish_via_partition_root":
			if viaRootGiven {
				return false, false, d.conflictingOption(def)
			}
			viaRootGiven = true
			v, ok := defElemBool(def)
			if !ok {
				return false, false, pgerror.Newf(pgerror.SyntaxError, "%s requires a Boolean value", def.Defname)
			}
			p.viaRoot = v
		default:
			return false, false, pgerror.Newf(pgerror.SyntaxError, "unrecognized publication parameter: \"%s\"", def.Defname)
		}
	}
	return publishGiven, viaRootGiven, nil
}

// conflictingOption is errorConflictingDefElem's error, at the option.
func (d *ddl) conflictingOption(def *pg_query.DefElem) error {
	return pgerror.New(pgerror.SyntaxError, "conflicting or redundant options").WithPosition(int(def.Location) + 1)
}

// defElemString is defGetString: an option's value as text ("" for none).
func defElemString(def *pg_query.DefElem) string {
	if def.Arg == nil {
		return ""
	}
	switch v := def.Arg.Node.(type) {
	case *pg_query.Node_String_:
		return v.String_.Sval
	case *pg_query.Node_Integer:
		return strconv.Itoa(int(v.Integer.Ival))
	case *pg_query.Node_Float:
		return v.Float.Fval
	case *pg_query.Node_Boolean:
		if v.Boolean.Boolval {
			return "true"
		}
		return "false"
	case *pg_query.Node_TypeName:
		return strings.Join(strs(v.TypeName.Names), ".")
	}
	return ""
}

// defElemBool is defGetBoolean: no value is true; 1, 0, true, false, on,
// off and their prefixes PostgreSQL accepts.
func defElemBool(def *pg_query.DefElem) (bool, bool) {
	if def.Arg == nil {
		return true, true
	}
	if i := def.Arg.GetInteger(); i != nil {
		switch i.Ival {
		case 0:
			return false, true
		case 1:
			return true, true
		}
		return false, false
	}
	if b := def.Arg.GetBoolean(); b != nil {
		return b.Boolval, true
	}
	switch strings.ToLower(defElemString(def)) {
	case "true", "on":
		return true, true
	case "false", "off":
		return false, true
	}
	return false, false
}

// splitIdentifierList is SplitIdentifierString with ',': the names of a
// comma-separated list, unquoted names downcased; false for a malformed
// list.
func splitIdentifierList(s string) ([]string, bool) {
	var out []string
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	skip()
	if i == len(s) {
		return nil, true
	}
	for {
		var name string
		if i < len(s) && s[i] == '"' {
			i++
			var sb strings.Builder
			for {
				if i >= len(s) {
					return nil, false
				}
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						sb.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				sb.WriteByte(s[i])
				i++
			}
			name = sb.String()
			if name == "" {
				return nil, false
			}
		} else {
			start := i
			for i < len(s) && s[i] != ',' && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
				i++
			}
			if i == start {
				return nil, false
			}
			name = truncateIdentifier(downcaseIdentifier(s[start:i]))
		}
		out = append(out, name)
		skip()
		if i == len(s) {
			return out, true
		}
		if s[i] != ',' {
			return nil, false
		}
		i++
		skip()
	}
}

// pubTableSpec is one FOR TABLE item, resolved: the table, its row filter
// and column list as written.
type pubTableSpec struct {
	t     *tableDesc
	where *pg_query.Node
	cols  []string
}

// publicationObjects resolves the objects of CREATE or ALTER PUBLICATION
// as ObjectsInPublicationToOids and OpenTableList do: the tables (a
// table without ONLY brings its inheritance children) and the schemas'
// OIDs, duplicates left out.
func (d *ddl) publicationObjects(objs []*pg_query.Node) ([]pubTableSpec, []uint32, error) {
	var tables []pubTableSpec
	var schemas []uint32
	withWhere, withCols := map[uint32]bool{}, map[uint32]bool{}
	index := map[uint32]bool{}
	for _, o := range objs {
		spec := o.GetPublicationObjSpec()
		switch spec.Pubobjtype {
		case pg_query.PublicationObjSpecType_PUBLICATIONOBJ_TABLE:
			pt := spec.Pubtable
			t, err := d.publicationTable(pt.Relation)
			if err != nil {
				return nil, nil, err
			}
			cols := strs(pt.Columns)
			if index[t.oid] {
				if pt.WhereClause != nil || withWhere[t.oid] {
					return nil, nil, pgerror.Newf(pgerror.DuplicateObject, "conflicting or redundant WHERE clauses for table \"%s\"", t.name)
				}
				if len(cols) > 0 || withCols[t.oid] {
					return nil, nil, pgerror.Newf(pgerror.DuplicateObject, "conflicting or redundant column lists for table \"%s\"", t.name)
				}
				continue
			}
			index[t.oid] = true
			withWhere[t.oid] = pt.WhereClause != nil
			withCols[t.oid] = len(cols) > 0
			tables = append(tables, pubTableSpec{t: t, where: pt.WhereClause, cols: cols})
			if !pt.Relation.Inh || t.part != nil {
				continue
			}
			for _, ch := range d.cat.descendants(t) {
				if index[ch.oid] {
					if pt.WhereClause != nil || withWhere[ch.oid] {
						return nil, nil, pgerror.Newf(pgerror.DuplicateObject, "conflicting or redundant WHERE clauses for table \"%s\"", t.name)
					}
					if len(cols) > 0 || withCols[ch.oid] {
						return nil, nil, pgerror.Newf(pgerror.DuplicateObject, "conflicting or redundant column lists for table \"%s\"", t.name)
					}
					continue
				}
				index[ch.oid] = true
				withWhere[ch.oid] = pt.WhereClause != nil
				withCols[ch.oid] = len(cols) > 0
				tables = append(tables, pubTableSpec{t: ch, where: pt.WhereClause, cols: cols})
			}
		case pg_query.PublicationObjSpecType_PUBLICATIONOBJ_TABLES_IN_SCHEMA, pg_query.PublicationObjSpecType_PUBLICATIONOBJ_TABLES_IN_CUR_SCHEMA:
			name := spec.Name
			if spec.Pubobjtype == pg_query.PublicationObjSpecType_PUBLICATIONOBJ_TABLES_IN_CUR_SCHEMA {
				name = ""
				path, implicit := d.s.searchPathImplicit()
				for _, p := range path[implicit:] {
					if d.cat.schemas[p] != nil || p == "pg_catalog" {
						name = p
						break
					}
				}
				if name == "" {
					return nil, nil, pgerror.New(pgerror.InvalidSchemaName, "no schema has been selected for CURRENT_SCHEMA")
				}
			}
			oid, err := d.publicationSchemaOID(name)
			if err != nil {
				return nil, nil, err
			}
			if !slices.Contains(schemas, oid) {
				schemas = append(schemas, oid)
			}
		default:
			return nil, nil, pgerror.Unsupported("this publication object")
		}
	}
	return tables, schemas, nil
}

// publicationSchemaOID is get_namespace_oid for TABLES IN SCHEMA.
func (d *ddl) publicationSchemaOID(name string) (uint32, error) {
	if name == "pg_catalog" {
		return oidPgCatalog, nil
	}
	if name == "pg_toast" {
		return oidPgToast, nil
	}
	sc := d.cat.schemas[name]
	if sc == nil {
		if name == "information_schema" {
			return 0, pgerror.Unsupported("publishing the tables of information_schema")
		}
		return 0, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", name)
	}
	return sc.oid, nil
}

// publicationTable resolves a FOR TABLE name to a table that may be
// published, failing as table_openrv and check_publication_add_relation
// do.
func (d *ddl) publicationTable(rv *pg_query.RangeVar) (*tableDesc, error) {
	t := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname)
	cannot := func(detail string) error {
		return pgerror.Newf(pgerror.InvalidParameterValue, "cannot add relation \"%s\" to publication", rv.Relname).WithDetail("%s", detail)
	}
	if t == nil {
		if d.s.lookupView(d.cat, rv.Schemaname, rv.Relname) != nil {
			return nil, cannot("This operation is not supported for views.")
		}
		if d.s.lookupSequence(d.cat, rv.Schemaname, rv.Relname) != nil {
			return nil, cannot("This operation is not supported for sequences.")
		}
		if _, kind, ok := relationLookup(d.cat, d.relationPath(rv.Schemaname), rv.Relname); ok && kind == relIndex {
			return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is an index", rv.Relname)
		}
		for _, schema := range []string{"pg_catalog", "information_schema"} {
			if rv.Schemaname != "" && rv.Schemaname != schema {
				continue
			}
			if r, ok := systemRelations().byName[schema+"."+rv.Relname]; ok {
				if r.kind == relView {
					return nil, cannot("This operation is not supported for views.")
				}
				return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot add relation \"%s\" to publication", rv.Relname).
					WithDetail("This operation is not supported for system tables.")
			}
			if schema == "pg_catalog" && (unservedSystemRelation(rv) != nil || virtualTables[schema+"."+rv.Relname] != nil) {
				return nil, pgerror.Unsupported("publishing a system relation fickle does not list in pg_class")
			}
		}
		return nil, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
	}
	switch {
	case t.matview != nil:
		return nil, cannot("This operation is not supported for materialized views.")
	case isTempSchema(t.schema):
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot add relation \"%s\" to publication", t.name).
			WithDetail("This operation is not supported for temporary tables.")
	case t.unlogged:
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot add relation \"%s\" to publication", t.name).
			WithDetail("This operation is not supported for unlogged tables.")
	}
	return t, nil
}

// relationPath is the schemas a relation name is looked up in.
func (d *ddl) relationPath(schema string) []string {
	if schema != "" {
		return []string{schema}
	}
	return d.s.searchPath()
}

// checkPublicationSchema is check_publication_add_schema.
func (d *ddl) checkPublicationSchema(oid uint32) error {
	name := d.schemaNameOf(oid)
	if oid == oidPgCatalog || oid == oidPgToast {
		return pgerror.Newf(pgerror.InvalidParameterValue, "cannot add schema \"%s\" to publication", name).
			WithDetail("This operation is not supported for system schemas.")
	}
	if isTempSchema(name) || strings.HasPrefix(name, "pg_toast_temp_") {
		return pgerror.Newf(pgerror.InvalidParameterValue, "cannot add schema \"%s\" to publication", name).
			WithDetail("Temporary schemas cannot be replicated.")
	}
	return nil
}

// schemaNameOf is the name of schema oid, pg_catalog's and pg_toast's
// included.
func (d *ddl) schemaNameOf(oid uint32) string {
	switch oid {
	case oidPgCatalog:
		return "pg_catalog"
	case oidPgToast:
		return "pg_toast"
	}
	if sc := d.cat.schemaByOID(oid); sc != nil {
		return sc.name
	}
	return ""
}

// pubRelFor validates one table to add to publication p and makes its
// entry: its column list translated to attnums (publication_translate_columns)
// and its row filter checked (ddl_publication_check.go).
func (d *ddl) pubRelFor(p *publicationDesc, spec pubTableSpec, full string) (*pubRel, error) {
	t := spec.t
	r := &pubRel{rel: t.oid}
	for _, name := range spec.cols {
		i := t.colIndex(name)
		if i < 0 {
			if slices.Contains(systemColumnNames, name) {
				return nil, pgerror.Newf(pgerror.InvalidColumnReference, "cannot use system column \"%s\" in publication column list", name)
			}
			return nil, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, t.name)
		}
		if t.cols[i].generated != nil {
			return nil, pgerror.Newf(pgerror.InvalidColumnReference, "cannot use generated column \"%s\" in publication column list", name)
		}
		a := t.cols[i].attnum
		if slices.Contains(r.cols, a) {
			return nil, pgerror.Newf(pgerror.DuplicateObject, "duplicate column \"%s\" in publication column list", name)
		}
		r.cols = append(r.cols, a)
	}
	slices.Sort(r.cols)
	if spec.where != nil {
		qual, cols, err := d.publicationRowFilter(t, spec.where, full)
		if err != nil {
			return nil, err
		}
		r.qualNode, r.qualCols = qual, cols
		r.qual = deparseExpr(qual)
	}
	return r, nil
}

// checkPubColumnLists is CheckPubRelationColumnList.
func checkPubColumnLists(pubName string, specs []pubTableSpec, withSchemas, viaRoot bool) error {
	for _, s := range specs {
		if len(s.cols) == 0 {
			continue
		}
		if withSchemas {
			return pgerror.Newf(pgerror.InvalidParameterValue, "cannot use column list for relation \"%s.%s\" in publication \"%s\"", s.t.schema, s.t.name, pubName).
				WithDetail("Column lists cannot be specified in publications containing FOR TABLES IN SCHEMA elements.")
		}
		if !viaRoot && s.t.part != nil {
			return pgerror.Newf(pgerror.InvalidParameterValue, "cannot use column list for relation \"%s.%s\" in publication \"%s\"", s.t.schema, s.t.name, pubName).
				WithDetail("Column lists cannot be specified for partitioned tables when publish_via_partition_root is false.")
		}
	}
	return nil
}

// checkPubWhereClauses is TransformPubWhereClauses' check of partitioned
// tables.
func checkPubWhereClauses(specs []pubTableSpec, viaRoot bool) error {
	for _, s := range specs {
		if s.where != nil && !viaRoot && s.t.part != nil {
			return pgerror.Newf(pgerror.InvalidParameterValue, "cannot use publication WHERE clause for relation \"%s\"", s.t.name).
				WithDetail("WHERE clause cannot be used for a partitioned table when publish_via_partition_root is false.")
		}
	}
	return nil
}

// addPublicationTables adds the tables to p (PublicationAddTables): the
// role must own each; a table already in p is skipped when ifNotExists,
// an error otherwise.
func (d *ddl) addPublicationTables(p *publicationDesc, specs []pubTableSpec, ifNotExists bool, full string) error {
	for _, s := range specs {
		if err := d.s.requireOwner(relationOwner(d.cat, aclTable, s.t.oid), "table", s.t.name); err != nil {
			return err
		}
		if d.cat.relOf(p, s.t.oid) != nil {
			if ifNotExists {
				continue
			}
			return pgerror.Newf(pgerror.DuplicateObject, "relation \"%s\" is already member of publication \"%s\"", s.t.name, p.name)
		}
		r, err := d.pubRelFor(p, s, full)
		if err != nil {
			return err
		}
		r.oid = d.cat.newOID()
		p.rels = append(p.rels, r)
	}
	return nil
}

// addPublicationSchemas adds the schemas to p (PublicationAddSchemas).
func (d *ddl) addPublicationSchemas(p *publicationDesc, schemas []uint32, ifNotExists bool) error {
	for _, nsp := range schemas {
		if d.cat.hasSchema(p, nsp) {
			if ifNotExists {
				continue
			}
			return pgerror.Newf(pgerror.DuplicateObject, "schema \"%s\" is already member of publication \"%s\"", d.schemaNameOf(nsp), p.name)
		}
		if err := d.checkPublicationSchema(nsp); err != nil {
			return err
		}
		p.schemas = append(p.schemas, pubSchema{oid: d.cat.newOID(), nsp: nsp})
	}
	return nil
}

// createPublication runs CREATE PUBLICATION.
func (d *ddl) createPublication(cp *pg_query.CreatePublicationStmt, full string) error {
	role := d.s.currentRole()
	if !d.s.hasPrivilege(role, aclDatabase, d.s.engine.oid, []byte{'C'}) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for database %s", d.s.database())
	}
	if cp.ForAllTables && !d.s.isSuperuser(role) {
		return pgerror.New(pgerror.InsufficientPrivilege, "must be superuser to create FOR ALL TABLES publication")
	}
	if d.cat.publications[cp.Pubname] != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "publication \"%s\" already exists", cp.Pubname)
	}
	p := &publicationDesc{name: cp.Pubname, owner: role, allTables: cp.ForAllTables, insert: true, update: true, delete: true, truncate: true}
	if _, _, err := d.publicationOptions(p, cp.Options); err != nil {
		return err
	}
	p.oid = d.cat.newOID()
	if !cp.ForAllTables {
		specs, schemas, err := d.publicationObjects(cp.Pubobjects)
		if err != nil {
			return err
		}
		if len(schemas) > 0 && !d.s.isSuperuser(role) {
			return pgerror.New(pgerror.InsufficientPrivilege, "must be superuser to create FOR TABLES IN SCHEMA publication")
		}
		if err := checkPubWhereClauses(specs, p.viaRoot); err != nil {
			return err
		}
		if err := checkPubColumnLists(p.name, specs, len(schemas) > 0, p.viaRoot); err != nil {
			return err
		}
		if err := d.addPublicationTables(p, specs, true, full); err != nil {
			return err
		}
		if err := d.addPublicationSchemas(p, schemas, true); err != nil {
			return err
		}
	}
	d.cat.publications[p.name] = p
	if v, _ := d.s.settings.get("wal_level"); v != "logical" {
		n := pgerror.New(pgerror.ObjectNotInPrerequisiteState, "wal_level is insufficient to publish logical changes").
			WithHint("Set wal_level to \"logical\" before creating subscriptions.")
		n.Severity = "WARNING"
		d.notices = append(d.notices, n)
	}
	return nil
}

// lookupPublication finds a publication for a statement that changes it.
func (d *ddl) lookupPublication(name string) (*publicationDesc, error) {
	p := d.cat.publications[name]
	if p == nil {
		return nil, pgerror.Newf(pgerror.UndefinedObject, "publication \"%s\" does not exist", name)
	}
	return p, nil
}

// alterPublication runs ALTER PUBLICATION ... SET (...), ADD, SET and
// DROP of tables and schemas.
func (d *ddl) alterPublication(ap *pg_query.AlterPublicationStmt, full string) error {
	old, err := d.lookupPublication(ap.Pubname)
	if err != nil {
		return err
	}
	if err := d.s.requireOwner(old.owner, "publication", old.name); err != nil {
		return err
	}
	p := old.with()
	if len(ap.Options) > 0 {
		_, viaRootGiven, err := d.publicationOptions(p, ap.Options)
		if err != nil {
			return err
		}
		if !p.allTables && viaRootGiven && !p.viaRoot {
			for _, r := range d.cat.liveRels(old) {
				t := d.cat.tables[r.rel]
				if t.part == nil || (r.qual == "" && r.cols == nil) {
					continue
				}
				if r.qual != "" {
					return pgerror.Newf(pgerror.InvalidParameterValue, "cannot set parameter \"%s\" to false for publication \"%s\"", "publish_via_partition_root", p.name).
						WithDetail("The publication contains a WHERE clause for partitioned table \"%s\", which is not allowed when \"%s\" is false.", t.name, "publish_via_partition_root")
				}
				return pgerror.Newf(pgerror.InvalidParameterValue, "cannot set parameter \"%s\" to false for publication \"%s\"", "publish_via_partition_root", p.name).
					WithDetail("The publication contains a column list for partitioned table \"%s\", which is not allowed when \"%s\" is false.", t.name, "publish_via_partition_root")
			}
		}
		if !viaRootGiven {
			p.viaRoot = old.viaRoot
		}
		if !publishGivenIn(ap.Options) {
			p.insert, p.update, p.delete, p.truncate = old.insert, old.update, old.delete, old.truncate
		}
		d.cat.publications[p.name] = p
		return nil
	}
	specs, schemas, err := d.publicationObjects(ap.Pubobjects)
	if err != nil {
		return err
	}
	add, set := ap.Action == pg_query.AlterPublicationAction_AP_AddObjects, ap.Action == pg_query.AlterPublicationAction_AP_SetObjects
	if (add || set) && len(schemas) > 0 && !d.s.isSuperuser(d.s.currentRole()) {
		return pgerror.New(pgerror.InsufficientPrivilege, "must be superuser to add or set schemas")
	}
	if len(schemas) > 0 && p.allTables {
		return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "publication \"%s\" is defined as FOR ALL TABLES", p.name).
			WithDetail("Schemas cannot be added to or dropped from FOR ALL TABLES publications.")
	}
	if len(specs) > 0 && p.allTables {
		return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "publication \"%s\" is defined as FOR ALL TABLES", p.name).
			WithDetail("Tables cannot be added to or dropped from FOR ALL TABLES publications.")
	}
	if err := d.alterPublicationTables(p, ap, specs, len(schemas) > 0, full); err != nil {
		return err
	}
	if err := d.alterPublicationSchemas(p, ap, schemas); err != nil {
		return err
	}
	d.cat.publications[p.name] = p
	return nil
}

// publishGivenIn reports whether the options set publish.
func publishGivenIn(opts []*pg_query.Node) bool {
	return slices.ContainsFunc(opts, func(o *pg_query.Node) bool { return o.GetDefElem().Defname == "publish" })
}

// alterPublicationTables is AlterPublicationTables.
func (d *ddl) alterPublicationTables(p *publicationDesc, ap *pg_query.AlterPublicationStmt, specs []pubTableSpec, withSchemas bool, full string) error {
	switch ap.Action {
	case pg_query.AlterPublicationAction_AP_AddObjects:
		if len(specs) == 0 {
			return nil
		}
		if err := checkPubWhereClauses(specs, p.viaRoot); err != nil {
			return err
		}
		if err := checkPubColumnLists(p.name, specs, withSchemas || len(d.cat.liveSchemas(p)) > 0, p.viaRoot); err != nil {
			return err
		}
		return d.addPublicationTables(p, specs, false, full)
	case pg_query.AlterPublicationAction_AP_DropObjects:
		for _, s := range specs {
			if len(s.cols) > 0 {
				return pgerror.New(pgerror.SyntaxError, "column list must not be specified in ALTER PUBLICATION ... DROP")
			}
			i := slices.IndexFunc(p.rels, func(r *pubRel) bool { return r.rel == s.t.oid })
			if i < 0 {
				return pgerror.Newf(pgerror.UndefinedObject, "relation \"%s\" is not part of the publication", s.t.name)
			}
			if s.where != nil {
				return pgerror.New(pgerror.SyntaxError, "cannot use a WHERE clause when removing a table from a publication")
			}
			p.rels = slices.Delete(p.rels, i, i+1)
		}
		return nil
	}
	if err := checkPubWhereClauses(specs, p.viaRoot); err != nil {
		return err
	}
	if err := checkPubColumnLists(p.name, specs, withSchemas, p.viaRoot); err != nil {
		return err
	}
	// SET keeps the tables named again with the same row filter and
	// column list, and replaces the others.
	var kept []*pubRel
	var added []pubTableSpec
	for _, s := range specs {
		nr, err := d.pubRelFor(p, s, full)
		if err != nil {
			return err
		}
		if old := d.cat.relOf(p, s.t.oid); old != nil && old.qual == nr.qual && slices.Equal(old.cols, nr.cols) {
			kept = append(kept, old)
			continue
		}
		added = append(added, s)
	}
	p.rels = slices.DeleteFunc(p.rels, func(r *pubRel) bool { return !slices.Contains(kept, r) })
	return d.addPublicationTables(p, added, true, full)
}

// alterPublicationSchemas is AlterPublicationSchemas.
func (d *ddl) alterPublicationSchemas(p *publicationDesc, ap *pg_query.AlterPublicationStmt, schemas []uint32) error {
	switch ap.Action {
	case pg_query.AlterPublicationAction_AP_AddObjects:
		if len(schemas) == 0 {
			return nil
		}
		for _, r := range d.cat.liveRels(p) {
			if r.cols != nil {
				return pgerror.Newf(pgerror.InvalidParameterValue, "cannot add schema to publication \"%s\"", p.name).
					WithDetail("Schemas cannot be added if any tables that specify a column list are already part of the publication.")
			}
		}
		return d.addPublicationSchemas(p, schemas, false)
	case pg_query.AlterPublicationAction_AP_DropObjects:
		for _, nsp := range schemas {
			i := slices.IndexFunc(p.schemas, func(s pubSchema) bool { return s.nsp == nsp })
			if i < 0 {
				return pgerror.Newf(pgerror.UndefinedObject, "tables from schema \"%s\" are not part of the publication", d.schemaNameOf(nsp))
			}
			p.schemas = slices.Delete(p.schemas, i, i+1)
		}
		return nil
	}
	p.schemas = slices.DeleteFunc(p.schemas, func(s pubSchema) bool { return !slices.Contains(schemas, s.nsp) })
	return d.addPublicationSchemas(p, schemas, true)
}

// dropPublications runs DROP PUBLICATION [IF EXISTS] name, ...; nothing
// depends on a publication, so CASCADE and RESTRICT do the same.
func (d *ddl) dropPublications(ds *pg_query.DropStmt) error {
	for _, o := range ds.Objects {
		name := o.GetString_().GetSval()
		p := d.cat.publications[name]
		if p == nil {
			if ds.MissingOk {
				d.notice(pgerror.SuccessfulCompletion, "publication \"%s\" does not exist, skipping", name)
				continue
			}
			return pgerror.Newf(pgerror.UndefinedObject, "publication \"%s\" does not exist", name)
		}
		if err := d.s.requireOwner(p.owner, "publication", p.name); err != nil {
			return err
		}
		delete(d.cat.publications, name)
		delete(d.cat.comments, commentKey{classOID: oidPgPublicationClass, objOID: p.oid})
	}
	return nil
}

// renamePublication runs ALTER PUBLICATION ... RENAME TO.
func (d *ddl) renamePublication(rs *pg_query.RenameStmt) error {
	old, err := d.lookupPublication(rs.Object.GetString_().GetSval())
	if err != nil {
		return err
	}
	if err := d.s.requireOwner(old.owner, "publication", old.name); err != nil {
		return err
	}
	if d.cat.publications[rs.Newname] != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "publication \"%s\" already exists", rs.Newname)
	}
	p := old.with()
	p.name = rs.Newname
	delete(d.cat.publications, old.name)
	d.cat.publications[p.name] = p
	return nil
}

// alterPublicationOwner runs ALTER PUBLICATION ... OWNER TO as
// AlterPublicationOwner_internal checks it.
func (d *ddl) alterPublicationOwner(ao *pg_query.AlterOwnerStmt) error {
	old, err := d.lookupPublication(ao.Object.GetString_().GetSval())
	if err != nil {
		return err
	}
	r, err := d.newOwner(ao.Newowner)
	if err != nil {
		return err
	}
	if r.oid == old.owner {
		return nil
	}
	err = d.mayGiveTo(r, func() error { return d.s.requireOwner(old.owner, "publication", old.name) }, func() error {
		switch {
		case !d.s.hasPrivilege(r.oid, aclDatabase, d.s.engine.oid, []byte{'C'}):
			return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for database %s", d.s.database())
		case old.allTables && !d.s.isSuperuser(r.oid):
			return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to change owner of publication \"%s\"", old.name).
				WithHint("The owner of a FOR ALL TABLES publication must be a superuser.")
		case !d.s.isSuperuser(r.oid) && len(d.cat.liveSchemas(old)) > 0:
			return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to change owner of publication \"%s\"", old.name).
				WithHint("The owner of a FOR TABLES IN SCHEMA publication must be a superuser.")
		}
		return nil
	})
	if err != nil {
		return err
	}
	p := old.with()
	p.owner = r.oid
	d.cat.publications[p.name] = p
	return nil
}

// commentPublication runs COMMENT ON PUBLICATION.
func (d *ddl) commentPublication(name, comment string) error {
	p, err := d.lookupPublication(name)
	if err != nil {
		return err
	}
	if err := d.s.requireOwner(p.owner, "publication", p.name); err != nil {
		return err
	}
	d.cat.setComment(commentKey{classOID: oidPgPublicationClass, objOID: p.oid}, comment)
	return nil
}

// publicationColumnUse is the error DROP COLUMN gives when a publication's
// column list or row filter of t uses column attnum, nil when none does;
// with cascade the uses go instead, as PostgreSQL drops the
// pg_publication_rel rows that depend on the column.
func (d *ddl) publicationColumnUse(t *tableDesc, attnum int16, name string, cascade bool) error {
	for _, p := range d.cat.sortedPublications() {
		r := d.cat.relOf(p, t.oid)
		if r == nil || !slices.Contains(r.cols, attnum) && !slices.Contains(r.qualCols, attnum) {
			continue
		}
		if !cascade {
			return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop column %s of table %s because other objects depend on it", name, t.name).
				WithDetail("publication of table %s in publication %s depends on column %s of table %s", t.name, p.name, name, t.name).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		d.notice(pgerror.SuccessfulCompletion, "drop cascades to publication of table %s in publication %s", t.name, p.name)
		np := p.with()
		np.rels = slices.DeleteFunc(np.rels, func(x *pubRel) bool { return x == r })
		d.cat.publications[np.name] = np
	}
	return nil
}

// renamePublicationColumn makes the row filters of table t follow its
// column from, renamed to, as PostgreSQL's, which refer to columns by
// number, do.
func (d *ddl) renamePublicationColumn(t *tableDesc, from, to string) {
	for _, p := range d.cat.sortedPublications() {
		r := d.cat.relOf(p, t.oid)
		if r == nil || r.qualNode == nil {
			continue
		}
		np := p.with()
		nr := *r
		nr.qualNode = renamedColumnRefs(r.qualNode, from, to, []string{t.name})
		nr.qual = deparseExpr(nr.qualNode)
		np.rels[slices.Index(np.rels, r)] = &nr
		d.cat.publications[np.name] = np
	}
}

// namedInPublication reports whether a publication names t itself
// (GetRelationPublications), which keeps it from becoming unlogged.
func (c *catalog) namedInPublication(t *tableDesc) bool {
	for _, p := range c.publications {
		if c.relOf(p, t.oid) != nil {
			return true
		}
	}
	return false
}
