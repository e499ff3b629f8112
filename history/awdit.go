package history

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// ReadAWDIT reads a history in the AWDIT checker's test format: one
// operation a line, "r KEY VALUE" or "w KEY VALUE" with non-negative
// integers; a line of dashes ends a transaction, a line of equals signs
// ends a session; blank lines are ignored. The format has no levels and no
// aborted transactions: every transaction is committed with LevelUnknown.
//
// Reads are linked to writes by value (values written to a key are unique).
// Initial reads: a read of 0 that no transaction wrote reads Init, which is
// so-before every transaction; any other unmatched value is a thin-air read
// (NoWriter). AWDIT's own loader for this format adds no initial
// transaction: its files write the zeros in a session of their own, which
// is read here as written, a transaction ordered only by the reads of it
// (as AWDIT orders it), except for the shape WriteAWDIT gives it, which is
// folded into Init (foldAWDITInitial). Keys are named by their decimal
// number.
func ReadAWDIT(r io.Reader, name string) (*History, error) {
	lr, err := newLineReader(r)
	if err != nil {
		return nil, fileErr(name, "%v", err)
	}
	b := NewBuilder()
	keys := newNumKeys()
	var txns rawTxns
	sess := SessionID(0)
	newSession := true
	for {
		line, _, ok, err := lr.next()
		if err != nil {
			return nil, lineErr(name, lr.line+1, "%v", err)
		}
		if !ok {
			break
		}
		line = trimSpace(line)
		switch {
		case len(line) == 0:
			continue
		case allBytes(line, '='):
			txns.end()
			newSession = true
			continue
		case allBytes(line, '-'):
			txns.end()
			continue
		}
		kind, k, v, err := parseAWDITOp(line)
		if err != nil {
			return nil, lineErr(name, lr.line, "%v", err)
		}
		if newSession {
			sess = b.Session(strconv.Itoa(len(b.h.Sessions)))
			newSession = false
		}
		txns.current(sess, LevelUnknown, Committed, lr.line)
		key := keys.ref(k)
		if kind == OpWrite {
			txns.op(Op{Kind: OpWrite, Flags: FlagHasValue, Key: key, Value: v})
		} else {
			txns.op(Op{Kind: OpRead, Flags: FlagReturned | FlagHasValue, Key: key, Value: v})
		}
	}
	foldAWDITInitial(b, &txns)
	lines := txns.build(b)
	keys.assign(&b.h)
	if err := matchByValue(name, &b.h, lines, func(v int64) bool { return v == 0 }); err != nil {
		return nil, err
	}
	if err := b.h.validate(false); err != nil {
		return nil, fileErr(name, "%v", err)
	}
	return &b.h, nil
}

func allBytes(b []byte, c byte) bool {
	for _, x := range b {
		if x != c {
			return false
		}
	}
	return len(b) > 0
}

func parseAWDITOp(line []byte) (OpKind, int64, int64, error) {
	var fs [4][]byte
	f := fields(line, fs[:0])
	if len(f) != 3 || len(f[0]) != 1 || (f[0][0] != 'r' && f[0][0] != 'w') {
		return 0, 0, 0, fmt.Errorf("bad operation %q: want \"r KEY VALUE\" or \"w KEY VALUE\"", line)
	}
	k, err1 := parseInt(f[1])
	v, err2 := parseInt(f[2])
	if err1 != nil || err2 != nil || k < 0 || v < 0 {
		return 0, 0, 0, fmt.Errorf("bad operation %q: key and value must be non-negative integers", line)
	}
	if f[0][0] == 'w' {
		return OpWrite, k, v, nil
	}
	return OpRead, k, v, nil
}

// fields splits b at runs of spaces and tabs into dst, at most cap(dst)
// fields (the last one holding the rest).
func fields(b []byte, dst [][]byte) [][]byte {
	i := 0
	for i < len(b) && len(dst) < cap(dst) {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i == len(b) {
			break
		}
		j := i
		for j < len(b) && b[j] != ' ' && b[j] != '\t' {
			j++
		}
		if len(dst) == cap(dst)-1 {
			j = len(b)
		}
		dst = append(dst, b[i:j])
		i = j
	}
	return dst
}

// intKeys interns integer-named keys without building their names twice.
type intKeys struct{ m idMap }

func (ik *intKeys) get(b *Builder, n int64) KeyID {
	if id, ok := ik.m.get(n); ok {
		return KeyID(id)
	}
	id := b.Key("", strconv.FormatInt(n, 10))
	ik.m.set(n, uint32(id))
	return id
}

// WriteAWDIT writes h in AWDIT's test format. The format cannot express
// aborted transactions, levels, tables or predicates: transactions that did
// not commit are left out (reads of their writes become thin-air reads),
// keys are numbered (see kvExport), and every transaction ends with a dash
// line, every session with an equals line.
//
// AWDIT's loader for this format adds no initial transaction, so when some
// read sees an initial value the file starts with one: a session of a single
// transaction writing 0 to every key and to a key of its own, the marker,
// one past the largest. AWDIT orders that transaction like any other (not
// first), so the first transaction of every other session starts with a
// read of the marker: that read orders the initial transaction before the
// session, as fickle's Init is (DESIGN.md §2), and since nothing else writes
// the marker it constrains nothing else. ReadAWDIT folds that shape back
// into Init.
func WriteAWDIT(out io.Writer, h *History) error {
	x := newKVExport(h)
	w := bufio.NewWriterSize(out, 64<<10)
	buf := make([]byte, 0, 64)
	op := func(kind byte, k, v int64) {
		buf = append(buf[:0], kind, ' ')
		buf = strconv.AppendInt(buf, k, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, v, 10)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	exported := func(t *Txn) bool { return t.Outcome == Committed && len(t.Ops) > 0 }
	marker, initRead := awditInitial(h, x, exported)
	hasInit := slices.Contains(initRead, true)
	if hasInit {
		op('w', marker, 0)
		for k, read := range initRead {
			if read {
				op('w', x.key(KeyID(k)), 0)
			}
		}
		w.WriteString("-\n=\n")
	}
	for _, s := range h.Sessions {
		wrote := false
		for _, id := range s.Txns {
			t := &h.Txns[id]
			if !exported(t) {
				continue
			}
			if hasInit && !wrote {
				op('r', marker, 0)
			}
			for i, o := range t.Ops {
				kind := byte('r')
				if o.Kind == OpWrite {
					kind = 'w'
				}
				op(kind, x.key(o.Key), x.value(id, i))
			}
			w.WriteString("-\n")
			wrote = true
		}
		if wrote {
			w.WriteString("=\n")
		}
	}
	return w.Flush()
}

// awditInitial returns, by key, whether an exported transaction reads the
// key's initial value, and the marker key WriteAWDIT writes when one does:
// one past the largest key number.
func awditInitial(h *History, x *kvExport, exported func(*Txn) bool) (marker int64, initRead []bool) {
	initRead = make([]bool, len(h.Keys))
	for i := 1; i < len(h.Txns); i++ {
		if !exported(&h.Txns[i]) {
			continue
		}
		for _, op := range h.Txns[i].Ops {
			if op.Kind == OpRead && op.Writer == Init {
				initRead[op.Key] = true
			}
		}
	}
	for k := range h.Keys {
		marker = max(marker, x.key(KeyID(k))+1)
	}
	return marker, initRead
}

// foldAWDITInitial recognizes the initial transaction WriteAWDIT writes and
// makes it Init again: a first session of one transaction that writes only
// zeros, one of them to a key that nothing else writes and that the first
// transaction of every other session reads first (and nothing else reads).
// Such a transaction precedes every transaction through those reads, which
// is what Init is, so the fold changes no verdict: it drops the session and
// the marker's reads (so that numKeys declares no marker key), and the zeros
// then read Init's values. Keys are still numbers here (numKeys.ref).
func foldAWDITInitial(b *Builder, txns *rawTxns) {
	txns.end()
	if len(txns.heads) < 2 || len(b.h.Sessions) < 2 || txns.heads[0].session != 0 || txns.heads[1].session == 0 {
		return
	}
	init := txns.heads[0].ops
	if len(init) == 0 {
		return
	}
	for _, op := range init {
		if op.Kind != OpWrite || op.Value != 0 {
			return
		}
	}
	marker := init[0].Key
	first := make([]bool, len(txns.heads)) // the first transaction of each session
	seen := make([]bool, len(b.h.Sessions))
	for i, h := range txns.heads {
		first[i] = !seen[h.session]
		seen[h.session] = true
		for j, op := range h.ops {
			if op.Key == marker && i > 0 && !(first[i] && j == 0 && op.Kind == OpRead && op.Value == 0) {
				return
			}
		}
		if i > 0 && first[i] && (len(h.ops) == 0 || h.ops[0].Key != marker) {
			return
		}
	}
	txns.heads = txns.heads[1:]
	for i := range txns.heads {
		h := &txns.heads[i]
		h.session--
		if first[i+1] {
			h.ops = h.ops[1:]
		}
		for j := range h.ops {
			h.ops[j].Event = uint32(j)
		}
	}
	b.h.Sessions = b.h.Sessions[1:]
	for i := range b.h.Sessions {
		b.h.Sessions[i].ID, b.h.Sessions[i].Name = SessionID(i), strconv.Itoa(i)
	}
}
