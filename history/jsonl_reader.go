package history

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
)

func checkJSONLHeader(line []byte) error {
	s := jsonScanner{buf: line}
	var format string
	var version int64 = -1
	err := s.object(func(name []byte) error {
		var err error
		switch string(name) {
		case "format":
			format, err = s.str()
		case "version":
			version, err = s.int()
		default:
			_, err = s.raw()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("bad header line: %v", err)
	}
	if format != JSONLFormat {
		return fmt.Errorf("header names format %q, want %q", format, JSONLFormat)
	}
	if version < 1 || version > JSONLVersion {
		return fmt.Errorf("%s version %d is not supported (this fickle reads up to %d)", JSONLFormat, version, JSONLVersion)
	}
	return s.end()
}

// fastPrefix recognizes a line starting {"e":"NAME","t":INT and returns
// NAME, INT and the offset after them; ok is false for any other start.
func fastPrefix(line []byte) (e []byte, t int64, n int, ok bool) {
	const head, mid = `{"e":"`, `","t":`
	if len(line) < len(head) || string(line[:len(head)]) != head {
		return nil, 0, 0, false
	}
	i := len(head)
	for i < len(line) && line[i] != '"' && line[i] != '\\' {
		i++
	}
	e = line[len(head):i]
	if len(line)-i < len(mid) || string(line[i:i+len(mid)]) != mid {
		return nil, 0, 0, false
	}
	i += len(mid)
	j := i
	if j < len(line) && line[j] == '-' {
		j++
	}
	for j < len(line) && line[j] >= '0' && line[j] <= '9' {
		j++
	}
	t, err := parseInt(line[i:j])
	if err != nil {
		return nil, 0, 0, false
	}
	return e, t, j, true
}

// eventName returns the event name without allocating for known events.
func eventName(b []byte) string {
	for _, n := range eventNames {
		if string(b) == n {
			return n
		}
	}
	return string(b)
}

var eventNames = [...]string{"read", "write", "begin", "commit", "co", "stmt", "scan", "abort", "key", "session", "checkpoint", "order"}

// retired marks a file transaction id dropped by a checkpoint.
const retired = uint32(NoWriter - 1)

type jsonlReader struct {
	b        *Builder
	stmt     []int32 // by TxnID: the open statement (TxnBuilder.stmt)
	txns     idMap
	keys     idMap
	sessions idMap
	co       *coTracker
	coSeen   bool
	ended    []bool // by TxnID: commit or abort recorded
	scans    *scanIndex
	// opsPerTxn and stmtsPerTxn are moving averages of the operations and
	// statements of the transactions committed so far, for reserve and
	// reserveStmts: recent ones weigh most, so one huge transaction (pgbench
	// -i's load) does not make every later one reserve too much.
	opsPerTxn, stmtsPerTxn movingAverage
	// items and rows are the read items of the event being applied, with
	// their keys and writers resolved to the history's ids.
	items []Op
	rows  []rowImage
	// file is the file the row images are kept in, nil when they are read
	// into memory. A history with client reads has them read into memory
	// at its end: checking it reads them all.
	file        *rowFile
	clientReads bool
}

func newJSONLReader() *jsonlReader {
	jr := &jsonlReader{b: NewBuilder(), stmt: []int32{-1}, ended: []bool{true}}
	jr.co = newCoTracker()
	jr.txns.set(0, uint32(Init))
	return jr
}

// jsonlBytesPerTxn and jsonlBytesPerKey are about the fewest bytes a
// transaction and a key take in a recorded JSONL file (a pgbench history
// takes 2,500 and 620): reserveFor sizes the slices by them.
const (
	jsonlBytesPerTxn = 2048
	jsonlBytesPerKey = 512
)

// reserveFor gives the slices indexed by transaction and by key room for
// an input of size bytes, so that they are allocated once instead of
// doubling their way there (each doubling allocates and first-touches the
// pages of a copy). A larger input than guessed grows them as before.
func (jr *jsonlReader) reserveFor(size int64) {
	txns := int(min(size/jsonlBytesPerTxn, 1<<24))
	keys := int(min(size/jsonlBytesPerKey, 1<<24))
	if txns < 1024 {
		return
	}
	h := &jr.b.h
	h.Txns = grow(h.Txns, txns)
	jr.stmt = grow(jr.stmt, txns)
	jr.ended = grow(jr.ended, txns)
	jr.co.reserve(txns)
	h.Keys = grow(h.Keys, keys)
	if h.keyIndex == nil {
		h.keyIndex = newKeyIndex(h.Keys)
	}
	h.keyIndex.reserve(keys)
}

// fields of one event line; only those the event uses are set.
type jsonlEvent struct {
	e, name, table, level, sql, pred, outcome, code string
	t, s, k, after, asof, start, end, v             int64
	hasT, hasS, hasK, hasAfter, hasAsof, hasV, del  bool
	prefix                                          bool     // an order event's "prefix" member (jsonl_orders.go)
	row                                             rowImage // a write's row image
	hasR, hasExcept                                 bool
	items                                           [2]int32 // "r" or "except": the range of its items in the batch
	line                                            int      // the input line
	truncated                                       bool     // the last line, cut off without its newline
	filtered                                        []byte
	ts                                              []byte
	client                                          []byte // a read's "client" member (jsonl_client.go)
	newer                                           []byte // a read's "newer" member
}

// parse parses one event line into a new event of b; the strings it keeps
// are p's texts, its raw members slices of line.
func (p *jsonlParser) parse(line []byte, b *jsonlBatch) error {
	s := &p.s
	*s = jsonScanner{buf: line}
	b.events = append(b.events, jsonlEvent{})
	ev := &b.events[len(b.events)-1]
	ev.items = [2]int32{int32(len(b.items)), int32(len(b.items))}
	// The Writer starts every event with "e" and (most) with "t": read
	// those directly, the rest member by member.
	prefixed := false
	if e, t, n, ok := fastPrefix(line); ok {
		ev.e, ev.t, ev.hasT = eventName(e), t, true
		s.pos, prefixed = n, true
	}
	member := func(name []byte) error {
		var err error
		switch string(name) {
		case "e":
			var e []byte
			e, err = s.stringBytes()
			ev.e = eventName(e)
		case "t":
			ev.t, err = s.int()
			ev.hasT = true
		case "s":
			ev.s, err = s.int()
			ev.hasS = true
		case "k":
			ev.k, err = s.int()
			ev.hasK = true
		case "after":
			ev.after, err = s.int()
			ev.hasAfter = true
		case "asof":
			ev.asof, err = s.int()
			ev.hasAsof = true
		case "start":
			ev.start, err = s.int()
		case "end":
			ev.end, err = s.int()
		case "v":
			ev.v, err = s.int()
			ev.hasV = true
		case "del":
			ev.del, err = s.boolean()
		case "prefix":
			ev.prefix, err = s.boolean()
		case "name":
			ev.name, err = p.str()
		case "table":
			ev.table, err = p.str()
		case "level":
			ev.level, err = p.str()
		case "sql":
			ev.sql, err = p.str()
		case "pred":
			ev.pred, err = p.str()
		case "o":
			ev.outcome, err = p.str()
		case "code":
			ev.code, err = p.str()
		case "row":
			var row []byte
			if row, err = s.raw(); err == nil {
				ev.row, err = p.row(row)
			}
		case "r", "except":
			if ev.hasR || ev.hasExcept {
				return fmt.Errorf("both \"r\" and \"except\"")
			}
			ev.hasR, ev.hasExcept = name[0] == 'r', name[0] == 'e'
			err = p.readItems(b)
			ev.items[1] = int32(len(b.items))
		case "filtered":
			ev.filtered, err = s.raw()
		case "ts":
			ev.ts, err = s.raw()
		case "client":
			ev.client, err = s.raw()
		case "newer":
			ev.newer, err = s.raw()
		default:
			_, err = s.raw() // fields of later minor versions
		}
		return err
	}
	var err error
	if prefixed {
		err = s.objectRest(member)
	} else {
		err = s.object(member)
	}
	if err == nil {
		err = s.end()
	}
	return err
}

func (jr *jsonlReader) apply(ev *jsonlEvent) error {
	switch ev.e {
	case "key":
		if !ev.hasK || ev.k < 0 {
			return fmt.Errorf("key event without a key id")
		}
		if _, dup := jr.keys.get(ev.k); dup {
			return fmt.Errorf("key %d declared twice", ev.k)
		}
		id := jr.b.Key(ev.table, ev.name)
		jr.keys.set(ev.k, uint32(id))
		if jr.scans != nil {
			jr.scans.addKey(jr.b.h.Keys[id], id)
		}
		return nil
	case "session":
		if !ev.hasS {
			return fmt.Errorf("session event without a session id")
		}
		if _, dup := jr.sessions.get(ev.s); dup {
			return fmt.Errorf("session %d started twice", ev.s)
		}
		jr.sessions.set(ev.s, uint32(jr.b.Session(ev.name)))
		return nil
	case "begin":
		return jr.begin(ev)
	case "checkpoint":
		return jr.checkpoint()
	case "order":
		return jr.versionOrder(ev)
	case "incompatible":
		return jr.incompatibleOrder(ev)
	case "co", "stmt", "read", "scan", "write", "commit", "abort":
	default:
		return fmt.Errorf("unknown event %q", ev.e)
	}
	if !ev.hasT {
		return fmt.Errorf("%q event without a transaction", ev.e)
	}
	id, ok := jr.txns.get(ev.t)
	if !ok {
		return fmt.Errorf("%q event names transaction %d, which did not begin", ev.e, ev.t)
	}
	if id == retired {
		return nil // began before the last checkpoint
	}
	t := TxnID(id)
	if ev.e == "co" {
		return jr.commitOrder(t, ev)
	}
	if t == Init {
		if ev.e != "write" {
			return fmt.Errorf("%q event for Init", ev.e)
		}
		return jr.write(t, nil, ev)
	}
	if jr.ended[t] {
		return fmt.Errorf("%q event for transaction %d, which has ended", ev.e, ev.t)
	}
	tb := &TxnBuilder{b: jr.b, id: t, stmt: int(jr.stmt[t])}
	switch ev.e {
	case "stmt":
		jr.reserveStmts(tb.txn())
		tb.Stmt(Statement{SQL: ev.sql, Table: ev.table, Predicate: ev.pred})
		jr.stmt[t] = int32(tb.stmt)
	case "read":
		if !ev.hasR {
			return fmt.Errorf("read event without \"r\"")
		}
		if ev.client != nil {
			jr.clientReads = true
			if err := jr.clientRead(tb, ev.client); err != nil {
				return err
			}
			jr.stmt[t] = int32(tb.stmt)
			return nil
		}
		n := len(tb.txn().Ops)
		jr.addItems(tb)
		if ev.newer != nil {
			return jr.staleReads(tb.txn(), n, ev.newer)
		}
	case "scan":
		return jr.scan(tb, ev)
	case "write":
		return jr.write(t, tb, ev)
	case "commit":
		tb.txn().End = ev.end
		tb.End(Committed)
		jr.ended[t] = true
		jr.opsPerTxn.add(len(tb.txn().Ops))
		jr.stmtsPerTxn.add(len(tb.txn().Statements))
		if jr.co.in(t) && jr.scans != nil {
			jr.scans.addTxn(&jr.b.h, jr.co, t)
		}
	case "abort":
		o := ClientAborted
		if ev.outcome != "" {
			var err error
			if o, err = ParseOutcome(ev.outcome); err != nil || o == Committed {
				return fmt.Errorf("bad abort outcome %q", ev.outcome)
			}
		}
		tb.txn().End = ev.end
		tb.End(o)
		jr.ended[t] = true
	}
	return nil
}

func (jr *jsonlReader) begin(ev *jsonlEvent) error {
	if !ev.hasT || !ev.hasS {
		return fmt.Errorf("begin event without a transaction or session")
	}
	if _, dup := jr.txns.get(ev.t); dup {
		return fmt.Errorf("transaction %d began twice", ev.t)
	}
	level := LevelUnknown
	if ev.level != "" && ev.level != "unknown" {
		var err error
		if level, err = ParseLevel(ev.level); err != nil {
			return err
		}
	}
	sid, ok := jr.sessions.get(ev.s)
	if !ok {
		sid = uint32(jr.b.Session(strconv.FormatInt(ev.s, 10)))
		jr.sessions.set(ev.s, sid)
	}
	if len(jr.b.h.Txns) >= int(retired) {
		return fmt.Errorf("too many transactions")
	}
	tb := jr.b.Txn(SessionID(sid), level)
	t := tb.txn()
	t.Start, t.Name = ev.start, ev.name
	jr.txns.set(ev.t, uint32(tb.id))
	jr.stmt = append(grow(jr.stmt, 1), -1)
	jr.ended = append(grow(jr.ended, 1), false)
	jr.co.grow(len(jr.b.h.Txns))
	return nil
}

// row returns a row image the scanner has just read as b: a reference
// into the input file when the read keeps them there, else a text.
func (p *jsonlParser) row(b []byte) (rowImage, error) {
	switch {
	case len(b) == 0:
		return rowImage{}, nil
	case !p.inFile:
		return rowImage{text: p.texts.row(b)}, nil
	case len(b) > math.MaxUint32:
		return rowImage{}, fmt.Errorf("a row image of %d bytes (at most 4 GiB)", len(b))
	}
	return rowImage{ref: rowRef{off: p.lineOff + int64(p.s.pos-len(b)), n: uint32(len(b)), sum: rowSum(b)}}, nil
}

// str reads a JSON string as a string of p.texts.
func (p *jsonlParser) str() (string, error) {
	b, err := p.s.stringBytes()
	return p.texts.text(b), err
}

func (jr *jsonlReader) txnRef(n int64) (TxnID, error) {
	if n == -1 {
		return NoWriter, nil
	}
	id, ok := jr.txns.get(n)
	if !ok || id == retired {
		return 0, fmt.Errorf("unknown transaction %d", n)
	}
	return TxnID(id), nil
}

func (jr *jsonlReader) keyRef(n int64) (KeyID, error) {
	id, ok := jr.keys.get(n)
	if !ok {
		return 0, fmt.Errorf("undeclared key %d", n)
	}
	return KeyID(id), nil
}

// readItems parses an array of read items into b's items, refs and rows;
// the keys and writers are resolved when the event is applied.
func (p *jsonlParser) readItems(b *jsonlBatch) error {
	s := &p.s
	return s.array(func(int) error {
		op := Op{Kind: OpRead}
		var ref itemRef
		var row rowImage
		err := s.array(func(i int) error {
			var err error
			switch i {
			case 0:
				ref.key, err = s.int()
				return err
			case 1:
				ref.writer, err = s.int()
				return err
			case 2:
				f, err := s.stringBytes()
				for _, c := range f {
					switch c {
					case 'r':
						op.Flags |= FlagReturned
					case 'd':
						op.Flags |= FlagTombstone
					default:
						return fmt.Errorf("bad read flag %q", c)
					}
				}
				return err
			case 3:
				if s.null() {
					return nil
				}
				op.Value, err = s.int()
				op.Flags |= FlagHasValue
				return err
			case 4:
				var raw []byte
				if raw, err = s.raw(); err != nil {
					return err
				}
				row, err = p.row(raw)
				return err
			}
			return fmt.Errorf("read item has more than 5 elements")
		})
		if err != nil {
			return err
		}
		b.items = append(b.items, op)
		b.refs = append(b.refs, ref)
		b.rows = append(b.rows, row)
		return nil
	})
}

// resolveItems sets jr.items and jr.rows to ev's read items, with the
// file's key and transaction ids replaced by the history's.
func (jr *jsonlReader) resolveItems(b *jsonlBatch, ev *jsonlEvent) error {
	lo, hi := ev.items[0], ev.items[1]
	jr.items = append(jr.items[:0], b.items[lo:hi]...)
	jr.rows = append(jr.rows[:0], b.rows[lo:hi]...)
	for i, ref := range b.refs[lo:hi] {
		var err error
		if jr.items[i].Key, err = jr.keyRef(ref.key); err != nil {
			return err
		}
		if jr.items[i].Writer, err = jr.txnRef(ref.writer); err != nil {
			return err
		}
	}
	return nil
}

func (jr *jsonlReader) addItems(tb *TxnBuilder) {
	jr.reserve(tb.txn(), len(jr.items))
	n := len(tb.txn().Ops)
	tb.addGroup(jr.items)
	for i, row := range jr.rows {
		tb.setRowImage(n+i, row, jr.file)
	}
}

func (jr *jsonlReader) write(t TxnID, tb *TxnBuilder, ev *jsonlEvent) error {
	if !ev.hasK {
		return fmt.Errorf("write event without a key")
	}
	k, err := jr.keyRef(ev.k)
	if err != nil {
		return err
	}
	op := Op{Kind: OpWrite, Key: k, Value: ev.v}
	if ev.del {
		op.Flags |= FlagTombstone
	}
	if ev.hasV {
		op.Flags |= FlagHasValue
	}
	if t == Init {
		init := &jr.b.h.Txns[Init]
		op.Event = uint32(len(init.Ops))
		init.Ops = append(init.Ops, op)
		init.appendNoRow()
		init.setRowImage(len(init.Ops)-1, ev.row, jr.file)
		if jr.scans != nil {
			jr.scans.addWrite(Init, 0, op)
		}
		return nil
	}
	jr.reserve(tb.txn(), 1)
	tb.Op(op)
	tb.setRowImage(len(tb.txn().Ops)-1, ev.row, jr.file)
	return nil
}

func (jr *jsonlReader) commitOrder(t TxnID, ev *jsonlEvent) error {
	after := TxnID(Init)
	if ev.hasAfter {
		var err error
		if after, err = jr.txnRef(ev.after); err != nil {
			return err
		}
	} else {
		after = jr.co.last
	}
	if err := jr.co.insertAfter(t, after); err != nil {
		return err
	}
	jr.coSeen = true
	if jr.scans != nil && jr.ended[t] {
		jr.scans.addTxn(&jr.b.h, jr.co, t)
	}
	return nil
}

func (jr *jsonlReader) finish() (*History, error) {
	if jr.coSeen {
		jr.b.h.CommitOrder = jr.co.order()
		if jr.b.h.validateCommitOrder() != nil {
			// A history cut off between a commit and its place in the
			// order: drop the order rather than invent a place.
			jr.b.h.CommitOrder = nil
		}
	}
	h := &jr.b.h
	if err := h.Validate(); err != nil {
		return nil, err
	}
	if jr.file != nil && jr.clientReads {
		if err := jr.file.intoMemory(h); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// hasJSONLHeader reports whether b starts like a fickle JSONL header line.
func hasJSONLHeader(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	i := bytes.Index(b, []byte(`"format"`))
	return bytes.HasPrefix(b, []byte("{")) && i >= 0 && i < 16 && bytes.Contains(b[:min(len(b), 64)], []byte(JSONLFormat))
}

// versionOrder applies an order event: key k's versions were installed by
// the listed transactions, in that order (with "prefix", before every
// other committed writer of k).
func (jr *jsonlReader) versionOrder(ev *jsonlEvent) error {
	if !ev.hasK || ev.ts == nil {
		return fmt.Errorf("order event without \"k\" and \"ts\"")
	}
	k, err := jr.keyRef(ev.k)
	if err != nil {
		return err
	}
	var order []TxnID
	s := jsonScanner{buf: ev.ts}
	err = s.array(func(int) error {
		n, err := s.int()
		if err != nil {
			return err
		}
		t, err := jr.txnRef(n)
		if err == nil && (t == Init || t == NoWriter) {
			err = fmt.Errorf("version order names transaction %d", n)
		}
		order = append(order, t)
		return err
	})
	if err != nil {
		return err
	}
	h := &jr.b.h
	for len(h.VersionOrder) < len(h.Keys) {
		h.VersionOrder = append(h.VersionOrder, nil)
	}
	h.VersionOrder[k] = order
	h.setVersionOrderPrefix(k, ev.prefix)
	return nil
}

// reserveStmts gives a transaction's first statement a capacity of about
// the average transaction's statements, as reserve does for operations.
func (jr *jsonlReader) reserveStmts(t *Txn) {
	if t.Statements != nil || jr.stmtsPerTxn.n == 0 {
		return
	}
	t.Statements = make([]Statement, 0, min(jr.stmtsPerTxn.value()+1, 64))
}

// reserve gives a transaction's first operations a capacity of about the
// average transaction's, so that its operations are not reallocated four
// times on the way to eight.
func (jr *jsonlReader) reserve(t *Txn, n int) {
	if t.Ops != nil {
		return
	}
	hint := 4
	if jr.opsPerTxn.n > 0 {
		hint = min(jr.opsPerTxn.value()+1, 64)
	}
	t.Ops = make([]Op, 0, max(hint, n))
}

// staleReads reads a read event's "newer" member, [[key, writer], ...],
// into t.Stale: the event's items are t's ops from first on.
func (jr *jsonlReader) staleReads(t *Txn, first int, raw []byte) error {
	s := &jsonScanner{buf: raw}
	err := s.array(func(int) error {
		var key KeyID
		var latest TxnID
		err := s.array(func(i int) error {
			n, err := s.int()
			if err != nil {
				return err
			}
			switch i {
			case 0:
				key, err = jr.keyRef(n)
			case 1:
				latest, err = jr.txnRef(n)
			default:
				err = fmt.Errorf("a \"newer\" entry has more than 2 elements")
			}
			return err
		})
		if err != nil {
			return err
		}
		for i := first; i < len(t.Ops); i++ {
			if t.Ops[i].Key == key {
				t.Stale = append(t.Stale, StaleRead{Op: int32(i), Latest: latest})
				return nil
			}
		}
		return fmt.Errorf("\"newer\" names key %d, which the read does not list", key)
	})
	if err == nil {
		err = s.end()
	}
	return err
}

// movingAverage is an exponential moving average of counts, with weight
// 1/8 for the newest.
type movingAverage struct {
	n   int
	avg float64
}

func (m *movingAverage) add(x int) {
	if m.n == 0 {
		m.avg = float64(x)
	} else {
		m.avg += (float64(x) - m.avg) / 8
	}
	m.n++
}

func (m *movingAverage) value() int { return int(m.avg + 0.5) }
