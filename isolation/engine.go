package isolation

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"github.com/fickle-db/fickle/internal/btree"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// engine is the single owner of the store's state: every exported method
// takes mu for a short, bounded step and never holds it while waiting for a
// lock or calling back into the executor.
type engine struct {
	mu sync.Mutex

	cfg      Config
	tables   []*table            // by TableID; nil when dropped
	indexes  []*index            // by IndexID; nil when dropped
	sessions map[string]*session // named sessions
	// open are the sessions not closed (named ones never close);
	// nextSession numbers the next one.
	open        map[*session]struct{}
	nextSession history.SessionID
	nextTxn     history.TxnID // the id of the next transaction to begin
	// lastXID and lastMultiXact are the last transaction id and multixact
	// id given out for PostgreSQL's system columns (xmax.go).
	lastXID, lastMultiXact uint32
	// waits numbers the lock waits (Store.Locks).
	waits  uint64
	active map[*txn]struct{}
	co     orderList
	init   *txn
	locks  map[resource]*lockEntry
	// spareEntries are lock entries forgotten by the lock table, emptied,
	// for the next locks taken (newLockEntry).
	spareEntries []*lockEntry
	// liveMemos are the ids of the statement memos in use, memoIDs the
	// last id given (statement_reads.go).
	liveMemos map[uint32]struct{}
	memoIDs   uint32
	rec       recorder
	tick      uint64 // the logical clock of Config.RealTime
	// horizon is the place in co at and before which every transaction
	// joined the collapsed past (collect.go); nil while nothing did.
	horizon *omNode
	// dirty holds the keys with more than one version: the ones the next
	// move of the horizon may collect versions of (each once: a key in it
	// has keyState.dirty set).
	dirty []*keyState
	// ended counts the transactions that ended since the last checkpoint.
	ended int
	// kept is the weight of the transactions in co (collect.go);
	// collections counts the moves of the horizon.
	kept, collections int
	// chooser, set only by tests, makes every choice (a read's version, a
	// transaction's place in co) instead of the strategy: it returns an
	// index below n. Exhaustive tests enumerate the engine's behaviours
	// through it.
	chooser func(n int) int
	replay  *replayIndex // Config.Replay
	// checkpoints counts the checkpoints so far: a replay applies to the
	// part of the run after as many as its history went through.
	checkpoints int
	// onChoice, when set, sees every read's choice before it is made
	// (Store.OnReadChoice).
	onChoice func(ReadChoice)
	ssi      *ssiState // Config.PostgresConcurrency: PostgreSQL's SSI (ssi.go)
	// keyBufs hold the index keys the engine computes to look up or compare
	// while it holds mu without waiting (indexKey).
	keyBufs [2][]byte
}

// table is a registered table: its keys in order, each with its versions.
type table struct {
	id      TableID
	spec    TableSpec
	keys    btree.Map[*keyState]
	indexes []*index
	nextRow uint64
	// rowIDs are the ways the table made and named the row ids it
	// assigned since it was rekeyed (rekey.go), the one in use last; one
	// whose rekey was rolled back stays to name the ids made meanwhile.
	rowIDs  []*rowIDKeys
	dropped bool
	init    *txn
	e       *engine
	// formatRow renders a written row for the history log
	// (Store.SetRowFormat); nil logs no row images.
	formatRow func(row []any) string
	// scans are the marks of the scans that may still need a key created
	// later (phantom.go); liveScans counts those not dead.
	scans     []*scanMark
	liveScans int
	ended     []*scanMark // the kept marks of ended scanners, oldest first
	// scanFloor is the latest place bound of the ended PC, SI and SER
	// transactions that scanned the table: a key created now is placed
	// after it by every writer.
	scanFloor *omNode
	// moves maps a tombstone that an update of a row's primary key left
	// (Txn.Move) to the key the row moved to, so that a lock request on
	// the old key follows the row, and one that moving the row to another
	// table left (Txn.MoveOut) to nowhere (lockrow.go).
	moves map[movedVersion]moveTarget
	// keySlab holds the keys allocated for the next keys made, and
	// keySlabSize the size of its last allocation (newKeyState).
	keySlab     []keyState
	keySlabSize int
	// xmax is the xmax of keys' newest committed versions that a lock or
	// a write in progress or rolled back set (xmax.go).
	xmax map[*keyState]rowXmax
	// subXmin is the xmin of committed versions written in a
	// subtransaction (xmax.go).
	subXmin map[versionOf]uint32
	// heap places the versions written in the table (tid.go).
	heap heap
}

// moveTarget is where a moved row went: key of the same table, or another
// table (elsewhere; an UPDATE that changed the row's partition).
type moveTarget struct {
	key       string
	elsewhere bool
}

// movedVersion is the tombstone writer w left at key ks by moving the row.
type movedVersion struct {
	ks *keyState
	w  *txn
}

// keyState is one key of a table: its committed versions in commit order,
// the first always init's (a tombstone unless data was loaded).
type keyState struct {
	key string
	// inline holds the first two versions (init's and one writer's) and
	// nver counts them, so that a key written once needs no separate
	// slice; spill holds the versions instead when a third arrives or a
	// collection keeps more than two (versions()).
	inline [2]version
	spill  *[]version
	tab    TableID
	hid    history.KeyID
	nver   uint8
	hidSet bool
	dirty  bool // in engine.dirty
	// creatorLocked: creator's row lock has its lock table entry (see
	// creator; beside the other flags, to pack the struct).
	creatorLocked bool
	// readers is what reads of the key left for its later writers and
	// reads, nil until one leaves something.
	readers *keyReaders
	// scanFloor is the table's scanFloor when the key was created: every
	// writer of the key goes after it in co (phantom.go).
	scanFloor *omNode
	// creator is the transaction that made the key by inserting a fresh
	// hidden row id: while it is live it holds the key's row lock without
	// an entry in the lock table, which the first other look-up of the lock
	// makes (lockEntry), setting creatorLocked. Its writes to the key
	// while it is live are pending (pending.go), not in txnLive.writes.
	creator *txn
	// pending is the creator's last write to the key while the creator is
	// live, nil if none.
	pending *write
	// memo is the statement memo slot holding a statement's read of the
	// key (statement_reads.go).
	memo memoSlot
}

// keyReaders is what reads of a key leave on it. Apart from keyState, and
// made at the first such read, so that keys nobody reads (a bulk load's)
// do not carry it.
type keyReaders struct {
	// wreaders lists the PC, SI and SER transactions that read the key
	// (each once), whose windows or placement a writer of the key may
	// affect: the pending ones, and the ended ones placed after its latest
	// writer (see published).
	wreaders []*txn
	// lastPicked wrote the version most recently served by an adversarial
	// read, to lastReader (a writer, not a place in versions: a commit
	// inserted in the past shifts the places).
	lastPicked *txn
	lastReader *txn
}

// readState returns the key's readers' state, making it when absent.
func (ks *keyState) readState() *keyReaders {
	if ks.readers == nil {
		ks.readers = &keyReaders{}
	}
	return ks.readers
}

// windowReaders returns keyReaders.wreaders of the key, nil when no read
// left any.
func (ks *keyState) windowReaders() []*txn {
	if ks.readers == nil {
		return nil
	}
	return ks.readers.wreaders
}

// forgetReaders removes the readers drop reports from the key's wreaders.
func (ks *keyState) forgetReaders(drop func(*txn) bool) {
	if ks.readers != nil {
		ks.readers.wreaders = slices.DeleteFunc(ks.readers.wreaders, drop)
	}
}

// version is a committed version of a key.
type version struct {
	w   *txn
	row []any // nil for a tombstone; a live row of no columns is noColumns
	tid Tid   // its place in the table's heap (tid.go)
}

// tomb reports whether v is a tombstone.
func (v version) tomb() bool { return v.row == nil }

// noColumns is the live row of a table without columns: a version's nil
// row is its tombstone.
var noColumns = []any{}

// index is a secondary index: every index key a kept version or a pending
// write of a row has, mapped to the primary keys of those rows, so that a
// lookup finds every key whose chosen version could match. Entries are
// removed only when the versions or writes giving them are collected or
// rolled back (collect.go).
type index struct {
	id      IndexID
	table   *table
	spec    IndexSpec
	entries btree.Map[*indexEntry]
	dropped bool
	marks   scanMarks // its scans' marks in index-key space (phantom.go)
}

// indexEntry lists the primary keys under one index key. A unique index's
// million entries hold one key each, so an entry into which no second key
// ever entered holds its key alone (one, nil once it left), and only a
// second key makes the list (many). A key is its keyState, which its table
// keeps for good and only one of, so that a lookup reads the key's state
// without searching the table's B-tree for it.
type indexEntry struct {
	one  [1]*keyState
	many *entryKeys
}

// entryKeys are the keys under an index key into which more than one
// entered (set), in the order they entered it (keys). A key removed stays
// in keys, and one that enters again appears twice, until they are as many
// as the keys in set and keys is compacted: readers skip the keys not in
// set and repeats. While at most smallEntry keys entered and none left, set
// is nil and keys alone says who is in.
type entryKeys struct {
	keys []*keyState
	set  map[*keyState]struct{}
}

// smallEntry is the most keys an entry lists without its set.
const smallEntry = 8

// list returns the keys the entry lists, in the order they entered it:
// those not under the index key any more (has) and repeats included when
// the entry is not plain.
func (ent *indexEntry) list() []*keyState {
	switch {
	case ent.many != nil:
		return ent.many.keys
	case ent.one[0] != nil:
		return ent.one[:]
	}
	return nil
}

// plain reports whether the keys the entry lists are distinct and all under
// its index key.
func (ent *indexEntry) plain() bool {
	return ent.many == nil || ent.many.set == nil
}

// has reports whether k is under the entry's index key.
func (ent *indexEntry) has(k *keyState) bool {
	if ent.many == nil {
		return ent.one[0] == k
	}
	if ent.many.set == nil {
		return slices.Contains(ent.many.keys, k)
	}
	_, ok := ent.many.set[k]
	return ok
}

// size is the number of keys under the entry's index key.
func (ent *indexEntry) size() int {
	switch {
	case ent.many != nil && ent.many.set != nil:
		return len(ent.many.set)
	case ent.many != nil:
		return len(ent.many.keys)
	case ent.one[0] != nil:
		return 1
	}
	return 0
}

// enter puts k under the entry's index key; it reports false when k was
// there already.
func (ent *indexEntry) enter(k *keyState) bool {
	if ent.has(k) {
		return false
	}
	switch {
	case ent.many == nil && ent.one[0] == nil:
		ent.one[0] = k
		return true
	case ent.many == nil:
		ent.many = &entryKeys{keys: []*keyState{ent.one[0], k}}
		ent.one[0] = nil
		return true
	}
	m := ent.many
	if m.set == nil && len(m.keys) == smallEntry {
		m.makeSet()
	}
	if m.set != nil {
		m.set[k] = struct{}{}
	}
	m.keys = append(m.keys, k)
	return true
}

// makeSet makes the set of a small list's keys.
func (m *entryKeys) makeSet() {
	m.set = make(map[*keyState]struct{}, len(m.keys)+1)
	for _, k := range m.keys {
		m.set[k] = struct{}{}
	}
}

// remove takes k out of the entry.
func (ent *indexEntry) remove(k *keyState) {
	m := ent.many
	if m == nil {
		if ent.one[0] == k {
			ent.one[0] = nil
		}
		return
	}
	if m.set == nil {
		m.makeSet()
	}
	delete(m.set, k)
	if len(m.keys) > 2*len(m.set)+8 {
		seen := make(map[*keyState]struct{}, len(m.set))
		m.keys = slices.DeleteFunc(m.keys, func(k *keyState) bool {
			if _, dup := seen[k]; dup || !ent.has(k) {
				return true
			}
			seen[k] = struct{}{}
			return false
		})
	}
}

func newEngine(cfg Config) *engine {
	if cfg.Strategy == StrategyDefault {
		cfg.Strategy = StrategyLatest
	}
	e := &engine{
		cfg:       cfg,
		sessions:  make(map[string]*session),
		open:      make(map[*session]struct{}),
		nextTxn:   history.Init + 1,
		lastXID:   frozenXID,
		active:    make(map[*txn]struct{}),
		locks:     make(map[resource]*lockEntry),
		liveMemos: make(map[uint32]struct{}),
	}
	e.init = &txn{id: history.Init, e: e, state: txnCommitted}
	e.init.pos = e.co.init(e.init)
	e.rec.init(cfg.Record, cfg.Log)
	if cfg.Replay != nil {
		e.replay = newReplayIndex(cfg.Replay)
	}
	e.ssi = newSSI(cfg)
	return e
}

func (e *engine) createTable(spec TableSpec) (TableID, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	id := TableID(len(e.tables))
	e.tables = append(e.tables, &table{id: id, spec: spec, init: e.init, e: e, heap: heap{target: -1}})
	return id, nil
}

func (e *engine) table(id TableID) (*table, error) {
	if int(id) >= len(e.tables) || e.tables[id] == nil {
		return nil, pgerror.Newf(pgerror.UndefinedTable, "relation with id %d does not exist", id)
	}
	return e.tables[id], nil
}

func (e *engine) dropTable(id TableID) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	tb, err := e.table(id)
	if err != nil {
		return err
	}
	for _, ix := range tb.indexes {
		ix.dropped = true
		e.indexes[ix.id] = nil
	}
	tb.dropped = true
	e.tables[id] = nil
	return nil
}

func (e *engine) createIndex(id TableID, spec IndexSpec) (IndexID, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	tb, err := e.table(id)
	if err != nil {
		return 0, err
	}
	if spec.Key == nil {
		return 0, pgerror.New(pgerror.InternalError, "index without a key function")
	}
	ix := &index{id: IndexID(len(e.indexes)), table: tb, spec: spec}
	if err := e.build(ix); err != nil {
		return 0, err
	}
	e.indexes = append(e.indexes, ix)
	tb.indexes = append(tb.indexes, ix)
	return ix.id, nil
}

func (e *engine) dropIndex(id IndexID) (restore func(), err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if int(id) >= len(e.indexes) || e.indexes[id] == nil {
		return nil, pgerror.Newf(pgerror.UndefinedObject, "index with id %d does not exist", id)
	}
	ix := e.indexes[id]
	ix.dropped = true
	e.indexes[id] = nil
	tb := ix.table
	for i, x := range tb.indexes {
		if x == ix {
			tb.indexes = append(tb.indexes[:i:i], tb.indexes[i+1:]...)
			break
		}
	}
	return func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.indexes[id] != nil || tb.dropped {
			return
		}
		ix.dropped = false
		e.indexes[id] = ix
		tb.indexes = append(tb.indexes, ix)
	}, nil
}

// refreshStatementReads points the statement memos of the active
// transactions (statement_reads.go) at the rows of table id's versions
// after a rewrite, so that a later read in the rewriting statement (the
// checks of ALTER TABLE ... ADD COLUMN ... CHECK) sees the new shape of the
// version it read before.
func (e *engine) refreshStatementReads(id TableID) {
	for t := range e.active {
		t.rd.stmt.each(func(s *seen) {
			ks := s.ks
			if ks.tab != id || !s.ok {
				return
			}
			for _, v := range ks.versions() {
				if v.w == s.w && !v.tomb() {
					s.row = v.row
					break
				}
			}
		})
	}
}

// add indexes row under primary key ks.
func (ix *index) add(row []any, ks *keyState) {
	ik, _ := ix.indexKey(&ix.table.e.keyBufs[0], row)
	ent, ok := ix.entry(string(ik))
	if !ok {
		ent = &indexEntry{}
		ix.setEntry(string(ik), ent)
	}
	if ent.enter(ks) {
		ix.table.e.indexEntered(ix, string(ik), ks)
	}
}

// versions returns the key's committed versions in commit order.
func (ks *keyState) versions() []version {
	if ks.spill != nil {
		return *ks.spill
	}
	return ks.inline[:ks.nver:len(ks.inline)]
}

// resetVersions makes v the key's only version.
func (ks *keyState) resetVersions(v version) {
	ks.inline, ks.nver, ks.spill = [2]version{v}, 1, nil
}

// keepVersions makes kept (a suffix of the versions) the key's versions,
// in the inline array when they fit, and lets go of the others.
func (ks *keyState) keepVersions(kept []version) {
	if len(kept) > len(ks.inline) {
		ks.spillVersions(slices.Clone(kept))
		return
	}
	var buf [2]version
	n := copy(buf[:], kept)
	ks.inline, ks.nver, ks.spill = buf, uint8(n), nil
}

// spillVersions makes vs, more than the inline array holds, the key's
// versions.
func (ks *keyState) spillVersions(vs []version) {
	if ks.spill == nil {
		ks.spill = new([]version)
	}
	*ks.spill = vs
	ks.inline, ks.nver = [2]version{}, 0
}

// indexKey computes ix's key of row into *buf, which it reuses from call to
// call, and returns it: the key is valid until *buf is used again, so one
// kept is converted to a string.
func (ix *index) indexKey(buf *[]byte, row []any) ([]byte, bool) {
	k, null := ix.spec.Key((*buf)[:0], row)
	if cap(k) > cap(*buf) {
		*buf = k[:0]
	}
	return k, null
}

// entry returns the entry of index key ik.
func (ix *index) entry(ik string) (*indexEntry, bool) {
	return ix.entries.Get(ik)
}

// setEntry adds the entry of a new index key ik.
func (ix *index) setEntry(ik string, ent *indexEntry) {
	ix.entries.Set(ik, ent)
}

// deleteEntry removes the entry of index key ik.
func (ix *index) deleteEntry(ik string) {
	ix.entries.Delete(ik)
}

// clearEntries empties the index.
func (ix *index) clearEntries() {
	ix.entries.Clear()
}

// latest returns the co-latest committed version.
func (ks *keyState) latest() version {
	vs := ks.versions()
	return vs[len(vs)-1]
}

// keyState returns the state of key k of tb, creating it when create.
func (tb *table) keyState(k string, create bool) *keyState {
	ks, ok := tb.keys.Get(k)
	if !ok && create {
		ks = tb.newKeyState(k)
		ks.resetVersions(version{w: tb.init})
		tb.keys.Set(k, ks)
		tb.e.newKey(tb, ks)
	}
	return ks
}

// createdKey makes key k, which nobody has seen (a fresh hidden row id, a
// primary key the table never had), for its inserter t, which holds its row
// lock as the key's creator; it returns nil, and makes nothing, when k
// exists already.
func (tb *table) createdKey(k string, t *txn) *keyState {
	ks := tb.newKeyState(k)
	ks.creator = t
	ks.resetVersions(version{w: tb.init})
	// Row ids grow, so Set appends to the B-tree's last leaf.
	if prev, replaced := tb.keys.Set(k, ks); replaced {
		tb.keys.Set(k, prev)
		return nil
	}
	tb.e.newKey(tb, ks)
	return ks
}

// newKeyState allocates key k of tb (without versions) from the table's
// slab: a bulk load's keys cost an allocation per maxKeySlab keys, not one
// each. Slabs double from 8 keys, so that a small table holds few unused.
func (tb *table) newKeyState(k string) *keyState {
	if len(tb.keySlab) == 0 {
		tb.keySlabSize = min(max(2*tb.keySlabSize, 8), maxKeySlab)
		tb.keySlab = make([]keyState, tb.keySlabSize)
	}
	ks := &tb.keySlab[0]
	tb.keySlab = tb.keySlab[1:]
	ks.key, ks.tab = k, tb.id
	return ks
}

// maxKeySlab is the most keys a table allocates at once.
const maxKeySlab = 512

// markDirty puts ks, which has more than one version now, in e.dirty.
func (e *engine) markDirty(ks *keyState) {
	if !ks.dirty {
		ks.dirty = true
		e.dirty = append(e.dirty, ks)
	}
}

// nextRowID assigns a hidden row id.
func (tb *table) nextRowID() []byte {
	tb.nextRow++
	if len(tb.rowIDs) > 0 {
		return binary.BigEndian.AppendUint64([]byte(tb.rowIDs[len(tb.rowIDs)-1].prefix), tb.nextRow)
	}
	return binary.BigEndian.AppendUint64(nil, tb.nextRow)
}

func (tb *table) formatKey(k []byte) string {
	for _, r := range tb.rowIDs {
		if n, ok := r.rowID(k); ok {
			return r.format(n)
		}
	}
	if tb.spec.FormatKey != nil {
		return tb.spec.FormatKey(k)
	}
	return fmt.Sprintf("%q", k)
}
