package sqlexec

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// writer holds what writes to one table need, compiled once per plan: the
// column defaults, the CHECK constraints and the foreign keys in both
// directions.
type writer struct {
	b        *binder
	t        *tableDesc
	defaults []*scalar // per column; nil means NULL
	// defaultPerms are the privileges each default needs (EXECUTE on the
	// routines it calls), which the statement requires only for the
	// defaults it may use (requireDefaults), as PostgreSQL's plan holds
	// only those.
	defaultPerms [][]permCheck
	// generated computes, per column, a generated column's value over the
	// row; nil when the table has none (generated.go).
	generated []*scalar
	// domains checks, per column of a domain, its constraints; an array
	// of a domain's NULL elements are left to inputs, which check them
	// in full for the columns of such arrays (inputChecks, nil when the
	// table has none).
	domains     []domainCheck
	inputChecks []domainCheck
	checks      []*scalar
	fks         []*fkCheck
	// refs are the foreign keys of other tables that reference t.
	refs []*fkRef2
	// queueActions says the statement's trigger run applies the refs'
	// actions when it ends (withActions), not the writes.
	queueActions bool
}

// fkCheck checks an outgoing foreign key: the referenced row must exist.
type fkCheck struct {
	fk     *fkDesc
	child  *tableDesc // the referencing table
	parent *tableDesc
	// index is the parent's unique index on the referenced columns; nil
	// when they are the parent's store key.
	index *indexDesc
	typs  []types.Type // the parent column types the key is encoded with
	conv  []types.CastFunc
	// leaves check each leaf of a partitioned parent (fk_referenced.go).
	leaves []*fkCheck
	// selfReference says the parent is the child or a partitioned
	// ancestor of it, whose rows the statement may be writing.
	selfReference bool
}

// fkRef2 is an incoming foreign key: rows of child reference t.
type fkRef2 struct {
	fk    *fkDesc
	child *tableDesc
	// action is the key whose action triggers enforce fk on the
	// referenced side (catalog.actionKey): when they are disabled, the
	// referenced rows' deletes and key changes leave fk's rows alone.
	action *fkDesc
	// index is a child index whose leading columns are the foreign key's,
	// nil to scan the child table.
	index *indexDesc
	cw    *writer // the child's writer, for cascades (built lazily)
	// named and namedFK are the table and key a violation names: child
	// and fk, or for a partition's clone its partitioned ancestor's key.
	named   *tableDesc
	namedFK *fkDesc
	// con is the constraint whose checks NO ACTION queues; leaves are the
	// leaves of a partitioned child, each with its rows (fk_referenced.go).
	con    constraintKey
	leaves []*fkRef2
	// namedParent, when set, is the referenced table a violation names
	// instead of the writer's (a row moved between partitions).
	namedParent *tableDesc
	// childCheck, topCheck and router move a row a referential action
	// sends out of its partition (fk_partition.go), built when first
	// needed.
	childCheck, topCheck *partCheck
	router               *partRouter
	// topWriter gives the defaults of a partition's key's table (named).
	topWriter *writer
}

// identityDefault runs e, the nextval call of an identity column's
// default, without the USAGE check on the sequence: PostgreSQL's
// NextValueExpr needs only the privilege to write the column.
func identityDefault(e *scalar) *scalar {
	out := *e
	out.eval = func(x *execCtx) (any, error) {
		saved := x.identityNextval
		x.identityNextval = true
		defer func() { x.identityNextval = saved }()
		return e.eval(x)
	}
	return &out
}

func (b *binder) writerFor(t *tableDesc, withRefs bool) (*writer, error) {
	w := &writer{b: b, t: t, defaults: make([]*scalar, len(t.cols)), defaultPerms: make([][]permCheck, len(t.cols)),
		domains: make([]domainCheck, len(t.cols))}
	sc := tableScope(t, t.name)
	for i, c := range t.cols {
		def := c.def
		var dom *typeDesc
		if dom = b.domainByOid(c.domain); dom != nil {
			b.storedCheck = true
			check, err := b.domainCheckFor(dom)
			b.storedCheck = false
			if err != nil {
				return nil, err
			}
			w.domains[i] = check
			if b.catalogNow().holdsDomainArray(dom) {
				if w.inputChecks == nil {
					w.inputChecks = make([]domainCheck, len(t.cols))
				}
				if w.inputChecks[i], err = b.domainCheckFor(dom); err != nil {
					return nil, err
				}
			}
			if def == nil {
				def = b.catalogNow().domainDefault(dom)
			}
		}
		if def == nil || c.generated != nil {
			continue
		}
		mark := len(b.perms)
		e, err := b.expr(nil, def)
		if err != nil {
			return nil, err
		}
		if e, err = b.coerce(e, c.typ, types.CastAssignment); err != nil {
			return nil, err
		}
		if dom != nil {
			if e, err = b.withConversionCheck(e, dom, def); err != nil {
				return nil, err
			}
		}
		if c.identity != 0 {
			e = identityDefault(e)
		}
		w.defaults[i] = e
		w.defaultPerms[i] = slices.Clone(b.perms[mark:])
		b.perms = b.perms[:mark]
	}
	if err := w.compileGenerated(); err != nil {
		return nil, err
	}
	for _, ck := range t.checks {
		e, err := b.cond(sc, ck.expr, "CHECK")
		if err != nil {
			return nil, err
		}
		w.checks = append(w.checks, e)
	}
	for _, fk := range t.fks {
		if t.part != nil {
			// Its rows live in its partitions, whose clones check them.
			break
		}
		if fk.refClone {
			continue // its parent key checks the rows
		}
		c, err := b.fkCheckFor(t, fk)
		if err != nil {
			return nil, err
		}
		w.fks = append(w.fks, c)
	}
	if withRefs {
		for _, r := range b.cat.referencing(t.oid) {
			if r.child.part != nil && !r.fk.refClone {
				// The clones of its key on its leaf partitions find the rows.
				continue
			}
			ref := newFKRef(b.cat, r.child, r.fk)
			for _, lr := range append([]*fkRef2{ref}, ref.leaves...) {
				b.useTable(lr.child, isolation.TableLockAccessShare)
			}
			w.refs = append(w.refs, ref)
		}
	}
	return w, nil
}

// newFKRef is the referencing side of child's foreign key fk: the index
// that finds child's referencing rows, and the table and key PostgreSQL
// names when a referenced row is still referenced.
func newFKRef(c *catalog, child *tableDesc, fk *fkDesc) *fkRef2 {
	ref := &fkRef2{fk: fk, child: child, action: c.actionKey(child, fk), con: constraintKey{child.oid, fk.name}}
	ref.named, ref.namedFK = c.referencedThrough(child, fk)
	if child.part != nil {
		ref.leaves = leafRefs(c, child, fk)
		return ref
	}
	for _, ix := range child.indexes {
		if ix.onColumnsOnly() && len(ix.cols) >= len(fk.cols) && intsEqual(ix.cols[:len(fk.cols)], fk.cols) {
			ref.index = ix
			break
		}
	}
	return ref
}

func intsEqual(a, b []int) bool {
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

// tableScope is the scope of one table's columns at slots 0..n-1.
func tableScope(t *tableDesc, alias string) *scope {
	sc := &scope{}
	for i, c := range t.cols {
		sc.cols = append(sc.cols, scopeCol{rel: alias, name: c.name, typ: c.typ, slot: i, tableOID: t.oid, attnum: c.attnum, coll: c.collation})
	}
	return sc
}

func (b *binder) fkCheckFor(t *tableDesc, fk *fkDesc) (*fkCheck, error) {
	parent := b.cat.tables[fk.refTable]
	if parent == nil {
		return nil, pgerror.Newf(pgerror.UndefinedTable, "table referenced by foreign key \"%s\" no longer exists", fk.name)
	}
	// The check locks the referenced row FOR KEY SHARE, under the ROW
	// SHARE table lock PostgreSQL's RI query takes.
	b.useTable(parent, isolation.TableLockRowShare)
	c := &fkCheck{fk: fk, child: t, parent: parent, selfReference: b.cat.inPartitionTree(t, parent.oid)}
	if parent.part != nil {
		var err error
		if c.leaves, err = b.leafChecks(t, fk, parent); err != nil {
			return nil, err
		}
	} else if parent.hidden || !intsEqual(parent.pk, fk.refCols) {
		for _, ix := range parent.indexes {
			if ix.unique && ix.onColumnsOnly() && intsEqual(ix.cols, fk.refCols) {
				c.index = ix
			}
		}
		if c.index == nil {
			return nil, pgerror.Newf(pgerror.InvalidForeignKey, "there is no unique constraint matching given keys for referenced table \"%s\"", parent.name)
		}
	}
	for i, col := range fk.cols {
		pt, ct := parent.cols[fk.refCols[i]].typ, t.cols[col].typ
		c.typs = append(c.typs, pt)
		var conv types.CastFunc
		if !keyCompatible(pt, ct) {
			f, err := types.LookupCast(ct, pt, types.CastImplicit)
			if err != nil {
				return nil, err
			}
			conv = f
		}
		c.conv = append(c.conv, conv)
	}
	return c, nil
}

// requireDefaults notes the privileges of the defaults of the columns
// the statement may fill with their defaults (used; nil for all).
func (w *writer) requireDefaults(used func(col int) bool) {
	for i, perms := range w.defaultPerms {
		if used == nil || used(i) {
			w.b.perms = append(w.b.perms, perms...)
		}
	}
}

// fillDefaults sets the columns not given (given[i] false) to their
// defaults.
func (w *writer) fillDefaults(x *execCtx, row []any, given []bool) error {
	for i, d := range w.defaults {
		if given[i] || d == nil {
			continue
		}
		v, err := d.eval(x)
		if err != nil {
			return err
		}
		row[i] = v
	}
	return nil
}

// checkInput checks the values of a row read from outside (COPY FROM)
// against the columns' arrays of domains in full, NULL elements included,
// as the input functions of those types do.
func (w *writer) checkInput(x *execCtx, row []any) error {
	for i, check := range w.inputChecks {
		if check != nil {
			if err := check(x, row[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// validate computes the generated columns of a new row, then checks NOT
// NULL, CHECK and outgoing foreign keys.
// changed, when not nil, limits the foreign-key checks to keys whose
// columns changed (UPDATE).
func (w *writer) validate(x *execCtx, row []any, old []any) error {
	t := w.t
	if err := w.computeGenerated(x, row); err != nil {
		return err
	}
	for i, check := range w.domains {
		if check == nil {
			continue
		}
		if err := check(x, row[i]); err != nil {
			return err
		}
	}
	for i, c := range t.cols {
		if c.notNull && row[i] == nil {
			return pgerror.Newf(pgerror.NotNullViolation, "null value in column \"%s\" of relation \"%s\" violates not-null constraint", c.name, t.name).
				WithDetail("Failing row contains %s.", rowText(t, row)).WithConstraint(t.name, "")
		}
	}
	if len(w.checks) > 0 {
		saved := x.row
		x.row = row
		for i, ck := range w.checks {
			v, err := ck.eval(x)
			if err != nil {
				x.row = saved
				return err
			}
			if v == false {
				x.row = saved
				name := t.checks[i].name
				return pgerror.Newf(pgerror.CheckViolation, "new row for relation \"%s\" violates check constraint \"%s\"", t.name, name).
					WithDetail("Failing row contains %s.", rowText(t, row)).WithConstraint(t.name, name)
			}
		}
		x.row = saved
	}
	for _, fc := range w.fks {
		if old != nil && !colsChanged(t, fc.fk.cols, old, row) {
			continue
		}
		if old == nil && !fc.fk.riFires(riCheckInsert, x.s.replica()) || old != nil && !fc.fk.riFires(riCheckUpdate, x.s.replica()) {
			continue // its check trigger is disabled
		}
		if err := fc.check(x, t, row); err != nil {
			return err
		}
	}
	return nil
}

// keyImageChanged reports whether the referenced columns cols changed as
// PostgreSQL's referential triggers see it: by the stored value, so that
// equal values written differently (-0 and 0, 1.0 and 1.00) count as a
// change, which ON UPDATE CASCADE carries to the referencing rows.
func keyImageChanged(t *tableDesc, cols []int, old, row []any) bool {
	if colsChanged(t, cols, old, row) {
		return true
	}
	for _, c := range cols {
		typ := t.cols[c].typ
		if old[c] != nil && !equalMeansSame(typ) && types.FormatText(typ, old[c], time.UTC) != types.FormatText(typ, row[c], time.UTC) {
			return true
		}
	}
	return false
}

// equalMeansSame says two values of typ that compare equal are stored
// alike, which spares the common key types keyImageChanged's formatting.
func equalMeansSame(typ types.Type) bool {
	switch typ.Oid {
	case types.OidInt2, types.OidInt4, types.OidInt8, types.OidText, types.OidVarchar, types.OidBool, types.OidDate, types.OidUUID:
		return true
	}
	return false
}

func colsChanged(t *tableDesc, cols []int, old, row []any) bool {
	for _, c := range cols {
		a, b := old[c], row[c]
		if (a == nil) != (b == nil) {
			return true
		}
		if a != nil && types.Compare(t.cols[c].typ, a, b) != 0 {
			return true
		}
	}
	return false
}

// check verifies that row's referenced parent row exists in the latest
// committed state, and locks it against deletion (FOR KEY SHARE). A
// deferred constraint (DEFERRABLE INITIALLY DEFERRED, SET CONSTRAINTS) is
// checked when the transaction commits instead. A key that references its
// own table (or a partitioned ancestor), or one written by a statement
// with data-modifying WITH queries, is checked when the statement ends, as
// PostgreSQL's trigger checks it, so that a row may reference itself or a
// row the statement writes later.
func (fc *fkCheck) check(x *execCtx, t *tableDesc, row []any) error {
	vals, err := fc.parentValues(row)
	if err != nil || vals == nil {
		return err
	}
	con := constraintKey{t.oid, fc.fk.name}
	switch {
	case x.s.fkDeferred(con, fc.fk):
		x.s.deferFK(con, vals, true)
		return nil
	case fc.selfReference, x.withSnapshot != nil:
		// In a statement with data-modifying WITH queries the other
		// parts may write the parent row yet.
		x.s.txn.stmtFKs = append(x.s.txn.stmtFKs, deferredFK{con: con, vals: vals, child: true})
		return nil
	}
	return fc.checkNow(x, t, vals)
}

// parentValues returns the parent key row references, in the parent's
// column types; nil when a column is NULL (MATCH SIMPLE: no check) or, for
// MATCH FULL, all are (some NULL fails).
func (fc *fkCheck) parentValues(row []any) ([]any, error) {
	vals := make([]any, len(fc.fk.cols))
	nulls := 0
	for i, col := range fc.fk.cols {
		v := row[col]
		if v == nil {
			if !fc.fk.matchFull {
				return nil, nil
			}
			nulls++
			continue
		}
		if fc.conv[i] != nil {
			var err error
			if v, err = fc.conv[i](v); err != nil {
				return nil, err
			}
		}
		vals[i] = v
	}
	switch nulls {
	case 0:
	case len(vals):
		return nil, nil
	default:
		return nil, pgerror.Newf(pgerror.ForeignKeyViolation, "insert or update on table \"%s\" violates foreign key constraint \"%s\"", fc.child.name, fc.fk.name).
			WithDetail("MATCH FULL does not allow mixing of null and nonnull key values.").
			WithConstraint(fc.child.name, fc.fk.name)
	}
	return vals, nil
}

// checkNow fails with 23503 unless the parent row with key vals exists.
func (fc *fkCheck) checkNow(x *execCtx, t *tableDesc, vals []any) error {
	found, err := fc.parentExists(x, vals)
	if err != nil {
		return err
	}
	if !found {
		return pgerror.Newf(pgerror.ForeignKeyViolation, "insert or update on table \"%s\" violates foreign key constraint \"%s\"", t.name, fc.fk.name).
			WithDetail("Key (%s)=(%s) is not present in table \"%s\".", colNames(t, fc.fk.cols), valuesText(fc.parent, fc.fk.refCols, keyRow(fc.parent, fc.fk.refCols, vals)), fc.parent.name).
			WithConstraint(t.name, fc.fk.name)
	}
	return nil
}

// keyRow spreads key values over a row of t at cols, for valuesText.
func keyRow(t *tableDesc, cols []int, vals []any) []any {
	row := make([]any, len(t.cols))
	for i, c := range cols {
		row[c] = vals[i]
	}
	return row
}

// parentExists reads the latest committed parent row with key vals,
// locking it FOR KEY SHARE.
func (fc *fkCheck) parentExists(x *execCtx, vals []any) (bool, error) {
	if fc.leaves != nil {
		for _, leaf := range fc.leaves {
			if found, err := leaf.parentExists(x, vals); err != nil || found {
				return found, err
			}
		}
		return false, nil
	}
	key := make([]byte, 0, 16)
	for i, v := range vals {
		key = types.AppendKey(key, fc.typs[i], v)
	}
	return fc.lockParent(x, key)
}

// lockParent finds the parent row whose referenced columns encode to key on
// the latest committed state and locks it FOR KEY SHARE, as PostgreSQL's
// check does, so that it cannot be deleted or its key changed until this
// transaction ends; found is false when no such row exists once locked.
func (fc *fkCheck) lockParent(x *execCtx, key []byte) (found bool, err error) {
	keyCols := fc.parent.keyColumns()
	keyOf := func(row []any) []byte {
		k, _ := encodeKey(nil, fc.parent, keyCols, row)
		return k
	}
	lock := func(pk []byte) (bool, error) {
		got, err := x.txn.LockRow(x.ctx, fc.parent.id, pk, isolation.LockRequest{Mode: isolation.RowLockKeyShare, KeyOf: keyOf})
		if err != nil || !got.Live {
			return false, err
		}
		if fc.index == nil {
			return got.Key == nil, nil // a row moved to another key is not the parent any more
		}
		k, _ := encodeKey(nil, fc.parent, fc.index.cols, got.Row)
		return bytes.Equal(k, key), nil
	}
	if fc.index == nil {
		return lock(key)
	}
	var parents [][]byte
	// Every row the index lists under key is a candidate, whatever version
	// of it the statement read before: lock reads the row's newest version
	// (the statement's own write, after an ON UPDATE CASCADE changed it)
	// and decides.
	err = x.txn.ScanIndex(x.ctx, fc.index.id, isolation.ExactSpan(key), isolation.ReadOptions{Latest: true}, func(pk []byte, prow []any) (bool, error) {
		parents = append(parents, append([]byte(nil), pk...))
		k, _ := encodeKey(nil, fc.parent, fc.index.cols, prow)
		return bytes.Equal(k, key), nil
	})
	for _, pk := range parents {
		if found, err = lock(pk); err != nil || found {
			return found, err
		}
	}
	return false, err
}

// insertRow writes a new, validated row and returns its store key.
func (w *writer) insertRow(x *execCtx, row []any) ([]byte, error) {
	if err := w.t.checkIndexRows(row); err != nil {
		return nil, err
	}
	key, err := x.txn.Insert(x.ctx, w.t.id, w.t.pkKey(row), row)
	if err != nil {
		return nil, w.uniqueError(err, row)
	}
	x.s.queueUniqueChecks(w.t, key, row)
	x.s.noteWrite(w.t.id, key)
	return key, nil
}

// uniqueError names the violated constraint of a 23505 from the store.
func (w *writer) uniqueError(err error, row []any) error {
	var ec *isolation.ExclusionConflict
	if errors.As(err, &ec) {
		for _, ix := range w.t.indexes {
			if ix.id == ec.Index && ix.excl != nil {
				return exclusionError(w.b.s, w.b.cat, w.t, ix, err, row, ec.Row)
			}
		}
		return err
	}
	var uc *isolation.UniqueConflict
	if pgerror.GetCode(err) != pgerror.UniqueViolation || !errors.As(err, &uc) {
		return err
	}
	t := w.t
	name, cols := t.pkName, t.pk
	if uc.Index != isolation.NoIndex {
		for _, ix := range t.indexes {
			if ix.id == uc.Index && ix.exprs != nil {
				return pgerror.Wrapf(err, pgerror.UniqueViolation, "duplicate key value violates unique constraint \"%s\"", ix.name).
					WithDetail("Key (%s)=(%s) already exists.", ix.keyNamesText(w.b.s, w.b.cat, t), ix.keyValuesText(t, row)).WithConstraint(t.name, ix.name)
			}
			if ix.id == uc.Index {
				name, cols = ix.name, ix.cols
			}
		}
	}
	return pgerror.Wrapf(err, pgerror.UniqueViolation, "duplicate key value violates unique constraint \"%s\"", name).
		WithDetail("Key (%s)=(%s) already exists.", colNames(t, cols), valuesText(t, cols, row)).WithConstraint(t.name, name)
}

// updateRow writes the new version nr of the row old stored under key: a
// changed primary key moves the row (delete and insert). The foreign keys
// that reference the row are enforced after the write, so that ON UPDATE
// CASCADE finds the new key.
func (w *writer) updateRow(x *execCtx, key []byte, old, nr []any) error {
	t := w.t
	if err := t.checkIndexRows(nr); err != nil {
		return err
	}
	x.s.noteWrite(t.id, key)
	if !t.hidden && colsChanged(t, t.pk, old, nr) {
		if err := x.txn.Move(x.ctx, t.id, key, t.pkKey(nr), nr); err != nil {
			return w.uniqueError(err, nr)
		}
		x.s.queueUniqueChecks(t, t.pkKey(nr), nr)
	} else if err := x.txn.Update(x.ctx, t.id, key, nr); err != nil {
		return w.uniqueError(err, nr)
	} else {
		x.s.queueUniqueChecks(t, key, nr)
	}
	return w.enforceRefs(x, old, nr, 0)
}

// deleteRow deletes a row, then enforces the foreign keys that reference
// it, as PostgreSQL's triggers run after the delete: a SET DEFAULT that
// points back at the row fails.
func (w *writer) deleteRow(x *execCtx, key []byte, row []any, depth int) error {
	if depth > 64 {
		return pgerror.New(pgerror.StatementTooComplex, "foreign key cascade too deep")
	}
	if err := x.txn.Delete(x.ctx, w.t.id, key); err != nil {
		return err
	}
	x.s.noteWrite(w.t.id, key)
	return w.enforceRefs(x, row, nil, depth)
}

// enforceRefs enforces the foreign keys that reference the row old,
// deleted (new nil) or updated to new: their checks, and their actions
// unless the writer leaves those to its statement's trigger run
// (withActions).
func (w *writer) enforceRefs(x *execCtx, old, new []any, depth int) error {
	for _, ref := range w.refs {
		if action, _ := ref.actionOf(new == nil); w.queueActions && actionWrites(action) {
			continue
		}
		if err := w.applyRef(x, ref, old, new, depth, false); err != nil {
			return err
		}
	}
	return nil
}

// applyRef enforces one incoming foreign key for a parent row being deleted
// (newRow nil) or having its key changed; queued says it runs as the key's
// action trigger at the end of the statement (ri_actions.go), not inside
// the write.
func (w *writer) applyRef(x *execCtx, ref *fkRef2, parentRow, newRow []any, depth int, queued bool) error {
	fk := ref.fk
	_, k := ref.actionOf(newRow == nil)
	if !ref.action.riFires(k, x.s.replica()) {
		return nil // its action trigger is disabled
	}
	vals := make([]any, len(fk.cols))
	for i, pc := range fk.refCols {
		vals[i] = parentRow[pc]
		if vals[i] == nil {
			return nil
		}
	}
	if newRow != nil && !keyImageChanged(w.t, fk.refCols, parentRow, newRow) {
		return nil
	}
	for _, lr := range ref.leaves {
		if err := w.applyRefTo(x, lr, vals, parentRow, newRow, depth, false); err != nil {
			return err
		}
	}
	if ref.leaves != nil {
		return nil
	}
	return w.applyRefTo(x, ref, vals, parentRow, newRow, depth, queued && queuesActions(ref.child))
}

// applyRefTo enforces ref, whose child holds rows, for the parent row
// parentRow with key vals being deleted or changed to newRow. queued
// says the action writes the child's rows through the child's trigger
// run (a plain table's, from the action's trigger); otherwise it writes
// them at once and refuses where that would skip the child's triggers.
func (w *writer) applyRefTo(x *execCtx, ref *fkRef2, vals, parentRow, newRow []any, depth int, queued bool) error {
	fk := ref.fk
	action, _ := ref.actionOf(newRow == nil)
	deleting := action == fkCascade && newRow == nil
	find := findChildren
	acts := actionWrites(action)
	if acts {
		find = findCandidates
		if ref.cw == nil {
			cw, err := w.b.writerFor(ref.child, true)
			if err != nil {
				return err
			}
			ref.cw = cw
		}
	}
	for t := ref.child; acts && !queued && t != nil; t = w.b.cat.partitionParent(t) {
		if actionFiresTriggers(t, deleting, false, x.s.replica()) {
			return actionTriggersRefused(t, inlineActionsWhy)
		}
	}
	var run *triggerRun
	if acts && queued {
		// The action's query runs, and fires the child's statement
		// triggers, whether or not it finds rows.
		event, cols := tgUpdate, fk.cols
		if deleting {
			event, cols = tgDelete, nil
		} else if newRow == nil && fk.delSetCols != nil {
			cols = fk.delSetCols
		}
		var err error
		if run, err = ref.actionRun(x, event, cols); err != nil {
			return err
		}
		defer run.level.queueStatement(run)
	}
	children, err := find(x, ref, w.t, vals)
	if err != nil || len(children) == 0 {
		return err
	}
	if acts && !queued && actionFiresTriggers(ref.child, deleting, true, x.s.replica()) {
		return actionTriggersRefused(ref.child, inlineActionsWhy)
	}
	if action == fkNoAction {
		// NO ACTION checks when the statement ends (or at commit when
		// deferred): the statement may yet remove the references.
		if x.s.fkDeferred(ref.con, fk) {
			x.s.deferFK(ref.con, vals, false)
		} else {
			x.s.txn.stmtFKs = append(x.s.txn.stmtFKs, deferredFK{con: ref.con, vals: vals})
		}
		return nil
	}
	switch action {
	case fkCascade, fkSetNull, fkDefault:
		for _, ch := range children {
			key, row, ok, err := lockChild(x, ref, w.t, vals, ch, deleting)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if deleting {
				if kept, err := run.before(x, row, nil); err != nil || kept == nil {
					if err != nil {
						return err
					}
					continue
				}
				if err := ref.cw.deleteRow(x, key, row, depth+1); err != nil {
					return err
				}
				run.after(row, nil)
				continue
			}
			nr := append([]any(nil), row...)
			for i, c := range fk.cols {
				if newRow == nil && fk.delSetCols != nil && !slices.Contains(fk.delSetCols, c) {
					continue // ON DELETE SET NULL / SET DEFAULT (cols) leaves the others
				}
				switch action {
				case fkSetNull:
					nr[c] = nil
				case fkDefault:
					d, err := ref.columnDefault(w.b, c)
					if err != nil {
						return err
					}
					nr[c] = nil
					if d != nil {
						v, err := d.eval(x)
						if err != nil {
							return err
						}
						nr[c] = v
					}
				default:
					nr[c] = newRow[fk.refCols[i]]
				}
			}
			moved, err := ref.moveIfLeaving(x, w.b, key, row, nr)
			if err != nil {
				return err
			}
			if moved {
				continue
			}
			if nr, err = run.before(x, row, nr); err != nil || nr == nil {
				if err != nil {
					return err
				}
				continue
			}
			if action == fkDefault && !colsChanged(ref.child, fk.cols, row, nr) {
				// The default is the key just removed: the row still
				// references it, as PostgreSQL's check after the action finds.
				return w.stillReferencedBy(ref, vals, parentRow)
			}
			if err := ref.cw.validate(x, nr, row); err != nil {
				return err
			}
			if err := ref.cw.updateRow(x, key, row, nr); err != nil {
				return err
			}
			run.after(row, nr)
		}
		return nil
	}
	return w.stillReferencedBy(ref, vals, parentRow)
}

// stillReferencedBy is the 23503 of removing parent key vals (of
// parentRow) that rows of ref still reference.
func (w *writer) stillReferencedBy(ref *fkRef2, vals, parentRow []any) error {
	parent := w.t
	if ref.namedParent != nil {
		parent, parentRow = ref.namedParent, keyRow(ref.namedParent, ref.namedFK.refCols, vals)
	}
	return stillReferenced(parent, ref.named, ref.namedFK, parentRow)
}

// stillReferenced is the 23503 of deleting or changing the key of parent
// row parentRow that rows of child still reference.
func stillReferenced(parent, child *tableDesc, fk *fkDesc, parentRow []any) error {
	return pgerror.Newf(pgerror.ForeignKeyViolation, "update or delete on table \"%s\" violates foreign key constraint \"%s\" on table \"%s\"", parent.name, fk.name, child.name).
		WithDetail("Key (%s)=(%s) is still referenced from table \"%s\".", colNames(parent, fk.refCols), valuesText(parent, fk.refCols, parentRow), child.name).
		WithConstraint(child.name, fk.name)
}

// findChildren reads the latest committed rows of ref.child whose foreign
// key columns equal vals.
func findChildren(x *execCtx, ref *fkRef2, parent *tableDesc, vals []any) ([]keyedRow, error) {
	rows, err := findCandidates(x, ref, parent, vals)
	out := rows[:0]
	for _, r := range rows {
		if r.row != nil {
			out = append(out, r)
		}
	}
	return out, err
}

// findCandidates is findChildren with, besides the rows that reference
// vals, the rows an index lists under vals whose version this statement
// read before does not (their row nil): the statement may have changed
// them since (an earlier referential action), which only a row lock
// (lockChild) can tell.
func findCandidates(x *execCtx, ref *fkRef2, parent *tableDesc, vals []any) ([]keyedRow, error) {
	if ref.leaves != nil {
		var out []keyedRow
		for _, lr := range ref.leaves {
			rows, err := findCandidates(x, lr, parent, vals)
			if err != nil {
				return nil, err
			}
			out = append(out, rows...)
		}
		return out, nil
	}
	child := ref.child
	var out []keyedRow
	visit := func(key []byte, row []any) (bool, error) {
		if !ref.references(parent, vals, row) {
			return false, nil
		}
		out = append(out, keyedRow{key: append([]byte(nil), key...), row: row})
		return true, nil
	}
	fk := ref.fk
	ro := isolation.ReadOptions{Latest: true}
	if ref.index != nil && allKeyCompatible(child, fk.cols, parent, fk.refCols) {
		var prefix []byte
		for i, c := range fk.cols {
			prefix = types.AppendKey(prefix, child.cols[c].typ, vals[i])
		}
		span := isolation.ExactSpan(prefix)
		if len(ref.index.cols) > len(fk.cols) {
			span = prefixSpan(prefix)
		}
		return out, x.txn.ScanIndex(x.ctx, ref.index.id, span, ro, func(key []byte, row []any) (bool, error) {
			ok, err := visit(key, row)
			if !ok && err == nil {
				out = append(out, keyedRow{key: append([]byte(nil), key...)})
			}
			return ok, err
		})
	}
	return out, x.txn.Scan(x.ctx, child.id, isolation.Span{}, ro, visit)
}

// references says row of ref.child references the parent key vals.
func (ref *fkRef2) references(parent *tableDesc, vals, row []any) bool {
	for i, c := range ref.fk.cols {
		if row[c] == nil || types.Compare(parent.cols[ref.fk.refCols[i]].typ, row[c], vals[i]) != 0 {
			return false
		}
	}
	return true
}

// lockChild locks the referencing row ch for a referential action's write
// and returns its newest version, which the action computes on: an earlier
// action of the statement (another key of the same row, a cascade) may
// have changed or deleted it. ok is false when the row is gone or no
// longer references vals.
func lockChild(x *execCtx, ref *fkRef2, parent *tableDesc, vals []any, ch keyedRow, deleting bool) (key []byte, row []any, ok bool, err error) {
	mode := isolation.RowLockNoKeyUpdate
	if deleting || slices.ContainsFunc(ref.fk.cols, func(c int) bool { return slices.Contains(ref.child.keyColumns(), c) }) {
		mode = isolation.RowLockUpdate
	}
	got, err := x.txn.LockRow(x.ctx, ref.child.id, ch.key, isolation.LockRequest{Mode: mode, Write: true})
	if err != nil || !got.Live || !ref.references(parent, vals, got.Row) {
		return nil, nil, false, err
	}
	key = ch.key
	if got.Key != nil {
		key = got.Key // a concurrent update moved the row to another primary key
	}
	return key, got.Row, true, nil
}

func allKeyCompatible(child *tableDesc, cols []int, parent *tableDesc, refCols []int) bool {
	for i, c := range cols {
		if !keyCompatible(child.cols[c].typ, parent.cols[refCols[i]].typ) {
			return false
		}
	}
	return true
}

// prefixSpan returns the span of all keys starting with prefix.
func prefixSpan(prefix []byte) isolation.Span {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return isolation.Span{Start: prefix, End: end[:i+1]}
		}
	}
	return isolation.Span{Start: prefix}
}

func colNames(t *tableDesc, cols []int) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = t.cols[c].name
	}
	return strings.Join(names, ", ")
}

func valuesText(t *tableDesc, cols []int, row []any) string {
	vals := make([]string, len(cols))
	for i, c := range cols {
		if row[c] == nil {
			vals[i] = "null"
		} else {
			vals[i] = types.FormatText(t.cols[c].typ, row[c], nil)
		}
	}
	return strings.Join(vals, ", ")
}

func rowText(t *tableDesc, row []any) string {
	all := make([]int, len(t.cols))
	for i := range all {
		all[i] = i
	}
	return "(" + valuesText(t, all, row) + ")"
}

// actionFiresTriggers reports whether a referential action on child, a
// DELETE (deleting) or an UPDATE of its rows, would fire child's
// triggers: with rows, its row or statement triggers for the event,
// without, its statement ones (those of child's partitioned ancestors are
// checked too, as the action may name one). An action applied inside the
// write (not through the statement's trigger runs, ri_actions.go) cannot
// fire them, and is refused instead (actionTriggersRefused).
func actionFiresTriggers(child *tableDesc, deleting, rows, replica bool) bool {
	event := tgUpdate
	if deleting {
		event = tgDelete
	}
	for _, tr := range child.triggers {
		if tr.tgtype&event != 0 && firesIn(tr.enabled, replica) && (rows || tr.tgtype&tgRow == 0) {
			return true
		}
	}
	return false
}

// partitionParent is the partitioned table t is a partition of, nil for
// none.
func (c *catalog) partitionParent(t *tableDesc) *tableDesc {
	if t.bound == nil || len(t.parents) == 0 {
		return nil
	}
	return c.tables[t.parents[0]]
}
