package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Foreign tables are relations (relkind f) whose rows live on a foreign
// server. fickle keeps their definitions as tables of the catalog, so
// columns, constraints, inheritance, partitions, ALTER, COMMENT, RENAME and
// DROP behave as PostgreSQL's; every wrapper lacks a handler in fickle, so
// a statement that would read or write one fails as PostgreSQL's planner
// does (55000), and one that would reach one through a parent is refused.

// firstUnpinnedOID is PostgreSQL's FirstUnpinnedObjectId: a relation with
// a smaller OID is a system catalog, which even a superuser may not alter.
const firstUnpinnedOID = 12000

// OIDs of pg_foreign_table and pg_attribute, the catalogs a wrapper's
// validator is told table and column options are for.
const (
	oidPgForeignTable = 3118
	oidPgAttribute    = 1249
)

// foreignTable is a pg_foreign_table row: the table's server and options
// (name=value, nil for none).
type foreignTable struct {
	server  uint32
	options []string
}

// relNoun is the noun PostgreSQL's dependency messages give t.
func relNoun(t *tableDesc) string {
	if t.foreign != nil {
		return "foreign table"
	}
	return "table"
}

// foreignTableFDW is the wrapper of foreign table t's server.
func (c *catalog) foreignTableFDW(t *tableDesc) *fdwDesc {
	return c.fdwByOID(c.serverByOID(t.foreign.server).fdw)
}

// foreignReadError is what PostgreSQL's planner says of a statement that
// reads or writes t: a foreign table's wrapper has no handler; nil for
// another table.
func (c *catalog) foreignReadError(t *tableDesc) error {
	if t.foreign == nil {
		return nil
	}
	return noHandlerError(c.foreignTableFDW(t))
}

// foreignMemberError refuses a statement that reaches a foreign table
// among the members of an inheritance tree or partitioned table: whether
// PostgreSQL's planner would reach it depends on its pruning, which
// fickle does not reproduce. nil when no member is foreign.
func foreignMemberError(members []*tableDesc) error {
	for _, m := range members {
		if m.foreign != nil {
			return pgerror.Unsupported("a statement on an inheritance tree or partitioned table with foreign tables in it")
		}
	}
	return nil
}

// foreignConstraintError is PostgreSQL's error for a constraint a foreign
// table cannot have (primary key, unique, foreign key, exclusion), at
// the constraint; nil for others.
func foreignConstraintError(c *pg_query.Constraint) error {
	what := map[pg_query.ConstrType]string{pg_query.ConstrType_CONSTR_PRIMARY: "primary key", pg_query.ConstrType_CONSTR_UNIQUE: "unique",
		pg_query.ConstrType_CONSTR_FOREIGN: "foreign key", pg_query.ConstrType_CONSTR_EXCLUSION: "exclusion"}[c.Contype]
	if what == "" {
		return nil
	}
	return pgerror.Newf(pgerror.FeatureNotSupported, "%s constraints are not supported on foreign tables", what).WithPosition(int(c.Location) + 1)
}

// createForeignTable runs CREATE FOREIGN TABLE: the table is made as
// CREATE TABLE makes one, then given its server (which its owner needs
// USAGE on) and its options and its columns' options, which the wrapper's
// validator checks.
func (d *ddl) createForeignTable(cs *pg_query.CreateForeignTableStmt, full string) error {
	base := cs.BaseStmt
	for _, elt := range base.TableElts {
		var cons []*pg_query.Node
		if cd := elt.GetColumnDef(); cd != nil {
			cons = cd.Constraints
		} else if elt.GetConstraint() != nil {
			cons = []*pg_query.Node{elt}
		}
		for _, c := range cons {
			if err := foreignConstraintError(c.GetConstraint()); err != nil {
				return err
			}
		}
	}
	ft := &foreignTable{}
	d.creatingForeign = ft
	err := d.createTable(base, full)
	d.creatingForeign = nil
	if err != nil {
		return err
	}
	var t *tableDesc
	for _, x := range d.cat.tables {
		if x.foreign == ft {
			t = x.clone()
		}
	}
	if t == nil {
		return nil // IF NOT EXISTS met an existing relation
	}
	srv, err := d.lookupServer(cs.Servername)
	if err != nil {
		return err
	}
	if !d.s.hasPrivilege(t.owner, aclForeignServer, srv.oid, []byte{'U'}) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for foreign server %s", srv.name)
	}
	validator := d.cat.fdwByOID(srv.fdw).validator
	nf := &foreignTable{server: srv.oid}
	if nf.options, err = d.transformGenericOptions(oidPgForeignTable, nil, cs.Options, validator); err != nil {
		return err
	}
	t.foreign = nf
	for _, elt := range base.TableElts {
		cd := elt.GetColumnDef()
		if cd == nil || len(cd.Fdwoptions) == 0 {
			continue
		}
		i := t.colIndex(cd.Colname)
		col := *t.cols[i]
		if col.fdwOptions, err = d.transformGenericOptions(oidPgAttribute, nil, cd.Fdwoptions, validator); err != nil {
			return err
		}
		t.cols[i] = &col
	}
	d.cat.putTable(t)
	return nil
}

// foreignTableRelation finds the relation an ALTER or DROP FOREIGN TABLE
// names. A schema named but missing fails with 3F000 unless missingOk,
// when found is false.
func (d *ddl) foreignTableRelation(schema, name string, missingOk bool) (oid int64, kind relationKind, found bool, err error) {
	path := d.s.searchPath()
	if schema != "" {
		schema = d.s.schemaAlias(schema)
		if d.cat.schemas[schema] == nil {
			if _, sys := systemRelationNamed(schema, name); !sys {
				if missingOk {
					return 0, 0, false, nil
				}
				return 0, 0, false, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", schema)
			}
		}
		path = []string{schema}
	}
	oid, kind, found = relationLookup(d.cat, path, name)
	return oid, kind, found, nil
}

// relationOwnerAndNoun is the role owning relation oid of kind and the noun
// PostgreSQL's "must be owner of" error calls it by: an index belongs to
// its table's owner.
func (d *ddl) relationOwnerAndNoun(oid uint32, kind relationKind) (uint32, string) {
	switch kind {
	case relSequence:
		return relationOwner(d.cat, aclSequence, oid), "sequence"
	case relView:
		return relationOwner(d.cat, aclTable, oid), "view"
	case relIndex:
		for _, sc := range d.cat.schemas {
			for _, ix := range sc.indexes {
				if ix.oid == oid {
					return relationOwner(d.cat, aclTable, ix.table), "index"
				}
			}
		}
		return oidBootstrapSuperuser, "index"
	}
	if t := d.cat.tables[oid]; t != nil && t.foreign != nil {
		return relationOwner(d.cat, aclTable, oid), "foreign table"
	}
	return relationOwner(d.cat, aclTable, oid), "table"
}

// foreignAlterTarget resolves the relation of ALTER FOREIGN TABLE rv: the
// foreign table, or done with what PostgreSQL answers for a missing
// relation (42P01, a notice with IF EXISTS) or one of another kind (its
// owner's 42809, or 42501 for a system catalog).
func (d *ddl) foreignAlterTarget(rv *pg_query.RangeVar, missingOk bool) (t *tableDesc, done bool, err error) {
	oid, kind, found, err := d.foreignTableRelation(rv.Schemaname, rv.Relname, missingOk)
	if err != nil {
		return nil, true, err
	}
	if !found {
		if missingOk {
			d.notice(pgerror.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", rv.Relname)
			return nil, true, nil
		}
		return nil, true, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
	}
	if t := d.cat.tables[uint32(oid)]; kind == relTable && t != nil && t.foreign != nil {
		return t, false, nil
	}
	owner, noun := d.relationOwnerAndNoun(uint32(oid), kind)
	if err := d.s.requireOwner(owner, noun, rv.Relname); err != nil {
		return nil, true, err
	}
	if oid < firstUnpinnedOID {
		return nil, true, pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied: \"%s\" is a system catalog", rv.Relname)
	}
	return nil, true, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a foreign table", rv.Relname)
}

// foreignOnlyActions are the ALTER TABLE actions a foreign table cannot
// take, in PostgreSQL's words.
var foreignOnlyActions = map[pg_query.AlterTableType]string{
	pg_query.AlterTableType_AT_AlterConstraint:    "ALTER CONSTRAINT",
	pg_query.AlterTableType_AT_SetLogged:          "SET LOGGED",
	pg_query.AlterTableType_AT_SetUnLogged:        "SET UNLOGGED",
	pg_query.AlterTableType_AT_ClusterOn:          "CLUSTER ON",
	pg_query.AlterTableType_AT_DropCluster:        "SET WITHOUT CLUSTER",
	pg_query.AlterTableType_AT_SetTableSpace:      "SET TABLESPACE",
	pg_query.AlterTableType_AT_SetRelOptions:      "SET",
	pg_query.AlterTableType_AT_ResetRelOptions:    "RESET",
	pg_query.AlterTableType_AT_ReplicaIdentity:    "REPLICA IDENTITY",
	pg_query.AlterTableType_AT_AttachPartition:    "ATTACH PARTITION",
	pg_query.AlterTableType_AT_DetachPartition:    "DETACH PARTITION",
	pg_query.AlterTableType_AT_EnableRowSecurity:  "ENABLE ROW SECURITY",
	pg_query.AlterTableType_AT_DisableRowSecurity: "DISABLE ROW SECURITY",
	pg_query.AlterTableType_AT_ForceRowSecurity:   "FORCE ROW SECURITY",
	pg_query.AlterTableType_AT_NoForceRowSecurity: "NO FORCE ROW SECURITY",
	pg_query.AlterTableType_AT_SetCompression:     "ALTER COLUMN ... SET COMPRESSION",
}

// foreignTableCmdError is PostgreSQL's error for an ALTER TABLE command
// on foreign table t that foreign tables do not take, nil for the others.
func foreignTableCmdError(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	if action, ok := foreignOnlyActions[cmd.Subtype]; ok {
		return pgerror.Newf(pgerror.WrongObjectType, "ALTER action %s cannot be performed on relation \"%s\"", action, t.name).
			WithDetail("This operation is not supported for foreign tables.")
	}
	if c := cmd.GetDef().GetConstraint(); c != nil && cmd.Subtype == pg_query.AlterTableType_AT_AddConstraint {
		return foreignConstraintError(c)
	}
	if cd := cmd.GetDef().GetColumnDef(); cd != nil && cmd.Subtype == pg_query.AlterTableType_AT_AddColumn {
		for _, c := range cd.Constraints {
			if err := foreignConstraintError(c.GetConstraint()); err != nil {
				return err
			}
		}
	}
	if cmd.Subtype == pg_query.AlterTableType_AT_AlterColumnType && cmd.GetDef().GetColumnDef().GetRawDefault() != nil {
		return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a table", t.name)
	}
	return nil
}

// alterForeignStmt turns ALTER FOREIGN TABLE on foreign table t into the
// ALTER TABLE that runs it, after PostgreSQL's checks of the commands
// foreign tables refuse.
func alterForeignStmt(t *tableDesc, at *pg_query.AlterTableStmt) (*pg_query.AlterTableStmt, error) {
	for _, c := range at.Cmds {
		if err := foreignTableCmdError(t, c.GetAlterTableCmd()); err != nil {
			return nil, err
		}
	}
	n := proto.Clone(at).(*pg_query.AlterTableStmt)
	n.Objtype = pg_query.ObjectType_OBJECT_TABLE
	return n, nil
}

// setForeignOptions runs ALTER FOREIGN TABLE ... OPTIONS (...) on nt.
func (d *ddl) setForeignOptions(nt *tableDesc, cmd *pg_query.AlterTableCmd) error {
	if nt.foreign == nil {
		return pgerror.Newf(pgerror.WrongObjectType, "ALTER action OPTIONS cannot be performed on relation \"%s\"", nt.name).
			WithDetail("This operation is not supported for tables.")
	}
	f := *nt.foreign
	var err error
	if f.options, err = d.transformGenericOptions(oidPgForeignTable, f.options, cmd.Def.GetList().GetItems(), d.cat.foreignTableFDW(nt).validator); err != nil {
		return err
	}
	nt.foreign = &f
	return nil
}

// setForeignColumnOptions runs ALTER FOREIGN TABLE ... ALTER COLUMN c
// OPTIONS (...) on nt.
func (d *ddl) setForeignColumnOptions(nt *tableDesc, cmd *pg_query.AlterTableCmd) error {
	if nt.foreign == nil {
		return pgerror.Newf(pgerror.WrongObjectType, "ALTER action ALTER COLUMN ... OPTIONS cannot be performed on relation \"%s\"", nt.name).
			WithDetail("This operation is not supported for tables.")
	}
	i := nt.colIndex(cmd.Name)
	if i < 0 {
		if isSystemColumnName(cmd.Name) {
			return pgerror.Newf(pgerror.FeatureNotSupported, "cannot alter system column \"%s\"", cmd.Name)
		}
		return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, nt.name)
	}
	col := *nt.cols[i]
	var err error
	if col.fdwOptions, err = d.transformGenericOptions(oidPgAttribute, col.fdwOptions, cmd.Def.GetList().GetItems(), d.cat.foreignTableFDW(nt).validator); err != nil {
		return err
	}
	nt.cols[i] = &col
	return nil
}

// isSystemColumnName reports whether name is one of a table's system
// columns (ctid, xmin, ...).
func isSystemColumnName(name string) bool {
	for _, n := range systemColumnNames {
		if n == name {
			return true
		}
	}
	return false
}

// dropForeignTables runs DROP FOREIGN TABLE: each name is a foreign table
// (its owner's to drop, with its inheritors under CASCADE, as DROP TABLE
// drops a table), missing (42P01, or a notice with IF EXISTS) or a
// relation of another kind (42809 with PostgreSQL's hint).
func (d *ddl) dropForeignTables(ds *pg_query.DropStmt) error {
	hints := map[relationKind]string{relTable: "Use DROP TABLE to remove a table.", relView: "Use DROP VIEW to remove a view.",
		relSequence: "Use DROP SEQUENCE to remove a sequence.", relIndex: "Use DROP INDEX to remove an index."}
	var ts []*tableDesc
	for _, o := range ds.Objects {
		schema, name := objectName(o)
		oid, kind, found, err := d.foreignTableRelation(schema, name, ds.MissingOk)
		if err != nil {
			return err
		}
		if t := d.cat.tables[uint32(oid)]; found && kind == relTable && t != nil && t.foreign != nil {
			if err := d.s.requireOwner(relationOwner(d.cat, aclTable, t.oid), "foreign table", t.name); err != nil {
				return err
			}
			ts = append(ts, t)
			continue
		}
		if found {
			return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a foreign table", name).WithHint("%s", hints[kind])
		}
		if schema != "" && d.cat.schemas[d.s.schemaAlias(schema)] == nil {
			d.notice(pgerror.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", schema)
			continue
		}
		if !ds.MissingOk {
			return pgerror.Newf(pgerror.UndefinedObject, "foreign table \"%s\" does not exist", name)
		}
		d.notice(pgerror.SuccessfulCompletion, "foreign table \"%s\" does not exist, skipping", name)
	}
	if len(ts) == 0 {
		return nil
	}
	return d.dropTables(ts, ds.Behavior == pg_query.DropBehavior_DROP_CASCADE)
}

// serverTables are the foreign tables on srv, as dependents a DROP of the
// server reaches.
func (d *ddl) serverTables(srv *foreignServerDesc) []*tableDesc {
	var out []*tableDesc
	for _, t := range sortedTables(d.cat) {
		if t.foreign != nil && t.foreign.server == srv.oid {
			out = append(out, t)
		}
	}
	return out
}

// foreignPartitionKeyError is the error of making foreign table ch a
// partition of p (attaching says by ATTACH PARTITION) when p has a unique
// index, which a foreign partition cannot carry; nil otherwise.
func foreignPartitionKeyError(ch, p *tableDesc, attaching bool) error {
	for _, k := range partitionKeys(p) {
		if k.plain && !k.unique {
			continue
		}
		if attaching {
			return pgerror.Newf(pgerror.WrongObjectType, "cannot attach foreign table \"%s\" as partition of partitioned table \"%s\"", ch.name, p.name).
				WithDetail("Partitioned table \"%s\" contains unique indexes.", p.name)
		}
		return pgerror.Newf(pgerror.WrongObjectType, "cannot create foreign partition of partitioned table \"%s\"", p.name).
			WithDetail("Table \"%s\" contains indexes that are unique.", p.name)
	}
	return nil
}

// foreignPartitionsIndexError is the error of a unique index on
// partitioned table named name (as the statement names it) whose
// partitions in members include a foreign table; nil otherwise.
func foreignPartitionsIndexError(name string, members []*tableDesc) error {
	for _, m := range members {
		if m.foreign != nil {
			return pgerror.Newf(pgerror.WrongObjectType, "cannot create unique index on partitioned table \"%s\"", name).
				WithDetail("Table \"%s\" contains partitions that are foreign tables.", name)
		}
	}
	return nil
}

// foreignTriggerError is PostgreSQL's error for a trigger foreign tables
// cannot have (INSTEAD OF, constraint triggers) on table t, nil for
// another trigger or relation.
func foreignTriggerError(t *tableDesc, view *viewDesc, ct *pg_query.CreateTrigStmt) error {
	if view != nil || t.foreign == nil {
		return nil
	}
	switch {
	case ct.Timing&tgInstead != 0:
		return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is a foreign table", t.name).WithDetail("Foreign tables cannot have INSTEAD OF triggers.")
	case ct.Events&tgTruncate != 0:
		return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is a foreign table", t.name).WithDetail("Foreign tables cannot have TRUNCATE triggers.")
	case ct.Isconstraint:
		return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is a foreign table", t.name).WithDetail("Foreign tables cannot have constraint triggers.")
	}
	return nil
}

// foreignUpdatabilityError makes the error of reading one of columns
// cols of an information_schema view, which PostgreSQL computes with
// pg_relation_is_updatable or pg_column_is_updatable: for a foreign
// table, or a view over one, those ask its wrapper's handler and fail.
// Whether PostgreSQL computes the column for those rows depends on the
// rest of the query, so fickle refuses a read of it while a foreign table
// exists.
func foreignUpdatabilityError(cols ...string) func(s *Session, c *catalog, name string) error {
	return func(s *Session, c *catalog, name string) error {
		if !slices.Contains(cols, name) {
			return nil
		}
		for _, t := range c.tables {
			if t.foreign != nil {
				return pgerror.Unsupported("information_schema's " + name + " while a foreign table exists")
			}
		}
		return nil
	}
}

// dropHint is the hint of a DROP that names table t as another kind of
// relation: the DROP for t's kind.
func dropHint(t *tableDesc) string {
	if t.foreign != nil {
		return "Use DROP FOREIGN TABLE to remove a foreign table."
	}
	return "Use DROP TABLE to remove a table."
}

// addedColumnOptions gives the column ADD COLUMN cmd added to foreign
// table oid the options it names, which the wrapper's validator checks;
// existed says the column was there already (IF NOT EXISTS).
func (d *ddl) addedColumnOptions(oid uint32, cmd *pg_query.AlterTableCmd, existed bool) error {
	cd := cmd.GetDef().GetColumnDef()
	t := d.cat.tables[oid]
	if cmd.Subtype != pg_query.AlterTableType_AT_AddColumn || len(cd.GetFdwoptions()) == 0 || t.foreign == nil || existed {
		return nil
	}
	nt := t.clone()
	i := nt.colIndex(cd.Colname)
	col := *nt.cols[i]
	var err error
	if col.fdwOptions, err = d.transformGenericOptions(oidPgAttribute, nil, cd.Fdwoptions, d.cat.foreignTableFDW(nt).validator); err != nil {
		return err
	}
	nt.cols[i] = &col
	d.cat.putTable(nt)
	return nil
}

// withoutPlanErrors drops the plan errors noted since mark: a query that
// WITH NO DATA leaves unplanned reads no foreign table, as in PostgreSQL.
func withoutPlanErrors(perms []permCheck, mark int) []permCheck {
	out := perms[:mark:mark]
	for _, p := range perms[mark:] {
		if p.planErr == nil {
			out = append(out, p)
		}
	}
	return out
}
