package sqlexec

import (
	"cmp"
	"errors"
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// DDL is transactional, as in PostgreSQL. A transaction's first DDL
// statement gives it a private copy of the catalog; its later statements
// see that copy, other sessions keep seeing the published catalog, and
// COMMIT publishes the copy (merged with what other transactions published
// meanwhile). ROLLBACK and ROLLBACK TO SAVEPOINT go back to the copy as it
// was, and undo what the DDL did in the store: tables and indexes created
// are dropped, indexes dropped come back, rewritten rows (ADD and DROP
// COLUMN, ALTER COLUMN TYPE) get their old values back. Tables a
// transaction drops stay in the store until it commits.
//
// Locks keep the store honest while a transaction's DDL is pending: DDL
// that changes a table takes PostgreSQL's table locks through the
// transaction (ACCESS EXCLUSIVE for ALTER, DROP and RENAME, SHARE ROW
// EXCLUSIVE for CREATE INDEX and on the table a new foreign key
// references), and every other statement takes the table locks it needs
// before it runs and re-plans when the catalog changed while it waited
// (exec.go), as PostgreSQL's plan cache does. So no statement ever reads a
// rewritten row with a plan made for the old columns.

// txnCatalog is the catalog state of a transaction that ran DDL.
type txnCatalog struct {
	// base is the published catalog cat was derived from, with its version.
	base        *catalog
	baseVersion uint64
	cat         *catalog
	version     uint64
	// undo reverses the DDL's effects on the store, oldest first.
	undo []func()
	// onCommit runs once the transaction committed: what must wait until
	// then (dropping tables from the store).
	onCommit []func()
	// conflict is set when another transaction committed a change to an
	// object this one changed too: the commit fails with it.
	conflict error
}

// catalogMark is a transaction's catalog state at a savepoint.
type catalogMark struct {
	cat                  *catalog
	base                 *catalog
	version, baseVersion uint64
	undo, onCommit       int
	conflict             error
}

// errCatalogChanged tells a DDL statement to start over: a lock it waited
// for was held by a transaction whose DDL has committed since the
// statement read the catalog.
var errCatalogChanged = errors.New("sqlexec: catalog changed while waiting for a lock")

// catalog returns the catalog the session sees and its version: its
// transaction's own when it ran DDL (merged with what others published
// since), else the database's published one.
func (s *Session) catalog() (*catalog, uint64) {
	if s.txn == nil || s.txn.cat == nil {
		return s.engine.published()
	}
	tc := s.txn.cat
	cur, v := s.engine.published()
	if v != tc.baseVersion {
		// Someone else's DDL committed: see it too, as PostgreSQL's catalog
		// lookups do. A conflict keeps this transaction's side; the commit
		// reports it.
		merged, err := mergeCatalogs(tc.base, tc.cat, cur)
		if err != nil && tc.conflict == nil {
			tc.conflict = err
		}
		tc.base, tc.baseVersion, tc.cat = cur, v, merged
		tc.version = s.engine.cluster.versions.Add(1)
	}
	return tc.cat, tc.version
}

// catalogVersion returns the version of the catalog the session sees.
func (s *Session) catalogVersion() uint64 {
	_, v := s.catalog()
	return v
}

// installCatalog makes the catalog a successful DDL statement built the
// transaction's, and keeps the statement's store effects for the
// transaction's end.
func (s *Session) installCatalog(d *ddl) {
	tc := s.txn.cat
	if tc == nil {
		tc = &txnCatalog{base: d.base, baseVersion: d.baseVersion}
		s.txn.cat = tc
	}
	tc.cat = d.cat
	tc.version = s.engine.cluster.versions.Add(1)
	if d.x != nil && d.x.txn != nil {
		// Changing the catalog gives PostgreSQL's transaction an id, which
		// pg_current_xact_id_if_assigned and pg_locks show.
		d.x.txn.XID()
	}
	tc.undo = append(tc.undo, d.undo...)
	tc.onCommit = append(tc.onCommit, d.onCommit...)
}

// mark returns the transaction's catalog state for a savepoint.
func (t *txnState) catalogMark() catalogMark {
	if t.cat == nil {
		return catalogMark{}
	}
	tc := t.cat
	return catalogMark{cat: tc.cat, base: tc.base, version: tc.version, baseVersion: tc.baseVersion, undo: len(tc.undo), onCommit: len(tc.onCommit), conflict: tc.conflict}
}

// rollbackCatalogTo undoes the DDL run since the savepoint's mark.
func (t *txnState) rollbackCatalogTo(m catalogMark) {
	tc := t.cat
	if tc == nil {
		return
	}
	runUndo(tc.undo[m.undo:])
	if m.cat == nil {
		t.cat = nil
		return
	}
	tc.undo, tc.onCommit = tc.undo[:m.undo], tc.onCommit[:m.onCommit]
	tc.cat, tc.base, tc.version, tc.baseVersion = m.cat, m.base, m.version, m.baseVersion
	tc.conflict = m.conflict
}

// abortCatalog undoes all of the transaction's DDL. It runs while the
// transaction still holds its locks, so that no one sees a rewritten row
// of a table whose new definition never commits.
func (t *txnState) abortCatalog() {
	if t.cat != nil {
		runUndo(t.cat.undo)
		t.cat = nil
	}
}

func runUndo(undo []func()) {
	for i := len(undo) - 1; i >= 0; i-- {
		undo[i]()
	}
}

// commitWithCatalog commits a transaction that ran DDL: the store
// transaction commits and its catalog is published in one step under the
// holder's lock, so that a statement that waited for one of its locks sees
// the new catalog when it re-checks its plan. A catalog another
// transaction changed the same way since (the same name created twice)
// fails the commit with 23505, as PostgreSQL's unique catalog indexes do.
func (s *Session) commitWithCatalog(t *txnState) error {
	h := &s.engine.cat
	h.mu.Lock()
	defer h.mu.Unlock()
	tc := t.cat
	merged, err := mergeCatalogs(tc.base, tc.cat, h.cat)
	if tc.conflict != nil {
		err = tc.conflict
	}
	if err != nil {
		t.abortCatalog()
		_ = t.kv.Rollback()
		return err
	}
	h.naming.Store(merged)
	if err := t.kv.Commit(bgctx); err != nil {
		h.naming.Store(h.cat)
		t.abortCatalog()
		return err
	}
	h.cat, h.version = merged, s.engine.cluster.versions.Add(1)
	for _, f := range tc.onCommit {
		f()
	}
	return nil
}

// mergeGrants applies to out the entries mine changed, added or removed
// relative to base.
func mergeGrants[K comparable, V any](base, mine, out map[K]V, equal func(a, b V) bool) {
	for k, v := range mine {
		if old, ok := base[k]; !ok || !equal(old, v) {
			out[k] = v
		}
	}
	for k := range base {
		if _, ok := mine[k]; !ok {
			delete(out, k)
		}
	}
}

// mergeCatalogs applies what mine changed relative to base onto cur, the
// catalog published now. An object both changed differently is a
// conflict: mine wins in the result, and the error reports it. Table
// locks keep two pending transactions from changing one table, so
// conflicts are names created twice, and objects of a schema another
// transaction dropped.
func mergeCatalogs(base, mine, cur *catalog) (*catalog, error) {
	if cur == base {
		return mine, nil
	}
	var conflict error
	clash := func(what string) {
		if conflict == nil {
			conflict = pgerror.Newf(pgerror.UniqueViolation, "duplicate key value violates unique constraint \"%s\"", what).
				WithDetail("Another transaction changed the same catalog object and committed first.")
		}
	}
	out := cur.clone()
	out.comments = mergeMaps(base.comments, mine.comments, cur.comments, func(commentKey) { clash("pg_description_o_c_o_index") })
	// GRANT, REVOKE and ALTER DEFAULT PRIVILEGES here win over the other
	// transaction's.
	mergeGrants(base.acls, mine.acls, out.acls, slices.Equal)
	mergeGrants(base.defaultACLs, mine.defaultACLs, out.defaultACLs, func(a, b defaultACLEntry) bool {
		return a.oid == b.oid && slices.Equal(a.acl, b.acl)
	})
	out.extensions = mergeMaps(base.extensions, mine.extensions, cur.extensions, func(string) { clash("pg_extension_name_index") })
	out.publications = mergeMaps(base.publications, mine.publications, cur.publications, func(string) { clash("pg_publication_pubname_index") })
	out.fdws = mergeMaps(base.fdws, mine.fdws, cur.fdws, func(string) { clash("pg_foreign_data_wrapper_name_index") })
	out.servers = mergeMaps(base.servers, mine.servers, cur.servers, func(string) { clash("pg_foreign_server_name_index") })
	out.userMappings = mergeMaps(base.userMappings, mine.userMappings, cur.userMappings, func(uint32) { clash("pg_user_mapping_oid_index") })
	out.operators = mergeMaps(base.operators, mine.operators, cur.operators, func(uint32) { clash("pg_operator_oid_index") })
	out.eventTriggers = mergeMaps(base.eventTriggers, mine.eventTriggers, cur.eventTriggers, func(string) { clash("pg_event_trigger_evtname_index") })
	out.tsConfigs = mergeMaps(base.tsConfigs, mine.tsConfigs, cur.tsConfigs, func(uint32) { clash("pg_ts_config_oid_index") })
	out.tsDicts = mergeMaps(base.tsDicts, mine.tsDicts, cur.tsDicts, func(uint32) { clash("pg_ts_dict_oid_index") })
	out.collations = mergeMaps(base.collations, mine.collations, cur.collations, func(uint32) { clash("pg_collation_oid_index") })
	out.conversions = mergeMaps(base.conversions, mine.conversions, cur.conversions, func(uint32) { clash("pg_conversion_oid_index") })
	if index := tsObjectsClash(out); index != "" {
		clash(index)
	}
	if operatorsClash(out.operators) {
		clash("pg_operator_oprname_l_r_n_index")
	}
	out.opfamilies = mergeMaps(base.opfamilies, mine.opfamilies, cur.opfamilies, func(uint32) { clash("pg_opfamily_oid_index") })
	out.opclasses = mergeMaps(base.opclasses, mine.opclasses, cur.opclasses, func(uint32) { clash("pg_opclass_oid_index") })
	out.amMembers = mergeMaps(base.amMembers, mine.amMembers, cur.amMembers, func(uint32) { clash("pg_amop_oid_index") })
	if err := opclassesClash(out); err != nil && conflict == nil {
		conflict = err
	}
	names := map[string]bool{}
	for n := range base.schemas {
		names[n] = true
	}
	for n := range mine.schemas {
		names[n] = true
	}
	for n := range names {
		b, m, c := base.schemas[n], mine.schemas[n], cur.schemas[n]
		switch {
		case m == nil && b != nil:
			delete(out.schemas, n) // dropped here
		case m != nil && b == nil && c != nil:
			clash("pg_namespace_nspname_index")
			out.schemas[n] = m
		case m != nil && b == nil:
			out.schemas[n] = m
		case c == nil:
			// Dropped by the other transaction while this one changed it.
			clash("pg_namespace_nspname_index")
			out.schemas[n] = m
		default:
			relClash := func(string) { clash("pg_class_relname_nsp_index") }
			sc := out.schemas[n]
			sc.tables = mergeMaps(b.tables, m.tables, c.tables, relClash)
			sc.seqs = mergeMaps(b.seqs, m.seqs, c.seqs, relClash)
			sc.indexes = mergeMaps(b.indexes, m.indexes, c.indexes, relClash)
			sc.views = mergeMaps(b.views, m.views, c.views, relClash)
			sc.types = mergeMaps(b.types, m.types, c.types, func(string) { clash("pg_type_typname_nsp_index") })
			sc.funcs = mergeRoutines(b.funcs, m.funcs, c.funcs, clash)
		}
	}
	// The tables by OID are those the schemas name: of two tables given
	// one name, the one the schema kept.
	out.tables = map[uint32]*tableDesc{}
	for _, sc := range out.schemas {
		for _, t := range sc.tables {
			out.tables[t.oid] = t
		}
	}
	if index := namedObjectsClash(out); index != "" {
		clash(index)
	}
	return out, conflict
}

// mergeRoutines is mergeMaps for a schema's routines, keyed by OID (a
// name's overloads share an entry of the schema's map), each name's
// overloads kept in creation (OID) order. Routines of one signature that
// two transactions created clash, as pg_proc's unique index makes them.
func mergeRoutines(base, mine, cur map[string][]*funcDesc, clash func(string)) map[string][]*funcDesc {
	byOID := func(m map[string][]*funcDesc) map[uint32]*funcDesc {
		out := map[uint32]*funcDesc{}
		for _, fs := range m {
			for _, f := range fs {
				out[f.oid] = f
			}
		}
		return out
	}
	merged := mergeMaps(byOID(base), byOID(mine), byOID(cur), func(uint32) { clash("pg_proc_oid_index") })
	out := map[string][]*funcDesc{}
	for _, f := range merged {
		out[f.name] = append(out[f.name], f)
	}
	for _, fs := range out {
		slices.SortFunc(fs, func(a, b *funcDesc) int { return cmp.Compare(a.oid, b.oid) })
		for i := range fs {
			for _, g := range fs[i+1:] {
				if sameTypes(fs[i].inputTypes(), g.inputTypes()) {
					clash("pg_proc_proname_args_nsp_index")
				}
			}
		}
	}
	return out
}

// mergeMaps is mergeCatalogs for one map: mine's changes relative to base
// applied to a copy of cur; clash is called for each key both changed
// differently.
func mergeMaps[K comparable, V comparable](base, mine, cur map[K]V, clash func(K)) map[K]V {
	out := make(map[K]V, len(cur))
	for k, v := range cur {
		out[k] = v
	}
	for k, mv := range mine {
		bv, inBase := base[k]
		if inBase && bv == mv {
			continue
		}
		if cv, inCur := cur[k]; inCur && cv != mv && (!inBase || cv != bv) {
			clash(k)
		}
		out[k] = mv
	}
	for k, bv := range base {
		if _, inMine := mine[k]; inMine {
			continue
		}
		if cv, inCur := cur[k]; inCur && cv != bv {
			clash(k)
		}
		delete(out, k)
	}
	return out
}

// checkNotInUse fails with 55006, as PostgreSQL's CheckTableNotInUse does,
// when CREATE INDEX, or ALTER TABLE taking the lock that changes the table
// (mode: not the one on a table a new foreign key references), would
// change a table whose triggers are running: the statement
// that fired them is still writing the table under its old definition.
func (d *ddl) checkNotInUse(t *tableDesc, mode isolation.TableLock) error {
	if d.tag != "CREATE INDEX" && (d.tag != "ALTER TABLE" || mode != isolation.TableLockAccessExclusive) {
		return nil
	}
	if !slices.Contains(d.s.triggerTables, t.oid) {
		return nil
	}
	return pgerror.Newf(pgerror.ObjectInUse, "cannot %s \"%s\" because it is being used by active queries in this session", d.tag, t.name)
}

// lockTable takes a table lock for a DDL statement through its
// transaction. When the lock had to wait for a transaction whose DDL
// committed meanwhile, the statement must start over on the new catalog
// (errCatalogChanged): the lock stays held, so the second run does not
// wait again.
func (d *ddl) lockTable(t *tableDesc, mode isolation.TableLock) error {
	if err := d.checkNotInUse(t, mode); err != nil {
		return err
	}
	if err := d.x.txn.LockTable(d.x.ctx, t.id, mode, isolation.WaitBlock); err != nil {
		return err
	}
	if _, v := d.s.catalog(); v != d.viewVersion {
		return errCatalogChanged
	}
	return nil
}
