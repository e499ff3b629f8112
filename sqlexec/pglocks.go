package sqlexec

import (
	"fmt"
	"sync"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// pg_locks, pg_blocking_pids and pg_safe_snapshot_blocking_pids, from the
// store's lock table (isolation.Store.Locks) as PostgreSQL 15 shows its
// own: the relation locks of tables, views and sequences, advisory locks
// (a bigint key as classid, objid and objsubid 1, a pair of integers as
// classid, objid and objsubid 2), each transaction's ExclusiveLock on its
// transaction ids, a wait for a row or a unique key as a ShareLock wait for
// the id of the transaction that holds it, and each backend's ExclusiveLock
// on its virtual transaction id. PostgreSQL's tuple and page locks, and its
// locks on indexes, TOAST tables and catalogs, have no counterpart in
// fickle and are not shown.

// lockModeNames are the table lock modes as pg_locks names them.
var lockModeNames = [...]string{
	isolation.TableLockAccessShare:          "AccessShareLock",
	isolation.TableLockRowShare:             "RowShareLock",
	isolation.TableLockRowExclusive:         "RowExclusiveLock",
	isolation.TableLockShareUpdateExclusive: "ShareUpdateExclusiveLock",
	isolation.TableLockShare:                "ShareLock",
	isolation.TableLockShareRowExclusive:    "ShareRowExclusiveLock",
	isolation.TableLockExclusive:            "ExclusiveLock",
	isolation.TableLockAccessExclusive:      "AccessExclusiveLock",
}

// fastPathSlots is how many relations a PostgreSQL backend can lock in a
// weak mode without the shared lock table (FP_LOCK_SLOTS_PER_BACKEND).
const fastPathSlots = 16

// backendIDs hands out PostgreSQL's backend ids, the first part of a
// virtual transaction id: the lowest one no open session has.
type backendIDs struct {
	mu   sync.Mutex
	used map[int]bool
}

func (b *backendIDs) take() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used == nil {
		b.used = map[int]bool{}
	}
	id := 1
	for b.used[id] {
		id++
	}
	b.used[id] = true
	return id
}

func (b *backendIDs) free(id int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.used, id)
}

// vxid is the session's virtual transaction id, backend/local id, the
// local id 0 outside a transaction.
func (a *activity) vxid() (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return fmt.Sprintf("%d/%d", a.backendID, a.lxid), a.lxid != 0
}

// lockView is the lock table with the sessions that hold its locks.
type lockView struct {
	locks    []isolation.Lock
	sessions []sessionOf
	// bySession maps a store session to the open sessions on it: one,
	// or a logical session's connections.
	bySession map[history.SessionID][]sessionOf
}

func (s *Session) lockView() lockView {
	v := lockView{sessions: s.engine.cluster.allSessions(), bySession: map[history.SessionID][]sessionOf{}}
	for _, so := range v.sessions {
		id := so.s.kv.ID()
		v.bySession[id] = append(v.bySession[id], so)
	}
	v.locks = s.engine.store.Locks()
	return v
}

// owner is the open session a lock of store session id belongs to, the
// first connection of a logical session; false when none is open.
func (v lockView) owner(id history.SessionID) (sessionOf, bool) {
	if sos := v.bySession[id]; len(sos) > 0 {
		return sos[0], true
	}
	return sessionOf{}, false
}

// pgLocksRows are pg_locks' rows, backend by backend in pid order.
func pgLocksRows(s *Session, c *catalog) [][]any {
	v := s.lockView()
	var own map[isolation.TableID]uint32
	relOIDs := map[*Engine]map[isolation.TableID]uint32{}
	relOID := func(so sessionOf, id isolation.TableID) (uint32, bool) {
		if so.s == s {
			// The session's own catalog knows the tables its transaction
			// created; one it replaced is the published catalog's.
			if own == nil {
				own = tableOIDs(c)
			}
			if oid, ok := own[id]; ok {
				return oid, true
			}
		}
		m := relOIDs[so.db]
		if m == nil {
			pub, _ := so.db.published()
			m = tableOIDs(pub)
			relOIDs[so.db] = m
		}
		oid, ok := m[id]
		return oid, ok
	}
	// strong marks the relations some backend holds or awaits in a mode
	// that keeps weak locks off PostgreSQL's fast path.
	type relKey struct {
		db  *Engine
		oid uint32
	}
	type rel struct {
		key relKey
		ok  bool
	}
	rels := make([]rel, len(v.locks))
	strong := map[relKey]bool{}
	for i, l := range v.locks {
		so, ok := v.owner(l.Session)
		if !ok {
			continue
		}
		switch l.On {
		case isolation.LockOnTable:
			oid, ok := relOID(so, l.Table)
			rels[i] = rel{relKey{so.db, oid}, ok}
		case isolation.LockOnObject:
			rels[i] = rel{relKey{so.db, l.Object}, true}
		}
		if rels[i].ok && l.Mode >= isolation.TableLockShareUpdateExclusive {
			strong[rels[i].key] = true
		}
	}
	type seenKey struct {
		pid     uint32
		tag     string
		mode    string
		granted bool
	}
	seen := map[seenKey]bool{}
	var out [][]any
	for _, so := range v.sessions {
		id := so.s.kv.ID()
		if first, _ := v.owner(id); first.s != so.s {
			continue
		}
		vxid, inTxn := so.s.act.vxid()
		pid := int64(so.s.info.ProcessID)
		fast := map[relKey]bool{}
		for i, l := range v.locks {
			if l.Session != id {
				continue
			}
			// locktype, database, relation, page, tuple, virtualxid,
			// transactionid, classid, objid, objsubid, virtualtransaction,
			// pid, mode, granted, fastpath, waitstart
			row := make([]any, 16)
			row[10], row[11], row[13], row[14] = vxid, pid, l.Granted, false
			if !l.Granted {
				if start, ok := so.s.act.waitStartOf(l.WaitSeq); ok {
					row[15] = start.UTC()
				}
			}
			switch l.On {
			case isolation.LockOnTable, isolation.LockOnObject:
				if !rels[i].ok {
					continue
				}
				r := rels[i].key
				row[0], row[1], row[2], row[12] = "relation", int64(so.db.oid), int64(r.oid), lockModeNames[l.Mode]
				if l.Granted && l.Mode < isolation.TableLockShareUpdateExclusive && !strong[r] && (fast[r] || len(fast) < fastPathSlots) {
					fast[r] = true
					row[14] = true
				}
			case isolation.LockOnAdvisory:
				subID := int64(1) + int64(l.Advisory.Space&1)
				row[0], row[1] = "advisory", int64(l.Advisory.Space>>1)
				row[7], row[8], row[9] = int64(uint64(l.Advisory.Key)>>32), int64(uint32(l.Advisory.Key)), subID
				row[12] = "ShareLock"
				if l.Exclusive {
					row[12] = "ExclusiveLock"
				}
			case isolation.LockOnXID:
				row[0], row[6], row[12] = "transactionid", types.XID(l.XID), "ShareLock"
				if l.Exclusive {
					row[12] = "ExclusiveLock"
				}
			default:
				continue
			}
			// A session's lock and its transaction's in the same mode are
			// one lock of the backend, as in PostgreSQL.
			k := seenKey{so.s.info.ProcessID, fmt.Sprint(row[:10]...), row[12].(string), l.Granted}
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, row)
		}
		if inTxn {
			out = append(out, []any{"virtualxid", nil, nil, nil, nil, vxid, nil, nil, nil, nil, vxid, pid, "ExclusiveLock", true, true, nil})
		}
	}
	return out
}

// tableOIDs maps the store's tables to their OIDs in c.
func tableOIDs(c *catalog) map[isolation.TableID]uint32 {
	m := make(map[isolation.TableID]uint32, len(c.tables))
	for _, t := range c.tables {
		m[t.id] = t.oid
	}
	return m
}

// blockingPIDs is pg_blocking_pids: the pids of the sessions that the
// session of pid waits for, those that hold the lock it wants in a
// conflicting mode and those queued before it for one.
func blockingPIDs(x *execCtx, pid int64) []any {
	v := x.s.lockView()
	out := []any{}
	have := map[int64]bool{}
	for _, l := range v.locks {
		so, ok := v.owner(l.Session)
		if l.Granted || !ok || int64(so.s.info.ProcessID) != pid {
			continue
		}
		for _, b := range l.BlockedBy {
			for _, bo := range v.bySession[b] {
				p := int64(bo.s.info.ProcessID)
				if !have[p] {
					have[p] = true
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// lockWaits maps the pid of each session waiting for a lock to what it
// waits for, as pg_stat_activity's wait_event names it.
func (s *Session) lockWaits() map[uint32]string {
	v := s.lockView()
	out := map[uint32]string{}
	for _, l := range v.locks {
		so, ok := v.owner(l.Session)
		if l.Granted || !ok {
			continue
		}
		event := "relation"
		switch l.On {
		case isolation.LockOnAdvisory:
			event = "advisory"
		case isolation.LockOnXID:
			event = "transactionid"
		}
		out[so.s.info.ProcessID] = event
	}
	return out
}

func init() {
	oid, text, i2, i4, b := types.OidType, types.Text, types.Int2, types.Int4, types.Bool
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_locks",
		cols: []vcol{{"locktype", text}, {"database", oid}, {"relation", oid}, {"page", i4}, {"tuple", i2},
			{"virtualxid", text}, {"transactionid", types.Type{Oid: types.OidXID, Typmod: -1}}, {"classid", oid},
			{"objid", oid}, {"objsubid", i2}, {"virtualtransaction", text}, {"pid", i4}, {"mode", text},
			{"granted", b}, {"fastpath", b}, {"waitstart", types.Timestamptz}},
		rows: pgLocksRows})
	i4Array, _ := types.ArrayOf(i4)
	addSysFunc("pg_blocking_pids", sysFunc{args: []types.Type{i4}, result: i4Array, volatile: true,
		eval: func(x *execCtx, a []any) (any, error) { return blockingPIDs(x, a[0].(int64)), nil }})
	// fickle never makes a SERIALIZABLE READ ONLY DEFERRABLE transaction
	// wait for a safe snapshot, so no session is ever blocked that way.
	addSysFunc("pg_safe_snapshot_blocking_pids", sysFunc{args: []types.Type{i4}, result: i4Array, volatile: true,
		eval: func(*execCtx, []any) (any, error) { return []any{}, nil }})
}
