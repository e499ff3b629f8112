package sqlexec

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// ddl is one DDL statement in progress: it edits a clone of the catalog
// its session sees and calls the store. On success the clone becomes its
// transaction's catalog (catalog_txn.go); on failure undo reverses its
// store effects.
type ddl struct {
	s   *Session
	x   *execCtx
	cat *catalog
	// viewVersion is the version of the session's catalog cat was cloned
	// from; base and baseVersion the published catalog under it.
	viewVersion uint64
	base        *catalog
	baseVersion uint64
	undo        []func()
	onCommit    []func()
	notices     []*pgerror.Error
	// rebuiltIndexes maps the OIDs of the indexes the statement's ALTER
	// COLUMN TYPE rebuilt to their successors (rebuildIndexesOn).
	rebuiltIndexes map[uint32]rebuiltIndex
	// retyped marks the inheritors an ALTER COLUMN ... TYPE has converted.
	retyped map[retypedTable]bool
	// creatingForeign, set while CREATE FOREIGN TABLE makes its table,
	// makes it a foreign table (ddl_foreign_table.go).
	creatingForeign *foreignTable
	// tag is the statement's command tag ("" when it runs outside
	// ddlPlan), which names it in errors about its tables (lockTable).
	tag string
	// phase3 gathers the row checks an ALTER TABLE makes after its
	// passes (ddl_alter_passes.go).
	phase3 *alterPhase3
}

// newOwner is the role ALTER ... OWNER TO names, which must exist.
func (d *ddl) newOwner(spec *pg_query.RoleSpec) (*roleDesc, error) {
	r := d.s.roleNamed(d.s.roleSpecName(spec.Roletype.String(), spec.Rolename))
	if r == nil {
		return nil, pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", spec.Rolename)
	}
	return r, nil
}

// mayGiveTo makes PostgreSQL's checks (AlterObjectOwner_internal) before a
// role that is not a superuser gives an object to r: owns, that it owns the
// object; that it belongs to r; then creatable, that r may hold such an
// object where this one is.
func (d *ddl) mayGiveTo(r *roleDesc, owns, creatable func() error) error {
	role := d.s.currentRole()
	if d.s.isSuperuser(role) {
		return nil
	}
	if err := owns(); err != nil {
		return err
	}
	if !d.s.belongsTo(role, r.oid) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be member of role \"%s\"", r.name)
	}
	return creatable()
}

// mayGiveInSchema is mayGiveTo for an object of schema: r must be allowed to
// create objects there.
func (d *ddl) mayGiveInSchema(r *roleDesc, owns func() error, schema string) error {
	return d.mayGiveTo(r, owns, func() error {
		if sc := d.cat.schemas[schema]; sc != nil && !d.s.hasPrivilege(r.oid, aclSchema, sc.oid, []byte{'C'}) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for schema %s", schema)
		}
		return nil
	})
}

// objectSchemaMove makes AlterObjectNamespace's checks of moving an object
// of schema from to schema to: to exists, neither is temporary, and the
// current role may create objects in to. same reports a move to the schema
// the object is in, which changes nothing.
func (d *ddl) objectSchemaMove(from, to string) (same bool, err error) {
	if d.cat.schemas[to] == nil {
		return false, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", to)
	}
	if isTempSchema(to) || isTempSchema(from) {
		return false, pgerror.New(pgerror.FeatureNotSupported, "cannot move objects into or out of temporary schemas")
	}
	if err := d.requireSchemaCreate(to); err != nil {
		return false, err
	}
	return to == from, nil
}

// notice records a NOTICE for the client, as PostgreSQL sends for IF [NOT]
// EXISTS clauses that skip their object.
func (d *ddl) notice(code pgerror.Code, format string, args ...any) {
	n := pgerror.Newf(code, format, args...)
	n.Severity = "NOTICE"
	d.notices = append(d.notices, n)
}

// warning sends the client a WARNING with the statement's result.
func (d *ddl) warning(code pgerror.Code, format string, args ...any) {
	n := pgerror.Newf(code, format, args...)
	n.Severity = "WARNING"
	d.notices = append(d.notices, n)
}

// schemaObjectNouns name the schema objects whose statements' command tags
// schemaObjectTag gives.
var schemaObjectNouns = map[pg_query.ObjectType]string{
	pg_query.ObjectType_OBJECT_COLLATION:       "COLLATION",
	pg_query.ObjectType_OBJECT_CONVERSION:      "CONVERSION",
	pg_query.ObjectType_OBJECT_STATISTIC_EXT:   "STATISTICS",
	pg_query.ObjectType_OBJECT_TSCONFIGURATION: "TEXT SEARCH CONFIGURATION",
	pg_query.ObjectType_OBJECT_TSDICTIONARY:    "TEXT SEARCH DICTIONARY",
	pg_query.ObjectType_OBJECT_TSPARSER:        "TEXT SEARCH PARSER",
	pg_query.ObjectType_OBJECT_TSTEMPLATE:      "TEXT SEARCH TEMPLATE",
}

// schemaObjectTag is the command tag of a statement on collations,
// conversions, statistics objects or text search objects, "" for another
// statement.
func schemaObjectTag(n *pg_query.Node) string {
	tag := func(verb string, t pg_query.ObjectType) string {
		if noun := schemaObjectNouns[t]; noun != "" {
			return verb + " " + noun
		}
		return ""
	}
	switch v := n.Node.(type) {
	case *pg_query.Node_DefineStmt:
		return tag("CREATE", v.DefineStmt.Kind)
	case *pg_query.Node_CreateConversionStmt:
		return "CREATE CONVERSION"
	case *pg_query.Node_CreateStatsStmt:
		return "CREATE STATISTICS"
	case *pg_query.Node_AlterStatsStmt:
		return "ALTER STATISTICS"
	case *pg_query.Node_AlterCollationStmt:
		return "ALTER COLLATION"
	case *pg_query.Node_AlterTsconfigurationStmt:
		return "ALTER TEXT SEARCH CONFIGURATION"
	case *pg_query.Node_AlterTsdictionaryStmt:
		return "ALTER TEXT SEARCH DICTIONARY"
	case *pg_query.Node_DropStmt:
		return tag("DROP", v.DropStmt.RemoveType)
	}
	if t, ok := alteredObjectType(n); ok {
		return tag("ALTER", t)
	}
	return ""
}

// alteredObjectType is the object type of ALTER ... RENAME, SET SCHEMA or
// OWNER TO; ok is false for another statement.
func alteredObjectType(n *pg_query.Node) (pg_query.ObjectType, bool) {
	switch v := n.Node.(type) {
	case *pg_query.Node_RenameStmt:
		return v.RenameStmt.RenameType, true
	case *pg_query.Node_AlterObjectSchemaStmt:
		return v.AlterObjectSchemaStmt.ObjectType, true
	case *pg_query.Node_AlterOwnerStmt:
		return v.AlterOwnerStmt.ObjectType, true
	}
	return 0, false
}

func ddlTag(n *pg_query.Node) string {
	if tag := schemaObjectTag(n); tag != "" {
		return tag
	}
	if ds := n.GetDropStmt(); ds != nil && ds.RemoveType == pg_query.ObjectType_OBJECT_CAST {
		return "DROP CAST"
	}
	switch v := n.Node.(type) {
	case *pg_query.Node_ClusterStmt:
		return "CLUSTER"
	case *pg_query.Node_CreateStmt:
		return "CREATE TABLE"
	case *pg_query.Node_DropStmt:
		switch v.DropStmt.RemoveType {
		case pg_query.ObjectType_OBJECT_INDEX:
			return "DROP INDEX"
		case pg_query.ObjectType_OBJECT_SEQUENCE:
			return "DROP SEQUENCE"
		case pg_query.ObjectType_OBJECT_SCHEMA:
			return "DROP SCHEMA"
		case pg_query.ObjectType_OBJECT_VIEW:
			return "DROP VIEW"
		case pg_query.ObjectType_OBJECT_FUNCTION:
			return "DROP FUNCTION"
		case pg_query.ObjectType_OBJECT_PROCEDURE:
			return "DROP PROCEDURE"
		case pg_query.ObjectType_OBJECT_ROUTINE:
			return "DROP ROUTINE"
		case pg_query.ObjectType_OBJECT_AGGREGATE:
			return "DROP AGGREGATE"
		case pg_query.ObjectType_OBJECT_OPERATOR:
			return "DROP OPERATOR"
		case pg_query.ObjectType_OBJECT_OPCLASS, pg_query.ObjectType_OBJECT_OPFAMILY:
			return "DROP " + opclassKindWords(v.DropStmt.RemoveType)
		case pg_query.ObjectType_OBJECT_TRIGGER:
			return "DROP TRIGGER"
		case pg_query.ObjectType_OBJECT_RULE:
			return "DROP RULE"
		case pg_query.ObjectType_OBJECT_POLICY:
			return "DROP POLICY"
		case pg_query.ObjectType_OBJECT_TYPE:
			return "DROP TYPE"
		case pg_query.ObjectType_OBJECT_DOMAIN:
			return "DROP DOMAIN"
		case pg_query.ObjectType_OBJECT_EXTENSION:
			return "DROP EXTENSION"
		case pg_query.ObjectType_OBJECT_PUBLICATION:
			return "DROP PUBLICATION"
		case pg_query.ObjectType_OBJECT_FOREIGN_TABLE:
			return "DROP FOREIGN TABLE"
		case pg_query.ObjectType_OBJECT_FDW:
			return "DROP FOREIGN DATA WRAPPER"
		case pg_query.ObjectType_OBJECT_FOREIGN_SERVER:
			return "DROP SERVER"
		case pg_query.ObjectType_OBJECT_MATVIEW:
			return "DROP MATERIALIZED VIEW"
		case pg_query.ObjectType_OBJECT_EVENT_TRIGGER:
			return "DROP EVENT TRIGGER"
		}
		return "DROP TABLE"
	case *pg_query.Node_AlterTableStmt:
		switch v.AlterTableStmt.Objtype {
		case pg_query.ObjectType_OBJECT_INDEX:
			return "ALTER INDEX"
		case pg_query.ObjectType_OBJECT_SEQUENCE:
			return "ALTER SEQUENCE"
		case pg_query.ObjectType_OBJECT_VIEW:
			return "ALTER VIEW"
		case pg_query.ObjectType_OBJECT_FOREIGN_TABLE:
			return "ALTER FOREIGN TABLE"
		case pg_query.ObjectType_OBJECT_MATVIEW:
			return "ALTER MATERIALIZED VIEW"
		case pg_query.ObjectType_OBJECT_TYPE:
			return "ALTER TYPE"
		}
		return "ALTER TABLE"
	case *pg_query.Node_IndexStmt:
		return "CREATE INDEX"
	case *pg_query.Node_CreateSeqStmt:
		return "CREATE SEQUENCE"
	case *pg_query.Node_CompositeTypeStmt, *pg_query.Node_CreateEnumStmt, *pg_query.Node_CreateRangeStmt:
		return "CREATE TYPE"
	case *pg_query.Node_AlterEnumStmt:
		return "ALTER TYPE"
	case *pg_query.Node_CreateDomainStmt:
		return "CREATE DOMAIN"
	case *pg_query.Node_AlterDomainStmt:
		return "ALTER DOMAIN"
	case *pg_query.Node_AlterSeqStmt:
		return "ALTER SEQUENCE"
	case *pg_query.Node_CreateSchemaStmt:
		return "CREATE SCHEMA"
	case *pg_query.Node_AlterOwnerStmt:
		if w := opclassKindWords(v.AlterOwnerStmt.ObjectType); w != "" {
			return "ALTER " + w
		}
		if v.AlterOwnerStmt.ObjectType == pg_query.ObjectType_OBJECT_LARGEOBJECT {
			return "ALTER LARGE OBJECT"
		}
		if tag := foreignObjectTag(v.AlterOwnerStmt.ObjectType); tag != "" {
			return tag
		}
		return "ALTER " + strings.ReplaceAll(strings.TrimPrefix(v.AlterOwnerStmt.ObjectType.String(), "OBJECT_"), "_", " ")
	case *pg_query.Node_AlterObjectSchemaStmt:
		if w := opclassKindWords(v.AlterObjectSchemaStmt.ObjectType); w != "" {
			return "ALTER " + w
		}
		if v.AlterObjectSchemaStmt.ObjectType == pg_query.ObjectType_OBJECT_MATVIEW {
			return "ALTER MATERIALIZED VIEW"
		}
		return "ALTER " + strings.ReplaceAll(strings.TrimPrefix(v.AlterObjectSchemaStmt.ObjectType.String(), "OBJECT_"), "_", " ")
	case *pg_query.Node_AlterFunctionStmt:
		return "ALTER " + strings.TrimPrefix(v.AlterFunctionStmt.Objtype.String(), "OBJECT_")
	case *pg_query.Node_RenameStmt:
		if tag := foreignObjectTag(v.RenameStmt.RenameType); tag != "" {
			return tag
		}
		if w := opclassKindWords(v.RenameStmt.RenameType); w != "" {
			return "ALTER " + w
		}
		switch v.RenameStmt.RenameType {
		case pg_query.ObjectType_OBJECT_INDEX:
			return "ALTER INDEX"
		case pg_query.ObjectType_OBJECT_PUBLICATION:
			return "ALTER PUBLICATION"
		case pg_query.ObjectType_OBJECT_SEQUENCE:
			return "ALTER SEQUENCE"
		case pg_query.ObjectType_OBJECT_POLICY:
			return "ALTER POLICY"
		case pg_query.ObjectType_OBJECT_FUNCTION, pg_query.ObjectType_OBJECT_PROCEDURE, pg_query.ObjectType_OBJECT_ROUTINE,
			pg_query.ObjectType_OBJECT_AGGREGATE, pg_query.ObjectType_OBJECT_SCHEMA:
			return "ALTER " + strings.TrimPrefix(v.RenameStmt.RenameType.String(), "OBJECT_")
		case pg_query.ObjectType_OBJECT_EVENT_TRIGGER:
			return "ALTER EVENT TRIGGER"
		case pg_query.ObjectType_OBJECT_RULE:
			return "ALTER RULE"
		case pg_query.ObjectType_OBJECT_TRIGGER:
			return "ALTER TRIGGER"
		case pg_query.ObjectType_OBJECT_FOREIGN_TABLE:
			return "ALTER FOREIGN TABLE"
		case pg_query.ObjectType_OBJECT_MATVIEW:
			return "ALTER MATERIALIZED VIEW"
		case pg_query.ObjectType_OBJECT_VIEW:
			return "ALTER VIEW"
		case pg_query.ObjectType_OBJECT_TYPE, pg_query.ObjectType_OBJECT_ATTRIBUTE:
			return "ALTER TYPE"
		case pg_query.ObjectType_OBJECT_DOMAIN, pg_query.ObjectType_OBJECT_DOMCONSTRAINT:
			return "ALTER DOMAIN"
		case pg_query.ObjectType_OBJECT_COLUMN:
			switch v.RenameStmt.RelationType {
			case pg_query.ObjectType_OBJECT_FOREIGN_TABLE:
				return "ALTER FOREIGN TABLE"
			case pg_query.ObjectType_OBJECT_MATVIEW:
				return "ALTER MATERIALIZED VIEW"
			case pg_query.ObjectType_OBJECT_VIEW:
				return "ALTER VIEW"
			}
		}
		return "ALTER TABLE"
	case *pg_query.Node_CommentStmt:
		return "COMMENT"
	case *pg_query.Node_CreateEventTrigStmt:
		return "CREATE EVENT TRIGGER"
	case *pg_query.Node_AlterEventTrigStmt:
		return "ALTER EVENT TRIGGER"
	case *pg_query.Node_ViewStmt:
		return "CREATE VIEW"
	case *pg_query.Node_CreateTrigStmt:
		return "CREATE TRIGGER"
	case *pg_query.Node_RuleStmt:
		return "CREATE RULE"
	case *pg_query.Node_CreatePolicyStmt:
		return "CREATE POLICY"
	case *pg_query.Node_AlterPolicyStmt:
		return "ALTER POLICY"
	case *pg_query.Node_CreateExtensionStmt:
		return "CREATE EXTENSION"
	case *pg_query.Node_CreatePublicationStmt:
		return "CREATE PUBLICATION"
	case *pg_query.Node_AlterPublicationStmt:
		return "ALTER PUBLICATION"
	case *pg_query.Node_CreateFdwStmt:
		return "CREATE FOREIGN DATA WRAPPER"
	case *pg_query.Node_AlterFdwStmt:
		return "ALTER FOREIGN DATA WRAPPER"
	case *pg_query.Node_CreateForeignServerStmt:
		return "CREATE SERVER"
	case *pg_query.Node_AlterForeignServerStmt:
		return "ALTER SERVER"
	case *pg_query.Node_CreateUserMappingStmt:
		return "CREATE USER MAPPING"
	case *pg_query.Node_AlterUserMappingStmt:
		return "ALTER USER MAPPING"
	case *pg_query.Node_DropUserMappingStmt:
		return "DROP USER MAPPING"
	case *pg_query.Node_CreateForeignTableStmt:
		return "CREATE FOREIGN TABLE"
	case *pg_query.Node_ImportForeignSchemaStmt:
		return "IMPORT FOREIGN SCHEMA"
	case *pg_query.Node_DefineStmt:
		if v.DefineStmt.Kind == pg_query.ObjectType_OBJECT_OPERATOR {
			return "CREATE OPERATOR"
		}
		return "CREATE AGGREGATE"
	case *pg_query.Node_AlterOperatorStmt:
		return "ALTER OPERATOR"
	case *pg_query.Node_CreateOpClassStmt:
		return "CREATE OPERATOR CLASS"
	case *pg_query.Node_CreateOpFamilyStmt:
		return "CREATE OPERATOR FAMILY"
	case *pg_query.Node_AlterOpFamilyStmt:
		return "ALTER OPERATOR FAMILY"
	case *pg_query.Node_CreateFunctionStmt:
		if v.CreateFunctionStmt.IsProcedure {
			return "CREATE PROCEDURE"
		}
		return "CREATE FUNCTION"
	case *pg_query.Node_GrantStmt:
		if v.GrantStmt.IsGrant {
			return "GRANT"
		}
		return "REVOKE"
	case *pg_query.Node_AlterDefaultPrivilegesStmt:
		return "ALTER DEFAULT PRIVILEGES"
	case *pg_query.Node_DropOwnedStmt:
		return "DROP OWNED"
	case *pg_query.Node_ReassignOwnedStmt:
		return "REASSIGN OWNED"
	}
	return "DDL"
}

func (b *binder) ddlPlan(st *Statement) (*stmtPlan, error) {
	node := st.node
	tag := ddlTag(node)
	concurrently := ""
	if is := node.GetIndexStmt(); is != nil && is.Concurrent {
		concurrently = "CREATE INDEX CONCURRENTLY"
	} else if ds := node.GetDropStmt(); ds != nil && ds.Concurrent {
		concurrently = "DROP INDEX CONCURRENTLY"
	} else if cs := node.GetClusterStmt(); cs != nil && cs.Relation == nil {
		concurrently = "CLUSTER"
	}
	return &stmtPlan{writes: tag, exec: func(x *execCtx) (*Result, error) {
		if concurrently != "" && x.s.txn.explicit {
			return nil, pgerror.Newf(pgerror.ActiveSqlTransaction, "%s cannot run inside a transaction block", concurrently)
		}
		d, err := x.s.runDDL(x, func(d *ddl) error {
			d.tag = tag
			return d.run(node, st.full)
		})
		if err != nil {
			return nil, err
		}
		return &Result{Tag: tag, Notices: d.notices}, nil
	}}, nil
}

// runDDL runs one DDL statement in the session's transaction: f edits a
// clone of the session's catalog, which becomes the transaction's catalog
// when f succeeds. A statement that waited for a lock held by DDL that
// committed meanwhile runs again on the new catalog.
func (s *Session) runDDL(x *execCtx, f func(d *ddl) error) (*ddl, error) {
	for {
		cur, v := s.catalog()
		d := &ddl{s: s, x: x, cat: cur.clone(), viewVersion: v}
		// The transaction's first DDL edits the published catalog it read:
		// that one is its base, not one published since, whose changes
		// the edit would otherwise undo at commit (a table another session
		// dropped coming back).
		d.base, d.baseVersion = cur, v
		if tc := s.txn.cat; tc != nil {
			d.base, d.baseVersion = tc.base, tc.baseVersion
		}
		err := f(d)
		if err == nil {
			s.installCatalog(d)
			return d, nil
		}
		runUndo(d.undo)
		if err != errCatalogChanged {
			// The notices of a statement that fails go out before its
			// error, as PostgreSQL sends them as they are raised.
			s.notices = append(s.notices, d.notices...)
			return nil, err
		}
	}
}

func (d *ddl) binder(full string) *binder {
	return &binder{s: d.s, cat: d.cat, full: full}
}

func (d *ddl) store() *isolation.Store { return d.s.engine.store }

// createStoreTable registers t with the store under a name no other table
// of the history has had; a rollback drops it.
func (d *ddl) createStoreTable(t *tableDesc) error {
	name := d.s.engine.cluster.storeName(d.s.engine, t.schema, t.name)
	id, err := d.s.engine.createStoreTable(t, name)
	if err != nil {
		return err
	}
	t.id = id
	d.undo = append(d.undo, func() { _ = d.store().DropTable(id) })
	if d.s.txn != nil {
		d.s.txn.markFresh(id)
	}
	return nil
}

// dropStoreIndex drops an index from the store at once (a dropped unique
// index must stop rejecting this transaction's rows); a rollback brings it
// back.
func (d *ddl) dropStoreIndex(id isolation.IndexID) error {
	restore, err := d.store().DropIndex(id)
	if err != nil {
		return err
	}
	d.undo = append(d.undo, restore)
	return nil
}

// rewriteRows rewrites every stored version of t's rows; a rollback gives
// them their old values back.
func (d *ddl) rewriteRows(t *tableDesc, f func(isolation.RowRewrite) []any) error {
	d.x.ddlCatalog = d.cat
	restore, err := d.store().RewriteRows(t.id, f)
	d.x.ddlCatalog = nil
	if err != nil {
		return err
	}
	d.undo = append(d.undo, restore)
	return nil
}

// dropStoreTable drops t's rows from the store when the transaction
// commits; until then the rows stay for a rollback.
func (d *ddl) dropStoreTable(t *tableDesc) {
	id, store := t.id, d.store()
	d.onCommit = append(d.onCommit, func() { _ = store.DropTable(id) })
}

func (d *ddl) run(n *pg_query.Node, full string) error {
	if done, err := d.alterMatview(n); done {
		return err
	}
	if done, err := d.textSearchDDL(n); done {
		return err
	}
	if done, err := d.statisticsDDL(n, full); done {
		return err
	}
	if done, err := d.collationDDL(n); done {
		return err
	}
	if done, err := d.conversionDDL(n); done {
		return err
	}
	if ds := n.GetDropStmt(); ds != nil && ds.RemoveType == pg_query.ObjectType_OBJECT_CAST {
		return d.dropCast(ds)
	}
	switch v := n.Node.(type) {
	case *pg_query.Node_CreateStmt:
		return d.createTable(v.CreateStmt, full)
	case *pg_query.Node_DropStmt:
		return d.drop(v.DropStmt)
	case *pg_query.Node_AlterTableStmt:
		return d.alterTable(v.AlterTableStmt, full)
	case *pg_query.Node_ClusterStmt:
		return d.cluster(v.ClusterStmt)
	case *pg_query.Node_IndexStmt:
		return d.createIndex(v.IndexStmt)
	case *pg_query.Node_CreateSeqStmt:
		return d.createSequence(v.CreateSeqStmt)
	case *pg_query.Node_AlterSeqStmt:
		return d.alterSequenceStmt(v.AlterSeqStmt)
	case *pg_query.Node_CreateSchemaStmt:
		return d.createSchema(v.CreateSchemaStmt, full)
	case *pg_query.Node_RenameStmt:
		return d.rename(v.RenameStmt)
	case *pg_query.Node_AlterOwnerStmt:
		return d.alterOwner(v.AlterOwnerStmt)
	case *pg_query.Node_AlterObjectSchemaStmt:
		if as := v.AlterObjectSchemaStmt; as.ObjectType == pg_query.ObjectType_OBJECT_FOREIGN_TABLE {
			t, done, err := d.foreignAlterTarget(as.Relation, as.MissingOk)
			if done {
				return err
			}
			return d.setTableSchema(t, as.Newschema)
		}
		if ot := v.AlterObjectSchemaStmt.ObjectType; ot == pg_query.ObjectType_OBJECT_TYPE || ot == pg_query.ObjectType_OBJECT_DOMAIN {
			return d.setTypeSchema(v.AlterObjectSchemaStmt)
		}
		if v.AlterObjectSchemaStmt.ObjectType == pg_query.ObjectType_OBJECT_OPERATOR {
			return d.setOperatorSchema(v.AlterObjectSchemaStmt)
		}
		if opclassKindWords(v.AlterObjectSchemaStmt.ObjectType) != "" {
			return d.setOpclassSchema(v.AlterObjectSchemaStmt)
		}
		if ok, err := d.setRelationSchema(v.AlterObjectSchemaStmt); ok {
			return err
		}
		if !isRoutineObject(v.AlterObjectSchemaStmt.ObjectType) {
			return pgerror.Unsupported(ddlTag(n) + " ... SET SCHEMA")
		}
		return d.setRoutineSchema(v.AlterObjectSchemaStmt)
	case *pg_query.Node_AlterFunctionStmt:
		return d.alterRoutine(v.AlterFunctionStmt, full)
	case *pg_query.Node_CommentStmt:
		return d.comment(v.CommentStmt)
	case *pg_query.Node_CreateEventTrigStmt:
		return d.createEventTrigger(v.CreateEventTrigStmt)
	case *pg_query.Node_AlterEventTrigStmt:
		return d.alterEventTrigger(v.AlterEventTrigStmt)
	case *pg_query.Node_ViewStmt:
		return d.createView(v.ViewStmt, full)
	case *pg_query.Node_GrantStmt:
		return d.grant(v.GrantStmt)
	case *pg_query.Node_AlterDefaultPrivilegesStmt:
		return d.alterDefaultPrivileges(v.AlterDefaultPrivilegesStmt)
	case *pg_query.Node_DropOwnedStmt:
		return d.dropOwned(v.DropOwnedStmt)
	case *pg_query.Node_ReassignOwnedStmt:
		return d.reassignOwned(v.ReassignOwnedStmt)
	case *pg_query.Node_CreateFunctionStmt:
		return d.createFunction(v.CreateFunctionStmt, full)
	case *pg_query.Node_CreateExtensionStmt:
		return d.createExtension(v.CreateExtensionStmt)
	case *pg_query.Node_CreatePublicationStmt:
		return d.createPublication(v.CreatePublicationStmt, full)
	case *pg_query.Node_AlterPublicationStmt:
		return d.alterPublication(v.AlterPublicationStmt, full)
	case *pg_query.Node_CreateFdwStmt:
		return d.createFDW(v.CreateFdwStmt)
	case *pg_query.Node_AlterFdwStmt:
		return d.alterFDW(v.AlterFdwStmt)
	case *pg_query.Node_CreateForeignServerStmt:
		return d.createServer(v.CreateForeignServerStmt)
	case *pg_query.Node_AlterForeignServerStmt:
		return d.alterServer(v.AlterForeignServerStmt)
	case *pg_query.Node_CreateUserMappingStmt:
		return d.createUserMapping(v.CreateUserMappingStmt)
	case *pg_query.Node_AlterUserMappingStmt:
		return d.alterUserMapping(v.AlterUserMappingStmt)
	case *pg_query.Node_DropUserMappingStmt:
		return d.dropUserMapping(v.DropUserMappingStmt)
	case *pg_query.Node_ImportForeignSchemaStmt:
		return d.importForeignSchema(v.ImportForeignSchemaStmt)
	case *pg_query.Node_CreateForeignTableStmt:
		return d.createForeignTable(v.CreateForeignTableStmt, full)
	case *pg_query.Node_DefineStmt:
		if v.DefineStmt.Kind == pg_query.ObjectType_OBJECT_OPERATOR {
			return d.createOperator(v.DefineStmt)
		}
		return d.createAggregate(v.DefineStmt)
	case *pg_query.Node_AlterOperatorStmt:
		return d.alterOperator(v.AlterOperatorStmt)
	case *pg_query.Node_CreateOpClassStmt:
		return d.createOpclass(v.CreateOpClassStmt)
	case *pg_query.Node_CreateOpFamilyStmt:
		return d.createOpfamily(v.CreateOpFamilyStmt)
	case *pg_query.Node_AlterOpFamilyStmt:
		return d.alterOpfamily(v.AlterOpFamilyStmt)
	case *pg_query.Node_CreateTrigStmt:
		return d.createTrigger(v.CreateTrigStmt, full)
	case *pg_query.Node_RuleStmt:
		return d.createRule(v.RuleStmt, full)
	case *pg_query.Node_CreatePolicyStmt:
		return d.createPolicy(v.CreatePolicyStmt, full)
	case *pg_query.Node_AlterPolicyStmt:
		return d.alterPolicy(v.AlterPolicyStmt, full)
	case *pg_query.Node_CompositeTypeStmt:
		return d.createCompositeType(v.CompositeTypeStmt)
	case *pg_query.Node_CreateEnumStmt:
		return d.createEnumType(v.CreateEnumStmt)
	case *pg_query.Node_CreateRangeStmt:
		return d.createRangeType(v.CreateRangeStmt)
	case *pg_query.Node_AlterEnumStmt:
		return d.alterEnumType(v.AlterEnumStmt)
	case *pg_query.Node_CreateDomainStmt:
		return d.createDomain(v.CreateDomainStmt)
	case *pg_query.Node_AlterDomainStmt:
		return d.alterDomain(v.AlterDomainStmt)
	}
	return pgerror.Unsupported("statement " + nodeKind(n))
}

// relationExists reports whether a table, index, sequence or view has the
// name in the schema (they share one namespace).
func (d *ddl) relationExists(schema, name string) bool {
	sc := d.cat.schemas[schema]
	if sc == nil {
		return false
	}
	return sc.tables[name] != nil || sc.indexes[name] != nil || sc.seqs[name] != nil || sc.views[name] != nil || sc.types[name] != nil
}

// uniqueRelName chooses the name of a relation made for another (an index,
// a serial column's sequence) as PostgreSQL's ChooseRelationName does:
// name1_name2_label within 63 bytes (makeObjectName), and when the schema
// has a relation so named, label followed by 1, 2, ... Cutting the whole
// name at 63 bytes instead gave every serial column of a table with a
// 63-byte name the same sequence name but for a number past the limit.
func (d *ddl) uniqueRelName(schema, name1, name2, label string) string {
	name := makeObjectName(name1, name2, label)
	for i := 1; d.relationExists(schema, name); i++ {
		name = makeObjectName(name1, name2, fmt.Sprintf("%s%d", label, i))
	}
	return name
}

// indexNameAddition is PostgreSQL's ChooseIndexNameAddition: the names of
// an index's columns joined by "_", no further once 64 bytes are reached.
func indexNameAddition(names []string) string {
	var b strings.Builder
	for _, n := range names {
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		b.WriteString(n)
		if b.Len() >= 64 {
			break
		}
	}
	return b.String()
}

// uniqueConName chooses a name for a constraint of t as PostgreSQL's
// ChooseConstraintName does: name1_name2_label (name2 may be empty),
// shortened to 63 bytes by trimming the longer of name1 and name2, and
// when t has a constraint so named, label followed by 1, 2, ...
func uniqueConName(t *tableDesc, name1, name2, label string) string {
	used := map[string]bool{t.pkName: true}
	for _, c := range t.checks {
		used[c.name] = true
	}
	for _, f := range t.fks {
		used[f.name] = true
	}
	for _, ix := range t.indexes {
		used[ix.name] = true
	}
	name := makeObjectName(name1, name2, label)
	for i := 1; used[name]; i++ {
		name = makeObjectName(name1, name2, fmt.Sprintf("%s%d", label, i))
	}
	return name
}

// makeObjectName is PostgreSQL's makeObjectName: name1_name2_label within 63
// bytes, the longer of name1 and name2 trimmed first.
func makeObjectName(name1, name2, label string) string {
	overhead := len(label) + 1
	if name2 != "" {
		overhead++
	}
	n1, n2 := len(name1), len(name2)
	for n1+n2 > 63-overhead {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	name := clipUTF8(name1, n1)
	if name2 != "" {
		name += "_" + clipUTF8(name2, n2)
	}
	return name + "_" + label
}

// clipUTF8 is s's longest prefix of at most n bytes that does not split a
// character.
func clipUTF8(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// foreignKeyNameAddition is PostgreSQL's name part for a foreign key on
// columns cols: their names joined by "_", cut at 63 bytes.
func foreignKeyNameAddition(cols []string) string {
	var b strings.Builder
	for _, c := range cols {
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		b.WriteString(c)
		if b.Len() >= 63 {
			return clipUTF8(b.String(), 63)
		}
	}
	return b.String()
}

// systemColumnNames are the names of the columns every PostgreSQL table
// has besides its own, by -attnum - 1 (ctid is attnum -1).
var systemColumnNames = []string{"ctid", "xmin", "cmin", "xmax", "cmax", "tableoid"}

// systemColumnName refuses a user column named like a system column.
func systemColumnName(name string) error {
	if slices.Contains(systemColumnNames, name) {
		return pgerror.Newf(pgerror.DuplicateColumn, "column name \"%s\" conflicts with a system column name", name)
	}
	return nil
}

// serialType maps the serial pseudo-types.
func serialType(tn *pg_query.TypeName) (types.Type, bool) {
	names := strs(tn.Names)
	if len(names) != 1 || len(tn.Typmods) > 0 || len(tn.ArrayBounds) > 0 {
		return types.Type{}, false
	}
	switch names[0] {
	case "serial", "serial4":
		return types.Int4, true
	case "bigserial", "serial8":
		return types.Int8, true
	case "smallserial", "serial2":
		return types.Int2, true
	}
	return types.Type{}, false
}

// nextvalDefault builds the DEFAULT nextval('schema.seq') of a SERIAL or
// identity column. The name is qualified so that it finds its sequence
// whatever the search path of the session that writes a row (PostgreSQL
// stores the sequence's OID); pg_get_expr prints it as that session's path
// reaches it.
func nextvalDefault(q *sequence) *pg_query.Node {
	name := types.QuoteIdent(q.schema) + "." + types.QuoteIdent(q.name)
	return pg_query.MakeFuncCallNode([]*pg_query.Node{pg_query.MakeStrNode("nextval")},
		[]*pg_query.Node{pg_query.MakeAConstStrNode(name, -1)}, -1)
}

// tableConstraint is a PRIMARY KEY, UNIQUE, CHECK or FOREIGN KEY waiting
// for all columns to be known.
type tableConstraint struct {
	c      *pg_query.Constraint
	column string // set for column constraints
	// like marks the keys LIKE ... INCLUDING INDEXES copies, which
	// PostgreSQL adds after the table exists (expandTableLikeClause).
	like bool
}

func (d *ddl) createTable(cs *pg_query.CreateStmt, full string) error {
	rv := cs.Relation
	switch {
	case cs.OfTypename != nil:
		return pgerror.Unsupported("typed tables")
	}
	temp, err := d.relationPersistence(rv)
	if err != nil {
		return err
	}
	oc, err := onCommitAction(cs.Oncommit, temp)
	if err != nil {
		return err
	}
	schema, err := d.relationSchema(rv.Schemaname, rv.Relname, temp)
	if err != nil {
		return err
	}
	exists := d.relationExists(schema, rv.Relname)
	if exists && cs.IfNotExists {
		d.notice(pgerror.DuplicateTable, "relation \"%s\" already exists, skipping", rv.Relname)
		return nil
	}
	if cs.Partspec != nil && len(cs.InhRelations) > 0 && cs.Partbound == nil {
		return pgerror.New(pgerror.InvalidObjectDefinition, "cannot create partitioned table as inheritance child")
	}
	if exists {
		return pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists", rv.Relname)
	}
	if err := d.checkTablespace(cs.Tablespacename, temp, cs.Partspec != nil); err != nil {
		return err
	}
	if err := checkTableAccessMethod(cs.AccessMethod, cs.Partspec != nil); err != nil {
		return err
	}
	options, toastOptions, err := tableStorageOptions(cs.Options, cs.Partspec != nil)
	if err != nil {
		return err
	}
	if temp && d.s.txn != nil {
		// Creating a temporary table uses the temporary schema: the
		// transaction's ON COMMIT DELETE ROWS tables are emptied at commit.
		d.s.txn.usedTemp = true
	}
	t := &tableDesc{oid: d.cat.newOID(), schema: schema, name: rv.Relname, onCommit: oc, unlogged: rv.Relpersistence == "u",
		owner: d.s.currentRole(), options: options, toastOptions: toastOptions, foreign: d.creatingForeign}
	newRowTypeOIDs(t)
	d.applyDefaultACL(aclTable, t.oid, t.owner, uint32(schemaOID(d.cat, schema)))
	conflictingDefaults, err := d.inheritParents(t, cs.InhRelations, temp)
	if err != nil {
		return err
	}
	var cons []tableConstraint
	b := d.binder(full)
	ordinal := 0
	var afterLike []func() error
	for _, elt := range cs.TableElts {
		switch v := elt.Node.(type) {
		case *pg_query.Node_ColumnDef:
			ordinal++
			more, merged, err := d.mergeLocalColumn(b, t, v.ColumnDef, ordinal)
			if !merged && err == nil {
				more, err = d.addColumnDef(b, t, v.ColumnDef, false)
			}
			if err != nil {
				return err
			}
			cons = append(cons, more...)
		case *pg_query.Node_Constraint:
			cons = append(cons, tableConstraint{c: v.Constraint})
		case *pg_query.Node_TableLikeClause:
			more, after, err := d.likeClause(b, t, v.TableLikeClause)
			if err != nil {
				return err
			}
			for _, tc := range more {
				tc.like = true
				cons = append(cons, tc)
			}
			afterLike = append(afterLike, after)
		default:
			return pgerror.Unsupported("table element " + nodeKind(elt))
		}
	}
	for _, name := range conflictingDefaults {
		if !declaresDefault(cs.TableElts, name) {
			return pgerror.Newf(pgerror.InvalidColumnDefinition, "column \"%s\" inherits conflicting default values", name).
				WithHint("To resolve the conflict, specify a default explicitly.")
		}
	}
	if len(t.cols) > 1600 {
		return pgerror.New(pgerror.TooManyColumns, "tables can have at most 1600 columns")
	}
	if err := b.checkGeneratedColumns(t); err != nil {
		return err
	}
	for _, tc := range cons {
		if err := d.checkTablespace(tc.c.Indexspace, temp, cs.Partspec != nil); err != nil {
			return err
		}
	}
	cons = withoutRedundantKeys(cons)
	// The primary key decides how the store keys rows: find it first. A
	// partitioned table holds no rows: its primary key is an index like
	// its unique keys, added first (partition_keys.go); so is one with
	// INCLUDE columns, which the store's key cannot carry.
	pkIndex := cs.Partspec != nil
	var primary *pg_query.Constraint
	for _, tc := range cons {
		if tc.c.Contype != pg_query.ConstrType_CONSTR_PRIMARY {
			continue
		}
		if primary != nil {
			// Parse analysis finds two written keys, at the second; a key
			// LIKE copies comes when its index is made, with no position.
			err := pgerror.Newf(pgerror.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", t.name)
			if primary.Location < 0 || tc.c.Location < 0 {
				return err
			}
			return b.errAt(err, tc.c.Location)
		}
		primary = tc.c
		pkIndex = pkIndex || len(tc.c.Including) > 0
	}
	for _, tc := range cons {
		if tc.c.Contype == pg_query.ConstrType_CONSTR_PRIMARY && !pkIndex {
			if tc.c.Deferrable {
				return pgerror.Unsupported("DEFERRABLE primary keys")
			}
			cols, err := constraintCols(t, tc)
			if err != nil {
				return err
			}
			if t.pkOptions, err = indexStorageOptions(tc.c.Options, "btree"); err != nil {
				return err
			}
			t.pk = cols
			t.pkName = tc.c.Conname
			if t.pkName == "" {
				t.pkName = d.uniqueRelName(schema, t.name, "", "pkey")
			}
			for _, c := range cols {
				nc := *t.cols[c]
				nc.notNull = true
				t.cols[c] = &nc
			}
		}
	}
	if err := d.partitioning(b, t, cs); err != nil {
		return err
	}
	t.hidden = t.pk == nil
	if err := d.requireColumnsTypeUsage(t); err != nil {
		return err
	}
	if err := d.createStoreTable(t); err != nil {
		return err
	}
	d.cat.putTable(t)
	// A partitioned table's primary key first, then the other constraints,
	// foreign keys last (as PostgreSQL adds them, after the table's keys,
	// so that one may reference a key declared after it).
	pass := func(tc tableConstraint) int {
		switch tc.c.Contype {
		case pg_query.ConstrType_CONSTR_PRIMARY:
			return 0
		case pg_query.ConstrType_CONSTR_FOREIGN:
			return 2
		}
		return 1
	}
	for want := range 3 {
		for _, tc := range cons {
			if pass(tc) != want || want == 0 && !pkIndex {
				continue
			}
			if err := d.addConstraint(b, t, tc, false); err != nil {
				return err
			}
		}
	}
	for _, after := range afterLike {
		if err := after(); err != nil {
			return err
		}
	}
	if err := d.checkRowTypeExprs(t); err != nil {
		return err
	}
	if t.bound != nil {
		if err := d.inheritPartitionKeys(b, t, d.cat.tables[t.parents[0]], false); err != nil {
			return err
		}
		if err := d.cloneForeignKeys(b, t, d.cat.tables[t.parents[0]], false); err != nil {
			return err
		}
		if err := d.cloneRowTriggers(t, d.cat.tables[t.parents[0]]); err != nil {
			return err
		}
	}
	d.cat.putTable(t)
	if t.bound != nil {
		p := d.cat.tables[t.parents[0]].clone()
		d.referenceNewPartition(p, t)
		d.cat.putTable(p)
	}
	return nil
}

// constraintAttrs applies a column definition's DEFERRABLE, NOT
// DEFERRABLE, INITIALLY DEFERRED and INITIALLY IMMEDIATE to the constraint
// before them, as PostgreSQL's transformConstraintAttrs does.
type constraintAttrs struct {
	last                         pg_query.ConstrType
	sawDeferrability, sawInitial bool
}

// apply handles c, a column constraint; cons holds the column's
// constraints so far, whose last one an attribute changes.
func (a *constraintAttrs) apply(c *pg_query.Constraint, cons []tableConstraint) error {
	misplaced := func(what string) error {
		return pgerror.Newf(pgerror.SyntaxError, "misplaced %s clause", what)
	}
	var what string
	switch c.Contype {
	case pg_query.ConstrType_CONSTR_ATTR_DEFERRABLE:
		what = "DEFERRABLE"
	case pg_query.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE:
		what = "NOT DEFERRABLE"
	case pg_query.ConstrType_CONSTR_ATTR_DEFERRED:
		what = "INITIALLY DEFERRED"
	case pg_query.ConstrType_CONSTR_ATTR_IMMEDIATE:
		what = "INITIALLY IMMEDIATE"
	default:
		*a = constraintAttrs{last: c.Contype}
		return nil
	}
	switch a.last {
	case pg_query.ConstrType_CONSTR_PRIMARY, pg_query.ConstrType_CONSTR_UNIQUE, pg_query.ConstrType_CONSTR_FOREIGN:
	default:
		return misplaced(what)
	}
	target := cons[len(cons)-1].c
	switch c.Contype {
	case pg_query.ConstrType_CONSTR_ATTR_DEFERRABLE, pg_query.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE:
		if a.sawDeferrability {
			return pgerror.New(pgerror.SyntaxError, "multiple DEFERRABLE/NOT DEFERRABLE clauses not allowed")
		}
		a.sawDeferrability = true
		target.Deferrable = c.Contype == pg_query.ConstrType_CONSTR_ATTR_DEFERRABLE
		if !target.Deferrable && target.Initdeferred {
			return pgerror.New(pgerror.SyntaxError, "constraint declared INITIALLY DEFERRED must be DEFERRABLE")
		}
	default:
		if a.sawInitial {
			return pgerror.New(pgerror.SyntaxError, "multiple INITIALLY IMMEDIATE/DEFERRED clauses not allowed")
		}
		a.sawInitial = true
		target.Initdeferred = c.Contype == pg_query.ConstrType_CONSTR_ATTR_DEFERRED
		if target.Initdeferred {
			if a.sawDeferrability && !target.Deferrable {
				return pgerror.New(pgerror.SyntaxError, "constraint declared INITIALLY DEFERRED must be DEFERRABLE")
			}
			target.Deferrable = true
		}
	}
	return nil
}

// addColumnDef appends a column to t (a descriptor being built) and returns
// its column constraints that need the whole table. It checks the column's
// DEFAULT unless alter says ALTER TABLE ... ADD COLUMN, which checks it
// itself, without the statement's positions.
func (d *ddl) addColumnDef(b *binder, t *tableDesc, cd *pg_query.ColumnDef, alter bool) ([]tableConstraint, error) {
	if t.colIndex(cd.Colname) >= 0 {
		return nil, pgerror.Newf(pgerror.DuplicateColumn, "column \"%s\" specified more than once", cd.Colname)
	}
	if err := systemColumnName(cd.Colname); err != nil {
		return nil, err
	}
	col := &columnDesc{name: cd.Colname, attnum: max(int16(len(t.cols)+1), t.droppedAttnum+1)}
	for _, c := range t.cols {
		if c.attnum >= col.attnum {
			col.attnum = c.attnum + 1
		}
	}
	// ownsSequence: a SERIAL or identity column gets a sequence of its type.
	var ownsSequence bool
	if st, ok := serialType(cd.TypeName); ok {
		col.typ, ownsSequence, col.notNull = st, true, true
	} else {
		typ, dom, err := b.declaredType(cd.TypeName)
		if err != nil {
			return nil, err
		}
		if typ.Oid == types.OidUnknown || typ.Oid == types.OidRecord {
			return nil, pgerror.Newf(pgerror.InvalidTableDefinition, "column \"%s\" has pseudo-type %s", cd.Colname, typ)
		}
		col.typ = typ
		if dom != nil {
			col.domain = dom.oid
		}
		if err := d.s.requireColumnTypeUsage(d.cat, uint32(col.typ.Oid), col.domain); err != nil {
			return nil, err
		}
	}
	coll, err := columnDefCollation(cd, col.typ)
	if err != nil {
		return nil, err
	}
	col.collation = coll
	if col.compression, err = columnCompression(cd.Compression, col.typ, d.domainName(col)); err != nil {
		return nil, err
	}
	var cons []tableConstraint
	var identityOpts []*pg_query.Node
	var attrs constraintAttrs
	// As PostgreSQL's transformColumnDefinition: each of NULL / NOT NULL,
	// DEFAULT and identity may be said once, an identity column is NOT
	// NULL and has no default; a SERIAL adds a DEFAULT and a NOT NULL after
	// the column's own constraints (without a position for the errors).
	constraints := cd.Constraints
	if ownsSequence {
		constraints = append(slices.Clip(constraints),
			&pg_query.Node{Node: &pg_query.Node_Constraint{Constraint: &pg_query.Constraint{Contype: pg_query.ConstrType_CONSTR_DEFAULT, Location: -1}}},
			&pg_query.Node{Node: &pg_query.Node_Constraint{Constraint: &pg_query.Constraint{Contype: pg_query.ConstrType_CONSTR_NOTNULL, Location: -1}}})
	}
	var sawNullable, sawDefault, sawIdentity bool
	for _, cn := range constraints {
		c := cn.GetConstraint()
		conflict := func(what string) error {
			return b.errAt(pgerror.Newf(pgerror.SyntaxError, "%s for column \"%s\" of table \"%s\"", what, col.name, t.name), c.Location)
		}
		if err := attrs.apply(c, cons); err != nil {
			return nil, err
		}
		switch c.Contype {
		case pg_query.ConstrType_CONSTR_NOTNULL, pg_query.ConstrType_CONSTR_NULL:
			notNull := c.Contype == pg_query.ConstrType_CONSTR_NOTNULL
			if sawNullable && col.notNull != notNull {
				return nil, conflict("conflicting NULL/NOT NULL declarations")
			}
			col.notNull, sawNullable = notNull, true
		case pg_query.ConstrType_CONSTR_DEFAULT:
			if sawDefault {
				return nil, conflict("multiple default values specified")
			}
			col.def, sawDefault = b.s.qualifiedCalls(b.cat, c.RawExpr), true
			if b.storesNoDefault(col, c.RawExpr) {
				col.def = nil
			}
		case pg_query.ConstrType_CONSTR_IDENTITY:
			switch col.typ.Oid {
			case types.OidInt2, types.OidInt4, types.OidInt8:
			default:
				return nil, pgerror.Newf(pgerror.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
			}
			if sawIdentity {
				return nil, conflict("multiple identity specifications")
			}
			if sawNullable && !col.notNull {
				return nil, conflict("conflicting NULL/NOT NULL declarations")
			}
			col.identity, sawIdentity, sawNullable = c.GeneratedWhen[0], true, true
			col.notNull = true
			ownsSequence = true
			identityOpts = c.Options
		case pg_query.ConstrType_CONSTR_GENERATED:
			if err := generatedClause(b, t, col, c); err != nil {
				return nil, err
			}
		case pg_query.ConstrType_CONSTR_PRIMARY, pg_query.ConstrType_CONSTR_UNIQUE, pg_query.ConstrType_CONSTR_CHECK, pg_query.ConstrType_CONSTR_FOREIGN:
			// A copy: the attributes that follow are applied to it, and the
			// parsed statement is shared.
			cons = append(cons, tableConstraint{c: proto.Clone(c).(*pg_query.Constraint), column: col.name})
		case pg_query.ConstrType_CONSTR_ATTR_DEFERRABLE, pg_query.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE,
			pg_query.ConstrType_CONSTR_ATTR_IMMEDIATE, pg_query.ConstrType_CONSTR_ATTR_DEFERRED:
		default:
			return nil, pgerror.Unsupported("column constraint " + c.Contype.String())
		}
		if sawDefault && sawIdentity {
			return nil, conflict("both default and identity specified")
		}
		if col.generated != nil && sawDefault {
			return nil, conflict("both default and generation expression specified")
		}
		if col.generated != nil && sawIdentity {
			return nil, conflict("both identity and generation expression specified")
		}
	}
	if col.def != nil && !alter {
		e, err := b.defaultExpr(col, col.def)
		if err != nil {
			return nil, err
		}
		if err := d.readDefaultLiteral(b, col, col.def, e); err != nil {
			return nil, err
		}
	}
	if ownsSequence {
		if err := d.columnSequence(t, col, identityOpts); err != nil {
			return nil, err
		}
	}
	t.cols = append(t.cols, col)
	return cons, nil
}

// alterOwner runs ALTER SCHEMA, FUNCTION, PROCEDURE and ROUTINE ... OWNER
// TO role (ALTER TABLE and its kin come as ALTER TABLE, see changeOwner):
// A schema's owner is recorded (schemaOwner); the system schemas' owners
// do not change.
func (d *ddl) alterOwner(ao *pg_query.AlterOwnerStmt) error {
	switch ao.ObjectType {
	case pg_query.ObjectType_OBJECT_FUNCTION, pg_query.ObjectType_OBJECT_PROCEDURE, pg_query.ObjectType_OBJECT_ROUTINE,
		pg_query.ObjectType_OBJECT_AGGREGATE:
		return d.alterRoutineOwner(ao)
	case pg_query.ObjectType_OBJECT_EVENT_TRIGGER:
		return d.alterEventTriggerOwner(ao)
	case pg_query.ObjectType_OBJECT_DATABASE:
		return d.alterDatabaseOwner(ao)
	case pg_query.ObjectType_OBJECT_TYPE, pg_query.ObjectType_OBJECT_DOMAIN:
		return d.alterTypeOwner(ao)
	case pg_query.ObjectType_OBJECT_PUBLICATION:
		return d.alterPublicationOwner(ao)
	case pg_query.ObjectType_OBJECT_FDW:
		return d.alterFDWOwner(ao)
	case pg_query.ObjectType_OBJECT_FOREIGN_SERVER:
		return d.alterServerOwner(ao)
	case pg_query.ObjectType_OBJECT_OPERATOR:
		return d.alterOperatorOwner(ao)
	case pg_query.ObjectType_OBJECT_OPCLASS, pg_query.ObjectType_OBJECT_OPFAMILY:
		return d.alterOpclassOwner(ao)
	case pg_query.ObjectType_OBJECT_LARGEOBJECT:
		return d.alterLargeObjectOwner(ao)
	}
	if ao.ObjectType != pg_query.ObjectType_OBJECT_SCHEMA {
		return pgerror.Unsupported(ddlTag(&pg_query.Node{Node: &pg_query.Node_AlterOwnerStmt{AlterOwnerStmt: ao}}) + " ... OWNER TO")
	}
	name := ao.Object.GetString_().GetSval()
	sc, ok := d.cat.schemas[name]
	if !ok && name != "pg_catalog" && name != "information_schema" {
		return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", name)
	}
	r := d.s.roleNamed(d.s.roleSpecName(ao.Newowner.Roletype.String(), ao.Newowner.Rolename))
	if !ok || r == nil || r.oid == schemaOwner(sc) || name == "pg_catalog" || isTempSchema(name) {
		return nil
	}
	if role := d.s.currentRole(); !d.s.isSuperuser(role) {
		if err := d.s.requireOwner(schemaOwner(sc), "schema", name); err != nil {
			return err
		}
		if !d.s.belongsTo(role, r.oid) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "must be member of role \"%s\"", r.name)
		}
		if err := d.requireDatabaseCreate(); err != nil {
			return err
		}
	}
	d.giveSchema(sc, r.oid)
	return nil
}

// alterTypeOwner runs ALTER TYPE or DOMAIN ... OWNER TO role with
// PostgreSQL's checks: naming the type's owner changes nothing; otherwise
// a role other than a superuser must own the type, belong to the new role,
// and the new role needs CREATE on the type's schema.
func (d *ddl) alterTypeOwner(ao *pg_query.AlterOwnerStmt) error {
	roleName := d.s.roleSpecName(ao.Newowner.Roletype.String(), ao.Newowner.Rolename)
	role := d.s.roleNamed(roleName)
	if role == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", roleName)
	}
	names := strs(ao.Object.GetList().GetItems())
	schema, name := "", names[len(names)-1]
	if len(names) > 1 {
		schema = names[len(names)-2]
	}
	t := d.s.lookupType(d.cat, schema, name)
	if t == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "type \"%s\" does not exist", strings.Join(names, "."))
	}
	if role.oid == t.ownerRole() {
		return nil
	}
	if current := d.s.currentRole(); !d.s.isSuperuser(current) {
		if err := d.s.requireOwner(t.ownerRole(), "type", t.name); err != nil {
			return err
		}
		if !d.s.belongsTo(current, role.oid) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "must be member of role \"%s\"", role.name)
		}
		if sc := d.cat.schemas[t.schema]; sc != nil && !d.s.hasPrivilege(role.oid, aclSchema, sc.oid, []byte{'C'}) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for schema %s", t.schema)
		}
	}
	d.transferACL(aclType, t.oid, t.ownerRole(), role.oid)
	nt := *t
	nt.owner = role.oid
	d.cat.schemas[t.schema].types[t.name] = &nt
	return nil
}

// storesNoDefault reports whether DEFAULT e of col is the NULL constant of
// the column's own type, which PostgreSQL does not store (cookDefault
// drops a default that is a null Const): a column of a domain keeps it
// (it overrides the domain's default), and so does a type with a typmod,
// whose length coercion wraps the constant.
func (b *binder) storesNoDefault(col *columnDesc, e *pg_query.Node) bool {
	if col.domain != 0 || col.typ.Typmod >= 0 {
		return false
	}
	if tc := e.GetTypeCast(); tc != nil {
		t, err := b.typeName(tc.TypeName)
		if err != nil || t != col.typ || b.domainNamed(tc.TypeName) != nil {
			return false
		}
		e = tc.Arg
	}
	c := e.GetAConst()
	return c != nil && c.Isnull
}

// defaultExpr binds DEFAULT expression e of col, coerced to the column's
// type, as PostgreSQL's cookDefault: it may use no column, subquery,
// aggregate, window or set-returning function.
func (b *binder) defaultExpr(col *columnDesc, e *pg_query.Node) (*scalar, error) {
	var refErr error
	walk(e, func(n *pg_query.Node) bool {
		switch {
		case refErr != nil:
		case n.GetSubLink() != nil:
			refErr = b.errAt(pgerror.New(pgerror.FeatureNotSupported, "cannot use subquery in DEFAULT expression"), n.GetSubLink().Location)
		case n.GetColumnRef() != nil:
			refErr = b.errAt(pgerror.New(pgerror.FeatureNotSupported, "cannot use column reference in DEFAULT expression"), n.GetColumnRef().Location)
		default:
			return true
		}
		return false
	})
	if refErr != nil {
		return nil, refErr
	}
	v, err := b.expr(&scope{noAgg: "DEFAULT expressions"}, e)
	if err != nil {
		return nil, err
	}
	out, err := b.coerce(v, col.typ, types.CastAssignment)
	if err != nil {
		return nil, b.coercionError(err, col, v, e, "default expression")
	}
	return out, nil
}

// readDefaultLiteral reads DEFAULT e of col, bound as def, when e is a
// string literal and col is of an array of a domain (or a domain over
// one): PostgreSQL reads the literal with array_in when it stores the
// default, so an element the domain refuses fails the statement.
func (d *ddl) readDefaultLiteral(b *binder, col *columnDesc, e *pg_query.Node, def *scalar) error {
	c := e.GetAConst()
	dom := b.domainByOid(col.domain)
	if c == nil || c.GetSval() == nil || dom == nil || !b.catalogNow().holdsDomainArray(dom) {
		return nil
	}
	checked, err := b.withConversionCheck(def, dom, e)
	if err != nil {
		return err
	}
	_, err = checked.eval(d.x)
	return err
}

// unplaced runs f with the statement's text hidden from b, so that the
// errors it reports carry no position: ALTER TABLE binds its DEFAULT and
// CHECK expressions without the statement's text, as PostgreSQL does.
func (b *binder) unplaced(f func() error) error {
	defer func(full string) { b.full = full }(b.full)
	b.full = ""
	return f()
}
