package history

// NoSession is the session of Init, which belongs to no session.
const NoSession SessionID = ^SessionID(0)

// Builder constructs a History in code, for tests and importers. Create one
// with NewBuilder, add sessions with Session and transactions with Txn, then
// call History. Transaction ids are assigned in creation order (Init is 0), so
// a read may name a writer created later, which lets a test build future reads.
//
//	b := history.NewBuilder()
//	s1, s2 := b.Session("S1"), b.Session("S2")
//	t1 := b.Txn(s1, history.Serializable).Write("x").Commit()
//	b.Txn(s2, history.Serializable).Read("x", t1).Read("y", history.Init).Commit()
//	h, err := b.History()
//
// The Builder never fails while building: mistakes such as a read of an
// unknown writer are reported by History, which calls Validate.
type Builder struct {
	h     History
	arena []Op // storage for setOps, allocated in chunks
}

// NewBuilder returns a Builder holding only Init.
func NewBuilder() *Builder {
	b := &Builder{}
	b.h.Txns = []Txn{{ID: Init, Session: NoSession, Level: LevelUnknown, Outcome: Committed, Name: "init"}}
	return b
}

// Session adds a session named name and returns its id.
func (b *Builder) Session(name string) SessionID {
	id := SessionID(len(b.h.Sessions))
	b.h.Sessions = append(b.h.Sessions, Session{ID: id, Name: name})
	return id
}

// Key interns the key (table, name) and returns its id.
func (b *Builder) Key(table, name string) KeyID {
	return b.h.Intern(Key{Table: table, Name: name})
}

// InitWrite records that Init wrote key with the given value, for histories
// whose initial state is not all tombstones (loaded data, or formats whose
// initial transaction writes 0 everywhere).
func (b *Builder) InitWrite(key KeyID, value int64) {
	t := &b.h.Txns[Init]
	t.Ops = append(t.Ops, Op{Kind: OpWrite, Flags: FlagHasValue, Key: key, Event: uint32(len(t.Ops)), Value: value})
}

// Txn appends a pending transaction at level to session s (session order is
// creation order) and returns a TxnBuilder to add its operations.
func (b *Builder) Txn(s SessionID, level Level) *TxnBuilder {
	id := TxnID(len(b.h.Txns))
	b.h.Txns = append(grow(b.h.Txns, 1), Txn{ID: id, Session: s, Level: level, Outcome: Pending})
	if int(s) < len(b.h.Sessions) {
		b.h.Sessions[s].Txns = append(b.h.Sessions[s].Txns, id)
	}
	return &TxnBuilder{b: b, id: id, stmt: -1}
}

// CommitOrder records the server's commit order. Init is prepended when the
// list does not start with it.
func (b *Builder) CommitOrder(ids ...TxnID) {
	co := make([]TxnID, 0, len(ids)+1)
	if len(ids) == 0 || ids[0] != Init {
		co = append(co, Init)
	}
	b.h.CommitOrder = append(co, ids...)
}

// History validates the history built so far and returns it. The Builder
// must not be used afterwards.
func (b *Builder) History() (*History, error) {
	h := &b.h
	if err := h.Validate(); err != nil {
		return nil, err
	}
	return h, nil
}

// MustHistory is History for tests: it panics when the history is invalid.
func (b *Builder) MustHistory() *History {
	h, err := b.History()
	if err != nil {
		panic(err)
	}
	return h
}

// setOps gives transaction t the operations ops (copied), each its own
// statement. Importers that see a whole transaction at once use it: the
// operations of many transactions share one allocation.
func (b *Builder) setOps(t TxnID, ops []Op) {
	if len(ops) > cap(b.arena)-len(b.arena) {
		b.arena = make([]Op, 0, max(len(ops), 1<<14))
	}
	n := len(b.arena)
	b.arena = append(b.arena, ops...)
	dst := b.arena[n:len(b.arena):len(b.arena)]
	for i := range dst {
		dst[i].Event = uint32(i)
	}
	b.h.Txns[t].Ops = dst
}

// TxnBuilder adds operations to one transaction of a Builder. Each operation
// is its own statement unless grouped with Stmt. Key names are in the table
// set by the latest Table or Stmt call (no table at first); the table stays
// after EndStmt.
type TxnBuilder struct {
	b     *Builder
	id    TxnID
	table string
	stmt  int // current grouped statement, or -1
}

// ID returns the transaction's id.
func (tb *TxnBuilder) ID() TxnID { return tb.id }

// Table sets the table of the keys named by the following operations.
func (tb *TxnBuilder) Table(table string) *TxnBuilder {
	tb.table = table
	return tb
}

// Stmt starts a statement: the following operations, until the next Stmt or
// EndStmt, form one event (for example a predicate read that inspected several
// keys). The statement's table becomes the table of the keys that follow.
func (tb *TxnBuilder) Stmt(s Statement) *TxnBuilder {
	t := tb.txn()
	tb.fillStatements(t)
	t.Statements = append(t.Statements, s)
	tb.stmt = len(t.Statements) - 1
	if s.Table != "" {
		tb.table = s.Table
	}
	return tb
}

// EndStmt ends the statement started by Stmt: later operations are each
// their own statement again.
func (tb *TxnBuilder) EndStmt() *TxnBuilder {
	tb.stmt = -1
	return tb
}

// Read records a read of key that saw writer's version (Init for the initial
// version, NoWriter for a value no write produced, the transaction itself for
// its own write). The row counts as returned.
func (tb *TxnBuilder) Read(key string, writer TxnID) *TxnBuilder {
	return tb.add(Op{Kind: OpRead, Flags: FlagReturned, Key: tb.key(key), Writer: writer})
}

// ReadFiltered records a read of key that saw writer's version but did not
// return the row (the predicate did not match).
func (tb *TxnBuilder) ReadFiltered(key string, writer TxnID) *TxnBuilder {
	return tb.add(Op{Kind: OpRead, Key: tb.key(key), Writer: writer})
}

// ReadAbsent records a read of key that saw writer's tombstone (an absent row).
func (tb *TxnBuilder) ReadAbsent(key string, writer TxnID) *TxnBuilder {
	return tb.add(Op{Kind: OpRead, Flags: FlagTombstone, Key: tb.key(key), Writer: writer})
}

// ReadValue records a read of key that returned value, with writer the
// transaction whose write produced it (NoWriter when none did). The value lets
// the checker see a read of an intermediate write.
func (tb *TxnBuilder) ReadValue(key string, writer TxnID, value int64) *TxnBuilder {
	return tb.add(Op{Kind: OpRead, Flags: FlagReturned | FlagHasValue, Key: tb.key(key), Writer: writer, Value: value})
}

// Write records a write of key.
func (tb *TxnBuilder) Write(key string) *TxnBuilder {
	return tb.add(Op{Kind: OpWrite, Key: tb.key(key)})
}

// WriteValue records a write of value to key.
func (tb *TxnBuilder) WriteValue(key string, value int64) *TxnBuilder {
	return tb.add(Op{Kind: OpWrite, Flags: FlagHasValue, Key: tb.key(key), Value: value})
}

// Delete records a write of a tombstone to key.
func (tb *TxnBuilder) Delete(key string) *TxnBuilder {
	return tb.add(Op{Kind: OpWrite, Flags: FlagTombstone, Key: tb.key(key)})
}

// Op appends op as given (its Event is assigned like any other operation's).
func (tb *TxnBuilder) Op(op Op) *TxnBuilder {
	return tb.add(op)
}

// Times sets the transaction's wall-clock start and end, in nanoseconds.
func (tb *TxnBuilder) Times(start, end int64) *TxnBuilder {
	t := tb.txn()
	t.Start, t.End = start, end
	return tb
}

// Name sets the transaction's name in its source format.
func (tb *TxnBuilder) Name(name string) *TxnBuilder {
	tb.txn().Name = name
	return tb
}

// Commit ends the transaction as committed and returns its id.
func (tb *TxnBuilder) Commit() TxnID { return tb.End(Committed) }

// Abort ends the transaction as rolled back by the client and returns its id.
func (tb *TxnBuilder) Abort() TxnID { return tb.End(ClientAborted) }

// End ends the transaction with outcome o and returns its id.
func (tb *TxnBuilder) End(o Outcome) TxnID {
	tb.txn().Outcome = o
	return tb.id
}

func (tb *TxnBuilder) txn() *Txn { return &tb.b.h.Txns[tb.id] }

func (tb *TxnBuilder) key(name string) KeyID {
	return tb.b.h.Intern(Key{Table: tb.table, Name: name})
}

// fillStatements gives every earlier ungrouped operation an empty statement
// so that Statements stays indexed by Op.Event.
func (tb *TxnBuilder) fillStatements(t *Txn) {
	n := 0
	if len(t.Ops) > 0 {
		n = int(t.Ops[len(t.Ops)-1].Event) + 1
	}
	for len(t.Statements) < n {
		t.Statements = append(t.Statements, Statement{})
	}
}

func (tb *TxnBuilder) add(op Op) *TxnBuilder {
	t := tb.txn()
	switch {
	case tb.stmt >= 0:
		op.Event = uint32(tb.stmt)
	case len(t.Ops) == 0:
		op.Event = 0
	default:
		op.Event = t.Ops[len(t.Ops)-1].Event + 1
	}
	if tb.stmt < 0 && t.Statements != nil {
		t.Statements = append(t.Statements, Statement{Table: tb.table})
		op.Event = uint32(len(t.Statements) - 1)
	}
	t.Ops = append(grow(t.Ops, 1), op)
	t.appendNoRow()
	return tb
}

// addGroup appends ops as one event: the current statement's, or a new
// anonymous one.
func (tb *TxnBuilder) addGroup(ops []Op) {
	if len(ops) == 0 {
		return
	}
	tb.add(ops[0])
	t := tb.txn()
	t.Ops = grow(t.Ops, len(ops)-1)
	t.growRows(len(ops) - 1)
	ev := t.Ops[len(t.Ops)-1].Event
	for _, op := range ops[1:] {
		op.Event = ev
		t.Ops = append(t.Ops, op)
		t.appendNoRow()
	}
}

// setRow sets the row image of the transaction's i-th operation.
func (tb *TxnBuilder) setRow(i int, row string) { tb.setRowImage(i, rowImage{text: row}, nil) }

// setRowImage sets the i-th operation's row image, kept in file when it is
// a reference; the rows follow the operations' length and capacity.
func (tb *TxnBuilder) setRowImage(i int, row rowImage, file *rowFile) {
	tb.txn().setRowImage(i, row, file)
}

// newTxn appends a transaction without a TxnBuilder, for importers.
func (b *Builder) newTxn(s SessionID, level Level, o Outcome) TxnID {
	id := TxnID(len(b.h.Txns))
	b.h.Txns = append(grow(b.h.Txns, 1), Txn{ID: id, Session: s, Level: level, Outcome: o})
	b.h.Sessions[s].Txns = append(b.h.Sessions[s].Txns, id)
	return id
}

// grow returns s with room for n more elements, doubling its capacity when
// it must grow: append grows large slices by a quarter, which for the
// million-element slices of a large history allocates five times their
// final size.
func grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	c := max(2*cap(s), len(s)+n, 16)
	t := make([]T, len(s), c)
	copy(t, s)
	return t
}

// tb returns a TxnBuilder for an existing transaction with no table and no
// open statement.
func (b *Builder) tb(id TxnID) *TxnBuilder { return &TxnBuilder{b: b, id: id, stmt: -1} }
