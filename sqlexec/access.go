package sqlexec

import (
	"fmt"
	"math/bits"
	"sort"
	"time"

	"github.com/fickle-db/fickle/internal/invariants"
	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Access paths. A table item of a FROM clause is read one of five ways,
// chosen once when the query is bound (chooseAccess): a point read by
// primary key, point reads of the keys of "pk IN (values)" or
// "pk = ANY (array)", a lookup of one value of a secondary index, lookups of
// each value of "col IN (values)" or "col = ANY (array)" in an index on col,
// or a scan of the whole table. A list is read key by key so that the
// history records reads of the listed keys only, not of the whole table,
// as PostgreSQL's index scans lock and conflict on those keys only. Items whose
// reads do not depend on earlier items are read once per execution and
// joined from memory, through a hash table when an equality allows
// (planJoins, cachedRows). Every path reports to the store which rows
// matched, so the history records what the query returned.

// access is the chosen way to read a table item.
type access struct {
	kind accessKind
	// keyVals are the values of the primary key's or index's columns, in
	// column order.
	keyVals []*scalar
	keyTyps []types.Type
	index   *indexDesc
	// keyArray marks a list read whose keys are the elements of the one
	// array in keyVals ("col = ANY (array)") rather than keyVals themselves.
	keyArray bool
}

type accessKind int

const (
	accessScan accessKind = iota
	accessPK
	accessIndex
	// accessPKList reads the keys of "pk IN (values)" or "pk = ANY
	// (array)" one by one.
	accessPKList
	// accessIndexList looks up each value of "col IN (values)" or "col =
	// ANY (array)" in a one-column index on col.
	accessIndexList
)

// keyCompatible reports whether a value of type v can be looked up in a
// key column of type col by encoding it with the column's type. An untyped
// string literal ('abc', type unknown) holds a Go string, as text does, so
// it can key a text or varchar column directly.
func keyCompatible(col, v types.Type) bool {
	if col.Oid == v.Oid {
		// The geometric types' = is no identity: box, circle and path
		// compare areas and point counts, lseg and line fuzzily.
		return !types.IsGeometric(col.Oid)
	}
	ints := func(o types.Oid) bool { return o == types.OidInt2 || o == types.OidInt4 || o == types.OidInt8 }
	strs := func(o types.Oid) bool { return o == types.OidText || o == types.OidVarchar || o == types.OidName }
	return ints(col.Oid) && ints(v.Oid) || strs(col.Oid) && (strs(v.Oid) || v.Oid == types.OidUnknown)
}

// chooseAccess picks a point read by primary key or an index lookup when
// the item's conditions fix every column of one, else a scan.
func chooseAccess(it *fromItem, idx int) access {
	t := it.table
	earlier := itemBit(idx) - 1
	if idx >= 63 {
		earlier = 0
	}
	eq := map[int]*scalar{}
	for _, c := range it.on {
		if c.eqVal == nil || c.eqSlot < it.off || c.eqSlot >= it.off+len(it.table.cols) {
			continue
		}
		if c.eqVal.refs&^earlier != 0 || c.eqVal.volatile {
			continue
		}
		col := c.eqSlot - it.off
		if !keyCompatible(t.cols[col].typ, c.eqVal.typ) {
			continue
		}
		if _, ok := eq[col]; !ok {
			eq[col] = c.eqVal
		}
	}
	covered := func(cols []int) ([]*scalar, []types.Type, bool) {
		if len(cols) == 0 {
			return nil, nil, false
		}
		vals := make([]*scalar, len(cols))
		typs := make([]types.Type, len(cols))
		for i, c := range cols {
			v, ok := eq[c]
			if !ok {
				return nil, nil, false
			}
			vals[i], typs[i] = v, t.cols[c].typ
		}
		return vals, typs, true
	}
	// list finds a usable "col IN (values)" or "col = ANY (array)" on
	// column col: values of constants, parameters and earlier items only.
	list := func(col int) (vals []*scalar, array, ok bool) {
		usable := func(v *scalar, typ types.Type) bool {
			return v.refs&^earlier == 0 && !v.volatile && keyCompatible(t.cols[col].typ, typ)
		}
		for _, c := range it.on {
			switch {
			case c.inVals != nil && c.inSlot == it.off+col:
				ok := true
				for _, v := range c.inVals {
					ok = ok && usable(v, v.typ)
				}
				if ok {
					return c.inVals, false, true
				}
			case c.anyArr != nil && c.anySlot == it.off+col:
				if elem, isArr := c.anyArr.typ.Elem(); isArr && usable(c.anyArr, elem) {
					return []*scalar{c.anyArr}, true, true
				}
			}
		}
		return nil, false, false
	}
	// Lists are looked up only in one-column keys: a list on one column of
	// a multi-column key does not fix the others, and crossing lists on
	// several columns is not worth its planning here.
	if len(t.pk) == 1 && !t.hidden && eq[t.pk[0]] == nil {
		if vals, array, ok := list(t.pk[0]); ok {
			return access{kind: accessPKList, keyVals: vals, keyTyps: []types.Type{t.cols[t.pk[0]].typ}, keyArray: array}
		}
	}
	if vals, typs, ok := covered(t.pk); ok {
		if !t.hidden {
			return access{kind: accessPK, keyVals: vals, keyTyps: typs}
		}
		if t.pkIndex != nil {
			return access{kind: accessIndex, keyVals: vals, keyTyps: typs, index: t.pkIndex}
		}
	}
	var best *indexDesc
	var bestVals []*scalar
	var bestTyps []types.Type
	for _, ix := range t.indexes {
		if !ix.onColumnsOnly() {
			continue
		}
		if vals, typs, ok := covered(ix.cols); ok && (best == nil || ix.unique && !best.unique || len(ix.cols) > len(best.cols)) {
			best, bestVals, bestTyps = ix, vals, typs
		}
	}
	if best != nil {
		return access{kind: accessIndex, keyVals: bestVals, keyTyps: bestTyps, index: best}
	}
	listIndexes := t.indexes
	if t.hidden && t.pkIndex != nil {
		listIndexes = append([]*indexDesc{t.pkIndex}, t.indexes...)
	}
	var listAccess access
	for _, ix := range listIndexes {
		if len(ix.cols) != 1 || !ix.onColumnsOnly() || listAccess.index != nil && (listAccess.index.unique || !ix.unique) {
			continue
		}
		if vals, array, ok := list(ix.cols[0]); ok {
			listAccess = access{kind: accessIndexList, keyVals: vals, keyTyps: []types.Type{t.cols[ix.cols[0]].typ}, index: ix, keyArray: array}
		}
	}
	if listAccess.index != nil {
		return listAccess
	}
	return access{kind: accessScan}
}

// encodeLookup evaluates the key values; ok is false when one is NULL (an
// equality with NULL matches nothing).
func (a *access) encodeLookup(x *execCtx) (key []byte, ok bool, err error) {
	key = make([]byte, 0, 16)
	for i, v := range a.keyVals {
		d, err := v.eval(x)
		if err != nil {
			return nil, false, err
		}
		if d == nil {
			return nil, false, nil
		}
		key = types.AppendKey(key, a.keyTyps[i], d)
	}
	return key, true, nil
}

// listKeys evaluates the values of a list read and returns their keys,
// sorted and each once. NULL values match nothing and are left out, as is
// everything of a NULL array.
func (a *access) listKeys(x *execCtx) ([]string, error) {
	vals := make([]any, 0, len(a.keyVals))
	for _, v := range a.keyVals {
		d, err := v.eval(x)
		if err != nil {
			return nil, err
		}
		if a.keyArray {
			if d != nil {
				vals, _ = pgarray.Elems(d)
			}
			break
		}
		vals = append(vals, d)
	}
	seen := make(map[string]bool, len(vals))
	keys := make([]string, 0, len(vals))
	for _, d := range vals {
		if d == nil {
			continue
		}
		k := string(types.AppendKey(nil, a.keyTyps[0], d))
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// keyedRow is a row read from a table with its primary key.
type keyedRow struct {
	key []byte
	row []any
	// member is the index of the row's table in the item's members and
	// phys the row as that table stores it (inherit.go); phys is row for
	// an item without members.
	member int
	phys   []any
}

// fetchTable reads the table item's rows that satisfy its immediate
// conditions (those without subqueries), reporting to the store which rows
// matched. x.row holds the current rows of earlier items.
func fetchTable(x *execCtx, it *fromItem, withKeys bool) ([]keyedRow, error) {
	return fetchTableWith(x, it, withKeys, it.on)
}

// fetchTableWith is fetchTable checking the conditions conds.
func fetchTableWith(x *execCtx, it *fromItem, withKeys bool, conds []*conj) ([]keyedRow, error) {
	if it.members != nil {
		return fetchMembers(x, it, withKeys, conds)
	}
	// Rows of an index list lookup come back by index value; they are
	// sorted by primary key, the order an index range scan gives, so the
	// path chosen does not change results.
	sorted := it.access.kind == accessIndexList
	ro := isolation.ReadOptions{ForLock: it.lock != isolation.RowLockNone, AsOf: x.statementSnapshot()}
	var places *heapPlaces
	if needsHeapSort(x, it) {
		places = trackPlaces(&ro)
	}
	var out []keyedRow
	err := scanTableRows(x, it, conds, ro, func(key []byte, row, phys []any) error {
		kr := keyedRow{row: row, phys: phys}
		if withKeys || sorted {
			kr.key = append([]byte(nil), key...)
		}
		out = append(out, kr)
		places.add()
		return nil
	})
	if sorted {
		sort.SliceStable(out, func(i, j int) bool { return string(out[i].key) < string(out[j].key) })
	}
	places.sort(out)
	return out, err
}

// streamsTable says whether runItems passes the table item's rows on as
// the store returns them rather than reading them all first: not for a
// lock stage (which keeps their keys), an index list lookup or a scan in
// heap order that key order is not (whose rows are sorted), an inheritance
// parent, or EXPLAIN ANALYZE (which counts the rows read).
func streamsTable(x *execCtx, it *fromItem, marked bool) bool {
	return !marked && x.stats == nil && it.members == nil && it.access.kind != accessIndexList && !needsHeapSort(x, it)
}

// streamTable passes the table item's rows that satisfy its immediate
// conditions to fn as the store returns them; a LIMIT reached downstream
// (errLimitReached) ends the scan there. Writes made downstream (a
// function's) never reach the scan: it reads with the statement's
// snapshot.
func streamTable(x *execCtx, it *fromItem, fn func(row []any) error) error {
	ro := isolation.ReadOptions{AsOf: x.statementSnapshot()}
	return scanTableRows(x, it, it.on, ro, func(_ []byte, row, _ []any) error { return fn(row) })
}

// statementSnapshot is the write mark a read of the statement's tables
// takes: the transaction's own writes up to the statement's start, as
// PostgreSQL's snapshot shows them, so that neither the statement's own
// writes (an INSERT's row to a subquery of its RETURNING list) nor a
// function's called on the way reach its scans; a STABLE function's
// statements read as of their caller's (asOf).
func (x *execCtx) statementSnapshot() isolation.WriteMark {
	if x.asOf != 0 {
		return x.asOf
	}
	return x.stmtMark
}

// scanTableRows reads the table item's rows through its access path,
// passes those that satisfy conds to fn, and reports to the store which
// rows matched: each row as the item has it (with xmin and xmax when it
// has them) and as the table stores it (phys). fn returning
// errLimitReached stops the read there.
func scanTableRows(x *execCtx, it *fromItem, conds []*conj, ro isolation.ReadOptions, fn func(key []byte, row, phys []any) error) error {
	t := it.table
	// visited holds the keys returned so far when one key may come back
	// twice: an index list lookup finds a row under every value some
	// version of it had ("c IN (1, 2)" after c changed from 1 to 2), and a
	// row is one row however it was found.
	var visited map[string]bool
	if it.access.kind == accessIndexList || invariants.Enabled {
		visited = map[string]bool{}
	}
	stopped := false
	var err error
	if ro.AsOf, err = x.withSnapshot.readMark(t.id, ro.AsOf); err != nil {
		return err
	}
	itemRow := readVersions(it, &ro)
	visit := func(key []byte, phys []any) (bool, error) {
		if visited[string(key)] {
			if it.access.kind != accessIndexList {
				panic(fmt.Sprintf("invariant: %s returned key %x twice in one read", t.name, key))
			}
			return true, nil
		}
		row := itemRow(phys)
		copy(x.row[it.off:it.off+it.width], row)
		ok, err := allHold(x, conds, false)
		if err != nil || !ok {
			return false, err
		}
		if visited != nil {
			visited[string(key)] = true
		}
		if err := fn(key, row, phys); err != nil {
			if err == errLimitReached {
				stopped = true
				return true, isolation.ErrStop
			}
			return true, err
		}
		return true, nil
	}
	err = scanAccess(x, it, ro, visit)
	if stopped && (err == nil || err == isolation.ErrStop) {
		return errLimitReached
	}
	return err
}

// scanAccess reads the table item through its access path, calling visit
// for every row the store returns.
func scanAccess(x *execCtx, it *fromItem, ro isolation.ReadOptions, visit isolation.Visit) error {
	t := it.table
	switch it.access.kind {
	case accessPK:
		key, ok, err := it.access.encodeLookup(x)
		if err != nil || !ok {
			return err
		}
		row, found, err := x.txn.Get(x.ctx, t.id, key, ro)
		if err != nil || !found {
			return err
		}
		_, err = visit(key, row)
		return err
	case accessPKList:
		keys, err := it.access.listKeys(x)
		if err != nil {
			return err
		}
		for _, k := range keys {
			key := []byte(k)
			row, found, err := x.txn.Get(x.ctx, t.id, key, ro)
			if err != nil {
				return err
			}
			if found {
				if _, err := visit(key, row); err != nil {
					return err
				}
			}
		}
		return nil
	case accessIndex:
		key, ok, err := it.access.encodeLookup(x)
		if err != nil || !ok {
			return err
		}
		return x.txn.ScanIndex(x.ctx, it.access.index.id, isolation.ExactSpan(key), ro, visit)
	case accessIndexList:
		keys, err := it.access.listKeys(x)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := x.txn.ScanIndex(x.ctx, it.access.index.id, isolation.ExactSpan([]byte(k)), ro, visit); err != nil {
				return err
			}
		}
		return nil
	}
	return x.txn.Scan(x.ctx, t.id, isolation.Span{}, ro, visit)
}

// planJoins marks the items after the first whose reads do not depend on
// earlier items as cached, and picks a hash-join condition for them. A
// system table is such an item too: its rows are made once a statement,
// and without a hash table a join of several (ActiveRecord's and psql's
// catalog queries) checks every combination of their rows.
func planJoins(items []*fromItem) {
	for i, it := range items {
		if i == 0 || it.lock != isolation.RowLockNone {
			continue
		}
		colTypes := it.catalogTypes
		switch {
		case it.table != nil:
			colTypes = make([]types.Type, len(it.table.cols))
			for j, c := range it.table.cols {
				colTypes[j] = c.typ
			}
		case it.kind != itemCatalog || colTypes == nil:
			continue
		}
		earlier := itemBit(i) - 1
		if i >= 63 {
			continue
		}
		independent := true
		for _, v := range it.access.keyVals {
			if v.refs&earlier != 0 {
				independent = false
			}
		}
		if !independent {
			continue
		}
		it.cached = true
		for _, c := range it.on {
			if c.deferred || c.e.refs&earlier == 0 && !c.e.volatile {
				if !c.deferred {
					it.local = append(it.local, c)
					continue
				}
			}
			it.join = append(it.join, c)
			if it.hashVal == nil && !c.deferred && c.eqVal != nil && c.eqSlot >= it.off && c.eqSlot < it.off+len(colTypes) &&
				c.eqVal.refs&^earlier == 0 && !c.eqVal.volatile && keyCompatible(colTypes[c.eqSlot-it.off], c.eqVal.typ) {
				it.hashSlot, it.hashVal, it.hashTyp = c.eqSlot-it.off, c.eqVal, colTypes[c.eqSlot-it.off]
			}
		}
	}
	planEmptyJoins(items)
}

// planEmptyJoins notes, on the item after the last one a hashed item's key
// reads, that the hashed item is to be looked up there (emptyJoins): a join
// of system tables that PostgreSQL would reorder, such as pg_class,
// pg_attribute and pg_depend joined through pg_depend, otherwise walks
// every pair of the first two.
func planEmptyJoins(items []*fromItem) {
	for _, it := range items {
		it.emptyJoins = nil
	}
	for j, it := range items {
		if !it.cached || it.hashVal == nil || it.left || it.target || it.hashVal.slot < 0 || it.hashVal.refs == 0 {
			continue
		}
		at := bits.Len64(it.hashVal.refs)
		if at < j {
			items[at].emptyJoins = append(items[at].emptyJoins, it)
		}
	}
}

// pruneEmptyJoins reports whether an item of it.emptyJoins has no rows for
// the current rows of the items before it.
func pruneEmptyJoins(x *execCtx, it *fromItem) (bool, error) {
	if x.epq != nil {
		return false, nil
	}
	for _, j := range it.emptyJoins {
		rows, _, err := cachedRows(x, j)
		if err != nil || len(rows) == 0 {
			return err == nil, err
		}
	}
	return false, nil
}

// itemRows is the cached read of an item for one execution.
type itemRows struct {
	rows [][]any
	hash map[string][][]any
	// lazy marks a system table item's hash, filled as keys are asked
	// from entry, its rows (lazyCatalogRows).
	lazy  bool
	entry *systemRowsEntry
	// all and hashKeys are, for a MERGE target (fromItem.target), whose
	// join hands its rows' store keys and members to its row marks, those
	// of rows and of each hash bucket's rows.
	all      keyedRows
	hashKeys map[string]keyedRows
}

// keyedRows are the store keys and members of a list of rows.
type keyedRows struct {
	keys    [][]byte
	members []int
}

func (k *keyedRows) add(kr keyedRow) {
	k.keys = append(k.keys, kr.key)
	k.members = append(k.members, kr.member)
}

// cachedRows returns the rows of a cached item that may join the current
// rows of earlier items, and for a MERGE target their keys and members.
func cachedRows(x *execCtx, it *fromItem) ([][]any, keyedRows, error) {
	ir, err := cachedItem(x, it)
	if err != nil {
		return nil, keyedRows{}, err
	}
	if ir.lazy {
		rows, err := lazyCatalogRows(x, it, ir)
		return rows, keyedRows{}, err
	}
	if it.hashVal == nil {
		return ir.rows, ir.all, nil
	}
	v, err := it.hashVal.eval(x)
	if err != nil || v == nil {
		return nil, keyedRows{}, err
	}
	k := string(types.AppendKey(nil, it.hashTyp, v))
	return ir.hash[k], ir.hashKeys[k], nil
}

// cachedItem returns the rows of a cached item for this execution, read
// and hashed on first use; a system table's hash is filled as keys are
// asked when no local condition narrows its rows by key.
func cachedItem(x *execCtx, it *fromItem) (*itemRows, error) {
	if ir := x.items[it]; ir != nil {
		return ir, nil
	}
	if it.hashVal != nil && !it.target && keyConj(it, it.local, 0) == nil {
		e, err := keptCatalogRows(x, it)
		if err != nil {
			return nil, err
		}
		if e != nil {
			ir := &itemRows{hash: map[string][][]any{}, lazy: true, entry: e}
			if x.items == nil {
				x.items = map[*fromItem]*itemRows{}
			}
			x.items[it] = ir
			return ir, nil
		}
	}
	start := time.Now()
	krs, err := cachedItemRows(x, it)
	if err != nil {
		return nil, err
	}
	if x.stats != nil {
		it.plan.countCached(x, len(krs), time.Since(start))
	}
	ir := &itemRows{rows: make([][]any, len(krs))}
	for i, kr := range krs {
		ir.rows[i] = kr.row
		if it.target {
			ir.all.add(kr)
		}
	}
	if it.hashVal != nil {
		typ := it.hashTyp
		ir.hash = map[string][][]any{}
		if it.target {
			ir.hashKeys = map[string]keyedRows{}
		}
		for i, r := range ir.rows {
			if v := r[it.hashSlot]; v != nil {
				k := string(types.AppendKey(nil, typ, v))
				ir.hash[k] = append(ir.hash[k], r)
				if it.target {
					kk := ir.hashKeys[k]
					kk.add(krs[i])
					ir.hashKeys[k] = kk
				}
			}
		}
	}
	if x.items == nil {
		x.items = map[*fromItem]*itemRows{}
	}
	x.items[it] = ir
	return ir, nil
}

// cachedItemRows reads the rows of a cached item that pass its local
// conditions: a table's from the store, a system table's from its rows.
func cachedItemRows(x *execCtx, it *fromItem) ([]keyedRow, error) {
	if it.table != nil {
		return fetchTableWith(x, it, it.target, it.local)
	}
	rows, keyed, err := catalogKeyRows(x, it, it.local, 0)
	if err != nil {
		return nil, err
	}
	if !keyed {
		if rows, err = it.sub(x); err != nil {
			return nil, err
		}
	}
	var out []keyedRow
	for _, r := range rows {
		copy(x.row[it.off:it.off+it.width], r)
		ok, err := allHold(x, it.local, false)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, keyedRow{row: r})
		}
	}
	return out, nil
}

// chooseAccesses picks the access path of every table among a query
// level's FROM items, once their conditions are placed.
func chooseAccesses(items []*fromItem) {
	for i, it := range items {
		if it.table != nil {
			it.access = chooseAccess(it, i)
		}
	}
}
