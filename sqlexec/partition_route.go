package sqlexec

import (
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// partRouter routes the rows written to a partitioned table to its leaf
// partitions.
type partRouter struct {
	t     *tableDesc
	keys  []*scalar
	parts []*partRoute
	def   *partRoute
}

// partRoute is one partition of a router's table: cols maps each of the
// partition's columns to the parent's row, sub routes further when the
// partition is partitioned itself, w writes to a leaf and trg are the
// leaf's INSERT row triggers (triggers_members.go).
type partRoute struct {
	t    *tableDesc
	cols []int
	sub  *partRouter
	w    *writer
	trg  *triggerSet
	// check is the leaf's partition constraint, which a row a trigger
	// or ON CONFLICT DO UPDATE changed must still satisfy; set with trg
	// and for ON CONFLICT.
	check *partCheck
	// For INSERT ... ON CONFLICT (conflictLeaves): rootCols maps each of
	// the leaf's columns to the routed table's row, and arbiterIdx is the
	// leaf's index of the clause's arbiter index.
	rootCols   []int
	arbiterIdx *indexDesc
	// foreignErr, for a foreign table, fails a row routed to it, as
	// PostgreSQL fails to open its wrapper's handler.
	foreignErr error
}

// toRoot returns the leaf row lrow in the routed table's column order.
func (pr *partRoute) toRoot(lrow []any) []any {
	row := make([]any, len(pr.rootCols))
	for j, c := range pr.rootCols {
		row[c] = lrow[j]
	}
	return row
}

// fromRoot returns row, in the routed table's column order, in the leaf's.
func (pr *partRoute) fromRoot(row []any) []any {
	lrow := make([]any, len(pr.rootCols))
	for j, c := range pr.rootCols {
		lrow[j] = row[c]
	}
	return lrow
}

// conflictLeaves prepares every leaf under r for INSERT ... ON CONFLICT
// into root, the table routed: PostgreSQL routes each row to its leaf and
// looks for its conflict there, in the leaf's index attached to the
// arbiter (a unique key of a partitioned table holds the partition key, so
// a conflicting row can only be in the same leaf).
func (b *binder) conflictLeaves(r *partRouter, root *tableDesc, cp *conflictPlan) error {
	for _, pr := range append(slices.Clip(r.parts), r.def) {
		switch {
		case pr == nil:
		case pr.sub != nil:
			if err := b.conflictLeaves(pr.sub, root, cp); err != nil {
				return err
			}
		case pr.trg != nil:
			return pgerror.Unsupported("INSERT ... ON CONFLICT into a table with row triggers")
		default:
			if cp.update {
				all := make([]int, len(pr.t.cols)) // UPDATE OF triggers too
				for i := range all {
					all[i] = i
				}
				if upd, err := b.rowTriggersOf(pr.t, tgUpdate, all); err != nil || upd != nil {
					if err == nil {
						err = pgerror.Unsupported("INSERT ... ON CONFLICT into a table with row triggers")
					}
					return err
				}
			}
			pr.rootCols = make([]int, len(pr.t.cols))
			for j, c := range pr.t.cols {
				pr.rootCols[j] = root.colIndex(c.name)
			}
			var err error
			if pr.check, err = b.partCheckFor(pr.t); err != nil {
				return err
			}
			if cp.arbiterIdx != nil {
				if pr.arbiterIdx = b.descendantIndex(pr.t, cp.arbiterIdx); pr.arbiterIdx == nil {
					return pgerror.Newf(pgerror.InternalError, "partition \"%s\" has no index of \"%s\"", pr.t.name, cp.arbiterIdx.name)
				}
			}
		}
	}
	return nil
}

// descendantIndex returns t's index that belongs to the partitioned index
// ix, through the partitioned indexes in between; nil if none does.
func (b *binder) descendantIndex(t *tableDesc, ix *indexDesc) *indexDesc {
	for _, cand := range t.indexes {
		for p, pt := cand, t; p != nil && pt.bound != nil; {
			if p.parent == ix.oid {
				return cand
			}
			pt = b.cat.tables[pt.parents[0]]
			i := slices.IndexFunc(pt.indexes, func(q *indexDesc) bool { return q.oid == p.parent })
			if i < 0 {
				break
			}
			p = pt.indexes[i]
		}
	}
	return nil
}

// partRouterFor compiles the router of a partitioned table t, with a
// writer and the INSERT row triggers of each leaf.
func (b *binder) partRouterFor(t *tableDesc, withRefs bool) (*partRouter, error) {
	keys, err := b.keyScalars(t)
	if err != nil {
		return nil, err
	}
	r := &partRouter{t: t, keys: keys}
	for _, ch := range b.cat.children(t.oid) {
		pr := &partRoute{t: ch, cols: make([]int, len(ch.cols))}
		for j, c := range ch.cols {
			pr.cols[j] = t.colIndex(c.name)
		}
		b.useTable(ch, isolation.TableLockRowExclusive)
		pr.foreignErr = b.cat.foreignReadError(ch)
		if ch.part != nil {
			if pr.sub, err = b.partRouterFor(ch, withRefs); err != nil {
				return nil, err
			}
		} else {
			if pr.w, err = b.writerFor(ch, withRefs); err != nil {
				return nil, err
			}
			if pr.trg, err = b.rowTriggersOf(ch, tgInsert, nil); err != nil {
				return nil, err
			}
			if pr.trg != nil {
				if pr.check, err = b.partCheckFor(ch); err != nil {
					return nil, err
				}
			}
		}
		if ch.bound.isDefault {
			r.def = pr
		} else {
			r.parts = append(r.parts, pr)
		}
	}
	return r, nil
}

// route returns the leaf partition of row (in r.t's column order) and the
// row in the leaf's column order.
func (r *partRouter) route(x *execCtx, row []any) (*partRoute, []any, error) {
	key, err := evalKey(x, r.keys, row)
	if err != nil {
		return nil, nil, err
	}
	var to *partRoute
	holds, err := r.t.part.keyMatcher(x, key)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range r.parts {
		if holds(p.t.bound) {
			to = p
			break
		}
	}
	if to == nil {
		to = r.def
	}
	if to == nil {
		return nil, nil, pgerror.Newf(pgerror.CheckViolation, "no partition of relation \"%s\" found for row", r.t.name).
			WithDetail("Partition key of the failing row contains %s.", keyText(r.t, key))
	}
	if to.foreignErr != nil {
		return nil, nil, to.foreignErr
	}
	crow := make([]any, len(to.cols))
	for j, c := range to.cols {
		crow[j] = row[c]
	}
	if to.sub != nil {
		return to.sub.route(x, crow)
	}
	return to, crow, nil
}

// insert routes row to its leaf and writes it there, firing the leaf's
// BEFORE INSERT row triggers and queueing its AFTER ones on q. The row the
// triggers leave must pass policies, the row-level security checks of the
// statement (as PostgreSQL checks them after the leaf's triggers). It
// returns the row written, in r.t's column order, the leaf it went to and
// its key there, or a nil row when a trigger skipped it.
func (r *partRouter) insert(x *execCtx, row []any, policies *rowSecurityCheck, q *rowQueue) ([]any, *tableDesc, []byte, error) {
	leaf, lrow, err := r.route(x, row)
	if err != nil {
		return nil, nil, nil, err
	}
	if leaf.trg != nil {
		// The triggers see the generated columns NULL, computed after them.
		leaf.w.clearGenerated(lrow)
		if lrow, err = rowBefore(x, leaf.trg, nil, lrow); err != nil || lrow == nil {
			return nil, nil, nil, err
		}
		if err := leaf.w.computeGenerated(x, lrow); err != nil {
			return nil, nil, nil, err
		}
		row = make([]any, len(r.t.cols))
		for i, c := range r.t.cols {
			row[i] = lrow[leaf.t.colIndex(c.name)]
		}
	}
	if err := policies.check(x, row); err != nil {
		return nil, nil, nil, err
	}
	if leaf.trg != nil {
		// A trigger may have changed the row: it must still belong here.
		if err := leaf.check.check(x, leaf.t, lrow); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := leaf.w.validate(x, lrow, nil); err != nil {
		return nil, nil, nil, err
	}
	key, err := leaf.w.insertRow(x, lrow)
	if err != nil {
		return nil, nil, nil, err
	}
	q.add(leaf.trg, nil, lrow)
	return row, leaf.t, key, nil
}

// partCheck is the partition constraint of a partition: its bound under
// its parent's key, and its parent's, up to the root.
type partCheck struct {
	levels []partLevel
}

type partLevel struct {
	t, parent *tableDesc
	keys      []*scalar
	// cols maps each parent column to t's row.
	cols []int
	// siblings are the parent's other partitions' bounds, which a
	// DEFAULT partition's rows must fall outside.
	siblings []*partBound
}

// partCheckFor compiles the partition constraint of t; nil when t is not a
// partition.
func (b *binder) partCheckFor(t *tableDesc) (*partCheck, error) {
	pc := &partCheck{}
	for cur := t; cur.bound != nil; {
		p := b.cat.tables[cur.parents[0]]
		keys, err := b.keyScalars(p)
		if err != nil {
			return nil, err
		}
		lv := partLevel{t: cur, parent: p, keys: keys, cols: make([]int, len(p.cols))}
		for i, c := range p.cols {
			lv.cols[i] = cur.colIndex(c.name)
		}
		if cur.bound.isDefault {
			for _, sib := range b.cat.children(p.oid) {
				if sib.oid != cur.oid {
					lv.siblings = append(lv.siblings, sib.bound)
				}
			}
		}
		pc.levels = append(pc.levels, lv)
		cur = p
	}
	if len(pc.levels) == 0 {
		return nil, nil
	}
	return pc, nil
}

// holds reports whether row, in the partition's column order, satisfies
// the partition constraint.
func (pc *partCheck) holds(x *execCtx, row []any) (bool, error) {
	if pc == nil {
		return true, nil
	}
	for _, lv := range pc.levels {
		prow := make([]any, len(lv.cols))
		for i, c := range lv.cols {
			prow[i] = row[c]
		}
		key, err := evalKey(x, lv.keys, prow)
		if err != nil {
			return false, err
		}
		b := lv.t.bound
		holds, err := lv.parent.part.keyMatcher(x, key)
		if err != nil {
			return false, err
		}
		if !b.isDefault && !holds(b) {
			return false, nil
		}
		for _, s := range lv.siblings {
			if holds(s) {
				return false, nil
			}
		}
		row = prow
	}
	return true, nil
}

// check fails with 23514 when row, written to the partition t, is outside
// its partition constraint.
func (pc *partCheck) check(x *execCtx, t *tableDesc, row []any) error {
	if pc == nil {
		return nil
	}
	ok, err := pc.holds(x, row)
	if err != nil || ok {
		return err
	}
	return pgerror.Newf(pgerror.CheckViolation, "new row for relation \"%s\" violates partition constraint", t.name).
		WithDetail("Failing row contains %s.", rowText(t, row))
}

// insertRouting compiles what an INSERT into t needs beyond its writer:
// the router of a partitioned table, prepared for the ON CONFLICT clause
// cp when there is one, and the constraint of a partition (a partitioned
// one's too, which the row must satisfy before it is routed, as in
// PostgreSQL).
func (b *binder) insertRouting(t *tableDesc, cp *conflictPlan) (*partRouter, *partCheck, error) {
	pc, err := b.partCheckFor(t)
	if err != nil || t.part == nil {
		return nil, pc, err
	}
	r, err := b.partRouterFor(t, cp != nil && cp.update)
	if err == nil && cp != nil {
		err = b.conflictLeaves(r, t, cp)
	}
	return r, pc, err
}

// rowMoves is what an UPDATE needs for partitions: the partition
// constraint of each member of the target (by member index), and, when
// the target is partitioned, the router that moves a row its new values
// take out of its partition, and the target's own constraint.
type rowMoves struct {
	checks []*partCheck
	router *partRouter
	target *partCheck
	t      *tableDesc
	// deletes are the DELETE row triggers of each member, which a row
	// moved out of it fires.
	deletes []*triggerSet
}

// rowMovement compiles the partition checks of an UPDATE's target; nil
// when no member is a partition.
func (b *binder) rowMovement(m *modifyTarget) (*rowMoves, error) {
	tables := []*tableDesc{m.t}
	if ms := m.items[0].members; ms != nil {
		tables = tables[:0]
		for _, mem := range ms {
			tables = append(tables, mem.t)
		}
	}
	rm := &rowMoves{t: m.t}
	some := false
	for _, t := range tables {
		pc, err := b.partCheckFor(t)
		if err != nil {
			return nil, err
		}
		rm.checks = append(rm.checks, pc)
		some = some || pc != nil
	}
	if !some {
		return nil, nil
	}
	if m.t.part != nil {
		var err error
		if rm.router, err = b.partRouterFor(m.t, true); err != nil {
			return nil, err
		}
		if rm.target, err = b.partCheckFor(m.t); err != nil {
			return nil, err
		}
		for _, t := range tables {
			ts, err := b.rowTriggersOf(t, tgDelete, nil)
			if err != nil {
				return nil, err
			}
			rm.deletes = append(rm.deletes, ts)
		}
	}
	return rm, nil
}

// moveOutcome is what became of an updated row under rowMoves.apply.
type moveOutcome uint8

const (
	rowStays   moveOutcome = iota // the caller writes the new version in place
	rowMoved                      // deleted from its partition, inserted into another
	rowSkipped                    // a BEFORE DELETE trigger kept it where it was
	rowDropped                    // deleted, and a BEFORE INSERT trigger of its new partition skipped it
)

// apply checks the new row np of the matched row mt (nr in the target's
// column order) against its partition's constraint. A row that leaves its
// partition is moved by the target's router when the target is
// partitioned and the row stays inside it, and fails with 23514
// otherwise. A move fires the partition's DELETE row triggers (a BEFORE
// one returning NULL keeps the row in place) and the new partition's
// INSERT ones, queueing the AFTER ones on q; the moved row passes policies
// after those. A moved row's new partition and its key there are returned
// with rowMoved;
// rowDropped says a BEFORE INSERT trigger skipped the row after its delete.
func (rm *rowMoves) apply(x *execCtx, mt match, wm *writer, np, nr []any, policies *rowSecurityCheck, q *rowQueue) (moveOutcome, *tableDesc, []byte, error) {
	if rm == nil || rm.checks[mt.member] == nil {
		return rowStays, nil, nil, nil
	}
	ok, err := rm.checks[mt.member].holds(x, np)
	if err != nil || ok {
		return rowStays, nil, nil, err
	}
	if rm.router == nil {
		return rowStays, nil, nil, rm.checks[mt.member].check(x, wm.t, np)
	}
	if err := rm.target.check(x, rm.t, nr); err != nil {
		return rowStays, nil, nil, err
	}
	del := rm.deletes[mt.member]
	if kept, err := rowBefore(x, del, mt.phys, nil); err != nil || kept == nil {
		return rowSkipped, nil, nil, err
	}
	if err := wm.moveOut(x, rm.t, mt.key, mt.phys); err != nil {
		return rowStays, nil, nil, err
	}
	q.add(del, mt.phys, nil)
	row, leaf, key, err := rm.router.insert(x, nr, policies, q)
	if err != nil {
		return rowMoved, nil, nil, err
	}
	if row == nil {
		// As in PostgreSQL the row is gone and the UPDATE does not count
		// it. The keys referencing it would see a key change to a row that
		// is nowhere; fickle refuses rather than guess.
		if slices.ContainsFunc(wm.refs, func(ref *fkRef2) bool { return ref.fk.refClone }) {
			return rowDropped, nil, nil, pgerror.Unsupported("a BEFORE INSERT trigger skipping a row an UPDATE moves out of a partition that a foreign key references")
		}
		return rowDropped, nil, nil, nil
	}
	return rowMoved, leaf, key, wm.movedIn(x, mt.phys, np)
}

// watchVersionReads makes the xmin and xmax columns of cols, a RETURNING
// scope's, at the slots xmin and xmin+1, mark their reads in *read: whether
// RETURNING reads a written row's versions, which PostgreSQL cannot give
// for some routed rows (routedVersionsUnreadable). Once the RETURNING list
// is compiled, done passes such a read on to the marks the columns had
// (the privilege check's).
func watchVersionReads(cols []scopeCol, xmin int, read *bool) (done func()) {
	var had []*bool
	for i := range cols {
		if c := &cols[i]; c.system && (c.slot == xmin || c.slot == xmin+1) {
			had = append(had, c.read)
			c.read = read
		}
	}
	return func() {
		for _, p := range had {
			if p != nil && *read {
				*p = true
			}
		}
	}
}
