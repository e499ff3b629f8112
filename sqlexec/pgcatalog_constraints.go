package sqlexec

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// constraintRow is one row of pg_constraint as fickle derives it from a
// table's primary key, unique indexes, checks and foreign keys, with the
// text pg_get_constraintdef prints for it.
type constraintRow struct {
	oid      uint32
	name     string
	kind     byte // p, u, x, f, c or t
	table    *tableDesc
	index    uint32 // conindid: the index behind p and u (and f's referenced key)
	refTable uint32
	cols     []int
	refCols  []int
	onUpdate byte
	onDelete byte
	// deferrable and deferred are condeferrable and condeferred.
	deferrable, deferred bool
	// def is pg_get_constraintdef's text, except for checks, whose
	// expression it decompiles.
	def   string
	check *checkDesc
	// excl is an exclusion constraint's index, whose definition
	// pg_get_constraintdef prints pretty or not.
	excl *indexDesc
	// notValid is NOT convalidated: a CHECK or FOREIGN KEY added NOT VALID.
	notValid bool
	// fk is a foreign key's descriptor; fkHead and fkTail its definition's
	// text before and after the referenced table's name.
	fk             *fkDesc
	fkHead, fkTail string
	// noInherit is connoinherit of a PRIMARY KEY, UNIQUE or EXCLUDE
	// constraint: true unless it was made from a parent's.
	noInherit bool
}

// synthesizedOID numbers objects fickle's catalog has no OID for (a
// constraint, a primary key's index) from their table's OID and their place
// among the table's constraints, in a range no CREATE reaches.
func synthesizedOID(table uint32, k int) uint32 { return 0xC0000000 | table<<6 | uint32(k) }

// primaryKeyIndexOID is the OID pg_class and pg_index give a table's primary
// key index.
func primaryKeyIndexOID(t *tableDesc) uint32 {
	if t.pkIndex != nil {
		return t.pkIndex.oid
	}
	return synthesizedOID(t.oid, 63)
}

// qualifiedRelName is a relation's name as regclass output prints it:
// qualified unless its schema is public, the default search_path's.
func qualifiedRelName(schema, name string) string {
	if schema == "public" {
		return types.QuoteIdent(name)
	}
	return types.QuoteIdent(schema) + "." + types.QuoteIdent(name)
}

// deferralText is what pg_get_constraintdef appends for a DEFERRABLE
// and an INITIALLY DEFERRED constraint.
func deferralText(deferrable, deferred bool) string {
	text := ""
	if deferrable {
		text += " DEFERRABLE"
	}
	if deferred {
		text += " INITIALLY DEFERRED"
	}
	return text
}

func columnList(t *tableDesc, idx []int) string {
	names := make([]string, len(idx))
	for i, k := range idx {
		names[i] = types.QuoteIdent(t.cols[k].name)
	}
	return strings.Join(names, ", ")
}

// tableConstraints lists a table's constraints in PostgreSQL's pg_constraint
// terms.
func tableConstraints(c *catalog, t *tableDesc) []constraintRow {
	var out []constraintRow
	if t.pk != nil {
		def := "PRIMARY KEY (" + columnList(t, t.pk) + ")"
		if t.pkIndex != nil && len(t.pkIndex.include) > 0 {
			def += " INCLUDE (" + columnList(t, t.pkIndex.include) + ")"
		}
		out = append(out, constraintRow{name: t.pkName, kind: 'p', table: t, index: primaryKeyIndexOID(t), cols: t.pk,
			def: def, noInherit: !t.pkCloned})
	}
	for _, ix := range t.indexes {
		if ix.constraint && ix != t.pkIndex {
			def, kind := "", byte('u')
			switch {
			case ix.exclusion:
				kind = 'x' // definition prints it in the reader's session
			case ix.nullsNotDistinct:
				def = "UNIQUE NULLS NOT DISTINCT (" + columnList(t, ix.cols) + ")"
			default:
				def = "UNIQUE (" + columnList(t, ix.cols) + ")"
			}
			if !ix.exclusion && len(ix.include) > 0 {
				def += " INCLUDE (" + columnList(t, ix.include) + ")"
			}
			def += deferralText(ix.deferrable, ix.initiallyDeferred)
			r := constraintRow{name: ix.name, kind: kind, table: t, index: ix.oid, cols: ix.cols,
				deferrable: ix.deferrable, deferred: ix.initiallyDeferred, def: def, noInherit: !ix.cloned}
			if ix.exclusion {
				r.excl = ix
			}
			out = append(out, r)
		}
	}
	for _, fk := range t.fks {
		ref := c.tables[fk.refTable]
		if ref == nil {
			continue
		}
		head := "FOREIGN KEY (" + columnList(t, fk.cols) + ") REFERENCES "
		tail := "(" + columnList(ref, fk.refCols) + ")"
		if fk.matchFull {
			tail += " MATCH FULL"
		}
		actions := map[byte]string{fkRestrict: "RESTRICT", fkCascade: "CASCADE", fkSetNull: "SET NULL", fkDefault: "SET DEFAULT"}
		if a, ok := actions[fk.onUpdate]; ok {
			tail += " ON UPDATE " + a
		}
		if a, ok := actions[fk.onDelete]; ok {
			tail += " ON DELETE " + a
			if fk.delSetCols != nil {
				tail += " (" + columnList(t, fk.delSetCols) + ")"
			}
		}
		if fk.deferrable {
			tail += " DEFERRABLE"
		}
		if fk.initiallyDeferred {
			tail += " INITIALLY DEFERRED"
		}
		if fk.notValid {
			tail += " NOT VALID"
		}
		out = append(out, constraintRow{name: fk.name, kind: 'f', table: t, index: referencedIndex(ref, fk.refCols), refTable: fk.refTable,
			cols: fk.cols, refCols: fk.refCols, onUpdate: fk.onUpdate, onDelete: fk.onDelete, deferrable: fk.deferrable,
			deferred: fk.initiallyDeferred, def: head + qualifiedRelName(ref.schema, ref.name) + tail, notValid: fk.notValid, fk: fk,
			fkHead: head, fkTail: tail})
	}
	for _, ck := range t.checks {
		out = append(out, constraintRow{name: ck.name, kind: 'c', table: t, cols: checkColumns(t, ck), check: ck, notValid: ck.notValid})
	}
	out = append(out, triggerConstraints(t)...)
	for i := range out {
		out[i].oid = synthesizedOID(t.oid, i)
	}
	return out
}

// parentConstraintOID is conparentid: for a partition's key, the
// constraint of the parent's key it belongs to; 0 otherwise.
func parentConstraintOID(c *catalog, t *tableDesc, r constraintRow) uint32 {
	if r.kind == 'f' {
		return parentForeignKeyOID(c, t, r)
	}
	if (r.kind != 'p' && r.kind != 'u') || len(t.parents) == 0 {
		return 0
	}
	pix := indexParent(t, r.index)
	if pix == 0 {
		return 0
	}
	p := c.tables[t.parents[0]]
	if p == nil {
		return 0
	}
	for _, pr := range tableConstraints(c, p) {
		if (pr.kind == 'p' || pr.kind == 'u') && pr.index == pix {
			return pr.oid
		}
	}
	return 0
}

// referencedIndex is a foreign key's conindid: the unique index of the
// referenced table over the referenced columns (in any order), which
// PostgreSQL's foreign keys depend on.
func referencedIndex(ref *tableDesc, cols []int) uint32 {
	same := func(keys []int) bool {
		if len(keys) != len(cols) {
			return false
		}
		for _, k := range keys {
			if !slices.Contains(cols, k) {
				return false
			}
		}
		return true
	}
	if ref.pk != nil && same(ref.pk) {
		return primaryKeyIndexOID(ref)
	}
	for _, ix := range ref.indexes {
		if ix.unique && ix.onColumnsOnly() && same(ix.cols) {
			return ix.oid
		}
	}
	return 0
}

// checkColumns is a check constraint's conkey: the columns its expression
// reads, in the order it first reads them.
func checkColumns(t *tableDesc, ck *checkDesc) []int {
	var out []int
	walk(ck.expr, func(n *pg_query.Node) bool {
		if cr := n.GetColumnRef(); cr != nil {
			if s := cr.Fields[len(cr.Fields)-1].GetString_(); s != nil {
				if i := t.colIndex(s.Sval); i >= 0 && !slices.Contains(out, i) {
					out = append(out, i)
				}
			}
		}
		return true
	})
	return out
}

// constraintByOID finds the constraint pg_get_constraintdef is asked about.
func constraintByOID(c *catalog, oid uint32) *constraintRow {
	t := c.tables[oid&^0xC0000000>>6]
	if t == nil || oid&0xC0000000 != 0xC0000000 {
		return nil
	}
	for _, r := range tableConstraints(c, t) {
		if r.oid == oid {
			return &r
		}
	}
	return nil
}

// indexColumnDefinition is pg_get_indexdef(index, column, ...) for a key
// column numbered from 1: the column's name or the expression.
func indexColumnDefinition(s *Session, c *catalog, oid uint32, column int, pretty bool) (string, bool) {
	for _, t := range c.tables {
		keys := []int(nil)
		if t.pk != nil && t.pkIndex == nil && primaryKeyIndexOID(t) == oid {
			keys = t.pk
		}
		for _, ix := range t.indexes {
			if ix.oid == oid {
				keys = append(slices.Clip(ix.cols), ix.include...) // an INCLUDE column prints too
				if column >= 1 && column <= len(ix.cols) && ix.isExprKey(column-1) {
					return ix.keyElemText(s, c, t, column-1, pretty), true
				}
			}
		}
		if keys != nil {
			if column < 1 || column > len(keys) {
				return "", true // PostgreSQL prints nothing for a column the index lacks
			}
			return types.QuoteIdent(t.cols[keys[column-1]].name), true
		}
	}
	return "", false
}

// indexDefinition is pg_get_indexdef's CREATE INDEX statement for an index
// OID (the primary key's included), the table name qualified always or,
// pretty, when the search path does not reach it; ok is false for OIDs
// that name no index.
func indexDefinition(s *Session, c *catalog, oid uint32, pretty bool) (string, bool) {
	for _, t := range c.tables {
		def := func(name string, unique bool) string {
			u := ""
			if unique {
				u = "UNIQUE "
			}
			table := types.QuoteIdent(t.schema) + "." + types.QuoteIdent(t.name)
			if pretty && s.lookupTable(c, "", t.name) == t {
				table = types.QuoteIdent(t.name)
			}
			if t.part != nil {
				table = "ONLY " + table
			}
			return "CREATE " + u + "INDEX " + types.QuoteIdent(name) + " ON " + table + " USING "
		}
		if t.pk != nil && t.pkIndex == nil && primaryKeyIndexOID(t) == oid {
			return def(t.pkName, true) + "btree (" + columnList(t, t.pk) + ")" + withOptions(t.pkOptions), true
		}
		for _, ix := range t.indexes {
			if ix.oid == oid {
				keys := make([]string, len(ix.cols))
				for i := range ix.cols {
					keys[i] = ix.keyDefinition(s, c, t, i, pretty)
				}
				stmt := def(ix.name, ix.unique) + ix.accessMethod() + " (" + strings.Join(keys, ", ") + ")"
				if len(ix.include) > 0 {
					stmt += " INCLUDE (" + columnList(t, ix.include) + ")"
				}
				if ix.nullsNotDistinct {
					stmt += " NULLS NOT DISTINCT"
				}
				stmt += withOptions(ix.options)
				return stmt + ix.predicateClause(s, c, t, pretty), true
			}
		}
	}
	return "", false
}

// attnums turns column positions into pg_constraint's conkey (1-based).
func attnums(t *tableDesc, idx []int) any {
	if idx == nil {
		return nil
	}
	out := make([]any, len(idx))
	for i, k := range idx {
		out[i] = int64(0) // an index expression
		if k >= 0 {
			out[i] = int64(t.cols[k].attnum)
		}
	}
	return out
}

func init() {
	oid, b := types.OidType, types.Bool
	int2Array, _ := types.ArrayOf(types.Int2)
	oidArray, _ := types.ArrayOf(types.OidType)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_constraint",
		cols: []vcol{{"oid", oid}, {"conname", types.Name}, {"connamespace", oid}, {"contype", types.Char}, {"condeferrable", b},
			{"condeferred", b}, {"convalidated", b}, {"conrelid", oid}, {"contypid", oid}, {"conindid", oid}, {"conparentid", oid},
			{"confrelid", oid}, {"confupdtype", types.Char}, {"confdeltype", types.Char}, {"confmatchtype", types.Char},
			{"conislocal", b}, {"coninhcount", types.Int4}, {"connoinherit", b}, {"conkey", int2Array}, {"confkey", int2Array},
			{"conpfeqop", oidArray}, {"conppeqop", oidArray}, {"conffeqop", oidArray}, {"confdelsetcols", int2Array},
			{"conexclop", oidArray}, {"conbin", types.Text}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, t := range sortedTables(c) {
				for _, r := range tableConstraints(c, t) {
					upd, del, match := " ", " ", " "
					var refKey, delSetCols, pfEq, ppEq, ffEq, exclOps any
					switch r.kind {
					case 'f':
						pfEq, ppEq, ffEq = r.foreignKeyOperators(c)
					case 'x':
						exclOps = r.exclusionOperators()
					}
					if r.kind == 'f' {
						upd, del, match = string(r.onUpdate), string(r.onDelete), "s"
						refKey = attnums(c.tables[r.refTable], r.refCols)
						if r.fk.matchFull {
							match = "f"
						}
						delSetCols = attnums(t, r.fk.delSetCols)
					}
					var bin any
					local, inhCount, noInherit := true, int64(0), r.noInherit
					if r.check != nil {
						bin = r.check.text
						local, inhCount, noInherit = !r.check.notLocal, int64(r.check.inhCount), r.check.noInherit
					}
					parent := parentConstraintOID(c, t, r)
					if parent != 0 {
						local, inhCount = false, 1
					}
					out = append(out, []any{int64(r.oid), r.name, schemaOID(c, t.schema), string(r.kind), r.deferrable, r.deferred, !r.notValid,
						int64(t.oid), int64(0), int64(r.index), int64(parent), int64(r.refTable), upd, del, match, local, inhCount, noInherit,
						attnums(t, r.cols), refKey, pfEq, ppEq, ffEq, delSetCols, exclOps, bin})
				}
			}
			return append(out, domainConstraintRows(c)...)
		}})
}

// foreignKeyOperators are a foreign key's conpfeqop, conppeqop and
// conffeqop: per column pair, the equality operators of the referenced
// key's operator class (keyEqualityOperators); NULL when one is not a
// built-in operator.
func (r *constraintRow) foreignKeyOperators(c *catalog) (pf, pp, ff any) {
	ref := c.tables[r.refTable]
	pfs, pps, ffs := make([]any, len(r.cols)), make([]any, len(r.cols)), make([]any, len(r.cols))
	for i := range r.cols {
		opclass := referencedKeyOpclass(ref, r.index, r.refCols[i])
		a, b, d := keyEqualityOperators(opclass, r.table.cols[r.cols[i]].typ)
		if a == 0 {
			return nil, nil, nil
		}
		pfs[i], pps[i], ffs[i] = int64(a), int64(b), int64(d)
	}
	return pfs, pps, ffs
}

// referencedKeyOpclass is the operator class of column col of ref in its
// unique index indexOID, which a foreign key references.
func referencedKeyOpclass(ref *tableDesc, indexOID uint32, col int) uint32 {
	for _, ix := range ref.indexes {
		if ix.oid == indexOID {
			if k := slices.Index(ix.cols, col); k >= 0 && ix.keyOption(k).opclassOID != 0 {
				return ix.keyOption(k).opclassOID
			}
		}
	}
	return defaultOpclass("btree", ref.cols[col].typ)
}

// exclusionOperators are an exclusion constraint's conexclop: each
// element's operator.
func (r *constraintRow) exclusionOperators() any {
	ops := make([]any, len(r.excl.excl))
	for i, el := range r.excl.excl {
		ops[i] = int64(el.oid)
	}
	return ops
}

// definition is pg_get_constraintdef's text for r as session s sees it: a
// foreign key names its referenced table qualified unless the search path
// reaches its schema, as PostgreSQL's ruleutils does.
func (r *constraintRow) definition(s *Session, c *catalog) string {
	if r.excl != nil {
		return exclusionDef(s, c, r.table, r.excl, false) + deferralText(r.deferrable, r.deferred)
	}
	if r.fk == nil {
		return r.def
	}
	ref := c.tables[r.refTable]
	return r.fkHead + catalogNames{s: s}.qualify(uint32(schemaOID(c, ref.schema)), types.QuoteIdent(ref.name)) + r.fkTail
}
