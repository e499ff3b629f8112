package sqlexec

import (
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Materialized views. A materialized view is a table (tableDesc) with a
// stored query (matviewDef): its rows live in the store as any table's, a
// SELECT reads them through the engine like a table's, and REFRESH is a
// statement of its transaction that runs the query through the engine
// (recorded like any read) and replaces the rows with writes. Writes by
// INSERT, UPDATE, DELETE, TRUNCATE and COPY are refused as PostgreSQL
// refuses them.

// matviewDef is what makes a table a materialized view.
type matviewDef struct {
	// query is the SelectStmt, its relations qualified with the schemas
	// they resolved to when the view was made (as a view's).
	query *pg_query.Node
	// deps are the OIDs of the tables, views and sequences the query reads,
	// types those of the user types it names (viewDesc's).
	deps, types []uint32
	// populated is pg_class.relispopulated: false after WITH NO DATA, when
	// reading the view fails until a REFRESH fills it.
	populated bool
	// keyDeps are the OIDs of the tables whose primary key the query's
	// GROUP BY relies on (viewDesc's): the key cannot be dropped.
	keyDeps []uint32
}

// matviewUnpopulatedError is PostgreSQL's error on reading a materialized
// view that was made or refreshed WITH NO DATA.
func matviewUnpopulatedError(name string) error {
	return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "materialized view \"%s\" has not been populated", name).
		WithHint("Use the REFRESH MATERIALIZED VIEW command.")
}

// withoutUnpopulatedChecks drops the checks noted since mark that the
// materialized views read are populated: a query that is planned but not
// run (CREATE ... WITH NO DATA) may read one that is not, as in PostgreSQL.
func withoutUnpopulatedChecks(perms []permCheck, mark int) []permCheck {
	out := perms[:mark:mark]
	for _, p := range perms[mark:] {
		if !p.unpopulated {
			out = append(out, p)
		}
	}
	return out
}

// newMatviewDef qualifies the relations of a CREATE MATERIALIZED VIEW's
// query for storing it; the view may not read temporary relations.
// keyDeps are the tables whose primary key its GROUP BY relies on.
func (d *ddl) newMatviewDef(query *pg_query.Node, populated bool, keyDeps []uint32) (*matviewDef, error) {
	q := proto.Clone(query).(*pg_query.Node)
	deps, err := d.qualifyRelations(q)
	if err != nil {
		return nil, err
	}
	if readsTemporaryRelation(q) {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "materialized views must not use temporary tables or views")
	}
	return &matviewDef{query: q, deps: deps, types: d.binder("").userTypesNamed(q), populated: populated, keyDeps: keyDeps}, nil
}

// lookupMatview finds the materialized view a statement names: 42P01 when
// no relation has the name, wrongKind (PostgreSQL's SQLSTATE for the
// statement) when the relation is of another kind.
func (d *ddl) lookupMatview(rv *pg_query.RangeVar, wrongKind pgerror.Code) (*tableDesc, error) {
	if t := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname); t != nil && t.matview != nil {
		return t, nil
	}
	path := d.s.searchPath()
	if rv.Schemaname != "" {
		path = []string{rv.Schemaname}
	}
	if t := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname); t != nil && t.foreign != nil {
		return nil, pgerror.Newf(wrongKind, "\"%s\" is not a table or materialized view", rv.Relname)
	}
	if _, ok := relationIn(d.cat, path, rv.Relname); ok {
		return nil, pgerror.Newf(wrongKind, "\"%s\" is not a materialized view", rv.Relname)
	}
	return nil, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
}

// refreshMatviewPlan compiles REFRESH MATERIALIZED VIEW [CONCURRENTLY]
// name [WITH [NO] DATA]: the stored query is bound with the owner's
// rights, run in the statement's transaction, and its rows replace the
// view's. CONCURRENTLY gives the same rows (fickle has no readers to keep
// going meanwhile) after PostgreSQL's checks: the view is populated, has a
// unique index on columns without WHERE, and the new rows have no
// duplicates.
func (b *binder) refreshMatviewPlan(rs *pg_query.RefreshMatViewStmt) (*stmtPlan, error) {
	if rs.Concurrent && rs.SkipData {
		return nil, pgerror.New(pgerror.SyntaxError, "REFRESH options CONCURRENTLY and WITH NO DATA cannot be used together")
	}
	d := &ddl{s: b.s, cat: b.cat}
	t, err := d.lookupMatview(rs.Relation, pgerror.FeatureNotSupported)
	if err != nil {
		return nil, err
	}
	if err := b.s.requireOwner(relationOwner(b.cat, aclTable, t.oid), "materialized view", t.name); err != nil {
		return nil, err
	}
	if rs.Concurrent {
		if !t.matview.populated {
			return nil, pgerror.New(pgerror.FeatureNotSupported, "CONCURRENTLY cannot be used when the materialized view is not populated")
		}
		if !slices.ContainsFunc(t.indexes, concurrentRefreshIndex) {
			return nil, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "cannot refresh materialized view \"%s.%s\" concurrently",
				types.QuoteIdent(t.schema), types.QuoteIdent(t.name)).
				WithHint("Create a unique index with no WHERE clause on one or more columns of the materialized view.")
		}
	}
	lock := isolation.TableLockAccessExclusive
	if rs.Concurrent {
		lock = isolation.TableLockExclusive
	}
	b.useTable(t, lock)
	owner := relationOwner(b.cat, aclTable, t.oid)
	var q *selectPlan
	if !rs.SkipData {
		saved := b.privRole
		b.privRole = owner
		q, err = b.selectNode(nil, t.matview.query, nil)
		b.privRole = saved
		if err != nil {
			return nil, err
		}
		if !matviewColumnsMatch(t, q.cols) {
			return nil, pgerror.Unsupported("REFRESH MATERIALIZED VIEW of a materialized view whose tables changed since it was made")
		}
	}
	w, err := b.writerFor(t, false)
	if err != nil {
		return nil, err
	}
	const tag = "REFRESH MATERIALIZED VIEW"
	pl := &stmtPlan{writes: tag, exec: func(x *execCtx) (*Result, error) {
		var rows [][]any
		if q != nil {
			// The query runs as the view's owner (current_user, the
			// functions it calls), as PostgreSQL's REFRESH does.
			var err error
			if rows, err = runAsOwner(x, owner, q); err != nil {
				return nil, err
			}
			if cur, _ := x.s.catalog(); rs.Concurrent && !slices.ContainsFunc(cur.tables[t.oid].indexes, concurrentRefreshIndex) {
				// The query dropped the index (a function it calls can).
				return nil, pgerror.New(pgerror.InternalError, "could not find suitable unique index on materialized view")
			}
			check := uniqueIndexDuplicates
			if rs.Concurrent {
				check = duplicateRows
			}
			if err := check(t, rows); err != nil {
				return nil, err
			}
		}
		if t.matview.populated != (q != nil) {
			if _, err := x.s.runDDL(x, func(d *ddl) error {
				d.setMatviewPopulated(t.oid, q != nil)
				return nil
			}); err != nil {
				return nil, err
			}
		}
		if err := truncateTables(x, []*tableDesc{t}, false); err != nil {
			return nil, err
		}
		for _, r := range rows {
			if _, err := w.insertRow(x, append([]any(nil), r...)); err != nil {
				return nil, err
			}
		}
		return &Result{Tag: tag}, nil
	}}
	if q != nil {
		pl.node = q.node
	}
	return pl, nil
}

// runAsOwner runs q with role owner as current_user.
func runAsOwner(x *execCtx, owner uint32, q *selectPlan) ([][]any, error) {
	name, _ := catalogNames{s: x.s}.roleName(owner)
	outer := x.s.definer
	x.s.definer = unquoteIdent(name)
	defer func() { x.s.definer = outer }()
	return q.run(x)
}

// setMatviewPopulated sets relispopulated of the materialized view oid.
func (d *ddl) setMatviewPopulated(oid uint32, populated bool) {
	nt := d.cat.tables[oid].clone()
	def := *nt.matview
	def.populated = populated
	nt.matview = &def
	d.cat.putTable(nt)
}

// concurrentRefreshIndex reports whether ix lets REFRESH ... CONCURRENTLY
// match old and new rows: unique, on plain columns, without WHERE.
func concurrentRefreshIndex(ix *indexDesc) bool {
	return ix.unique && ix.pred == nil && !slices.Contains(ix.cols, -1)
}

// matviewColumnsMatch reports whether the stored query still returns the
// view's columns: as many, of the same types (an unknown-typed literal
// made a text column).
func matviewColumnsMatch(t *tableDesc, cols []outCol) bool {
	if len(cols) != len(t.cols) {
		return false
	}
	for i, c := range cols {
		typ := c.typ
		if typ.Oid == types.OidUnknown {
			typ = types.Text
		}
		if typ != t.cols[i].typ {
			return false
		}
	}
	return true
}

// uniqueIndexDuplicates fails as PostgreSQL's rebuild of a unique index
// does (23505) when two of the new rows of t have the same key in one of
// its unique column indexes; the store checks the other indexes.
func uniqueIndexDuplicates(t *tableDesc, rows [][]any) error {
	for _, ix := range t.indexes {
		if !concurrentRefreshIndex(ix) {
			continue
		}
		seen := map[string]bool{}
		for _, r := range rows {
			key, hasNull := encodeKey(nil, t, ix.cols, r)
			if hasNull {
				continue
			}
			if seen[string(key)] {
				return pgerror.Newf(pgerror.UniqueViolation, "could not create unique index \"%s\"", ix.name).
					WithDetail("Key (%s)=(%s) is duplicated.", colNames(t, ix.cols), valuesText(t, ix.cols, r)).WithConstraint(t.name, ix.name)
			}
			seen[string(key)] = true
		}
	}
	return nil
}

// duplicateRows is REFRESH ... CONCURRENTLY's check of the new rows of t:
// two equal rows without NULLs cannot be told apart (21000).
func duplicateRows(t *tableDesc, rows [][]any) error {
	all := make([]int, len(t.cols))
	for i := range all {
		all[i] = i
	}
	seen := map[string]bool{}
	for _, r := range rows {
		key, hasNull := encodeKey(nil, t, all, r)
		if hasNull {
			continue
		}
		if seen[string(key)] {
			vals := make([]string, len(r))
			for i, v := range r {
				vals[i] = types.FormatText(t.cols[i].typ, v, nil)
			}
			return pgerror.Newf(pgerror.CardinalityViolation, "new data for materialized view \"%s\" contains duplicate rows without any null columns", t.name).
				WithDetail("Row: (%s)", strings.Join(vals, ","))
		}
		seen[string(key)] = true
	}
	return nil
}

// dropMatviews runs DROP MATERIALIZED VIEW.
func (d *ddl) dropMatviews(ds *pg_query.DropStmt) error {
	var ts []*tableDesc
	for _, o := range ds.Objects {
		schema, name := objectName(o)
		t := d.s.lookupTable(d.cat, schema, name)
		if t == nil || t.matview == nil {
			switch {
			case t != nil:
				return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a materialized view", name).WithHint("%s", dropHint(t))
			case d.s.lookupView(d.cat, schema, name) != nil:
				return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a materialized view", name).WithHint("Use DROP VIEW to remove a view.")
			case ds.MissingOk:
				d.notice(pgerror.SuccessfulCompletion, "materialized view \"%s\" does not exist, skipping", name)
				continue
			}
			return pgerror.Newf(pgerror.UndefinedTable, "materialized view \"%s\" does not exist", name)
		}
		if err := d.s.requireOwner(relationOwner(d.cat, aclTable, t.oid), "materialized view", t.name); err != nil {
			return err
		}
		if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
			return err
		}
		ts = append(ts, t)
	}
	if len(ts) == 0 {
		return nil
	}
	return d.dropTables(ts, ds.Behavior == pg_query.DropBehavior_DROP_CASCADE)
}

// notMatviewError is the error of DROP TABLE or DROP VIEW naming a
// materialized view.
func notMatviewError(name, kind string) error {
	return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a %s", name, kind).
		WithHint("Use DROP MATERIALIZED VIEW to remove a materialized view.")
}

// sortedMatviews returns the catalog's materialized views in OID order.
func sortedMatviews(c *catalog) []*tableDesc {
	var out []*tableDesc
	for _, t := range sortedTables(c) {
		if t.matview != nil {
			out = append(out, t)
		}
	}
	return out
}

// matviewReadingColumn returns a materialized view whose query reads t and
// names a column called name or takes all columns (*), nil when none does:
// its stored query keeps column names, so renaming, dropping or retyping
// such a column is refused.
func (d *ddl) matviewReadingColumn(t *tableDesc, name string) *tableDesc {
	for _, mv := range sortedMatviews(d.cat) {
		if slices.Contains(mv.matview.deps, t.oid) && queryNamesColumn(mv.matview.query, name) {
			return mv
		}
	}
	return nil
}

// queryNamesColumn reports whether query has a column reference called name
// or one that takes all columns (*).
func queryNamesColumn(query *pg_query.Node, name string) bool {
	found := false
	walk(query, func(n *pg_query.Node) bool {
		if cr := n.GetColumnRef(); cr != nil {
			last := cr.Fields[len(cr.Fields)-1]
			if last.GetAStar() != nil || last.GetString_().GetSval() == name {
				found = true
			}
		}
		return !found
	})
	return found
}

// alterMatview runs the ALTER MATERIALIZED VIEW statements fickle supports
// (RENAME, RENAME COLUMN, OWNER TO, SET SCHEMA) and those of ALTER TABLE
// that name a materialized view, and refuses the others (0A000). done is
// false for statements on other relations.
func (d *ddl) alterMatview(n *pg_query.Node) (done bool, err error) {
	var rv *pg_query.RangeVar
	var missingOk, named bool
	switch v := n.Node.(type) {
	case *pg_query.Node_AlterTableStmt:
		rv, missingOk = v.AlterTableStmt.Relation, v.AlterTableStmt.MissingOk
		named = v.AlterTableStmt.Objtype == pg_query.ObjectType_OBJECT_MATVIEW
	case *pg_query.Node_RenameStmt:
		rv, missingOk = v.RenameStmt.Relation, v.RenameStmt.MissingOk
		named = v.RenameStmt.RenameType == pg_query.ObjectType_OBJECT_MATVIEW ||
			v.RenameStmt.RenameType == pg_query.ObjectType_OBJECT_COLUMN && v.RenameStmt.RelationType == pg_query.ObjectType_OBJECT_MATVIEW
	case *pg_query.Node_AlterObjectSchemaStmt:
		rv, missingOk = v.AlterObjectSchemaStmt.Relation, v.AlterObjectSchemaStmt.MissingOk
		named = v.AlterObjectSchemaStmt.ObjectType == pg_query.ObjectType_OBJECT_MATVIEW
	}
	if rv == nil {
		return false, nil
	}
	t := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname)
	if t == nil || t.matview == nil {
		if !named {
			return false, nil
		}
		if t == nil && d.s.lookupView(d.cat, rv.Schemaname, rv.Relname) == nil && d.s.lookupSequence(d.cat, rv.Schemaname, rv.Relname) == nil {
			if missingOk {
				d.notice(pgerror.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", rv.Relname)
				return true, nil
			}
			return true, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
		}
		return true, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a materialized view", rv.Relname)
	}
	switch v := n.Node.(type) {
	case *pg_query.Node_AlterTableStmt:
		at := proto.Clone(v.AlterTableStmt).(*pg_query.AlterTableStmt)
		if !ownerOnly(at) {
			return true, pgerror.Unsupported("ALTER MATERIALIZED VIEW other than RENAME, RENAME COLUMN, OWNER TO and SET SCHEMA")
		}
		at.Objtype = pg_query.ObjectType_OBJECT_TABLE
		return true, d.changeOwner(at)
	case *pg_query.Node_RenameStmt:
		rs := proto.Clone(v.RenameStmt).(*pg_query.RenameStmt)
		if rs.RenameType == pg_query.ObjectType_OBJECT_MATVIEW || rs.RenameType == pg_query.ObjectType_OBJECT_TABLE {
			rs.RenameType = pg_query.ObjectType_OBJECT_TABLE
			return true, d.rename(rs)
		}
		if rs.RenameType != pg_query.ObjectType_OBJECT_COLUMN {
			return false, nil
		}
		rs.RelationType = pg_query.ObjectType_OBJECT_TABLE
		return true, d.rename(rs)
	case *pg_query.Node_AlterObjectSchemaStmt:
		return true, d.setMatviewSchema(t, v.AlterObjectSchemaStmt.Newschema)
	}
	return false, nil
}

// setMatviewSchema runs ALTER MATERIALIZED VIEW ... SET SCHEMA: the view
// and its indexes move to the schema, and the views that read it follow.
func (d *ddl) setMatviewSchema(t *tableDesc, schema string) error {
	if err := d.s.requireOwner(relationOwner(d.cat, aclTable, t.oid), "materialized view", t.name); err != nil {
		return err
	}
	if same, err := d.targetSchema(t.schema, schema, append([]string{t.name}, indexNames(t)...)); same || err != nil {
		return err
	}
	return d.moveTable(t, schema)
}

// indexNames lists the names of t's secondary indexes.
func indexNames(t *tableDesc) []string {
	out := make([]string, len(t.indexes))
	for i, ix := range t.indexes {
		out[i] = ix.name
	}
	return out
}

// relationName is a relation's schema and name.
type relationName struct{ schema, name string }

// requalifyReaders points the stored queries of the views and
// materialized views that read relation oid, which the statement renamed
// or moved from old to cur, at its current schema and name: their queries
// name relations, where PostgreSQL's refer to them by OID.
func (d *ddl) requalifyReaders(oid uint32, old, cur relationName) error {
	for _, v := range sortedViews(d.cat) {
		if slices.Contains(v.deps, oid) {
			q, err := d.retargetQuery(v.query, v.deps, v.name, old, cur)
			if err != nil {
				return err
			}
			nv := *v
			nv.query = q
			d.cat.schemas[v.schema].views[v.name] = &nv
		}
	}
	for _, mv := range sortedMatviews(d.cat) {
		if slices.Contains(mv.matview.deps, oid) {
			q, err := d.retargetQuery(mv.matview.query, mv.matview.deps, mv.name, old, cur)
			if err != nil {
				return err
			}
			nt := mv.clone()
			def := *mv.matview
			def.query = q
			nt.matview = &def
			d.cat.putTable(nt)
		}
	}
	return nil
}

// retargetQuery is a stored query (of view name, reading the relations
// deps) that read relation old under its former name, reading it as cur:
// its FROM items and, where it read the table under the table's own name,
// the references qualified by that name (PostgreSQL's queries name tables by
// OID). A reference it cannot tell apart from another FROM item's, or from a
// column of that name, makes the rename fail (0A000).
func (d *ddl) retargetQuery(query *pg_query.Node, deps []uint32, name string, old, cur relationName) (*pg_query.Node, error) {
	q := proto.Clone(query).(*pg_query.Node)
	byName, others := false, false
	walk(q, func(n *pg_query.Node) bool {
		switch {
		case n.GetRangeVar() != nil:
			rv := n.GetRangeVar()
			if rv.Schemaname == old.schema && rv.Relname == old.name {
				rv.Schemaname, rv.Relname = cur.schema, cur.name
				byName = byName || rv.Alias == nil
			} else if rv.Alias == nil && rv.Relname == old.name || rv.Alias != nil && rv.Alias.Aliasname == old.name {
				others = true
			}
		case n.GetRangeSubselect() != nil && n.GetRangeSubselect().Alias.GetAliasname() == old.name,
			n.GetRangeFunction() != nil && n.GetRangeFunction().Alias.GetAliasname() == old.name,
			n.GetCommonTableExpr() != nil && n.GetCommonTableExpr().Ctename == old.name,
			n.GetJoinExpr() != nil && n.GetJoinExpr().Alias.GetAliasname() == old.name:
			others = true
		}
		return true
	})
	if !byName || old.name == cur.name {
		return q, nil
	}
	columnNamed := slices.ContainsFunc(deps, func(oid uint32) bool {
		t := d.cat.tables[oid]
		return t != nil && t.colIndex(old.name) >= 0
	})
	refused := false
	walk(q, func(n *pg_query.Node) bool {
		cr := n.GetColumnRef()
		if cr == nil {
			return true
		}
		var qual *pg_query.String
		switch f := cr.Fields; {
		case len(f) == 1:
			// A whole-row reference by the table's name.
			if s := f[0].GetString_(); s != nil && s.Sval == old.name {
				qual, refused = s, refused || columnNamed
			}
		case len(f) >= 2:
			if s := f[len(f)-2].GetString_(); s != nil && s.Sval == old.name {
				qual = s
			}
		}
		if qual != nil {
			refused = refused || others
			qual.Sval = cur.name
		}
		return true
	})
	if refused {
		return nil, pgerror.Unsupported(fmt.Sprintf("renaming relation %s, which %s reads under a name another of its FROM items or columns has", old.name, name))
	}
	return q, nil
}

// matviewDefinition is pg_get_viewdef's text of a materialized view.
func matviewDefinition(s *Session, c *catalog, t *tableDesc, pretty bool) (string, error) {
	return viewDefinition(s, c, matviewAsView(t), pretty)
}

// matviewAsView is the view whose query and columns are the materialized
// view's, for the printing and checks views and materialized views share.
func matviewAsView(t *tableDesc) *viewDesc {
	v := &viewDesc{oid: t.oid, owner: t.owner, schema: t.schema, name: t.name, query: t.matview.query, deps: t.matview.deps}
	for _, c := range t.cols {
		v.cols = append(v.cols, viewCol{name: c.name, typ: c.typ, coll: c.collation})
	}
	return v
}

// matviewCatalogDefinition is a materialized view's definition in
// pg_matviews: matviewDefinition's text, or the query as pg_query prints
// it where that refuses.
func matviewCatalogDefinition(s *Session, c *catalog, t *tableDesc) string {
	return catalogViewDefinition(s, c, matviewAsView(t))
}

// createAsSkipped is the result of EXPLAIN of CREATE TABLE AS or CREATE
// MATERIALIZED VIEW ... IF NOT EXISTS when the relation exists: as
// PostgreSQL's, no plan, only the NOTICE; nil otherwise.
func createAsSkipped(x *execCtx, cs *pg_query.CreateTableAsStmt) *Result {
	if cs == nil || !cs.IfNotExists || cs.Into.Rel.Relpersistence == "t" || cs.Into.Rel.Schemaname == "pg_temp" {
		return nil // a temporary schema may not exist yet: the statement finds out
	}
	c, _ := x.s.catalog()
	d := &ddl{s: x.s, cat: c}
	rel := cs.Into.Rel
	schema, err := d.relationSchema(rel.Schemaname, rel.Relname, false)
	if err != nil || !d.relationExists(schema, rel.Relname) {
		return nil
	}
	d.notice(pgerror.DuplicateTable, "relation \"%s\" already exists, skipping", rel.Relname)
	return &Result{Tag: "EXPLAIN", Notices: d.notices}
}

// renameMatviewColumnRefs makes the queries of the materialized views that
// read column from of t name it to, as RENAME COLUMN renames it (their
// queries keep column names, where PostgreSQL's keep numbers), where
// renamedColumnQuery can; it refuses the rename (0A000) for any other
// materialized view that may read the column.
func (d *ddl) renameMatviewColumnRefs(t *tableDesc, from, to string) error {
	for _, mv := range sortedMatviews(d.cat) {
		if !slices.Contains(mv.matview.deps, t.oid) {
			continue
		}
		q := renamedColumnQuery(d.cat, mv.matview.query, mv.matview.deps, t, from, to)
		if q == nil {
			if queryNamesColumn(mv.matview.query, from) {
				return pgerror.Unsupported(fmt.Sprintf("RENAME COLUMN of a column that materialized view %s may read", mv.name))
			}
			continue
		}
		nt := mv.clone()
		def := *mv.matview
		def.query = q
		nt.matview = &def
		d.cat.putTable(nt)
	}
	return nil
}

// renamedColumnQuery is a stored query that reads the relations deps, with
// its references to column from of table t renamed to, or nil where it
// cannot tell each reference's column by name alone: a query with
// subqueries, WITH queries, functions in FROM, column aliases in FROM or
// views, an output column called from or to, an unqualified reference to a
// name another of its tables has too, or a join by USING or NATURAL over
// such a name.
func renamedColumnQuery(c *catalog, query *pg_query.Node, deps []uint32, t *tableDesc, from, to string) *pg_query.Node {
	shared := false // another table of the query has a column from or to
	for _, dep := range deps {
		o := c.tables[dep]
		if o == nil {
			return nil
		}
		if dep != t.oid && (o.colIndex(from) >= 0 || o.colIndex(to) >= 0) {
			shared = true
		}
	}
	simple := true
	var names []string // the names t is read under
	walk(query, func(n *pg_query.Node) bool {
		switch {
		case n.GetRangeSubselect() != nil, n.GetWithClause() != nil, n.GetSubLink() != nil, n.GetRangeFunction() != nil:
			simple = false
		case n.GetRangeVar() != nil:
			rv := n.GetRangeVar()
			if rv.Alias != nil && len(rv.Alias.Colnames) > 0 {
				simple = false
			}
			if rv.Relname == t.name && (rv.Schemaname == "" || rv.Schemaname == t.schema) {
				name := rv.Relname
				if rv.Alias != nil {
					name = rv.Alias.Aliasname
				}
				names = append(names, name)
			}
		case n.GetResTarget() != nil && (n.GetResTarget().Name == from || n.GetResTarget().Name == to):
			simple = false
		case n.GetJoinExpr() != nil && (n.GetJoinExpr().IsNatural || len(n.GetJoinExpr().UsingClause) > 0) && shared:
			simple = false
		}
		return simple
	})
	if !simple {
		return nil
	}
	q := proto.Clone(query).(*pg_query.Node)
	walk(q, func(n *pg_query.Node) bool {
		cr := n.GetColumnRef()
		if cr == nil || !simple {
			return simple
		}
		last := cr.Fields[len(cr.Fields)-1].GetString_()
		if last == nil || last.Sval != from && last.Sval != to {
			return true
		}
		switch {
		case len(cr.Fields) == 1 && (shared || len(names) != 1):
			simple = false
		case len(cr.Fields) == 1, slices.Contains(names, cr.Fields[len(cr.Fields)-2].GetString_().GetSval()):
			if last.Sval == from {
				last.Sval = to
			}
		}
		return simple
	})
	if !simple {
		return nil
	}
	return q
}

// matviewsAsViews lists the catalog's materialized views as views
// (matviewAsView), for the catalog rows of their _RETURN rules.
func matviewsAsViews(c *catalog) []*viewDesc {
	var out []*viewDesc
	for _, t := range sortedMatviews(c) {
		out = append(out, matviewAsView(t))
	}
	return out
}
