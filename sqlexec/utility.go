package sqlexec

import (
	"slices"
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// setPlan compiles SET, SET LOCAL, RESET, SET TRANSACTION and SET SESSION
// CHARACTERISTICS AS TRANSACTION.
func (b *binder) setPlan(vs *pg_query.VariableSetStmt) (*stmtPlan, error) {
	name := strings.ToLower(vs.Name)
	switch vs.Kind {
	case pg_query.VariableSetKind_VAR_SET_MULTI:
		opts, err := txnOptions(vs.Args)
		if err != nil {
			return nil, err
		}
		switch name {
		case "transaction":
			return &stmtPlan{noTxn: true, exec: func(x *execCtx) (*Result, error) {
				if x.s.nonAtomic > 0 {
					return nil, pgerror.Unsupported("SET TRANSACTION inside a procedure")
				}
				if x.s.txn == nil || !x.s.txn.explicit {
					w := pgerror.New(pgerror.NoActiveSqlTransaction, "SET TRANSACTION can only be used in transaction blocks")
					w.Severity = "WARNING"
					return &Result{Tag: "SET", Notices: []*pgerror.Error{w}}, nil
				}
				return &Result{Tag: "SET"}, x.s.setTransaction(opts)
			}}, nil
		case "session characteristics":
			return &stmtPlan{noTxn: true, exec: func(x *execCtx) (*Result, error) {
				return &Result{Tag: "SET"}, x.s.setCharacteristics(opts)
			}}, nil
		}
		return nil, pgerror.Unsupported("SET " + vs.Name)
	case pg_query.VariableSetKind_VAR_RESET_ALL:
		return &stmtPlan{noTxn: true, exec: func(x *execCtx) (*Result, error) {
			for k, d := range settingDefs {
				if !d.readOnly() {
					v := d.def
					if sv, ok := x.s.settings.startup[k]; ok {
						v = sv
					}
					_ = x.s.settings.set(k, v, false)
				}
			}
			for k, d := range x.s.settings.library {
				_ = x.s.settings.set(k, d.def, false)
			}
			return &Result{Tag: "RESET"}, nil
		}}, nil
	case pg_query.VariableSetKind_VAR_SET_CURRENT:
		return nil, pgerror.Unsupported("SET ... FROM CURRENT")
	}
	tag := "SET"
	if vs.Kind == pg_query.VariableSetKind_VAR_RESET {
		tag = "RESET"
	}
	toDefault := vs.Kind != pg_query.VariableSetKind_VAR_SET_VALUE
	var value string
	if !toDefault {
		var err error
		if value, err = setValue(name, vs.Args); err != nil {
			return nil, err
		}
	}
	local := vs.IsLocal
	return &stmtPlan{noTxn: true, exec: func(x *execCtx) (*Result, error) {
		s := x.s
		switch name {
		case "role", "session_authorization":
			v := value
			if toDefault {
				v = map[string]string{"role": "none", "session_authorization": ""}[name]
			}
			if local && s.txn == nil {
				w := pgerror.New(pgerror.NoActiveSqlTransaction, "SET LOCAL can only be used in transaction blocks")
				w.Severity = "WARNING"
				return &Result{Tag: tag, Notices: []*pgerror.Error{w}}, nil
			}
			return &Result{Tag: tag}, s.setRole(name, v, local && s.txn != nil)
		case "transaction_isolation":
			return &Result{Tag: tag}, s.setTransaction(TxnOptions{Isolation: value})
		case "transaction_read_only":
			v, err := normBool(value)
			if err != nil {
				return nil, err
			}
			return &Result{Tag: tag}, s.setTransaction(TxnOptions{ReadOnly: v == "on", ReadWrite: v == "off"})
		case "transaction_deferrable":
			return &Result{Tag: tag}, nil
		case "fickle.isolation":
			if local && s.txn != nil && !toDefault {
				if err := s.setTransaction(TxnOptions{Isolation: value}); err != nil {
					return nil, err
				}
			}
		}
		v := value
		if toDefault {
			d := s.settings.def(name)
			if d == nil {
				if !strings.Contains(name, ".") {
					return nil, pgerror.Newf(pgerror.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
				}
				v = ""
			} else {
				v = d.def
				if o, ok := s.engine.sessionOverrides(s.info)[name]; ok {
					v = o
				}
				if name == "application_name" {
					v = s.info.ApplicationName
				}
				if sv, ok := s.settings.startup[name]; ok {
					v = sv
				}
			}
		}
		if err := s.mayChangeSetting(name); err != nil {
			return nil, err
		}
		if local && s.txn == nil {
			w := pgerror.New(pgerror.NoActiveSqlTransaction, "SET LOCAL can only be used in transaction blocks")
			w.Severity = "WARNING"
			return &Result{Tag: tag, Notices: []*pgerror.Error{w}}, nil
		}
		if q, ok := s.userTSConfigSetting(name, v, toDefault); ok {
			s.settings.put(name, q, local)
			return &Result{Tag: tag}, nil
		}
		if err := s.settings.set(name, v, local); err != nil {
			return nil, err
		}
		if name == "default_transaction_isolation" {
			s.followPGDefaultIsolation(toDefault, local)
		}
		if name == "fickle.session" && v != "" && s.txn == nil {
			s.kv = s.engine.store.Session(v)
		}
		return &Result{Tag: tag}, nil
	}}, nil
}

// setTransaction changes the open transaction's modes; it must come before
// the transaction's first statement that reads or writes.
func (s *Session) setTransaction(o TxnOptions) error {
	if s.txn == nil {
		return nil
	}
	if o.Isolation != "" {
		if s.txn.kv != nil {
			return pgerror.New(pgerror.ActiveSqlTransaction, "SET TRANSACTION ISOLATION LEVEL must be called before any query")
		}
		l, err := history.ParseLevel(o.Isolation)
		if err != nil {
			return pgerror.Newf(pgerror.InvalidParameterValue, "unknown isolation level %q", o.Isolation)
		}
		s.txn.level, s.txn.uncommitted = l, isReadUncommitted(o.Isolation)
	}
	if o.ReadOnly || o.ReadWrite {
		if s.txn.kv != nil && o.ReadWrite && s.txn.readOnly {
			return pgerror.New(pgerror.ActiveSqlTransaction, "transaction read-write mode must be set before any query")
		}
		s.txn.readOnly = o.ReadOnly
	}
	if o.Deferrable || o.NotDeferrable {
		s.txn.deferrable = o.Deferrable
	}
	return nil
}

func (s *Session) setCharacteristics(o TxnOptions) error {
	if o.Isolation != "" {
		if err := s.settings.set("default_transaction_isolation", o.Isolation, false); err != nil {
			return err
		}
		s.followPGDefaultIsolation(false, false)
	}
	if o.ReadOnly {
		_ = s.settings.set("default_transaction_read_only", "on", false)
	}
	if o.ReadWrite {
		_ = s.settings.set("default_transaction_read_only", "off", false)
	}
	if o.Deferrable {
		_ = s.settings.set("default_transaction_deferrable", "on", false)
	}
	if o.NotDeferrable {
		_ = s.settings.set("default_transaction_deferrable", "off", false)
	}
	return nil
}

func (b *binder) showPlan(vs *pg_query.VariableShowStmt) (*stmtPlan, error) {
	name := strings.ToLower(vs.Name)
	if name == "all" {
		return &stmtPlan{noTxn: true, cols: []outCol{{Name: "name", typ: types.Text}, {Name: "setting", typ: types.Text}, {Name: "description", typ: types.Text}},
			exec: func(x *execCtx) (*Result, error) {
				names := make([]string, 0, len(settingDefs))
				for k := range settingDefs {
					names = append(names, k)
				}
				for k := range x.s.settings.library {
					names = append(names, k)
				}
				sort.Strings(names)
				var rows [][]any
				for _, k := range names {
					v, _ := x.s.setting(k)
					desc := ""
					if d, ok := x.s.settings.library[k]; ok {
						desc = d.short
					}
					rows = append(rows, []any{x.s.settings.def(k).name, v, desc})
				}
				return &Result{Rows: rows, Tag: "SHOW"}, nil
			}}, nil
	}
	colName := name
	if d := settingDefs[name]; d != nil {
		colName = d.name
	}
	switch name {
	case "time zone":
		name, colName = "timezone", "TimeZone"
	case "transaction isolation level":
		name, colName = "transaction_isolation", "transaction_isolation"
	case "session authorization":
		name, colName = "session_authorization", "session_authorization"
	}
	return &stmtPlan{noTxn: true, cols: []outCol{{Name: colName, typ: types.Text}}, exec: func(x *execCtx) (*Result, error) {
		if name == "fickle.isolation" {
			l := x.s.defaultLevel()
			if x.s.txn != nil {
				l = x.s.txn.level
			}
			return &Result{Rows: [][]any{{l.String()}}, Tag: "SHOW"}, nil
		}
		v, ok := x.s.setting(name)
		if !ok {
			return nil, pgerror.Newf(pgerror.UndefinedObject, "unrecognized configuration parameter \"%s\"", vs.Name)
		}
		return &Result{Rows: [][]any{{v}}, Tag: "SHOW"}, nil
	}}, nil
}

// lockTarget is a relation LOCK TABLE locks: a table or a view;
// as is the role whose privileges it is checked against (0: the role
// running the statement; a view's owner for what the view reads).
type lockTarget struct {
	table *tableDesc
	view  *viewDesc
	as    uint32
	// child marks a table locked as a descendant of another, whose
	// privileges PostgreSQL does not check (LockTableRecurse).
	child bool
}

// withDescendants appends t's inheritance children and partitions, all
// levels down, to targets as children.
func (b *binder) withDescendants(targets []lockTarget, t *tableDesc) []lockTarget {
	for _, c := range b.cat.descendants(t) {
		targets = append(targets, lockTarget{table: c, child: true})
	}
	return targets
}

// lockPrivileges are the privileges of which LOCK TABLE needs one to take
// mode (PostgreSQL's LockTableAclCheck): SELECT for ACCESS SHARE, any
// write for ROW EXCLUSIVE, UPDATE, DELETE or TRUNCATE above.
func lockPrivileges(mode isolation.TableLock) string {
	switch mode {
	case isolation.TableLockAccessShare:
		return "r"
	case isolation.TableLockRowExclusive:
		return "awdD"
	}
	return "wdD"
}

// viewLockTargets appends view v and, recursively, the tables and views
// its query reads, as PostgreSQL's LockViewRecurse locks them; ancestors
// are the views whose queries led to v, which a cycle does not lock again.
func (b *binder) viewLockTargets(targets []lockTarget, v *viewDesc, as uint32, ancestors []*viewDesc) []lockTarget {
	targets = append(targets, lockTarget{view: v, as: as})
	ancestors = append(ancestors, v)
	// Its relations are checked for its owner, or for the role running the
	// statement (0) when it is security_invoker.
	depsAs := v.ownerRole()
	if v.securityInvoker {
		depsAs = 0
	}
	for _, oid := range v.deps {
		if t := b.cat.tables[oid]; t != nil {
			targets = append(targets, lockTarget{table: t, as: depsAs})
			targets = b.withDescendants(targets, t)
			continue
		}
		if dep := viewByOid(b.cat, oid); dep != nil && !slices.Contains(ancestors, dep) {
			targets = b.viewLockTargets(targets, dep, depsAs, ancestors)
		}
	}
	return targets
}

func (b *binder) lockPlan(ls *pg_query.LockStmt) (*stmtPlan, error) {
	modes := map[int32]isolation.TableLock{1: isolation.TableLockAccessShare, 2: isolation.TableLockRowShare, 3: isolation.TableLockRowExclusive,
		4: isolation.TableLockShareUpdateExclusive, 5: isolation.TableLockShare, 6: isolation.TableLockShareRowExclusive,
		7: isolation.TableLockExclusive, 8: isolation.TableLockAccessExclusive}
	mode, ok := modes[ls.Mode]
	if !ok {
		return nil, pgerror.Unsupported("this LOCK mode")
	}
	var targets []lockTarget
	var lookupErr error
	for _, r := range ls.Relations {
		rv := r.GetRangeVar()
		if t := b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname); t != nil && t.foreign != nil {
			lookupErr = pgerror.Newf(pgerror.WrongObjectType, "cannot lock relation \"%s\"", rv.Relname).
				WithDetail("This operation is not supported for foreign tables.")
			break
		} else if t != nil {
			targets = append(targets, lockTarget{table: t})
			if rv.Inh {
				targets = b.withDescendants(targets, t)
			}
		} else if v := b.s.lookupView(b.cat, rv.Schemaname, rv.Relname); v != nil {
			targets = b.viewLockTargets(targets, v, 0, nil)
		} else {
			lookupErr = b.errAt(pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv)), rv.Location)
			break
		}
	}
	wait := isolation.WaitBlock
	if ls.Nowait {
		wait = isolation.WaitNoWait
	}
	return &stmtPlan{exec: func(x *execCtx) (*Result, error) {
		if !x.s.txn.explicit {
			return nil, pgerror.New(pgerror.NoActiveSqlTransaction, "LOCK TABLE can only be used in transaction blocks")
		}
		if lookupErr != nil {
			return nil, lookupErr
		}
		var perms []permCheck
		for _, lt := range targets {
			if lt.child {
				continue
			}
			p := permCheck{kind: aclTable, privs: lockPrivileges(mode), as: lt.as}
			if lt.table != nil {
				p.oid, p.name, p.what = lt.table.oid, lt.table.name, "table"
			} else {
				p.oid, p.name, p.what = lt.view.oid, lt.view.name, "view"
			}
			perms = append(perms, p)
		}
		if err := x.s.checkPrivileges(perms); err != nil {
			return nil, err
		}
		for _, lt := range targets {
			var err error
			if lt.table != nil {
				err = x.txn.LockTable(x.ctx, lt.table.id, mode, wait)
			} else {
				err = x.txn.LockObject(x.ctx, lt.view.oid, mode, wait)
			}
			if err != nil {
				return nil, err
			}
		}
		return &Result{Tag: "LOCK TABLE"}, nil
	}}, nil
}
