package history

import "strconv"

// rawTxns collects the transactions of an importer that sees each one
// whole: operations go into large chunks (a transaction's operations stay
// contiguous), headers into one slice, and History.Txns is allocated once
// at the end. Growing a slice of Txn (which holds pointers) or of all the
// operations ten million times costs more than parsing them.
type rawTxns struct {
	chunk []Op // the open transaction's operations are chunk[open:]
	start int
	heads []rawTxn
	open  bool
	// names holds the transactions' names end to end (see nameNumber):
	// one string for all of them rather than one small object each, which
	// the garbage collector would mark one by one.
	names []byte
}

type rawTxn struct {
	session SessionID
	level   Level
	outcome Outcome
	line    int32 // line of the transaction's first operation, for errors
	name    string
	// nameStart and nameEnd, when name is empty, delimit the
	// transaction's name in rawTxns.names.
	nameStart, nameEnd int32
	ops                []Op
}

const rawChunk = 1 << 16

// current returns the open transaction's id, opening one in s if none is;
// line is where it starts.
func (r *rawTxns) current(s SessionID, level Level, o Outcome, line int) TxnID {
	if !r.open {
		r.heads = append(grow(r.heads, 1), rawTxn{session: s, level: level, outcome: o, line: int32(min(line, 1<<31-1))})
		r.open = true
		r.start = len(r.chunk)
	}
	return TxnID(len(r.heads))
}

// nameNumber names the open transaction by the decimal number n.
func (r *rawTxns) nameNumber(n int64) {
	h := r.head()
	h.nameStart = int32(len(r.names))
	r.names = strconv.AppendInt(r.names, n, 10)
	h.nameEnd = int32(len(r.names))
}

// head returns the open (or last) transaction's header.
func (r *rawTxns) head() *rawTxn { return &r.heads[len(r.heads)-1] }

func (r *rawTxns) op(op Op) {
	n := len(r.chunk) - r.start
	if len(r.chunk) == cap(r.chunk) {
		c := make([]Op, n, max(rawChunk, 2*n))
		copy(c, r.chunk[r.start:])
		r.chunk, r.start = c, 0
	}
	op.Event = uint32(n)
	r.chunk = append(r.chunk, op)
}

// end closes the open transaction, if any.
func (r *rawTxns) end() {
	if r.open {
		r.head().ops = r.chunk[r.start:len(r.chunk):len(r.chunk)]
		r.open = false
	}
}

// build appends the collected transactions to b, with ids 1, 2, ... in
// collection order (b must hold only Init), and returns each transaction's
// first line, indexed by TxnID.
func (r *rawTxns) build(b *Builder) []int32 {
	r.end()
	txns := make([]Txn, 1, len(r.heads)+1)
	txns[0] = b.h.Txns[0]
	lines := make([]int32, len(r.heads)+1)
	counts := make([]int, len(b.h.Sessions))
	for _, h := range r.heads {
		counts[h.session]++
	}
	for s := range b.h.Sessions {
		b.h.Sessions[s].Txns = make([]TxnID, 0, counts[s])
	}
	names := string(r.names)
	for i, h := range r.heads {
		id := TxnID(i + 1)
		if h.nameEnd > h.nameStart {
			h.name = names[h.nameStart:h.nameEnd]
		}
		txns = append(txns, Txn{ID: id, Session: h.session, Level: h.level, Outcome: h.outcome, Name: h.name, Ops: h.ops})
		b.h.Sessions[h.session].Txns = append(b.h.Sessions[h.session].Txns, id)
		lines[id] = h.line
	}
	b.h.Txns = txns
	r.heads, r.chunk, r.names = nil, nil, nil
	return lines
}
