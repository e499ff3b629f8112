package sqlexec

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// PostgreSQL enforces a foreign key with four internal triggers, which
// pg_trigger lists (tgisinternal, tgconstraint the constraint): on the
// referencing table RI_FKey_check_ins and RI_FKey_check_upd, on the
// referenced one the functions of the key's ON DELETE and ON UPDATE
// actions. fickle checks foreign keys in the executor (deferred.go) and
// shows these rows so that catalog queries read what PostgreSQL's do; their
// tgenabled is kept on the key (ALTER TABLE ... ENABLE / DISABLE TRIGGER
// ALL or the trigger's name), and a check or action whose trigger does not
// fire is skipped, as PostgreSQL skips the trigger.

// Trigger type bits (pg_trigger.tgtype).
const (
	tgTypeRow    = 1
	tgTypeInsert = 4
	tgTypeDelete = 8
	tgTypeUpdate = 16
)

// riTriggerOID numbers trigger k (0..3) of the foreign key with
// constraint OID con, in a range no other object's OID reaches.
func riTriggerOID(con uint32, k int) uint32 { return 0xA0000000 | (con&^0xC0000000)<<2 | uint32(k) }

// riActionFunction names the RI_FKey_* function of a key action for
// event ("del" or "upd").
func riActionFunction(action byte, event string) string {
	name := map[byte]string{fkNoAction: "noaction", fkRestrict: "restrict", fkCascade: "cascade", fkSetNull: "setnull", fkDefault: "setdefault"}[action]
	if name == "" {
		name = "noaction"
	}
	return "RI_FKey_" + name + "_" + event
}

// riTrigger is one of the internal triggers of a foreign key: trigger k
// of key fk of table child (0 and 1 the ON DELETE and ON UPDATE actions on
// the referenced table, 2 and 3 the checks of inserts and updates on
// child).
type riTrigger struct {
	oid       uint32
	name      string
	on, other uint32
	fn        string
	tgtype    int
	action    byte // 0 for a check trigger
	con       constraintRow
	child     *tableDesc
	fk        *fkDesc
	k         int
}

// riTriggers are the internal triggers of the foreign keys of the
// catalog's tables, in pg_trigger's order.
func riTriggers(c *catalog) []riTrigger {
	var out []riTrigger
	for _, t := range sortedTables(c) {
		for _, r := range tableConstraints(c, t) {
			if r.kind != 'f' {
				continue
			}
			trigs := []riTrigger{
				{on: r.refTable, other: t.oid, fn: riActionFunction(r.onDelete, "del"), tgtype: tgTypeRow | tgTypeDelete, action: r.onDelete},
				{on: r.refTable, other: t.oid, fn: riActionFunction(r.onUpdate, "upd"), tgtype: tgTypeRow | tgTypeUpdate, action: r.onUpdate},
				{on: t.oid, other: r.refTable, fn: "RI_FKey_check_ins", tgtype: tgTypeRow | tgTypeInsert},
				{on: t.oid, other: r.refTable, fn: "RI_FKey_check_upd", tgtype: tgTypeRow | tgTypeUpdate},
			}
			for k, tr := range trigs {
				// A partition's clone of a foreign key has only the check
				// triggers on its side, a referenced partition's clone only
				// the action triggers on its: the parent constraint has the
				// others, as in PostgreSQL.
				if r.fk != nil && r.fk.parentName != "" && (k < 2) != r.fk.refClone {
					continue
				}
				tr.oid = riTriggerOID(r.oid, k)
				kind := "c"
				if k < 2 {
					kind = "a"
				}
				tr.name = fmt.Sprintf("RI_ConstraintTrigger_%s_%d", kind, tr.oid)
				tr.con, tr.child, tr.fk, tr.k = r, t, r.fk, k
				out = append(out, tr)
			}
		}
	}
	return out
}

// riTriggerRows are the pg_trigger rows of the foreign keys of the
// catalog's tables. A key's check triggers, and its NO ACTION triggers,
// are deferrable as the key is; its other action triggers never are.
func riTriggerRows(c *catalog) [][]any {
	var out [][]any
	for _, tr := range riTriggers(c) {
		r := tr.con
		deferrable, deferred := r.deferrable, r.deferred
		if tr.action != 0 && tr.action != fkNoAction {
			deferrable, deferred = false, false
		}
		var fn int64
		if ps := builtinIndex().procsByName[tr.fn]; len(ps) > 0 {
			fn = int64(ps[0].oid)
		}
		out = append(out, []any{int64(tr.oid), int64(tr.on), int64(0), tr.name, fn,
			int64(tr.tgtype), string(rune(tr.fk.riEnabled(tr.k))), true, int64(tr.other), int64(r.index), int64(r.oid), deferrable, deferred, int64(0),
			parseCatalogText(types.Int2Vector, ""), []byte{}})
	}
	return out
}

// uniqueRecheckTriggerRows are the pg_trigger rows of the deferrable
// UNIQUE and exclusion constraints of the catalog's tables: PostgreSQL
// rechecks each with an internal AFTER INSERT OR UPDATE row trigger calling
// unique_key_recheck, named Unique_ConstraintTrigger_ and its OID, on every
// table the constraint is on (a partitioned table's too). fickle rechecks
// them itself (deferred_unique.go) and shows the rows for catalog queries.
func uniqueRecheckTriggerRows(c *catalog) [][]any {
	var fn int64
	if ps := builtinIndex().procsByName["unique_key_recheck"]; len(ps) > 0 {
		fn = int64(ps[0].oid)
	}
	var out [][]any
	for _, t := range sortedTables(c) {
		for _, r := range tableConstraints(c, t) {
			if r.kind != 'u' && r.kind != 'x' || !r.deferrable {
				continue
			}
			oid := riTriggerOID(r.oid, 0)
			out = append(out, []any{int64(oid), int64(t.oid), int64(0), fmt.Sprintf("Unique_ConstraintTrigger_%d", oid), fn,
				int64(tgTypeRow | tgTypeInsert | tgTypeUpdate), "O", true, int64(0), int64(r.index), int64(r.oid), true, r.deferred, int64(0),
				parseCatalogText(types.Int2Vector, ""), []byte{}})
		}
	}
	return out
}

// alterConstraint runs ALTER TABLE ... ALTER CONSTRAINT name [NOT]
// DEFERRABLE [INITIALLY DEFERRED | IMMEDIATE] on t, a clone of the
// catalog's descriptor: PostgreSQL 15 alters foreign keys only.
func (d *ddl) alterConstraint(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	con := cmd.Def.GetConstraint()
	for _, fk := range t.fks {
		if fk.name != con.Conname {
			continue
		}
		if fk.parentName != "" {
			from := t
			if !fk.refClone {
				from = d.cat.tables[t.parents[0]]
			}
			return pgerror.Newf(pgerror.InternalError, "cannot alter constraint \"%s\" on relation \"%s\"", fk.name, t.name).
				WithDetail("Constraint \"%s\" is derived from constraint \"%s\" of relation \"%s\".", fk.name, fk.parentName, from.name).
				WithHint("You may alter the constraint it derives from, instead.")
		}
		d.alterForeignKeyFamily(t, fk.name, con.Deferrable, con.Initdeferred)
		return nil
	}
	if findConstraint(d.cat, t, con.Conname) != nil {
		return pgerror.Newf(pgerror.WrongObjectType, "constraint \"%s\" of relation \"%s\" is not a foreign key constraint", con.Conname, t.name)
	}
	return pgerror.Newf(pgerror.UndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", con.Conname, t.name)
}

// The internal triggers of a foreign key, by riTrigger.k.
const (
	riActionDelete = iota
	riActionUpdate
	riCheckInsert
	riCheckUpdate
)

// riEnabled is the tgenabled of the key's internal trigger k.
func (fk *fkDesc) riEnabled(k int) byte {
	if fk.riState[k] == 0 {
		return 'O'
	}
	return fk.riState[k]
}

// riFires reports whether the key's internal trigger k fires in a session
// whose replication role is replica or not: ALTER TABLE ... DISABLE
// TRIGGER ALL (or ENABLE REPLICA) and session_replication_role = replica
// switch the key's checks or actions off, as in PostgreSQL.
func (fk *fkDesc) riFires(k int, replica bool) bool {
	return firesIn(fk.riEnabled(k), replica)
}

// actionKey is the key whose action triggers enforce child's foreign key
// fk on the referenced side: fk, or for a partition's clone (which has
// check triggers only) the key of the partitioned table it was cloned
// from, followed up.
func (c *catalog) actionKey(child *tableDesc, fk *fkDesc) *fkDesc {
	for fk.parentName != "" && !fk.refClone && child.bound != nil {
		p := c.tables[child.parents[0]]
		up := foreignKeyNamed(p, fk.parentName)
		if up == nil {
			break
		}
		child, fk = p, up
	}
	return fk
}

// enableRITriggers sets tgenabled of the internal foreign-key triggers on
// t (a clone of the catalog's descriptor, not yet published) that ALTER
// TABLE ... ENABLE / DISABLE TRIGGER names (all of them, or the one named
// name), and with recurse of their clones on t's partitions. It reports
// whether there was one.
func (d *ddl) enableRITriggers(t *tableDesc, name string, all bool, enabled byte, recurse bool) (bool, error) {
	edit := func(oid uint32, f func(*tableDesc)) {
		if oid == t.oid {
			f(t)
			return
		}
		d.editTable(oid, f)
	}
	found := false
	for _, tr := range riTriggers(d.cat) {
		if tr.on != t.oid || !all && tr.name != name {
			continue
		}
		if role := d.s.currentRole(); !d.s.isSuperuser(role) {
			return false, pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied: \"%s\" is a system trigger", tr.name)
		}
		found = true
		setRIState(edit, tr.child.oid, tr.fk.name, tr.k, enabled)
		if recurse {
			d.enableRIClones(edit, d.cat.tables[t.oid], tr.child.oid, tr.fk.name, tr.k, enabled)
		}
	}
	return found, nil
}

// setRIState sets tgenabled of trigger k of the foreign key name of table
// child, through edit.
func setRIState(edit func(uint32, func(*tableDesc)), child uint32, name string, k int, enabled byte) {
	edit(child, func(nt *tableDesc) {
		for j, fk := range nt.fks {
			if fk.name == name {
				nfk := *fk
				nfk.riState[k] = enabled
				nt.fks[j] = &nfk
				return
			}
		}
	})
}

// enableRIClones sets tgenabled of the clones, on the partitions of
// partitioned table on, of trigger k of child's foreign key name, which is
// on on, and of theirs: a check trigger's clone is that of the partition's
// clone of the key, an action trigger's that of the key's clone for the
// referenced partition (fk_referenced.go).
func (d *ddl) enableRIClones(edit func(uint32, func(*tableDesc)), on *tableDesc, child uint32, name string, k int, enabled byte) {
	if on == nil || on.part == nil {
		return
	}
	for _, p := range d.cat.children(on.oid) {
		if k >= riCheckInsert {
			for _, fk := range p.fks {
				if fk.parentName == name && !fk.refClone {
					setRIState(edit, p.oid, fk.name, k, enabled)
					d.enableRIClones(edit, p, p.oid, fk.name, k, enabled)
				}
			}
			continue
		}
		c := d.cat.tables[child]
		if c == nil {
			continue
		}
		for _, fk := range c.fks {
			if fk.refClone && fk.parentName == name && fk.refTable == p.oid {
				setRIState(edit, child, fk.name, k, enabled)
				d.enableRIClones(edit, p, child, fk.name, k, enabled)
			}
		}
	}
}
