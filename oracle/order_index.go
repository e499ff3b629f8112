package oracle

import (
	"slices"

	"github.com/fickle-db/fickle/history"
)

// txnIndex is the view of a history that commit-order verification, the
// search and the brute-force checker share: which transactions take part,
// whose writes are visible, each transaction's written keys and its reads of
// other transactions' versions.
//
// A transaction takes part (live) unless the server aborted it. Only Init and
// committed transactions have visible writes (DESIGN §2): a transaction the
// client rolled back, or one still pending, has a place in the commit order
// and its reads are checked, but nobody may read from it.
//
// The index is eager (newTxnIndex: every transaction indexed, O(n)) for whole
// histories, or lazy (newLazyTxnIndex: a transaction is indexed when first
// asked about) for the restricted checks the isolation engine makes on every
// commit, which must not cost O(n).
type txnIndex struct {
	h      *history.History
	levels []history.Level // nil: levels come from level
	level  history.Level   // with levels nil: every transaction's level, or 0 for its own
	infos  []txnInfo       // eager mode
	lazy   map[history.TxnID]*txnInfo
	// sess lists each session's live transactions in session order; eager
	// mode only (lazy mode walks h.Sessions).
	sess [][]history.TxnID
	// readArena and keyArena back every txnInfo's reads and writes, so that
	// indexing a history allocates a few arrays, not two slices a
	// transaction.
	readArena []extRead
	keyArena  []history.KeyID
	// rc is the definition of read committed that RC transactions are
	// checked by (Options.RC).
	rc RCDefinition
}

// withRC sets the definition of read committed the index's users apply.
func (ix *txnIndex) withRC(d RCDefinition) *txnIndex {
	ix.rc = d
	return ix
}

// sessionVisible reports whether a transaction checked at level sees its
// session's earlier transactions: at every level but read committed under
// Biswas and Enea's definition.
func (ix *txnIndex) sessionVisible(level history.Level) bool {
	return level != history.ReadCommitted || ix.rc != RCBiswasEnea
}

// txnInfo is what the checkers need to know about one transaction.
type txnInfo struct {
	live, commit bool
	// sessIdx is the transaction's index in its session's live list (eager
	// mode only; -1 for Init and dead transactions).
	sessIdx int32
	// writes is the transaction's written keys, sorted and distinct, when it
	// committed; nil otherwise. Init's writes of every key are implicit.
	writes []history.KeyID
	// reads is its reads of versions other transactions wrote, in program
	// order. Reads of its own writes carry no wr and are left out.
	reads []extRead
}

// extRead is one read of another transaction's version: the reader, its op
// index and statement, the key and the writer whose version it saw.
type extRead struct {
	txn   history.TxnID
	op    int32
	event uint32
	key   history.KeyID
	src   history.TxnID
}

// newTxnIndex indexes every transaction of h, checking t at levels[t].
// h must pass history.Validate.
func newTxnIndex(h *history.History, levels []history.Level) *txnIndex {
	n := len(h.Txns)
	ops := 0
	for i := range h.Txns {
		ops += len(h.Txns[i].Ops)
	}
	ix := &txnIndex{h: h, levels: levels, infos: make([]txnInfo, n),
		readArena: make([]extRead, 0, ops), keyArena: make([]history.KeyID, 0, ops)}
	for i := range ix.infos {
		ix.fill(history.TxnID(i), &ix.infos[i])
	}
	ix.sess = make([][]history.TxnID, len(h.Sessions))
	for s := range h.Sessions {
		for _, t := range h.Sessions[s].Txns {
			if ix.infos[t].live && t != history.Init {
				ix.infos[t].sessIdx = int32(len(ix.sess[s]))
				ix.sess[s] = append(ix.sess[s], t)
			}
		}
	}
	return ix
}

// newLazyTxnIndex returns an index that looks transactions up on demand;
// level is as in Options.Level.
func newLazyTxnIndex(h *history.History, level history.Level) *txnIndex {
	return &txnIndex{h: h, level: level, lazy: make(map[history.TxnID]*txnInfo)}
}

func (ix *txnIndex) fill(id history.TxnID, in *txnInfo) {
	t := &ix.h.Txns[id]
	in.live = t.Outcome != history.ServerAborted || id == history.Init
	in.commit = t.Outcome == history.Committed || id == history.Init
	in.sessIdx = -1
	if !in.live || id == history.Init {
		return
	}
	r0, k0 := len(ix.readArena), len(ix.keyArena)
	for j, op := range t.Ops {
		switch {
		case op.Kind == history.OpWrite:
			if in.commit {
				ix.keyArena = append(ix.keyArena, op.Key)
			}
		case op.Writer != id:
			ix.readArena = append(ix.readArena, extRead{txn: id, op: int32(j), event: op.Event, key: op.Key, src: op.Writer})
		}
	}
	if r := ix.readArena[r0:]; len(r) > 0 {
		in.reads = r[:len(r):len(r)]
	}
	if k := ix.keyArena[k0:]; len(k) > 0 {
		slices.Sort(k)
		k = slices.Compact(k)
		ix.keyArena = ix.keyArena[:k0+len(k)]
		in.writes = k[:len(k):len(k)]
	}
}

// get returns t's index entry.
func (ix *txnIndex) get(t history.TxnID) *txnInfo {
	if ix.infos != nil {
		return &ix.infos[t]
	}
	if in, ok := ix.lazy[t]; ok {
		return in
	}
	in := &txnInfo{}
	ix.fill(t, in)
	ix.lazy[t] = in
	return in
}

// levelOf returns the level t is checked at.
func (ix *txnIndex) levelOf(t history.TxnID) history.Level {
	switch {
	case ix.levels != nil:
		return ix.levels[t]
	case ix.level != history.LevelUnknown:
		return ix.level
	case ix.h.Txns[t].Level == history.LevelUnknown:
		return history.Serializable
	}
	return ix.h.Txns[t].Level
}

// badRead reports whether no commit order can justify r: it reads a version
// no transaction wrote, or one of a transaction whose writes are not visible
// or that does not write the key. checkStructure reports these first; the
// commit-order checkers only refuse them.
func (ix *txnIndex) badRead(r *extRead) bool {
	return int(r.src) >= len(ix.h.Txns) || !ix.get(r.src).commit || !ix.writesKey(r.src, r.key)
}

// writesKey reports whether t's writes to x are visible: t is Init, or t
// committed a write of x.
func (ix *txnIndex) writesKey(t history.TxnID, x history.KeyID) bool {
	if t == history.Init {
		return true
	}
	_, ok := slices.BinarySearch(ix.get(t).writes, x)
	return ok
}

// conflicts reports whether a and b (neither Init) commit writes of a
// common key, the condition of SI's Conflict axiom.
func (ix *txnIndex) conflicts(a, b history.TxnID) bool {
	wa, wb := ix.get(a).writes, ix.get(b).writes
	for i, j := 0, 0; i < len(wa) && j < len(wb); {
		switch {
		case wa[i] == wb[j]:
			return true
		case wa[i] < wb[j]:
			i++
		default:
			j++
		}
	}
	return false
}

// sessPrev returns t's closest live session predecessor, or Init for the
// first transaction of a session.
func (ix *txnIndex) sessPrev(t history.TxnID) history.TxnID {
	if t == history.Init {
		return history.Init
	}
	if ix.infos != nil {
		if i := ix.infos[t].sessIdx; i > 0 {
			return ix.sess[ix.h.Txns[t].Session][i-1]
		}
		return history.Init
	}
	list := ix.h.Sessions[ix.h.Txns[t].Session].Txns
	i := len(list) - 1
	for i >= 0 && list[i] != t {
		i--
	}
	for i--; i >= 0; i-- {
		if ix.get(list[i]).live {
			return list[i]
		}
	}
	return history.Init
}

// realTimeBefore reports whether a committed before b began, the real-time
// order of the strict variants: b must see a. Transactions without times,
// and transactions that did not commit, are unordered.
func realTimeBefore(h *history.History, a, b history.TxnID) bool {
	ta, tb := &h.Txns[a], &h.Txns[b]
	return a != b && ta.Outcome == history.Committed && ta.End != 0 && tb.Start != 0 && ta.End < tb.Start
}

// fillEdgeOps sets an edge's FromOp and ToOp as Edge documents them: for wr
// the write and the read, for ww the two writes, for rw the read and the
// overwriting write; NoOp where there is none (Init's implicit writes, so
// and rt edges).
func fillEdgeOps(h *history.History, e *Edge) {
	e.FromOp, e.ToOp = NoOp, NoOp
	switch e.Kind {
	case EdgeWR:
		e.FromOp, e.ToOp = lastWriteOp(h, e.From, e.Key), readOp(h, e.To, e.Key, e.From)
	case EdgeWW:
		e.FromOp, e.ToOp = lastWriteOp(h, e.From, e.Key), lastWriteOp(h, e.To, e.Key)
	case EdgeRW:
		e.FromOp, e.ToOp = readOp(h, e.From, e.Key, history.NoWriter), lastWriteOp(h, e.To, e.Key)
	}
}

// lastWriteOp returns the index of t's last write of x, or NoOp.
func lastWriteOp(h *history.History, t history.TxnID, x history.KeyID) int32 {
	ops := h.Txns[t].Ops
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].Kind == history.OpWrite && ops[i].Key == x {
			return int32(i)
		}
	}
	return NoOp
}

// readOp returns the index of t's first read of x from src (from anyone
// else than t itself with src NoWriter), or NoOp.
func readOp(h *history.History, t history.TxnID, x history.KeyID, src history.TxnID) int32 {
	for i, op := range h.Txns[t].Ops {
		if op.Kind == history.OpRead && op.Key == x && op.Writer != t && (src == history.NoWriter || op.Writer == src) {
			return int32(i)
		}
	}
	return NoOp
}
