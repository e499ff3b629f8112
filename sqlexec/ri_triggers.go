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
// shows these rows so that catalog queries read what PostgreSQL's do.

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

// riTriggerRows are the pg_trigger rows of the foreign keys of the
// catalog's tables. A key's check triggers, and its NO ACTION triggers,
// are deferrable as the key is; its other action triggers never are.
func riTriggerRows(c *catalog) [][]any {
	var out [][]any
	for _, t := range sortedTables(c) {
		for _, r := range tableConstraints(c, t) {
			if r.kind != 'f' {
				continue
			}
			type trig struct {
				on, other uint32
				fn        string
				tgtype    int
				action    byte // 0 for a check trigger
			}
			trigs := []trig{
				{r.refTable, t.oid, riActionFunction(r.onDelete, "del"), tgTypeRow | tgTypeDelete, r.onDelete},
				{r.refTable, t.oid, riActionFunction(r.onUpdate, "upd"), tgTypeRow | tgTypeUpdate, r.onUpdate},
				{t.oid, r.refTable, "RI_FKey_check_ins", tgTypeRow | tgTypeInsert, 0},
				{t.oid, r.refTable, "RI_FKey_check_upd", tgTypeRow | tgTypeUpdate, 0},
			}
			for k, tr := range trigs {
				// A partition's clone of a foreign key has only the check
				// triggers on its side, a referenced partition's clone only
				// the action triggers on its: the parent constraint has the
				// others, as in PostgreSQL.
				if r.fk != nil && r.fk.parentName != "" && (tr.action != 0) != r.fk.refClone {
					continue
				}
				oid := riTriggerOID(r.oid, k)
				kind := "c"
				if tr.action != 0 {
					kind = "a"
				}
				deferrable, deferred := r.deferrable, r.deferred
				if tr.action != 0 && tr.action != fkNoAction {
					deferrable, deferred = false, false
				}
				var fn int64
				if ps := builtinIndex().procsByName[tr.fn]; len(ps) > 0 {
					fn = int64(ps[0].oid)
				}
				out = append(out, []any{int64(oid), int64(tr.on), int64(0), fmt.Sprintf("RI_ConstraintTrigger_%s_%d", kind, oid), fn,
					int64(tr.tgtype), "O", true, int64(tr.other), int64(r.index), int64(r.oid), deferrable, deferred, int64(0),
					parseCatalogText(types.Int2Vector, "")})
			}
		}
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
				parseCatalogText(types.Int2Vector, "")})
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
