package sqlexec

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// debugPanics re-raises engine panics (tests set it to see the stack).
var debugPanics = false

var errNoStore = errors.New("sqlexec: Config.Store is nil")

// bgctx is the context of store calls that cannot be cancelled (commit and
// rollback: the transaction must end).
var bgctx = context.Background()

// stmtPlan is a prepared statement's executable form.
type stmtPlan struct {
	cols []outCol
	// exec runs the statement.
	exec func(x *execCtx) (*Result, error)
	// noTxn statements (SET, SHOW, DDL, transaction control) run without a
	// store transaction.
	noTxn bool
	// writes names the command for the 25006 error of a read-only
	// transaction ("INSERT"), "" for statements that do not write.
	writes string
	// table is the statement's main table and predicate its WHERE clause,
	// for the history.
	table     string
	predicate string
	// locks are the table locks the statement takes before it runs.
	locks []planLock
	// perms are the privileges it checks when it runs.
	perms []permCheck
	// noCache keeps the plan out of the session's plan cache: it depends
	// on more than the catalog (FETCH on its cursor's columns).
	noCache bool
	// node is the plan EXPLAIN shows, nil for utility statements.
	node *planNode
	// stream, set on a SELECT whose rows need not all be held, runs it
	// passing its rows to send as they are made, and returns the tag.
	stream func(x *execCtx, send func(row []any) error) (tag string, err error)
	// paramChecks check the parameters of a domain before the statement
	// runs (param_domains.go); nil when it has none.
	paramChecks []domainCheck
}

// planCacheLimit bounds a session's cache of plans for statements prepared
// without parameter types (the simple protocol prepares every statement it
// runs); the cache starts over when full.
const planCacheLimit = 256

// cachedPlan is a plan of the session's plan cache, valid while the catalog
// version and the session's settings (the search path, and the TimeZone
// and DateStyle its constants were read in) are those it was made with.
type cachedPlan struct {
	p   *Prepared
	env *types.Env
}

// planKey identifies a cached plan: a statement prepared without parameter
// types, or a normalized statement with its literals' kinds (kinds is ""
// for the former).
type planKey struct {
	st    *Statement
	kinds string
}

func (s *Session) prepare(st *Statement, paramOIDs []uint32) (*Prepared, error) {
	if len(paramOIDs) == 0 {
		return s.cachedPrepare(planKey{st: st}, nil)
	}
	return s.prepareUncached(st, paramOIDs)
}

// cachedPrepare prepares k.st with paramOIDs through the session's plan
// cache.
func (s *Session) cachedPrepare(k planKey, paramOIDs []uint32) (*Prepared, error) {
	env := s.textEnv()
	if c, ok := s.plans[k]; ok && c.p.schema == s.catalogVersion() && c.env == env && c.p.replica == s.replica() {
		return c.p, nil
	}
	p, err := s.prepareUncached(k.st, paramOIDs)
	if err != nil || p.plan.noCache {
		return p, err
	}
	if s.plans == nil || len(s.plans) >= planCacheLimit {
		s.plans = make(map[planKey]cachedPlan)
	}
	s.plans[k] = cachedPlan{p: p, env: env}
	return p, nil
}

// userParamType is the type of a parameter the client declares with the
// OID of a user-defined type other than a domain (an enum, a range, a
// composite type) or of its array.
func userParamType(cat *catalog, oid uint32) (types.Type, bool) {
	td, array := cat.typeByOidOrArray(oid)
	if td == nil || td.domain != nil {
		return types.Type{}, false
	}
	if array {
		return types.ArrayOf(td.typ())
	}
	return td.typ(), true
}

func (s *Session) prepareUncached(st *Statement, paramOIDs []uint32) (*Prepared, error) {
	cat, version := s.catalog()
	roles := s.engine.cluster.roles.version.Load()
	b := &binder{s: s, cat: cat, full: st.full}
	for _, o := range paramOIDs {
		if o == 0 || o == uint32(types.OidUnknown) {
			// A parameter declared unknown is typed by its use, as one
			// declared with no type (PostgreSQL's variable parameters).
			b.params = append(b.params, types.Type{})
			continue
		}
		t, ok := types.TypeByOid(types.Oid(o))
		if !ok {
			t, ok = hstoreParamType(cat, o)
		}
		if !ok {
			t, ok = b.domainParamType(len(b.params)+1, o)
		}
		if !ok {
			t, ok = userParamType(cat, o)
		}
		if !ok {
			return nil, pgerror.Newf(pgerror.UndefinedObject, "type with OID %d does not exist", o)
		}
		b.params = append(b.params, t)
	}
	p, err := b.statement(st)
	if err != nil {
		return nil, err
	}
	if err := b.checkParamOccurrences(); err != nil {
		return nil, err
	}
	// The top level's subqueries go on its plan, for EXPLAIN EXECUTE.
	b.claimSubplans(0, p.node)
	p.locks, p.perms = b.locks, b.perms
	if p.paramChecks, err = b.paramChecks(); err != nil {
		return nil, err
	}
	addConstChecks(p, b.constChecks)
	out := &Prepared{Statement: st, plan: p, schema: version, roles: roles, replica: s.replica(), path: s.planPath()}
	for i, t := range b.params {
		if t.Oid == 0 {
			t = types.Text
		}
		oid := uint32(t.Oid)
		if dom := b.paramDomain(i + 1); dom != 0 {
			oid = dom
		}
		out.ParamOIDs = append(out.ParamOIDs, oid)
		out.ValueOIDs = append(out.ValueOIDs, uint32(t.Oid))
		out.paramTypes = append(out.paramTypes, t)
	}
	if len(b.paramTargets) > 0 {
		out.paramTargets = b.paramTargets
	}
	if p.cols != nil {
		out.Columns = columnsOf(p.cols)
	}
	if err := ddlCommandOutputError(p.cols); err != nil {
		return nil, err
	}
	return out, nil
}

func columnsOf(cols []outCol) []Column {
	out := make([]Column, len(cols))
	for i, c := range cols {
		t := c.typ
		if t.Oid == types.OidUnknown {
			t = types.Text
		}
		out[i] = Column{Name: c.Name, TypeOID: uint32(t.Oid), TypeSize: int16(t.Size()), TypeMod: t.Typmod, TableOID: c.tableOID, AttNum: c.attnum}
	}
	return out
}

// statement builds the plan of any statement kind; the event triggers
// that fire on its command tag run around it (event_trigger_fire.go).
func (b *binder) statement(st *Statement) (*stmtPlan, error) {
	p, err := b.statementOfKind(st)
	if err != nil {
		return nil, err
	}
	return withEventTriggers(st, p), nil
}

func (b *binder) statementOfKind(st *Statement) (*stmtPlan, error) {
	if st.isTxn {
		return b.txnControlPlan(st), nil
	}
	if w := dataModifyingWith(st.node); w != nil && w != b.topWith {
		return b.statementWithDataModifyingCTEs(st, w)
	}
	switch v := st.node.Node.(type) {
	case *pg_query.Node_SelectStmt:
		if cs := selectIntoTable(v.SelectStmt); cs != nil {
			return b.createTableAsPlan(cs, st.full)
		}
		return b.selectStatement(v.SelectStmt)
	case *pg_query.Node_InsertStmt:
		return b.insertPlan(v.InsertStmt)
	case *pg_query.Node_UpdateStmt:
		return b.updatePlan(v.UpdateStmt)
	case *pg_query.Node_DeleteStmt:
		return b.deletePlan(v.DeleteStmt)
	case *pg_query.Node_CopyStmt:
		return b.copyPlan(v.CopyStmt)
	case *pg_query.Node_VariableSetStmt:
		return b.setPlan(v.VariableSetStmt)
	case *pg_query.Node_VariableShowStmt:
		return b.showPlan(v.VariableShowStmt)
	case *pg_query.Node_CreatedbStmt, *pg_query.Node_DropdbStmt:
		return b.databasePlan(st.node)
	case *pg_query.Node_RenameStmt:
		switch v.RenameStmt.RenameType {
		case pg_query.ObjectType_OBJECT_DATABASE:
			return b.databasePlan(st.node)
		case pg_query.ObjectType_OBJECT_ROLE:
			return b.rolePlan(st.node)
		}
		return b.ddlPlan(st)
	case *pg_query.Node_CreateStmt, *pg_query.Node_DropStmt, *pg_query.Node_AlterTableStmt, *pg_query.Node_IndexStmt,
		*pg_query.Node_CreateSeqStmt, *pg_query.Node_AlterSeqStmt, *pg_query.Node_CreateSchemaStmt,
		*pg_query.Node_AlterOwnerStmt, *pg_query.Node_ViewStmt, *pg_query.Node_GrantStmt, *pg_query.Node_AlterDefaultPrivilegesStmt,
		*pg_query.Node_DropOwnedStmt, *pg_query.Node_ReassignOwnedStmt,
		*pg_query.Node_CreateFunctionStmt, *pg_query.Node_CreateExtensionStmt, *pg_query.Node_CreateTrigStmt, *pg_query.Node_CompositeTypeStmt,
		*pg_query.Node_CreateEnumStmt, *pg_query.Node_CreateRangeStmt, *pg_query.Node_AlterEnumStmt, *pg_query.Node_CreateDomainStmt, *pg_query.Node_AlterDomainStmt, *pg_query.Node_AlterObjectSchemaStmt,
		*pg_query.Node_AlterFunctionStmt, *pg_query.Node_RuleStmt, *pg_query.Node_CreatePolicyStmt, *pg_query.Node_AlterPolicyStmt,
		*pg_query.Node_ClusterStmt, *pg_query.Node_CreatePublicationStmt, *pg_query.Node_AlterPublicationStmt,
		*pg_query.Node_AlterOperatorStmt, *pg_query.Node_CreateFdwStmt, *pg_query.Node_AlterFdwStmt, *pg_query.Node_CreateForeignServerStmt,
		*pg_query.Node_AlterForeignServerStmt, *pg_query.Node_CreateUserMappingStmt, *pg_query.Node_AlterUserMappingStmt,
		*pg_query.Node_DropUserMappingStmt, *pg_query.Node_ImportForeignSchemaStmt, *pg_query.Node_CreateForeignTableStmt,
		*pg_query.Node_CreateEventTrigStmt, *pg_query.Node_AlterEventTrigStmt,
		*pg_query.Node_CreateOpClassStmt, *pg_query.Node_CreateOpFamilyStmt, *pg_query.Node_AlterOpFamilyStmt,
		*pg_query.Node_AlterTsconfigurationStmt, *pg_query.Node_AlterTsdictionaryStmt,
		*pg_query.Node_CreateStatsStmt, *pg_query.Node_AlterStatsStmt, *pg_query.Node_AlterCollationStmt,
		*pg_query.Node_CreateConversionStmt:
		return b.ddlPlan(st)
	case *pg_query.Node_CommentStmt:
		if v.CommentStmt.Objtype == pg_query.ObjectType_OBJECT_ROLE {
			return b.rolePlan(st.node)
		}
		return b.ddlPlan(st)
	case *pg_query.Node_CreateRoleStmt, *pg_query.Node_AlterRoleStmt, *pg_query.Node_DropRoleStmt, *pg_query.Node_GrantRoleStmt:
		return b.rolePlan(st.node)
	case *pg_query.Node_AlterRoleSetStmt:
		return nil, pgerror.Unsupported("ALTER ROLE ... SET")
	case *pg_query.Node_CallStmt:
		return b.callPlan(v.CallStmt)
	case *pg_query.Node_DoStmt:
		return b.doPlan(v.DoStmt)
	case *pg_query.Node_DeclareCursorStmt:
		return b.declarePlan(v.DeclareCursorStmt, st.sql)
	case *pg_query.Node_FetchStmt:
		return b.fetchPlan(v.FetchStmt)
	case *pg_query.Node_ClosePortalStmt:
		return b.closePlan(v.ClosePortalStmt), nil
	case *pg_query.Node_ConstraintsSetStmt:
		return b.setConstraintsPlan(v.ConstraintsSetStmt)
	case *pg_query.Node_TruncateStmt:
		return b.truncatePlan(v.TruncateStmt)
	case *pg_query.Node_CreateTableAsStmt:
		return b.createTableAsPlan(v.CreateTableAsStmt, st.full)
	case *pg_query.Node_RefreshMatViewStmt:
		return b.refreshMatviewPlan(v.RefreshMatViewStmt)
	case *pg_query.Node_VacuumStmt:
		return b.vacuumPlan(v.VacuumStmt)
	case *pg_query.Node_ReindexStmt:
		return b.reindexPlan(st, v.ReindexStmt)
	case *pg_query.Node_CheckPointStmt:
		return &stmtPlan{noTxn: true, exec: tagOnly("CHECKPOINT")}, nil
	case *pg_query.Node_DiscardStmt:
		return b.discardPlan(v.DiscardStmt), nil
	case *pg_query.Node_LockStmt:
		return b.lockPlan(v.LockStmt)
	case *pg_query.Node_ListenStmt:
		return b.listenPlan(v.ListenStmt), nil
	case *pg_query.Node_UnlistenStmt:
		return b.unlistenPlan(v.UnlistenStmt), nil
	case *pg_query.Node_NotifyStmt:
		return b.notifyPlan(v.NotifyStmt), nil
	case *pg_query.Node_ExplainStmt:
		return b.explainPlan(st, v.ExplainStmt)
	case *pg_query.Node_DeallocateStmt:
		ds := v.DeallocateStmt
		tag := "DEALLOCATE"
		if ds.Isall {
			tag = "DEALLOCATE ALL"
		}
		return &stmtPlan{noTxn: true, exec: func(*execCtx) (*Result, error) {
			return &Result{Tag: tag, Deallocate: &Deallocation{Name: ds.Name, All: ds.Isall}}, nil
		}}, nil
	case *pg_query.Node_PrepareStmt, *pg_query.Node_ExecuteStmt:
		return nil, pgerror.Unsupported("SQL-level PREPARE and EXECUTE other than as statements of a simple query")
	case *pg_query.Node_MergeStmt:
		return b.mergePlan(st, v.MergeStmt)
	case *pg_query.Node_DefineStmt:
		switch v.DefineStmt.Kind {
		case pg_query.ObjectType_OBJECT_AGGREGATE, pg_query.ObjectType_OBJECT_OPERATOR, pg_query.ObjectType_OBJECT_TSCONFIGURATION,
			pg_query.ObjectType_OBJECT_TSDICTIONARY, pg_query.ObjectType_OBJECT_TSPARSER, pg_query.ObjectType_OBJECT_TSTEMPLATE,
			pg_query.ObjectType_OBJECT_COLLATION:
			return b.ddlPlan(st)
		}
	}
	return nil, pgerror.Unsupported("statement " + nodeKind(st.node))
}

func tagOnly(tag string) func(*execCtx) (*Result, error) {
	return func(*execCtx) (*Result, error) { return &Result{Tag: tag}, nil }
}

// txnControlPlan runs transaction control when a caller executes it as an
// ordinary statement (the server normally handles it itself).
func (b *binder) txnControlPlan(st *Statement) *stmtPlan {
	tc := st.txn
	return &stmtPlan{noTxn: true, exec: func(x *execCtx) (*Result, error) {
		if st.txnErr != nil {
			return nil, st.txnErr
		}
		s := x.s
		switch tc.Kind {
		case TxnBegin:
			return &Result{Tag: "BEGIN"}, s.begin(tc.Options, true)
		case TxnCommit:
			return &Result{Tag: "COMMIT"}, s.commit()
		case TxnRollback:
			return &Result{Tag: "ROLLBACK"}, s.rollback()
		case TxnSavepoint:
			return &Result{Tag: "SAVEPOINT"}, s.savepoint(x.ctx, tc.Savepoint)
		case TxnRelease:
			return &Result{Tag: "RELEASE"}, s.releaseSavepoint(tc.Savepoint)
		case TxnRollbackTo:
			return &Result{Tag: "ROLLBACK"}, s.rollbackToSavepoint(tc.Savepoint)
		}
		return nil, pgerror.Unsupported("transaction statement")
	}}
}

func (b *binder) selectStatement(st *pg_query.SelectStmt) (*stmtPlan, error) {
	p, err := b.selectStmt(nil, st, nil)
	if err != nil {
		return nil, err
	}
	for i := range b.params {
		if b.params[i].Oid == 0 {
			b.params[i] = types.Text
		}
	}
	writes := ""
	if len(st.LockingClause) > 0 {
		writes = "SELECT " + rowLockStrength(st.LockingClause[0].GetLockingClause()).String()
	}
	table := ""
	if len(st.FromClause) == 1 {
		if rv := st.FromClause[0].GetRangeVar(); rv != nil {
			table = qualName(rv)
		}
	}
	cols := p.cols
	if cols == nil {
		cols = []outCol{} // SELECT without a target list: a result of no columns, not no result
	}
	sp := &stmtPlan{cols: cols, writes: writes, table: table, predicate: predicateText(st.WhereClause), node: p.node, exec: func(x *execCtx) (*Result, error) {
		rows, err := p.run(x)
		if err != nil {
			return nil, err
		}
		return &Result{Rows: rows, Tag: rowsTag("SELECT", int64(len(rows)))}, nil
	}}
	if p.stream != nil {
		sp.stream = func(x *execCtx, send func(row []any) error) (string, error) {
			n := 0
			err := p.stream(x, func(row []any) error {
				n++
				return send(row)
			})
			return rowsTag("SELECT", int64(n)), err
		}
	}
	return sp, nil
}

// execute runs p; with stream set, a statement whose plan streams returns
// its rows through Result.Stream, and ends when that returns.
func (s *Session) execute(ctx context.Context, p *Prepared, params []any, stream bool) (*Result, error) {
	if p == nil || p.plan == nil {
		return nil, pgerror.New(pgerror.InvalidSqlStatementName, "prepared statement is not valid")
	}
	if err := s.replan(p); err != nil {
		return nil, err
	}
	s.statements++
	if len(params) < len(p.ParamOIDs) {
		return nil, pgerror.Newf(pgerror.ProtocolViolation, "bind message supplies %d parameters, but prepared statement requires %d", len(params), len(p.ParamOIDs))
	}
	if err := ctx.Err(); err != nil {
		return nil, cancelError(err)
	}
	pl := p.plan
	if d := s.LockTimeout(); d > 0 {
		ctx = isolation.WithLockWait(ctx, lockTimeoutContext(d))
	}
	// The statement's context, caches and environment are one allocation.
	frame := &struct {
		x      execCtx
		caches stmtCaches
		env    types.Env
	}{x: execCtx{ctx: ctx, s: s, params: params}}
	x := &frame.x
	x.caches = &frame.caches
	if pl.noTxn {
		x.env = s.fillEnv(&frame.env)
		x.env.Interrupter = x
		res, err := pl.exec(x)
		if err == nil && res.Copy != nil {
			res.Copy.stmt = p.historyStatement(s.engine.store.KeepsHistory())
		}
		return s.finishResult(res, pl, err)
	}
	implicit := false
	if s.txn == nil {
		if err := s.begin(TxnOptions{}, false); err != nil {
			return nil, err
		}
		implicit = true
	}
	if pl.writes != "" && s.txn.readOnly {
		err := pgerror.Newf(pgerror.ReadOnlySqlTransaction, "cannot execute %s in a read-only transaction", pl.writes)
		if implicit {
			_ = s.rollback()
		}
		return nil, err
	}
	kv, err := s.kvTxn(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.lockTables(ctx, kv, p); err != nil {
		if implicit {
			_ = s.rollback()
		}
		return nil, err
	}
	pl = p.plan
	for _, l := range pl.locks {
		s.txn.usedTemp = s.txn.usedTemp || l.temp
	}
	x.txn = kv
	x.env = s.fillEnv(&frame.env)
	x.env.Interrupter = x
	s.stmt = p.historyStatement(s.engine.store.KeepsHistory())
	kv.Statement(s.stmt)
	x.stmtMark = kv.WriteMark()
	s.notices = nil
	s.txn.stmtUniques, s.txn.stmtFKs, s.queryLevel = nil, nil, nil
	if p.bound == nil {
		// The literal cache's parameters are the text's literals, which
		// PostgreSQL checks where the statement reads them.
		err = checkParams(x, pl.paramChecks)
	}
	if err == nil {
		err = s.checkPrivileges(pl.perms)
	}
	if err == nil && stream && pl.stream != nil {
		return &Result{Columns: columnsOf(pl.cols), Stream: func(send func(row []any) error) (tag string, err error) {
			defer func() { _, err = s.endStatement(kv, nil, err, implicit) }()
			defer recoverInternal(&err)
			if tag, err = pl.stream(x, send); err == nil {
				err = s.fireAfterLevel(x)
			}
			return tag, err
		}}, nil
	}
	var res *Result
	if err == nil {
		res, err = pl.exec(x)
	}
	if err == nil {
		err = s.fireAfterLevel(x)
	}
	res, err = s.endStatement(kv, res, err, implicit)
	return s.finishResult(res, pl, err)
}

// endStatement ends a statement that ran in kv: its statement-level
// checks, its notices (onto res; a streamed statement, with none, leaves
// them for TakeNotices) and the implicit transaction around it.
func (s *Session) endStatement(kv *isolation.Txn, res *Result, err error, implicit bool) (*Result, error) {
	if err == nil {
		err = s.checkStatementUniques(kv)
	}
	if err == nil {
		err = s.checkStatementFKs(kv, 0)
	}
	if err == nil && res != nil && len(s.notices) > 0 {
		res.Notices = append(s.notices, res.Notices...)
		s.notices = nil
	}
	if implicit {
		if err != nil {
			_ = s.rollback()
		} else if cerr := s.commit(); cerr != nil {
			return nil, cerr
		}
	} else if err != nil && s.txn.cat != nil && kv.Ended() {
		// The store aborted the transaction (40001, 40P01) and released its
		// locks: its DDL must go at once, not at the client's ROLLBACK.
		s.txn.abortCatalog()
	}
	return res, err
}

// planLock is a table lock a statement takes before it runs, or, when
// view is set, its lock on that view.
type planLock struct {
	table isolation.TableID
	view  uint32
	mode  isolation.TableLock
	temp  bool // the table is a temporary one
}

// take takes the lock for kv.
func (l planLock) take(ctx context.Context, kv *isolation.Txn) error {
	if l.view != 0 {
		return kv.LockObject(ctx, l.view, l.mode, isolation.WaitBlock)
	}
	return kv.LockTable(ctx, l.table, l.mode, isolation.WaitBlock)
}

// useView notes that the statement reads view v, which PostgreSQL locks
// in ACCESS SHARE mode as it expands it.
func (b *binder) useView(v *viewDesc) {
	for _, l := range b.locks {
		if l.view == v.oid {
			return
		}
	}
	b.locks = append(b.locks, planLock{view: v.oid, mode: isolation.TableLockAccessShare, temp: isTempSchema(v.schema)})
}

// useTable notes that the statement reads (or, with a stronger mode,
// writes) table t.
func (b *binder) useTable(t *tableDesc, mode isolation.TableLock) {
	for i, l := range b.locks {
		if l.view == 0 && l.table == t.id {
			b.locks[i].mode = max(l.mode, mode)
			return
		}
	}
	b.locks = append(b.locks, planLock{table: t.id, mode: mode, temp: isTempSchema(t.schema)})
}

// replan re-makes p's plan when the session's catalog, the roles or its
// replication role are no longer the ones it was made against.
func (s *Session) replan(p *Prepared) error {
	if s.catalogVersion() == p.schema && s.engine.cluster.roles.version.Load() == p.roles && s.replica() == p.replica && s.planPath() == p.path {
		return nil
	}
	if p.bound != nil {
		return p.bound.replan(s, p)
	}
	np, err := s.prepareUncached(p.Statement, p.ParamOIDs)
	if err != nil {
		return err
	}
	p.plan, p.schema, p.roles, p.replica, p.path = np.plan, np.schema, np.roles, np.replica, np.path
	p.Columns = np.Columns
	return nil
}

// lockTables takes the table locks of p's plan, as PostgreSQL takes them
// when it opens the statement's relations, and re-plans when DDL that held
// one of them committed meanwhile: the statement never runs a plan made
// for a table definition that is no longer the table's.
func (s *Session) lockTables(ctx context.Context, kv *isolation.Txn, p *Prepared) error {
	for {
		var lockErr error
		for _, l := range p.plan.locks {
			if lockErr = l.take(ctx, kv); lockErr != nil {
				break
			}
		}
		if s.catalogVersion() == p.schema {
			return lockErr
		}
		if err := s.replan(p); err != nil {
			return err
		}
	}
}

func (s *Session) finishResult(res *Result, pl *stmtPlan, err error) (*Result, error) {
	if err != nil {
		return nil, err
	}
	if res.Columns == nil && pl.cols != nil {
		res.Columns = columnsOf(pl.cols)
	}
	res.Notices = s.sentNotices(res.Notices)
	return res, nil
}

// sentNotices are the notices of ns that client_min_messages lets
// through, as PostgreSQL sends them: INFO always, the others at or above
// the setting's level.
func (s *Session) sentNotices(ns []*pgerror.Error) []*pgerror.Error {
	if len(ns) == 0 {
		return nil
	}
	min, _ := s.settings.get("client_min_messages")
	level := minMessageLevels[strings.ToLower(min)]
	kept := ns[:0]
	for _, n := range ns {
		if n.Severity == "INFO" || noticeLevels[n.Severity] >= level {
			kept = append(kept, n)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}

// untranslatableNotice is the error PostgreSQL raises in place of notice n
// when n is sent to the client and the client's encoding cannot carry its
// text (PostgreSQL converts a notice as it sends it, while the statement
// runs); nil otherwise.
func (s *Session) untranslatableNotice(n *pgerror.Error) error {
	conv := s.clientEncoding().Converter
	if conv == nil || len(s.sentNotices([]*pgerror.Error{n})) == 0 {
		return nil
	}
	for _, text := range []string{n.Message, n.Detail, n.Hint, n.Table, n.Column, n.Constraint} {
		if _, err := conv.FromUTF8([]byte(text)); err != nil {
			return err
		}
	}
	return nil
}

// kvTxn returns the store transaction of the open transaction, beginning
// it on first use: BEGIN and SET TRANSACTION only record the options. In a
// logical session (fickle.session) it first waits, as long as ctx allows,
// for another connection's transaction in the session to end, so that the
// session's transactions stay a sequence.
func (s *Session) kvTxn(ctx context.Context) (*isolation.Txn, error) {
	if s.txn == nil {
		return nil, pgerror.New(pgerror.NoActiveSqlTransaction, "no transaction in progress")
	}
	if s.txn.kv == nil {
		opts := isolation.TxnOptions{Level: s.txn.level, ReadOnly: s.txn.readOnly, Strategy: s.strategy()}
		var kv *isolation.Txn
		var err error
		if s.kv.Name() != "" {
			kv, err = s.kv.BeginWait(ctx, opts)
		} else {
			kv, err = s.kv.Begin(opts)
		}
		if err != nil {
			return nil, err
		}
		s.txn.kv = kv
	}
	return s.txn.kv, nil
}

// recoverInternal turns a panic in the engine into XX000 for the statement,
// so that no input takes the connection (or the server) down. A bug is
// still a bug: the message carries the panic value for the report.
func recoverInternal(err *error) {
	if r := recover(); r != nil {
		*err = pgerror.Newf(pgerror.InternalError, "internal error in the SQL engine: %v", r)
		if debugPanics {
			panic(r)
		}
	}
}

// predicateText is the WHERE clause of a statement as SQL, for the history.
// Common shapes are printed here; others go through the parser's deparser
// (a cgo call that costs as much as a parse).
func predicateText(where *pg_query.Node) string {
	if where == nil {
		return ""
	}
	var b strings.Builder
	if simpleExprText(&b, where) {
		return b.String()
	}
	return deparseExpr(where)
}

// simpleExprText prints column references, parameters, numbers, binary
// operators, [NOT] IN lists, AND/OR/NOT and IS [NOT] NULL; it reports
// false for anything else.
func simpleExprText(b *strings.Builder, n *pg_query.Node) bool {
	switch v := n.Node.(type) {
	case *pg_query.Node_ColumnRef:
		for i, f := range v.ColumnRef.Fields {
			s := f.GetString_()
			if s == nil || s.Sval != strings.ToLower(s.Sval) || strings.ContainsAny(s.Sval, " \"") {
				return false
			}
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Sval)
		}
		return true
	case *pg_query.Node_ParamRef:
		fmt.Fprintf(b, "$%d", v.ParamRef.Number)
		return true
	case *pg_query.Node_AConst:
		if iv := v.AConst.GetIval(); iv != nil {
			fmt.Fprintf(b, "%d", iv.Ival)
			return true
		}
		return false
	case *pg_query.Node_AExpr:
		a := v.AExpr
		if a.Kind == pg_query.A_Expr_Kind_AEXPR_IN {
			return inListText(b, a)
		}
		if a.Kind != pg_query.A_Expr_Kind_AEXPR_OP || a.Lexpr == nil || len(a.Name) != 1 {
			return false
		}
		if !simpleExprText(b, a.Lexpr) {
			return false
		}
		b.WriteString(" " + opName(a.Name) + " ")
		return simpleExprText(b, a.Rexpr)
	case *pg_query.Node_BoolExpr:
		be := v.BoolExpr
		if be.Boolop == pg_query.BoolExprType_NOT_EXPR {
			b.WriteString("NOT (")
			ok := simpleExprText(b, be.Args[0])
			b.WriteByte(')')
			return ok
		}
		sep := " AND "
		if be.Boolop == pg_query.BoolExprType_OR_EXPR {
			sep = " OR "
		}
		for i, a := range be.Args {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteByte('(')
			if !simpleExprText(b, a) {
				return false
			}
			b.WriteByte(')')
		}
		return true
	case *pg_query.Node_NullTest:
		if !simpleExprText(b, v.NullTest.Arg) {
			return false
		}
		if v.NullTest.Nulltesttype == pg_query.NullTestType_IS_NULL {
			b.WriteString(" IS NULL")
		} else {
			b.WriteString(" IS NOT NULL")
		}
		return true
	}
	return false
}

// inListText prints x [NOT] IN (a, b, ...) as the deparser does, in time
// linear in the list (a 100,000-item list cost a second in the deparser).
func inListText(b *strings.Builder, a *pg_query.A_Expr) bool {
	items := a.Rexpr.GetList()
	if a.Lexpr == nil || items == nil || len(a.Name) != 1 {
		return false
	}
	if !simpleExprText(b, a.Lexpr) {
		return false
	}
	switch opName(a.Name) {
	case "=":
		b.WriteString(" IN (")
	case "<>":
		b.WriteString(" NOT IN (")
	default:
		return false
	}
	for i, it := range items.Items {
		if i > 0 {
			b.WriteString(", ")
		}
		if !simpleExprText(b, it) {
			return false
		}
	}
	b.WriteByte(')')
	return true
}

// rowsTag is the command tag of verb for n rows ("UPDATE 3"). The tags
// of one row, the count a prepared OLTP statement mostly has, are
// constants, so that they cost no allocation.
func rowsTag(verb string, n int64) string {
	if n == 1 {
		switch verb {
		case "SELECT":
			return "SELECT 1"
		case "INSERT 0":
			return "INSERT 0 1"
		case "UPDATE":
			return "UPDATE 1"
		case "DELETE":
			return "DELETE 1"
		}
	}
	return verb + " " + strconv.FormatInt(n, 10)
}
