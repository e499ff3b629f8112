package sqlexec

import (
	"slices"
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// viewDesc is a view: a stored query that a FROM item reading the view
// expands to, as PostgreSQL's rewriter does. Like its descriptors it is
// immutable once published.
type viewDesc struct {
	oid uint32
	// owner is the role that created the view (0: the bootstrap
	// superuser); the tables the view reads are checked against it.
	owner  uint32
	schema string
	name   string
	// query is the SelectStmt, its relations qualified with the schemas
	// they resolved to when the view was made, so that a later
	// search_path reads the same relations.
	query *pg_query.Node
	cols  []viewCol
	// deps are the OIDs of the tables, views and sequences the query reads.
	deps []uint32
	// types are the OIDs of the user types its query names (casts): they
	// cannot be dropped while the view exists.
	types []uint32
	// keyDeps are the OIDs of the tables whose primary key the query's
	// GROUP BY relies on to read their other columns: the key cannot be
	// dropped while the view exists.
	keyDeps []uint32
	// triggers are the view's triggers in name order (triggers_views.go).
	triggers []*triggerDesc
	// rules are the view's rewrite rules in name order (rules.go).
	rules []*ruleDesc
	// checkOption is the view's WITH CHECK OPTION as given: "local" or
	// "cascaded" in any case, "" for none (views_check.go).
	checkOption string
	// securityInvoker makes the view read its relations with the rights
	// of the role reading it rather than its owner's.
	securityInvoker bool
	// options are the view's options as pg_class.reloptions lists them,
	// checkOption and securityInvoker read from them (withOptions).
	options []string
	// rowVersions says its query may name the system columns xmin, xmax
	// or ctid (row_versions.go).
	rowVersions bool
}

type viewCol struct {
	name string
	typ  types.Type
	// domain is the OID of the domain the column is of (typ is its base
	// type), 0 for none: the query's output column is the domain's.
	domain uint32
	// coll is the column's collation as columnCollationOf names it (""
	// for a type without one); CREATE OR REPLACE VIEW may not change it.
	coll string
	// def is the column's DEFAULT (ALTER VIEW ... SET DEFAULT), nil for
	// none: INSERT through the view's rules and triggers uses it.
	def *pg_query.Node
}

// lookupView finds a view like lookupTable; a table of the same name
// earlier on the search path hides it.
func (s *Session) lookupView(c *catalog, schema, name string) *viewDesc {
	if schema = s.schemaAlias(schema); isTempSchema(schema) && schema != s.tempSchemaIfAny() {
		return nil // another session's temporary views are out of reach
	}
	path := s.searchPath()
	if schema != "" {
		path = []string{schema}
	}
	for _, p := range path {
		if sc := c.schemas[p]; sc != nil {
			if sc.tables[name] != nil {
				return nil
			}
			if v := sc.views[name]; v != nil {
				return v
			}
		}
	}
	return nil
}

// enterView sets the binder up to compile v's stored query: its tables'
// privileges checked as the view's owner (as the role running the
// statement for a security_invoker view, whose relations PostgreSQL leaves
// unmarked, even under another view), v noted as used and as being
// expanded. leave puts back what it found.
func (b *binder) enterView(v *viewDesc) (leave func()) {
	saved := b.privRole
	b.privRole = v.ownerRole()
	if v.securityInvoker {
		b.privRole = 0
	}
	b.useView(v)
	b.expanding = append(b.expanding, v)
	return func() {
		b.expanding = b.expanding[:len(b.expanding)-1]
		b.privRole = saved
	}
}

// viewItem compiles a FROM item reading a view: its stored query as a
// subquery, under the view's column names.
func (b *binder) viewItem(v *viewDesc, alias string, a *pg_query.Alias) (*fromItem, []scopeCol, error) {
	if err := b.checkViewAccess(v); err != nil {
		return nil, nil, err
	}
	if slices.Contains(b.expanding, v) {
		return nil, nil, pgerror.Newf(pgerror.InvalidObjectDefinition, "infinite recursion detected in rules for relation \"%s\"", v.name)
	}
	leave := b.enterView(v)
	plan, err := b.selectNode(nil, v.query, nil)
	leave()
	if err != nil {
		return nil, nil, err
	}
	if len(plan.cols) != len(v.cols) {
		return nil, nil, pgerror.Newf(pgerror.FeatureNotSupported, "view \"%s\" no longer matches the tables it reads", v.name)
	}
	cols := make([]scopeCol, len(v.cols))
	for i, c := range v.cols {
		cols[i] = scopeCol{rel: alias, name: c.name, typ: plan.cols[i].typ, coll: storedCollation(plan.cols[i].coll)}
		if c.domain != 0 {
			cols[i].knownType, cols[i].knownDomain = true, c.domain
		}
	}
	if err := applyColAliases(cols, a); err != nil {
		return nil, nil, err
	}
	it := &fromItem{name: alias, sub: func(x *execCtx) ([][]any, error) { return plan.rowsCached(x) }, subPlan: plan.node}
	trackReads(it, cols, plan)
	return it, cols, nil
}

// createView runs CREATE [OR REPLACE] VIEW.
func (d *ddl) createView(vs *pg_query.ViewStmt, full string) error {
	temp, err := d.relationPersistence(vs.View)
	if err != nil {
		return err
	}
	options, err := viewOptions(vs)
	if err != nil {
		return err
	}
	query := proto.Clone(vs.Query).(*pg_query.Node)
	deps, err := d.qualifyRelations(query)
	d.s.qualifyCalls(d.cat, query)
	if err != nil {
		return err
	}
	if !temp && readsTemporaryRelation(query) {
		// PostgreSQL makes such a view temporary; into a schema named
		// outright it refuses one.
		if vs.View.Schemaname != "" {
			return pgerror.New(pgerror.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
		}
		temp = true
		d.notice(pgerror.SuccessfulCompletion, "view \"%s\" will be a temporary view", vs.View.Relname)
	}
	schema, err := d.relationSchema(vs.View.Schemaname, vs.View.Relname, temp)
	if err != nil {
		return err
	}
	b := d.binder(full)
	b.frozen = newFrozenParts()
	plan, err := b.selectNode(nil, query, nil)
	if err != nil {
		return err
	}
	freezeQuery(query, b.frozen)
	deps = append(deps, d.rowTypesReturned(query)...)
	names := strs(vs.Aliases)
	if len(names) > len(plan.cols) {
		return pgerror.New(pgerror.SyntaxError, "CREATE VIEW specifies more column names than columns")
	}
	v := &viewDesc{schema: schema, name: vs.View.Relname, query: query, deps: deps, types: b.userTypesNamed(query), owner: d.s.currentRole(),
		rowVersions: b.readsRowVersions(), keyDeps: b.groupedKeys}
	v.withOptions(options)
	seen := map[string]bool{}
	for i, c := range plan.cols {
		name := c.Name
		if i < len(names) {
			name = names[i]
		}
		if seen[name] {
			return pgerror.Newf(pgerror.DuplicateColumn, "column \"%s\" specified more than once", name)
		}
		seen[name] = true
		if c.typ.Oid == types.OidRecord {
			// A view's columns are a relation's: an anonymous record is
			// a pseudo-type, as in CREATE TABLE.
			return pgerror.Newf(pgerror.InvalidTableDefinition, "column \"%s\" has pseudo-type %s", name, c.typ)
		}
		coll, err := columnCollationOf(name, c.typ, c.coll)
		if err != nil {
			return err
		}
		if old := d.cat.schemas[schema].views[v.name]; old == nil || !vs.Replace || i >= len(old.cols) {
			// CREATE OR REPLACE VIEW adds the columns it appends.
			if err := d.s.requireColumnTypeUsage(d.cat, uint32(c.typ.Oid), c.domain); err != nil {
				return err
			}
		}
		v.cols = append(v.cols, viewCol{name: name, typ: c.typ, domain: c.domain, coll: coll})
	}
	if v.checkOption != "" {
		if _, reason := d.binder(full).autoViewParts(v, v.name); reason != "" {
			return pgerror.New(pgerror.FeatureNotSupported, "WITH CHECK OPTION is supported only on automatically updatable views").WithHint("%s", reason)
		}
	}
	sc := d.cat.schemas[schema]
	if old := sc.views[v.name]; old != nil && vs.Replace {
		if err := d.s.requireOwner(old.ownerRole(), "view", v.name); err != nil {
			return err
		}
		if err := replaceableBy(old, v, d.viewColumnType); err != nil {
			return err
		}
		v.oid, v.triggers, v.rules = old.oid, old.triggers, old.rules
		for i := range old.cols {
			v.cols[i].def = old.cols[i].def // replaceableBy kept the old columns in place
		}
	} else if d.relationExists(schema, v.name) {
		if t := sc.tables[v.name]; vs.Replace && t != nil {
			if err := d.s.requireOwner(relationOwner(d.cat, aclTable, t.oid), "table", v.name); err != nil {
				return err
			}
			return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a view", v.name)
		}
		return pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists", v.name)
	} else if err := d.checkTablespace("", temp, false); err != nil {
		return err
	} else {
		v.oid = d.cat.newOID()
		d.applyDefaultACL(aclTable, v.oid, v.owner, sc.oid)
	}
	sc.views[v.name] = v
	return nil
}

// alterViewOptions runs ALTER VIEW (or ALTER TABLE) ... SET (...) and
// RESET (...) on a view: check_option, which only an automatically
// updatable view takes, and security_invoker. done is false for any other
// statement.
func (d *ddl) alterViewOptions(at *pg_query.AlterTableStmt, full string) (done bool, err error) {
	v := d.alteredView(at)
	if v == nil {
		return false, nil
	}
	for _, c := range at.Cmds {
		if st := c.GetAlterTableCmd().GetSubtype(); st != pg_query.AlterTableType_AT_SetRelOptions && st != pg_query.AlterTableType_AT_ResetRelOptions {
			return false, nil
		}
	}
	if err := d.s.requireOwner(v.ownerRole(), "view", v.name); err != nil {
		return true, err
	}
	if err := d.lockView(v); err != nil {
		return true, err
	}
	options := v.options
	for _, c := range at.Cmds {
		cmd := c.GetAlterTableCmd()
		if options, err = mergeViewOptions(options, cmd.Def.GetList().GetItems(), cmd.Subtype == pg_query.AlterTableType_AT_ResetRelOptions); err != nil {
			return true, err
		}
	}
	nv := *v
	nv.withOptions(options)
	if nv.checkOption != "" {
		if _, reason := d.binder(full).autoViewParts(&nv, nv.name); reason != "" {
			return true, pgerror.New(pgerror.FeatureNotSupported, "WITH CHECK OPTION is supported only on automatically updatable views").WithHint("%s", reason)
		}
	}
	d.cat.schemas[v.schema].views[v.name] = &nv
	return true, nil
}

// replaceableBy checks CREATE OR REPLACE VIEW's rule: the new query keeps
// every column of the old one, by name and type, and may add columns
// after them.
func replaceableBy(old, v *viewDesc, typeName func(viewCol) string) error {
	if len(v.cols) < len(old.cols) {
		return pgerror.New(pgerror.InvalidTableDefinition, "cannot drop columns from view")
	}
	for i, c := range old.cols {
		if v.cols[i].name != c.name {
			return pgerror.Newf(pgerror.InvalidTableDefinition, "cannot change name of view column \"%s\" to \"%s\"", c.name, v.cols[i].name).
				WithHint("Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.")
		}
		if v.cols[i].typ != c.typ || v.cols[i].domain != c.domain {
			return pgerror.Newf(pgerror.InvalidTableDefinition, "cannot change data type of view column \"%s\" from %s to %s",
				c.name, typeName(c), typeName(v.cols[i]))
		}
		if v.cols[i].coll != c.coll {
			return pgerror.Newf(pgerror.InvalidTableDefinition, "cannot change collation of view column \"%s\" from \"%s\" to \"%s\"",
				c.name, c.coll, v.cols[i].coll)
		}
	}
	return nil
}

// userTypesNamed returns the OIDs of the user types the type names in n
// resolve to now, each once.
func (b *binder) userTypesNamed(n *pg_query.Node) []uint32 {
	var oids []uint32
	walkTypeNames(n.ProtoReflect(), func(tn *pg_query.TypeName) {
		var t *typeDesc
		switch names := strs(tn.Names); len(names) {
		case 1:
			t = b.s.lookupType(b.cat, "", names[0])
		case 2:
			t = b.s.lookupType(b.cat, names[0], names[1])
		}
		if t != nil && !slices.Contains(oids, t.oid) {
			oids = append(oids, t.oid)
		}
	})
	return oids
}

// viewColumnType is the type of a view's column as messages name it: its
// domain's name, or its type's.
func (d *ddl) viewColumnType(c viewCol) string {
	if dt := d.cat.typeByOid(c.domain); dt != nil {
		return d.s.visibleName(dt.schema, dt.name)
	}
	return c.typ.String()
}

// qualifyRelations gives every relation a query reads its schema, as
// found on the search path now, and returns the OIDs of the tables and
// views among them. Names of the query's own WITH queries stay as they
// are.
func (d *ddl) qualifyRelations(query *pg_query.Node) ([]uint32, error) {
	ctes := map[string]bool{}
	walk(query, func(n *pg_query.Node) bool {
		if cte := n.GetCommonTableExpr(); cte != nil {
			ctes[cte.Ctename] = true
		}
		return true
	})
	var deps []uint32
	var err error
	walk(query, func(n *pg_query.Node) bool {
		rv := n.GetRangeVar()
		if rv == nil || err != nil || rv.Schemaname == "" && ctes[rv.Relname] {
			return err == nil
		}
		if rv.Relpersistence == "t" {
			err = pgerror.Unsupported("views of temporary tables")
			return false
		}
		if rv.Schemaname == "" {
			for _, p := range d.s.searchPath() {
				if _, ok := systemRelationNamed(p, rv.Relname); ok || virtualTables[p+"."+rv.Relname] != nil {
					rv.Schemaname = p
					break
				}
				if sc := d.cat.schemas[p]; sc != nil && (sc.tables[rv.Relname] != nil || sc.views[rv.Relname] != nil || sc.seqs[rv.Relname] != nil) {
					rv.Schemaname = p
					break
				}
			}
		}
		if sc := d.cat.schemas[rv.Schemaname]; sc != nil {
			if t := sc.tables[rv.Relname]; t != nil {
				deps = append(deps, t.oid)
			} else if v := sc.views[rv.Relname]; v != nil {
				deps = append(deps, v.oid)
			} else if q := sc.seqs[rv.Relname]; q != nil {
				deps = append(deps, q.oid)
			}
		}
		return true
	})
	return deps, err
}

// rowTypesReturned lists the tables whose row types functions in query's
// FROM clauses return: the view reads their columns as it reads a table's.
func (d *ddl) rowTypesReturned(query *pg_query.Node) []uint32 {
	var out []uint32
	walk(query, func(n *pg_query.Node) bool {
		rf := n.GetRangeFunction()
		if rf == nil {
			return true
		}
		for _, item := range rf.Functions {
			for _, fn := range item.GetList().GetItems() {
				fc := fn.GetFuncCall()
				if fc == nil {
					continue
				}
				for _, f := range d.s.lookupFuncs(d.cat, strs(fc.Funcname)) {
					if t, _ := d.cat.tableOfRowType(uint32(f.result.Oid)); t != nil && !slices.Contains(out, t.oid) {
						out = append(out, t.oid)
					}
				}
			}
		}
		return true
	})
	return out
}

// readsTemporaryRelation reports whether a view's query, its relations
// qualified by qualifyRelations, reads a relation of a temporary schema.
func readsTemporaryRelation(query *pg_query.Node) bool {
	found := false
	walk(query, func(n *pg_query.Node) bool {
		if rv := n.GetRangeVar(); rv != nil && (rv.Schemaname == "pg_temp" || isTempSchema(rv.Schemaname)) {
			found = true
		}
		return !found
	})
	return found
}

// dropViews runs DROP VIEW.
func (d *ddl) dropViews(ds *pg_query.DropStmt) error {
	cascade := ds.Behavior == pg_query.DropBehavior_DROP_CASCADE
	var vs []*viewDesc
	for _, o := range ds.Objects {
		schema, name := objectName(o)
		v := d.s.lookupView(d.cat, schema, name)
		if v == nil {
			if t := d.s.lookupTable(d.cat, schema, name); t != nil && t.matview != nil {
				return notMatviewError(name, "view")
			} else if t != nil {
				return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a view", name).WithHint("%s", dropHint(t))
			}
			if ds.MissingOk {
				d.notice(pgerror.SuccessfulCompletion, "view \"%s\" does not exist, skipping", name)
				continue
			}
			return pgerror.Newf(pgerror.UndefinedTable, "view \"%s\" does not exist", name)
		}
		if err := d.s.requireOwner(v.ownerRole(), "view", v.name); err != nil {
			return err
		}
		if err := d.lockView(v); err != nil {
			return err
		}
		vs = append(vs, v)
	}
	var oids []uint32
	for _, v := range vs {
		oids = append(oids, v.oid)
	}
	return d.dropDependentViews("view", oids, cascade, func() {
		for _, v := range vs {
			d.dropView(v)
		}
	})
}

// lockView takes the ACCESS EXCLUSIVE lock PostgreSQL takes on a view it
// alters or drops, which waits for the transactions reading it.
func (d *ddl) lockView(v *viewDesc) error {
	return d.lockRelation(v.oid, isolation.TableLockAccessExclusive)
}

// lockRelation locks a relation the store does not keep (a view, an
// index) by its OID; like ddl.lockTable, it starts the statement over
// when the lock waited for DDL that committed meanwhile.
func (d *ddl) lockRelation(oid uint32, mode isolation.TableLock) error {
	if err := d.x.txn.LockObject(d.x.ctx, oid, mode, isolation.WaitBlock); err != nil {
		return err
	}
	if _, ver := d.s.catalog(); ver != d.viewVersion {
		return errCatalogChanged
	}
	return nil
}

// dropDependentViews checks the views that read the relations about to
// be dropped (kind "table" or "view"): without cascade they block the
// drop (2BP01, as PostgreSQL's dependencies do); with it they are dropped
// too, with PostgreSQL's NOTICE. drop then drops the relations.
func (d *ddl) dropDependentViews(kind string, oids []uint32, cascade bool, drop func()) error {
	return d.dropCascading(kind, oids, nil, cascade, drop)
}

// dropCascading is dropDependentViews for objects that a cascade already
// reached: cascaded names them ("view v") ahead of their dependents in
// the NOTICE.
func (d *ddl) dropCascading(kind string, oids []uint32, cascaded []string, cascade bool, drop func()) error {
	dropping := map[uint32]bool{}
	for _, o := range oids {
		dropping[o] = true
	}
	var dependents []*viewDesc
	var matviews []*tableDesc // materialized views among the dependents (matview.go)
	for changed := true; changed; {
		changed = false
		for _, v := range sortedViews(d.cat) {
			if dropping[v.oid] {
				continue
			}
			for _, dep := range v.deps {
				if dropping[dep] {
					dropping[v.oid], changed = true, true
					dependents = append(dependents, v)
					break
				}
			}
		}
		for _, mv := range sortedMatviews(d.cat) {
			if !dropping[mv.oid] && slices.ContainsFunc(mv.matview.deps, func(o uint32) bool { return dropping[o] }) {
				dropping[mv.oid], changed = true, true
				matviews = append(matviews, mv)
				dependents = append(dependents, matviewAsView(mv))
			}
		}
	}
	if len(dependents) > 0 && !cascade {
		first := dependents[0]
		_, depName, _ := relationByOid(d.cat, int64(firstDep(first, oids)))
		return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop %s %s because other objects depend on it", kind, depName).
			WithDetail("%s %s depends on %s %s", dependentKind(d.cat, first), first.name, kind, depName).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	lines := slices.Clone(cascaded)
	for _, v := range dependents {
		lines = append(lines, dependentKind(d.cat, v)+" "+v.name)
	}
	d.cascadeNotice(lines)
	dropRules, err := d.dependentRules(kind, dropping, cascade)
	if err != nil {
		return err
	}
	drop()
	for _, v := range dependents {
		d.dropView(v)
	}
	for _, mv := range matviews {
		d.dropTable(mv)
	}
	dropRules()
	return nil
}

// dependentKind names a dependent of dropDependentViews as PostgreSQL's
// messages do: "view", or "materialized view" for one that stands for a
// materialized view (matviewAsView).
func dependentKind(c *catalog, v *viewDesc) string {
	if t := c.tables[v.oid]; t != nil && t.matview != nil {
		return "materialized view"
	}
	return "view"
}

// firstDep is the first of oids that v reads, or its first dependency.
func firstDep(v *viewDesc, oids []uint32) uint32 {
	for _, dep := range v.deps {
		for _, o := range oids {
			if dep == o {
				return o
			}
		}
	}
	return v.deps[0]
}

func (d *ddl) dropView(v *viewDesc) {
	if sc := d.cat.schemas[v.schema]; sc != nil && sc.views[v.name] == v {
		delete(sc.views, v.name)
	}
	d.cat.dropComments(v.oid)
	d.cat.dropRelationACL(v.oid)
}

// sortedViews returns the catalog's views in OID order.
func sortedViews(c *catalog) []*viewDesc {
	var out []*viewDesc
	for _, sc := range c.schemas {
		for _, v := range sc.views {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].oid < out[j].oid })
	return out
}

// viewByOid finds a view by OID.
func viewByOid(c *catalog, oid uint32) *viewDesc {
	for _, sc := range c.schemas {
		for _, v := range sc.views {
			if v.oid == oid {
				return v
			}
		}
	}
	return nil
}

// colNames lists the names of the view's columns.
func (v *viewDesc) colNames() []string {
	out := make([]string, len(v.cols))
	for i, c := range v.cols {
		out[i] = c.name
	}
	return out
}

// viewDefinition is pg_get_viewdef's text of a view: its query as
// PostgreSQL prints it, ending in a semicolon. A query the deparser cannot
// print as PostgreSQL would, or that no longer reads the columns it read
// when the view was made, is refused (0A000).
func viewDefinition(s *Session, c *catalog, v *viewDesc, pretty bool) (string, error) {
	b := &binder{s: s, cat: c}
	plan, err := b.selectNode(nil, v.query, nil)
	if err != nil || len(plan.cols) != len(v.cols) {
		return "", pgerror.Unsupported("printing the query of a view whose tables changed since it was made")
	}
	for i, col := range plan.cols {
		if col.typ != v.cols[i].typ {
			return "", pgerror.Unsupported("printing the query of a view whose tables changed since it was made")
		}
	}
	d := &deparser{b: b, sc: &scope{}, qualify: true}
	out, err := d.query(v.query.GetSelectStmt(), v.colNames(), 0, pretty)
	if err != nil {
		return "", pgerror.Unsupported("printing this view's query as PostgreSQL does")
	}
	return " " + strings.TrimSpace(out) + ";", nil
}

// catalogViewDefinition is a view's definition in a catalog row
// (pg_views, information_schema.views): viewDefinition's text, or, where
// that refuses, the query as pg_query prints it.
func catalogViewDefinition(s *Session, c *catalog, v *viewDesc) string {
	if def, err := viewDefinition(s, c, v, false); err == nil {
		return def
	}
	return " " + strings.TrimSpace(deparseQuery(s, c, v.query, v.colNames(), false)) + ";"
}
