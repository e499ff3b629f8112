package history

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
)

// dbcopEvent and dbcopTxn are the shape shared by dbcop's three formats.
type dbcopEvent struct {
	write   bool
	key     KeyID
	value   int64
	initial bool // a read of the uninitialised variable (null, "?")
	failed  bool // bincode's per-event success flag was false
}

type dbcopTxn struct {
	events    []dbcopEvent
	committed bool
	line      int32
}

// buildDBCop turns parsed dbcop sessions into a history. An uncommitted
// transaction is server-aborted (dbcop checks committed transactions only;
// reads of its writes are aborted reads). A failed event of the original
// format is left out of its transaction; a failed write goes to a
// server-aborted transaction of its session, so that reading it is an
// aborted read. Reads are linked to writes by value. Initial reads: a read
// of null ("x==?") reads Init and sees a tombstone; a read of 0 that no
// transaction wrote reads Init too (dbcop treats both as the initial state);
// Init is so-before every transaction, as in dbcop's root transaction.
func buildDBCop(name string, b *Builder, sessions [][]dbcopTxn) (*History, error) {
	lines := []int32{0}
	for si, sess := range sessions {
		s := b.Session(strconv.Itoa(si))
		var failed *TxnBuilder
		for _, dt := range sess {
			o := Committed
			if !dt.committed {
				o = ServerAborted
			}
			tb := b.Txn(s, LevelUnknown)
			tb.End(o)
			lines = append(lines, dt.line)
			for _, e := range dt.events {
				op := Op{Kind: OpRead, Key: e.key, Flags: FlagReturned | FlagHasValue, Value: e.value}
				switch {
				case e.write:
					op = Op{Kind: OpWrite, Key: e.key, Flags: FlagHasValue, Value: e.value}
				case e.initial:
					op = Op{Kind: OpRead, Key: e.key, Flags: FlagTombstone, Writer: Init}
				}
				switch {
				case !e.failed:
					tb.Op(op)
				case e.write:
					if failed == nil {
						failed = b.Txn(s, LevelUnknown).Name("failed writes")
						failed.End(ServerAborted)
						lines = append(lines, dt.line)
					}
					failed.Op(op)
				}
			}
		}
	}
	if err := matchByValue(name, &b.h, lines, func(v int64) bool { return v == 0 }); err != nil {
		return nil, err
	}
	if err := b.h.validate(false); err != nil {
		return nil, fileErr(name, "%v", err)
	}
	return &b.h, nil
}

// ReadDBCopBincode reads dbcop's original binary history (history.bincode,
// bincode 1 encoding, little-endian): u64 id, n_node, n_variable,
// n_transaction, n_event; three u64-length-prefixed strings (info, start,
// end); then the sessions, each a u64-counted list of transactions, each a
// u64-counted list of events (bool write, u64 variable, u64 value, bool
// success) followed by bool success. Errors name the byte offset. See
// buildDBCop for aborts and initial reads.
func ReadDBCopBincode(r io.Reader, name string) (*History, error) {
	data, err := readAllInput(r)
	if err != nil {
		return nil, fileErr(name, "%v", err)
	}
	d := &binDecoder{buf: data}
	for range 5 {
		d.u64()
	}
	for range 3 {
		n := d.count(1)
		d.skip(n)
	}
	b := NewBuilder()
	var keys intKeys
	sessions := make([][]dbcopTxn, d.count(8))
	for i := range sessions {
		sessions[i] = make([]dbcopTxn, d.count(9))
		for j := range sessions[i] {
			t := &sessions[i][j]
			t.line = 0
			t.events = make([]dbcopEvent, d.count(18))
			for k := range t.events {
				e := &t.events[k]
				e.write = d.boolean()
				v := d.u64()
				val := d.u64()
				e.failed = !d.boolean()
				if d.err != nil {
					break
				}
				if v > math.MaxInt64 || val > math.MaxInt64 {
					d.fail("variable or value %d out of range", max(v, val))
					break
				}
				e.key = keys.get(b, int64(v))
				e.value = int64(val)
			}
			t.committed = d.boolean()
		}
	}
	if d.err == nil && d.pos != len(d.buf) {
		d.fail("%d trailing bytes after the history", len(d.buf)-d.pos)
	}
	if d.err != nil {
		return nil, &ParseError{File: name, Offset: int64(d.errPos), Msg: d.err.Error()}
	}
	return buildDBCop(name, b, sessions)
}

// binDecoder reads bincode's fixed-width little-endian integers; the first
// error sticks and later reads return zeros.
type binDecoder struct {
	buf    []byte
	pos    int
	err    error
	errPos int
}

func (d *binDecoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err, d.errPos = fmt.Errorf(format, args...), d.pos
	}
}

func (d *binDecoder) u64() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.buf)-d.pos < 8 {
		d.fail("unexpected end of input (want 8 bytes, have %d)", len(d.buf)-d.pos)
		return 0
	}
	v := binary.LittleEndian.Uint64(d.buf[d.pos:])
	d.pos += 8
	return v
}

func (d *binDecoder) boolean() bool {
	if d.err != nil {
		return false
	}
	if d.pos >= len(d.buf) {
		d.fail("unexpected end of input (want a bool)")
		return false
	}
	c := d.buf[d.pos]
	if c > 1 {
		d.fail("bad bool byte %d", c)
		return false
	}
	d.pos++
	return c == 1
}

// count reads a length prefix and checks that that many items of at least
// minSize bytes each fit in the rest of the input.
func (d *binDecoder) count(minSize int) int {
	n := d.u64()
	if d.err != nil {
		return 0
	}
	if n > uint64(len(d.buf)-d.pos)/uint64(minSize) {
		d.pos -= 8
		d.fail("length %d exceeds the %d bytes left", n, len(d.buf)-d.pos-8)
		return 0
	}
	return int(n)
}

func (d *binDecoder) skip(n int) {
	if d.err == nil {
		d.pos += n
	}
}
