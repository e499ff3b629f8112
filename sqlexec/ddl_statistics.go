package sqlexec

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Extended statistics objects (CREATE, ALTER, DROP and COMMENT ON
// STATISTICS), as PostgreSQL 15's statscmds.c keeps them in
// pg_statistic_ext. They only steer the planner's estimates, so fickle keeps
// the definitions for the catalogs, psql and pg_dump and computes no data:
// pg_statistic_ext_data and the pg_stats_ext views stay refused, and
// EXPLAIN's estimates do not use them. An object lives with its table
// (tableDesc.statsExts): DROP TABLE drops it, DROP COLUMN drops those that
// use the column, ALTER COLUMN TYPE makes them anew as PostgreSQL does.

// oidPgStatisticExt is pg_statistic_ext's OID, the class of the objects'
// comments and descriptions.
const oidPgStatisticExt = 3381

// maxStatsColumns is STATS_MAX_DIMENSIONS.
const maxStatsColumns = 8

// statsExtDesc is one statistics object: its columns (stxkeys, attnums
// ascending), its expressions over the table's column names in the order
// written, its kinds (stxkind: d, f, m, and e with expressions) and its
// target (stxstattarget, -1 for the default).
type statsExtDesc struct {
	oid, owner   uint32
	schema, name string
	keys         []int16
	exprs        []*pg_query.Node
	kinds        []byte
	target       int32
}

// statisticsDDL runs the statements on statistics objects: done false for
// a statement of another kind.
func (d *ddl) statisticsDDL(n *pg_query.Node, full string) (bool, error) {
	switch v := n.Node.(type) {
	case *pg_query.Node_CreateStatsStmt:
		return true, d.createStatistics(v.CreateStatsStmt, full)
	case *pg_query.Node_AlterStatsStmt:
		return true, d.alterStatisticsTarget(v.AlterStatsStmt)
	case *pg_query.Node_DropStmt:
		if v.DropStmt.RemoveType == pg_query.ObjectType_OBJECT_STATISTIC_EXT {
			return true, d.dropStatistics(v.DropStmt)
		}
	case *pg_query.Node_RenameStmt:
		if rs := v.RenameStmt; rs.RenameType == pg_query.ObjectType_OBJECT_STATISTIC_EXT {
			return true, d.alterStatsObject(rs.Object, rs.MissingOk, func(t *tableDesc, st *statsExtDesc) error {
				if err := d.requireSchemaCreate(st.schema); err != nil {
					return err
				}
				return d.moveStatsObject(t, st, st.schema, rs.Newname)
			})
		}
	case *pg_query.Node_AlterObjectSchemaStmt:
		if as := v.AlterObjectSchemaStmt; as.ObjectType == pg_query.ObjectType_OBJECT_STATISTIC_EXT {
			return true, d.alterStatsObject(as.Object, as.MissingOk, func(t *tableDesc, st *statsExtDesc) error {
				return d.setStatsSchema(t, st, as.Newschema)
			})
		}
	case *pg_query.Node_AlterOwnerStmt:
		if ao := v.AlterOwnerStmt; ao.ObjectType == pg_query.ObjectType_OBJECT_STATISTIC_EXT {
			return true, d.alterStatsOwner(ao)
		}
	case *pg_query.Node_CommentStmt:
		if cs := v.CommentStmt; cs.Objtype == pg_query.ObjectType_OBJECT_STATISTIC_EXT {
			return true, d.alterStatsObject(cs.Object, false, func(_ *tableDesc, st *statsExtDesc) error {
				d.cat.setComment(commentKey{classOID: oidPgStatisticExt, objOID: st.oid}, cs.Comment)
				return nil
			})
		}
	}
	return false, nil
}

// statsElem is one element of CREATE STATISTICS's ON list resolved over the
// table: a column (col >= 0) or an expression.
type statsElem struct {
	col  int
	expr *pg_query.Node
	typ  types.Type
}

// createStatistics runs CREATE STATISTICS: the relation is found and the
// expressions analyzed first (transformStatsStmt), then CreateStatistics'
// checks in its order.
func (d *ddl) createStatistics(cs *pg_query.CreateStatsStmt, full string) error {
	if len(cs.Defnames) == 0 {
		return d.unnamedStatsError(full)
	}
	for _, r := range cs.Relations {
		if r.GetRangeVar() == nil {
			return pgerror.New(pgerror.FeatureNotSupported, "CREATE STATISTICS only supports relation names in the FROM clause")
		}
	}
	if len(cs.Relations) != 1 {
		return pgerror.New(pgerror.FeatureNotSupported, "only a single relation is allowed in CREATE STATISTICS")
	}
	rv := cs.Relations[0].GetRangeVar()
	t := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname)
	if t == nil {
		return d.statisticsRelationError(rv)
	}
	if err := d.lockTable(t, isolation.TableLockShareUpdateExclusive); err != nil {
		return err
	}
	elems, err := d.statsElems(d.binder(full), t, cs.Exprs)
	if err != nil {
		return err
	}
	if err := d.s.requireOwner(relationOwner(d.cat, aclTable, t.oid), tableNoun(t), t.name); err != nil {
		return err
	}
	var schema, name string
	if names := strs(cs.Defnames); len(names) > 0 {
		if schema, err = d.nameCreationSchema(names); err != nil {
			return err
		}
		name = names[len(names)-1]
	} else {
		schema = t.schema
		name = d.chooseStatsName(t.name, statsNameAddition(t, elems), schema)
	}
	if d.cat.statsNamed(schema, name) != nil {
		if cs.IfNotExists {
			d.notice(pgerror.DuplicateObject, "statistics object \"%s\" already exists, skipping", name)
			return nil
		}
		return pgerror.Newf(pgerror.DuplicateObject, "statistics object \"%s\" already exists", name)
	}
	st, err := statsDefinition(t, elems, strs(cs.StatTypes))
	if err != nil {
		return err
	}
	st.schema, st.name, st.owner, st.oid = schema, name, d.s.currentRole(), d.cat.newOID()
	nt := t.clone()
	nt.statsExts = append(slices.Clip(t.statsExts), st)
	d.cat.putTable(nt)
	if cs.Stxcomment != "" {
		d.cat.setComment(commentKey{classOID: oidPgStatisticExt, objOID: st.oid}, cs.Stxcomment)
	}
	return nil
}

// unnamedStatsError is PostgreSQL 15's syntax error for CREATE STATISTICS
// without a name (which PostgreSQL 16 accepts): at the token after
// STATISTICS (and IF NOT EXISTS) in the query text full.
func (d *ddl) unnamedStatsError(full string) error {
	res, err := pg_query.Scan(full)
	if err == nil {
		toks := res.Tokens
		for i := 0; i+2 < len(toks); i++ {
			if toks[i].Token != pg_query.Token_CREATE || toks[i+1].Token != pg_query.Token_STATISTICS {
				continue
			}
			j := i + 2
			if j+3 < len(toks) && toks[j].Token == pg_query.Token_IF_P {
				j += 3
			}
			if tk := toks[j]; tk.Token == pg_query.Token_ON || tk.Token == pg_query.Token_ASCII_40 {
				return d.binder(full).errAt(pgerror.Newf(pgerror.SyntaxError, "syntax error at or near \"%s\"", full[tk.Start:tk.End]), tk.Start)
			}
		}
	}
	return pgerror.New(pgerror.SyntaxError, "syntax error at or near \"ON\"")
}

// statisticsRelationError is CREATE STATISTICS's error for a FROM relation
// that is no table: a view's, a sequence's or an index's relkind error, a
// system catalog's, or 42P01.
func (d *ddl) statisticsRelationError(rv *pg_query.RangeVar) error {
	cannot := func(what string) error {
		return pgerror.Newf(pgerror.WrongObjectType, "cannot define statistics for relation \"%s\"", rv.Relname).
			WithDetail("This operation is not supported for %s.", what)
	}
	switch {
	case d.s.lookupView(d.cat, rv.Schemaname, rv.Relname) != nil:
		return cannot("views")
	case d.s.lookupSequence(d.cat, rv.Schemaname, rv.Relname) != nil:
		return cannot("sequences")
	}
	if ix, _ := d.s.lookupIndex(d.cat, rv.Schemaname, rv.Relname); ix != nil {
		return cannot("indexes")
	}
	if ty := d.s.lookupType(d.cat, rv.Schemaname, rv.Relname); ty != nil && ty.relid != 0 {
		return cannot("composite types")
	}
	if sys := d.s.systemRelationOf(d.cat, rv); sys != nil {
		if sys.kind == relTable {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied: \"%s\" is a system catalog", rv.Relname)
		}
		return cannot("views")
	}
	return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
}

// tableNoun is how an ownership error names t's kind.
func tableNoun(t *tableDesc) string {
	switch {
	case t.matview != nil:
		return "materialized view"
	case t.foreign != nil:
		return "foreign table"
	}
	return "table"
}

// statsElems analyzes the ON list over t as transformStatsStmt does: an
// expression that is a column reference is that column; other expressions
// are bound (their errors come before CreateStatistics' own checks). An
// element naming a system column is left for statsDefinition to refuse.
func (d *ddl) statsElems(b *binder, t *tableDesc, list []*pg_query.Node) ([]statsElem, error) {
	out := make([]statsElem, len(list))
	for i, n := range list {
		se := n.GetStatsElem()
		out[i].col = -1
		if se.Expr == nil {
			out[i].col = t.colIndex(se.Name)
			if out[i].col < 0 && !slices.Contains(systemColumnNames, se.Name) {
				return nil, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" does not exist", se.Name)
			}
			continue
		}
		out[i].expr = se.Expr
		if readsSystemColumn(t, se.Expr) {
			continue
		}
		if containsSubLink(se.Expr) {
			return nil, pgerror.New(pgerror.FeatureNotSupported, "cannot use subquery in statistics expression")
		}
		sc := tableScope(t, t.name)
		sc.noAgg = "statistics expressions"
		e, err := b.expr(sc, se.Expr)
		if err != nil {
			return nil, err
		}
		if e.slot >= 0 && se.Expr.GetColumnRef() != nil {
			out[i].col, out[i].expr = e.slot, nil
			continue
		}
		out[i].typ = e.typ
	}
	return out, nil
}

// readsSystemColumn reports whether expression n refers to a system
// column of t (a name no column of t has).
func readsSystemColumn(t *tableDesc, n *pg_query.Node) bool {
	for _, name := range systemColumnNames {
		if t.colIndex(name) < 0 && readsColumn(n, name) {
			return true
		}
	}
	return false
}

// statsDefinition is CreateStatistics' checks of the elements and kinds,
// and the object they define.
func statsDefinition(t *tableDesc, elems []statsElem, kinds []string) (*statsExtDesc, error) {
	if len(elems) > maxStatsColumns {
		return nil, pgerror.Newf(pgerror.TooManyColumns, "cannot have more than %d columns in statistics", maxStatsColumns)
	}
	st := &statsExtDesc{target: -1}
	noBtree := func(typ types.Type) bool { return defaultOpclass("btree", typ) == 0 && !typ.IsCitext() }
	for _, e := range elems {
		if e.col < 0 && (e.expr == nil || readsSystemColumn(t, e.expr)) {
			return nil, pgerror.New(pgerror.FeatureNotSupported, "statistics creation on system columns is not supported")
		}
		if e.col >= 0 {
			c := t.cols[e.col]
			if noBtree(c.typ) {
				return nil, pgerror.Newf(pgerror.FeatureNotSupported, "column \"%s\" cannot be used in statistics because its type %s has no default btree operator class",
					c.name, types.FormatTypeBe(c.typ))
			}
			st.keys = append(st.keys, c.attnum)
			continue
		}
		if len(elems) > 1 && noBtree(e.typ) {
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "expression cannot be used in multivariate statistics because its type %s has no default btree operator class",
				types.FormatTypeBe(e.typ))
		}
		st.exprs = append(st.exprs, e.expr)
	}
	if len(elems) == 1 && len(st.exprs) == 1 && len(kinds) > 0 {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "when building statistics on a single expression, statistics kinds may not be specified")
	}
	var ndistinct, dependencies, mcv bool
	for _, k := range kinds {
		switch k {
		case "ndistinct":
			ndistinct = true
		case "dependencies":
			dependencies = true
		case "mcv":
			mcv = true
		default:
			return nil, pgerror.Newf(pgerror.SyntaxError, "unrecognized statistics kind \"%s\"", k)
		}
	}
	if len(kinds) == 0 && len(elems) >= 2 {
		ndistinct, dependencies, mcv = true, true, true
	}
	if len(elems) < 2 && len(st.exprs) != 1 {
		return nil, pgerror.New(pgerror.InvalidObjectDefinition, "extended statistics require at least 2 columns")
	}
	slices.Sort(st.keys)
	for i := 1; i < len(st.keys); i++ {
		if st.keys[i] == st.keys[i-1] {
			return nil, pgerror.New(pgerror.DuplicateColumn, "duplicate column name in statistics definition")
		}
	}
	seen := map[string]bool{}
	for _, e := range st.exprs {
		key := deparseExpr(e)
		if seen[key] {
			return nil, pgerror.New(pgerror.DuplicateColumn, "duplicate expression in statistics definition")
		}
		seen[key] = true
	}
	for _, k := range []struct {
		on   bool
		kind byte
	}{{ndistinct, 'd'}, {dependencies, 'f'}, {mcv, 'm'}, {len(st.exprs) > 0, 'e'}} {
		if k.on {
			st.kinds = append(st.kinds, k.kind)
		}
	}
	return st, nil
}

// statsNameAddition is ChooseExtendedStatisticNameAddition: the columns'
// names, "expr" for an expression, joined by "_" within 63 bytes.
func statsNameAddition(t *tableDesc, elems []statsElem) string {
	names := make([]string, len(elems))
	for i, e := range elems {
		names[i] = "expr"
		if e.col >= 0 {
			names[i] = t.cols[e.col].name
		}
	}
	return foreignKeyNameAddition(names)
}

// chooseStatsName is ChooseExtendedStatisticName: table_addition_stat, or
// stat1, stat2, ... where a statistics object of the schema has the name.
func (d *ddl) chooseStatsName(table, addition, schema string) string {
	name := makeObjectName(table, addition, "stat")
	for i := 1; d.cat.statsNamed(schema, name) != nil; i++ {
		name = makeObjectName(table, addition, "stat"+strconv.Itoa(i))
	}
	return name
}

// statsNamed is the statistics object of the schema with the name, nil
// for none.
func (c *catalog) statsNamed(schema, name string) *statsExtDesc {
	for _, t := range c.tables {
		for _, st := range t.statsExts {
			if st.schema == schema && st.name == name {
				return st
			}
		}
	}
	return nil
}

// statsByOID is the statistics object with the OID and its table; nil for
// none.
func (c *catalog) statsByOID(oid uint32) (*tableDesc, *statsExtDesc) {
	for _, t := range c.tables {
		for _, st := range t.statsExts {
			if st.oid == oid {
				return t, st
			}
		}
	}
	return nil, nil
}

// findStats is get_statistics_object_oid: the object a possibly qualified
// name names, looked up in the search path without the temporary schema.
// With missingOK a missing object (or schema) is nil and no error.
func (d *ddl) findStats(names []string, missingOK bool) (*tableDesc, *statsExtDesc, error) {
	switch len(names) {
	case 1, 2:
	case 3:
		return nil, nil, pgerror.Newf(pgerror.FeatureNotSupported, "cross-database references are not implemented: %s", strings.Join(names, "."))
	default:
		return nil, nil, pgerror.Newf(pgerror.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(names, "."))
	}
	if len(names) == 2 {
		if schema := d.s.schemaAlias(names[0]); d.cat.schemas[schema] == nil && schema != "pg_catalog" && schema != "information_schema" {
			if missingOK {
				return nil, nil, nil
			}
			return nil, nil, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", names[0])
		}
	}
	name := names[len(names)-1]
	for _, schema := range d.s.lookupSchemas(names) {
		if st := d.cat.statsNamed(schema, name); st != nil {
			// The object is part of its table's descriptor, which no
			// other transaction may change meanwhile.
			t, _ := d.cat.statsByOID(st.oid)
			if err := d.lockTable(t, isolation.TableLockShareUpdateExclusive); err != nil {
				return nil, nil, err
			}
			return t, st, nil
		}
	}
	if missingOK {
		return nil, nil, nil
	}
	return nil, nil, pgerror.Newf(pgerror.UndefinedObject, "statistics object \"%s\" does not exist", strings.Join(names, "."))
}

// statsMissingNotice is the notice of an IF EXISTS that finds no object:
// the schema's when a named schema is missing.
func (d *ddl) statsMissingNotice(names []string) {
	if len(names) == 2 && d.cat.schemas[d.s.schemaAlias(names[0])] == nil {
		d.notice(pgerror.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", names[0])
		return
	}
	d.notice(pgerror.SuccessfulCompletion, "statistics object \"%s\" does not exist, skipping", strings.Join(names, "."))
}

// putStats replaces the statistics object of t with st's OID by st, or
// removes it when st has no name.
func (d *ddl) putStats(t *tableDesc, st *statsExtDesc) {
	nt := t.clone()
	nt.statsExts = nil
	for _, o := range t.statsExts {
		switch {
		case o.oid != st.oid:
			nt.statsExts = append(nt.statsExts, o)
		case st.name != "":
			nt.statsExts = append(nt.statsExts, st)
		}
	}
	d.cat.putTable(nt)
}

// alterStatsObject runs fn on the statistics object n names after the
// owner check; with missingOK a missing one is a notice.
func (d *ddl) alterStatsObject(n *pg_query.Node, missingOK bool, fn func(t *tableDesc, st *statsExtDesc) error) error {
	names := strs(n.GetList().GetItems())
	t, st, err := d.findStats(names, missingOK)
	if err != nil {
		return err
	}
	if st == nil {
		d.statsMissingNotice(names)
		return nil
	}
	if err := d.s.requireOwner(st.owner, "statistics object", strings.Join(names, ".")); err != nil {
		return err
	}
	return fn(t, st)
}

// moveStatsObject gives st a name in a schema (RENAME, SET SCHEMA).
func (d *ddl) moveStatsObject(t *tableDesc, st *statsExtDesc, schema, name string) error {
	if other := d.cat.statsNamed(schema, name); other != nil && other.oid != st.oid {
		return pgerror.Newf(pgerror.DuplicateObject, "statistics object \"%s\" already exists in schema \"%s\"", name, schema)
	}
	next := *st
	next.schema, next.name = schema, name
	d.putStats(t, &next)
	return nil
}

// setStatsSchema runs ALTER STATISTICS ... SET SCHEMA with
// AlterObjectNamespace's checks.
func (d *ddl) setStatsSchema(t *tableDesc, st *statsExtDesc, schema string) error {
	if same, err := d.objectSchemaMove(st.schema, schema); same || err != nil {
		return err
	}
	return d.moveStatsObject(t, st, schema, st.name)
}

// alterStatsOwner runs ALTER STATISTICS ... OWNER TO with
// AlterObjectOwner's checks.
func (d *ddl) alterStatsOwner(ao *pg_query.AlterOwnerStmt) error {
	names := strs(ao.Object.GetList().GetItems())
	t, st, err := d.findStats(names, false)
	if err != nil {
		return err
	}
	r, err := d.newOwner(ao.Newowner)
	if err != nil {
		return err
	}
	if r.oid == st.owner {
		return nil
	}
	err = d.mayGiveInSchema(r, func() error {
		return d.s.requireOwner(st.owner, "statistics object", strings.Join(names, "."))
	}, st.schema)
	if err != nil {
		return err
	}
	next := *st
	next.owner = r.oid
	d.putStats(t, &next)
	return nil
}

// alterStatisticsTarget runs ALTER STATISTICS ... SET STATISTICS
// (AlterStatistics): the target is checked before the object is looked up.
func (d *ddl) alterStatisticsTarget(as *pg_query.AlterStatsStmt) error {
	target := as.Stxstattarget.GetInteger()
	if target == nil {
		// PostgreSQL 15's grammar takes only an integer (DEFAULT is 17's).
		return pgerror.New(pgerror.SyntaxError, "syntax error at or near \"DEFAULT\"")
	}
	n := target.Ival
	switch {
	case n < -1:
		return pgerror.Newf(pgerror.InvalidParameterValue, "statistics target %d is too low", n)
	case n > maxStatsTarget:
		n = maxStatsTarget
		d.warning(pgerror.InvalidParameterValue, "lowering statistics target to %d", n)
	}
	names := strs(as.Defnames)
	t, st, err := d.findStats(names, as.MissingOk)
	if err != nil {
		return err
	}
	if st == nil {
		if len(names) == 2 {
			d.notice(pgerror.SuccessfulCompletion, "statistics object \"%s.%s\" does not exist, skipping", names[0], names[1])
		} else {
			d.notice(pgerror.SuccessfulCompletion, "statistics object \"%s\" does not exist, skipping", names[0])
		}
		return nil
	}
	if err := d.s.requireOwner(st.owner, "statistics object", strings.Join(names, ".")); err != nil {
		return err
	}
	next := *st
	next.target = n
	d.putStats(t, &next)
	return nil
}

// dropStatistics runs DROP STATISTICS: nothing depends on a statistics
// object, so CASCADE changes nothing.
func (d *ddl) dropStatistics(ds *pg_query.DropStmt) error {
	type target struct {
		t  *tableDesc
		st *statsExtDesc
	}
	var drop []target
	for _, o := range ds.Objects {
		names := strs(o.GetList().GetItems())
		t, st, err := d.findStats(names, ds.MissingOk)
		if err != nil {
			return err
		}
		if st == nil {
			d.statsMissingNotice(names)
			continue
		}
		if err := d.s.requireOwner(st.owner, "statistics object", strings.Join(names, ".")); err != nil {
			return err
		}
		drop = append(drop, target{t, st})
	}
	for _, x := range drop {
		d.dropStatsObject(x.st.oid)
	}
	return nil
}

// dropStatsObject drops the statistics object with the OID, if it is still
// there, and its comment.
func (d *ddl) dropStatsObject(oid uint32) {
	if t, st := d.cat.statsByOID(oid); st != nil {
		d.putStats(t, &statsExtDesc{oid: oid})
		d.cat.dropComments(oid)
	}
}

// giveStatsObject makes role the owner of the statistics object with the
// OID (REASSIGN OWNED).
func (d *ddl) giveStatsObject(oid, role uint32) {
	if t, st := d.cat.statsByOID(oid); st != nil {
		next := *st
		next.owner = role
		d.putStats(t, &next)
	}
}

// ownedStatsObjects are the statistics objects role owns, for DROP OWNED,
// REASSIGN OWNED and DROP ROLE.
func ownedStatsObjects(c *catalog, role uint32) []ownedObject {
	return statsObjectsWhere(c, func(st *statsExtDesc) bool { return st.owner == role })
}

// ownedStatsObjectsIn are the statistics objects of the schema, which
// DROP SCHEMA drops with it.
func ownedStatsObjectsIn(c *catalog, schema string) []ownedObject {
	return statsObjectsWhere(c, func(st *statsExtDesc) bool { return st.schema == schema })
}

// statsObjectsWhere lists the statistics objects keep picks.
func statsObjectsWhere(c *catalog, keep func(*statsExtDesc) bool) []ownedObject {
	var out []ownedObject
	for _, t := range c.tables {
		for _, st := range t.statsExts {
			if keep(st) {
				out = append(out, ownedObject{oid: st.oid, kind: pg_query.ObjectType_OBJECT_STATISTIC_EXT, schema: st.schema, name: st.name})
			}
		}
	}
	return out
}

// dropTableStats drops the comments of t's statistics objects: DROP
// TABLE drops the objects with the table.
func (d *ddl) dropTableStats(t *tableDesc) {
	for _, st := range t.statsExts {
		d.cat.dropComments(st.oid)
	}
}

// dropColumnStats drops, from t (being altered), the statistics objects
// that use column i: PostgreSQL's auto dependency drops them with it.
func (d *ddl) dropColumnStats(t *tableDesc, i int) {
	c := t.cols[i]
	var keep []*statsExtDesc
	for _, st := range t.statsExts {
		if slices.Contains(st.keys, c.attnum) || slices.ContainsFunc(st.exprs, func(e *pg_query.Node) bool { return readsColumn(e, c.name) }) {
			d.cat.dropComments(st.oid)
			continue
		}
		keep = append(keep, st)
	}
	t.statsExts = keep
}

// renameColumnStats makes the expressions of t's statistics objects
// (t being altered) follow a column renamed from one name to another.
func renameColumnStats(t *tableDesc, from, to string) {
	out := make([]*statsExtDesc, len(t.statsExts))
	for i, st := range t.statsExts {
		next := *st
		next.exprs = make([]*pg_query.Node, len(st.exprs))
		for j, e := range st.exprs {
			next.exprs[j] = renamedColumnRefs(e, from, to, []string{t.name})
		}
		out[i] = &next
	}
	t.statsExts = out
}

// rebuildColumnStats makes anew, after ALTER COLUMN TYPE changed the
// columns altered of t (being altered), the statistics objects that use
// them, as PostgreSQL's ALTER TABLE does: CreateStatistics' checks run
// again, the object gets a new OID and the default target, and keeps its
// comment.
func (d *ddl) rebuildColumnStats(t *tableDesc, altered []int) error {
	uses := func(st *statsExtDesc) bool {
		for _, i := range altered {
			c := t.cols[i]
			if slices.Contains(st.keys, c.attnum) || slices.ContainsFunc(st.exprs, func(e *pg_query.Node) bool { return readsColumn(e, c.name) }) {
				return true
			}
		}
		return false
	}
	// As ALTER TABLE does, every object's expressions are analyzed before
	// any is made.
	b := d.binder("")
	elems := make([][]statsElem, len(t.statsExts))
	for i, st := range t.statsExts {
		if !uses(st) {
			continue
		}
		var list []*pg_query.Node
		for _, a := range st.keys {
			list = append(list, &pg_query.Node{Node: &pg_query.Node_StatsElem{StatsElem: &pg_query.StatsElem{Name: t.colByAttnum(a).name}}})
		}
		for _, e := range st.exprs {
			list = append(list, &pg_query.Node{Node: &pg_query.Node_StatsElem{StatsElem: &pg_query.StatsElem{Expr: proto.Clone(e).(*pg_query.Node)}}})
		}
		var err error
		if elems[i], err = d.statsElems(b, t, list); err != nil {
			return err
		}
	}
	out := make([]*statsExtDesc, len(t.statsExts))
	for i, st := range t.statsExts {
		out[i] = st
		if elems[i] == nil {
			continue
		}
		next, err := statsDefinition(t, elems[i], nil)
		if err != nil {
			return err
		}
		next.kinds, next.oid, next.schema, next.name, next.owner = st.kinds, d.cat.newOID(), st.schema, st.name, st.owner
		d.cat.moveComments(st.oid, next.oid)
		out[i] = next
	}
	t.statsExts = out
	return nil
}

// colByAttnum is t's column with the attnum, nil for none.
func (t *tableDesc) colByAttnum(attnum int16) *columnDesc {
	for _, c := range t.cols {
		if c.attnum == attnum {
			return c
		}
	}
	return nil
}

// copyStatsLike copies src's statistics objects to t for CREATE TABLE ...
// (LIKE src INCLUDING STATISTICS), named as ChooseExtendedStatisticName
// names them in t's schema, with their comments under INCLUDING COMMENTS.
// t is the table being created. The objects are taken in OID order, as
// RelationGetStatExtList lists them.
func (d *ddl) copyStatsLike(src, nt *tableDesc, comments bool) {
	sorted := slices.SortedFunc(slices.Values(src.statsExts), func(a, b *statsExtDesc) int { return cmp.Compare(a.oid, b.oid) })
	for _, st := range sorted {
		next := *st
		next.keys = make([]int16, len(st.keys))
		var names []string
		for i, a := range st.keys {
			name := src.colByAttnum(a).name
			next.keys[i] = nt.cols[nt.colIndex(name)].attnum
			names = append(names, name)
		}
		for range st.exprs {
			names = append(names, "expr")
		}
		slices.Sort(next.keys)
		next.target = -1
		next.schema, next.owner, next.oid = nt.schema, d.s.currentRole(), d.cat.newOID()
		next.name = d.chooseStatsName(nt.name, foreignKeyNameAddition(names), nt.schema)
		nt.statsExts = append(slices.Clip(nt.statsExts), &next)
		if text, ok := d.cat.comments[commentKey{classOID: oidPgStatisticExt, objOID: st.oid}]; ok && comments {
			d.cat.setComment(commentKey{classOID: oidPgStatisticExt, objOID: next.oid}, text)
		}
	}
}

// statsDefinitionText is pg_get_statisticsobjdef (columnsOnly false) and
// pg_get_statisticsobjdef_columns (true) of st on table t.
func statsDefinitionText(s *Session, c *catalog, t *tableDesc, st *statsExtDesc, columnsOnly bool) string {
	var b strings.Builder
	ncols := len(st.keys) + len(st.exprs)
	if !columnsOnly {
		b.WriteString("CREATE STATISTICS " + types.QuoteIdent(st.schema) + "." + types.QuoteIdent(st.name))
		has := func(k byte) bool { return slices.Contains(st.kinds, k) }
		if (!has('d') || !has('f') || !has('m')) && ncols > 1 {
			var kinds []string
			for _, k := range []struct {
				kind byte
				name string
			}{{'d', "ndistinct"}, {'f', "dependencies"}, {'m', "mcv"}} {
				if has(k.kind) {
					kinds = append(kinds, k.name)
				}
			}
			b.WriteString(" (" + strings.Join(kinds, ", ") + ")")
		}
		b.WriteString(" ON ")
	}
	var parts []string
	for _, a := range st.keys {
		parts = append(parts, types.QuoteIdent(t.colByAttnum(a).name))
	}
	for _, e := range st.exprs {
		text := decompile(s, c, deparseExpr(e), t.oid, true)
		if !looksLikeFunction(e) {
			text = "(" + text + ")"
		}
		parts = append(parts, text)
	}
	b.WriteString(strings.Join(parts, ", "))
	if !columnsOnly {
		table := types.QuoteIdent(t.schema) + "." + types.QuoteIdent(t.name)
		if s.lookupTable(c, "", t.name) == t {
			table = types.QuoteIdent(t.name) // generate_relation_name: visible
		}
		b.WriteString(" FROM " + table)
	}
	return b.String()
}

// statsExpressionsText is pg_get_statisticsobjdef_expressions: st's
// expressions printed without pretty-printing, nil for none.
func statsExpressionsText(s *Session, c *catalog, t *tableDesc, st *statsExtDesc) []string {
	if len(st.exprs) == 0 {
		return nil
	}
	out := make([]string, len(st.exprs))
	for i, e := range st.exprs {
		out[i] = decompile(s, c, deparseExpr(e), t.oid, false)
	}
	return out
}

// statsVisible is pg_statistics_obj_is_visible: the first object of its
// name on the search path (the temporary schema not searched).
func (s *Session) statsVisible(c *catalog, st *statsExtDesc) bool {
	for _, schema := range s.lookupSchemas([]string{st.name}) {
		if o := c.statsNamed(schema, st.name); o != nil {
			return o.oid == st.oid
		}
	}
	return false
}

// statsExtRows are pg_statistic_ext's rows, by OID.
func statsExtRows(c *catalog) [][]any {
	var out [][]any
	for _, t := range sortedTables(c) {
		for _, st := range t.statsExts {
			keys := make([]string, len(st.keys))
			for i, k := range st.keys {
				keys[i] = strconv.Itoa(int(k))
			}
			kinds := make([]string, len(st.kinds))
			for i, k := range st.kinds {
				kinds[i] = string(k)
			}
			var exprs any
			if len(st.exprs) > 0 {
				parts := make([]string, len(st.exprs))
				for i, e := range st.exprs {
					parts[i] = deparseExpr(e)
				}
				exprs = listPrefix + strings.Join(parts, listSeparator)
			}
			out = append(out, []any{int64(st.oid), int64(t.oid), st.name, schemaOID(c, st.schema), int64(st.owner), int64(st.target),
				parseCatalogText(types.Int2Vector, strings.Join(keys, " ")), parseCatalogText(arrayType(types.Char), "{"+strings.Join(kinds, ",")+"}"), exprs})
		}
	}
	slices.SortFunc(out, func(a, b []any) int { return int(a[0].(int64) - b[0].(int64)) })
	return out
}

// objectCommandRows is pg_event_trigger_ddl_commands()'s row for a
// statement that made or changed one statistics object, collation or
// conversion (ok false for another statement, or one that changed no such
// object or several): the object as it is after the statement. row makes
// a row of the class, OID, object type, schema and identity.
func objectCommandRows(st *evtState, row func(class, oid uint32, sub int32, objType string, schema any, ident string) []any) ([][]any, bool) {
	type object struct {
		class        uint32
		oid          uint32
		kind         string
		schema, name string
		desc         any
	}
	list := func(c *catalog) map[uint32]object {
		out := map[uint32]object{}
		for _, t := range c.tables {
			for _, s := range t.statsExts {
				out[s.oid] = object{oidPgStatisticExt, s.oid, "statistics object", s.schema, s.name, s}
			}
		}
		for _, coll := range c.collations {
			out[coll.oid] = object{oidPgCollation, coll.oid, "collation", coll.schema, coll.name, coll}
		}
		for _, conv := range c.conversions {
			out[conv.oid] = object{oidPgConversion, conv.oid, "conversion", conv.schema, conv.name, conv}
		}
		return out
	}
	switch n := st.node; {
	case n.GetCreateStatsStmt() != nil, n.GetAlterStatsStmt() != nil, n.GetAlterCollationStmt() != nil, n.GetCreateConversionStmt() != nil,
		n.GetDefineStmt().GetKind() == pg_query.ObjectType_OBJECT_COLLATION:
	case n.GetRenameStmt() != nil || n.GetAlterObjectSchemaStmt() != nil || n.GetAlterOwnerStmt() != nil:
		switch t, _ := alteredObjectType(n); t {
		case pg_query.ObjectType_OBJECT_STATISTIC_EXT, pg_query.ObjectType_OBJECT_COLLATION, pg_query.ObjectType_OBJECT_CONVERSION:
		default:
			return nil, false
		}
	default:
		return nil, false
	}
	before, after := list(st.before), list(st.after)
	var changed []object
	for oid, o := range after {
		if b, ok := before[oid]; !ok || b.desc != o.desc {
			changed = append(changed, o)
		}
	}
	if len(changed) != 1 {
		return nil, false
	}
	o := changed[0]
	return [][]any{row(o.class, o.oid, 0, o.kind, reportSchema(o.schema), qualifiedIdent(o.schema, o.name))}, true
}

// namedObjectsClash is the unique index two transactions that each made a
// statistics object, collation or conversion of one name in a schema
// break in the merged catalog c, "" for none.
func namedObjectsClash(c *catalog) string {
	seen := map[[3]string]bool{}
	check := func(kind, schema, name string) bool {
		k := [3]string{kind, schema, name}
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	}
	for _, t := range c.tables {
		for _, st := range t.statsExts {
			if check("s", st.schema, st.name) {
				return "pg_statistic_ext_name_index"
			}
		}
	}
	for _, coll := range c.collations {
		if check("c", coll.schema, coll.name) {
			return "pg_collation_name_enc_nsp_index"
		}
	}
	for _, conv := range c.conversions {
		if check("v", conv.schema, conv.name) {
			return "pg_conversion_name_nsp_index"
		}
	}
	return ""
}
