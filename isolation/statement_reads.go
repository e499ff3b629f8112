package isolation

// One version per key per statement. A statement reads one snapshot: a
// self-join, a correlated subquery on the same table or an UPDATE ... FROM
// the same table that inspects a key twice must see the same version both
// times, and no real database records two. At RC (and, through the inner
// side of joins, at every level) the engine would otherwise choose afresh
// at each inspection, and the adversary even prefers a different version
// for a repeated read; the checker then reports a split read. So every
// transaction keeps, for its current statement, the version its first read
// of each key saw (statementReads), and a later read of that key in the
// same statement returns it without choosing or recording again.
//
//   - The memo holds committed versions only. A read of the transaction's
//     own write is its own write; but a key the statement read before
//     writing it keeps returning the version read (PostgreSQL's statements
//     do not see their own changes), and the history holds that one read.
//   - A read that must see the latest version (Latest reads, the
//     EvalPlanQual re-check of a row LockRow locked) is answered from the
//     memo only when the memo holds the latest version; otherwise it
//     chooses, is recorded, and replaces the memo's entry. The re-check's
//     events belong to the statement: the memo spans all of them.
//   - A transaction whose client never delimits statements (Txn.Statement)
//     has no statements to keep a snapshot for: every read chooses.
//   - The memo's read is recorded once per logged read event: when the log
//     already flushed the event holding it (a join's inner side reading a
//     key the outer scan passed a chunk ago), the read is recorded again
//     with the same writer, so that its returned flag still reaches the log
//     and the logged history matches the recorded one.

// statementReads is a transaction's memo of its current statement's
// reads: the version its first read of every key saw. An entry lives in
// slots when the statement holds the key's memo slot (keyState.memo), which
// a statement claims unless another live statement holds it, else in reads:
// a scan of a big table fills a slice, not a map.
type statementReads struct {
	stmt  uint32 // the statement the entries belong to (its first event, txnLive.stmtEvent)
	id    uint32 // names the statement in the slots it holds (0: none yet)
	slots chunkList[seen]
	reads map[*keyState]seen
}

// memoSlot names the statement memo holding a key's entry and its place
// in the memo's slots.
type memoSlot struct {
	memo, at uint32
}

// bigStatement is the size above which the memo's map and slots are
// dropped rather than cleared at the next statement: clearing costs their
// capacity, which a statement that read a whole table would make every
// later statement pay.
const bigStatement = 1024

// get returns m's entry for ks.
func (m *statementReads) get(ks *keyState) (seen, bool) {
	if s := m.slot(ks); s != nil {
		return *s, true
	}
	s, ok := m.reads[ks]
	return s, ok
}

// slot returns ks's entry in m's slots, nil when m does not hold the key's
// slot.
func (m *statementReads) slot(ks *keyState) *seen {
	if at := int(ks.memo.at); m.id != 0 && ks.memo.memo == m.id && at < m.slots.len() {
		if s := m.slots.ref(at); s.ks == ks {
			return s
		}
	}
	return nil
}

// empty reports whether m has no entry.
func (m *statementReads) empty() bool { return m.slots.len() == 0 && len(m.reads) == 0 }

// putStatementRead makes s m's entry for s.ks, in the key's slot when m
// holds it or may claim it (no live statement holds it).
func (e *engine) putStatementRead(m *statementReads, s seen) {
	ks := s.ks
	if slot := m.slot(ks); slot != nil {
		*slot = s
		return
	}
	if _, ok := m.reads[ks]; ok {
		m.reads[ks] = s
		return
	}
	if _, held := e.liveMemos[ks.memo.memo]; !held {
		if m.id == 0 {
			e.memoIDs++
			if e.memoIDs == 0 {
				e.memoIDs++
			}
			m.id = e.memoIDs
			e.liveMemos[m.id] = struct{}{}
		}
		ks.memo = memoSlot{memo: m.id, at: uint32(m.slots.len())}
		m.slots.push(s)
		return
	}
	if m.reads == nil {
		m.reads = make(map[*keyState]seen)
	}
	m.reads[ks] = s
}

// each calls f on every entry of m, keeping what f changes.
func (m *statementReads) each(f func(s *seen)) {
	for i := range m.slots.len() {
		f(m.slots.ref(i))
	}
	for ks, s := range m.reads {
		f(&s)
		m.reads[ks] = s
	}
}

// statementRead returns the version t's current statement already read of
// ks, if the read may reuse it (see above); it re-records the read when the
// logged event holding it has been flushed.
func (e *engine) statementRead(t *txn, tb *table, ks *keyState, ro ReadOptions) (seen, bool) {
	m := &t.rd.stmt
	if t.stmts == 0 || m.empty() {
		return seen{}, false
	}
	if m.stmt != t.stmtEvent {
		e.resetStatementReads(m, t.stmtEvent)
		return seen{}, false
	}
	s, ok := m.get(ks)
	if !ok || ro.Latest && s.w != ks.latest().w {
		return seen{}, false
	}
	if s.ref.item >= 0 && s.ref.gen != t.logGen {
		s.ref, s.event = e.rec.read(t, tb, ks, s.w, !s.ok), t.event
		e.putStatementRead(m, s)
	}
	return s, true
}

// statementVersion returns the committed version t's current statement
// read of ks, if it read one, without recording anything.
func (e *engine) statementVersion(t *txn, ks *keyState) (seen, bool) {
	m := &t.rd.stmt
	if t.stmts == 0 || m.stmt != t.stmtEvent {
		return seen{}, false
	}
	return m.get(ks)
}

// rememberRead keeps s, t's read of a committed version, as its current
// statement's read of the key.
func (e *engine) rememberRead(t *txn, s seen) {
	if t.stmts == 0 {
		return
	}
	m := &t.rd.stmt
	if m.stmt != t.stmtEvent {
		e.resetStatementReads(m, t.stmtEvent)
	}
	e.putStatementRead(m, s)
}

// endStatementReads drops ended t's memo; its map and slots, emptied, go to
// t's session for its next transaction (unless a big statement grew them),
// so that a session's transactions allocate none once warm.
func (e *engine) endStatementReads(t *txn) {
	m := t.rd.stmt
	t.rd.stmt = statementReads{}
	e.resetStatementReads(&m, 0)
	t.sess.stmtMemo = m
}

// resetStatementReads empties m for the statement that began at event
// stmt, releasing its slots.
func (e *engine) resetStatementReads(m *statementReads, stmt uint32) {
	m.stmt = stmt
	if m.id != 0 {
		delete(e.liveMemos, m.id)
		m.id = 0
	}
	if len(m.reads) > bigStatement {
		m.reads = nil
	} else {
		clear(m.reads)
	}
	if m.slots.len() > bigStatement {
		m.slots = chunkList[seen]{}
	} else {
		m.slots.truncate(0)
	}
}
