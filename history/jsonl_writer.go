package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strconv"
	"unicode/utf8"
)

// JSONLFormat and JSONLVersion name the fickle history format in its header
// line. docs/history-format.md describes every event.
const (
	JSONLFormat  = "fickle-history"
	JSONLVersion = 1
)

// ReadItem is one key inspected by a read event.
type ReadItem struct {
	Key       Key
	Writer    TxnID // whose version was seen; NoWriter for a value nobody wrote
	Returned  bool  // the row existed and matched the statement's predicate
	Tombstone bool  // the version seen was a tombstone (absent row)
	HasValue  bool  // Value holds the integer value read
	Value     int64
	Row       string // JSON row image seen, optional
	// Newer, when not Init, wrote the key's latest committed version at
	// the time of the read, which was not the one seen (a stale read).
	Newer TxnID
}

// WriteItem is one key written.
type WriteItem struct {
	Key       Key
	Tombstone bool // a delete
	HasValue  bool
	Value     int64
	Row       string // JSON row image written, optional
}

// Scan is a compact read event: the statement saw, for every key of Table
// (every key when Table is empty) declared so far, the co-latest version
// committed at or before AsOf in the commit order recorded so far (Init's
// when there is none), except the keys listed in Except, which saw what
// they say. Keys listed in Filtered were inspected but not returned; the
// others were returned unless their version is a tombstone.
type Scan struct {
	Table    string
	AsOf     TxnID
	Except   []ReadItem
	Filtered []Key
}

// Writer appends the events of a run to a fickle JSONL history as they
// happen. It buffers and flushes when a commit is recorded (Commit), so
// that a history on disk holds every transaction whose COMMIT the client saw
// acknowledged; call Commit before acknowledging. A Writer is not safe for
// concurrent use: the isolation engine's single owner calls it.
//
// The first error sticks: later calls return it and write nothing.
type Writer struct {
	w    *bufio.Writer
	keys map[Key]int64
	buf  []byte
	err  error
}

// Header is the metadata of the header line.
type Header struct {
	// Meta holds free-form string facts about the run (seed, strategy,
	// server version).
	Meta map[string]string
}

// NewWriter writes the header line to w and returns a Writer.
func NewWriter(w io.Writer, hdr Header) (*Writer, error) {
	wr := &Writer{w: bufio.NewWriterSize(w, 64<<10), keys: make(map[Key]int64)}
	b := append(wr.buf[:0], `{"format":"`+JSONLFormat+`","version":`...)
	b = strconv.AppendInt(b, JSONLVersion, 10)
	if len(hdr.Meta) > 0 {
		names := make([]string, 0, len(hdr.Meta))
		for n := range hdr.Meta {
			names = append(names, n)
		}
		sort.Strings(names)
		b = append(b, `,"meta":{`...)
		for i, n := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, n)
			b = append(b, ':')
			b = appendJSONString(b, hdr.Meta[n])
		}
		b = append(b, '}')
	}
	b = append(b, "}\n"...)
	wr.buf = b
	wr.emit()
	return wr, wr.err
}

func (w *Writer) emit() {
	if w.err == nil {
		_, w.err = w.w.Write(w.buf)
	}
	w.buf = w.buf[:0]
}

func (w *Writer) start(event string) []byte {
	return append(w.buf[:0], `{"e":"`+event+`"`...)
}

func appendField(b []byte, name string, v int64) []byte {
	b = append(b, `,"`...)
	b = append(b, name...)
	b = append(b, `":`...)
	return strconv.AppendInt(b, v, 10)
}

func appendStrField(b []byte, name, v string) []byte {
	b = append(b, `,"`...)
	b = append(b, name...)
	b = append(b, `":`...)
	return appendJSONString(b, v)
}

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\\ufffd"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// appendRow appends a row image: its JSON text when valid, else the text as
// a JSON string.
func appendRow(b []byte, row string) []byte {
	if json.Valid([]byte(row)) {
		return append(b, row...)
	}
	return appendJSONString(b, row)
}

func txnNum(t TxnID) int64 {
	if t == NoWriter {
		return -1
	}
	return int64(t)
}

// key returns the file's id for k, declaring it with a key event first.
func (w *Writer) key(k Key) int64 {
	if id, ok := w.keys[k]; ok {
		return id
	}
	id := int64(len(w.keys))
	w.keys[k] = id
	b := w.start("key")
	b = appendField(b, "k", id)
	if k.Table != "" {
		b = appendStrField(b, "table", k.Table)
	}
	b = appendStrField(b, "name", k.Name)
	w.buf = append(b, "}\n"...)
	w.emit()
	return id
}

// Session records the start of session s.
func (w *Writer) Session(s SessionID, name string) error {
	b := appendField(w.start("session"), "s", int64(s))
	if name != "" {
		b = appendStrField(b, "name", name)
	}
	w.buf = append(b, "}\n"...)
	w.emit()
	return w.err
}

// Begin records that transaction t started in session s at level; start is
// its wall-clock start in nanoseconds (0 when unknown) and name its name in
// a source format (empty for fickle's own runs).
func (w *Writer) Begin(t TxnID, s SessionID, level Level, start int64, name string) error {
	b := appendField(w.start("begin"), "t", int64(t))
	b = appendField(b, "s", int64(s))
	b = appendStrField(b, "level", level.String())
	if start != 0 {
		b = appendField(b, "start", start)
	}
	if name != "" {
		b = appendStrField(b, "name", name)
	}
	w.buf = append(b, "}\n"...)
	w.emit()
	return w.err
}

// Stmt records that t started a statement; the reads and writes recorded
// for t until its next Stmt belong to it.
func (w *Writer) Stmt(t TxnID, st Statement) error {
	b := appendField(w.start("stmt"), "t", int64(t))
	if st.SQL != "" {
		b = appendStrField(b, "sql", st.SQL)
	}
	if st.Table != "" {
		b = appendStrField(b, "table", st.Table)
	}
	if st.Predicate != "" {
		b = appendStrField(b, "pred", st.Predicate)
	}
	w.buf = append(b, "}\n"...)
	w.emit()
	return w.err
}

// Read records one read event of t that inspected items.
func (w *Writer) Read(t TxnID, items []ReadItem) error {
	for _, it := range items {
		w.key(it.Key)
	}
	b := appendField(w.start("read"), "t", int64(t))
	b = append(b, `,"r":`...)
	b = w.appendItems(b, items)
	b = w.appendNewer(b, items)
	w.buf = append(b, "}\n"...)
	w.emit()
	return w.err
}

// appendNewer appends the "newer" member of a read event: [key, writer]
// for each item that saw a version older than the latest committed one.
func (w *Writer) appendNewer(b []byte, items []ReadItem) []byte {
	first := true
	for _, it := range items {
		if it.Newer == Init {
			continue
		}
		if first {
			b = append(b, `,"newer":[`...)
			first = false
		} else {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, w.keys[it.Key], 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, txnNum(it.Newer), 10)
		b = append(b, ']')
	}
	if !first {
		b = append(b, ']')
	}
	return b
}

func (w *Writer) appendItems(b []byte, items []ReadItem) []byte {
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, w.keys[it.Key], 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, txnNum(it.Writer), 10)
		if it.Returned || it.Tombstone || it.HasValue || it.Row != "" {
			b = append(b, `,"`...)
			if it.Returned {
				b = append(b, 'r')
			}
			if it.Tombstone {
				b = append(b, 'd')
			}
			b = append(b, '"')
		}
		if it.HasValue || it.Row != "" {
			b = append(b, ',')
			if it.HasValue {
				b = strconv.AppendInt(b, it.Value, 10)
			} else {
				b = append(b, "null"...)
			}
		}
		if it.Row != "" {
			b = append(b, ',')
			b = appendRow(b, it.Row)
		}
		b = append(b, ']')
	}
	return append(b, ']')
}

// Scan records one compact read event of t (see Scan).
func (w *Writer) Scan(t TxnID, sc Scan) error {
	for _, it := range sc.Except {
		w.key(it.Key)
	}
	for _, k := range sc.Filtered {
		w.key(k)
	}
	b := appendField(w.start("scan"), "t", int64(t))
	if sc.Table != "" {
		b = appendStrField(b, "table", sc.Table)
	}
	b = appendField(b, "asof", txnNum(sc.AsOf))
	if len(sc.Except) > 0 {
		b = append(b, `,"except":`...)
		b = w.appendItems(b, sc.Except)
	}
	if len(sc.Filtered) > 0 {
		b = append(b, `,"filtered":[`...)
		for i, k := range sc.Filtered {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, w.keys[k], 10)
		}
		b = append(b, ']')
	}
	w.buf = append(b, "}\n"...)
	w.emit()
	return w.err
}

// Write records that t wrote it.
func (w *Writer) Write(t TxnID, it WriteItem) error {
	k := w.key(it.Key)
	b := appendField(w.start("write"), "t", int64(t))
	b = appendField(b, "k", k)
	if it.Tombstone {
		b = append(b, `,"del":true`...)
	}
	if it.HasValue {
		b = appendField(b, "v", it.Value)
	}
	if it.Row != "" {
		b = append(b, `,"row":`...)
		b = appendRow(b, it.Row)
	}
	w.buf = append(b, "}\n"...)
	w.emit()
	return w.err
}

// Commit records that t committed at wall-clock end (0 when unknown) and
// flushes the history to the underlying writer.
func (w *Writer) Commit(t TxnID, end int64) error {
	b := appendField(w.start("commit"), "t", int64(t))
	if end != 0 {
		b = appendField(b, "end", end)
	}
	w.buf = append(b, "}\n"...)
	w.emit()
	return w.Flush()
}

// Abort records that t ended with outcome o (ClientAborted, ServerAborted,
// or Pending for a transaction cut off by a closed connection), with its
// SQLSTATE when the server aborted it.
func (w *Writer) Abort(t TxnID, o Outcome, code string, end int64) error {
	if o == Committed {
		return w.Commit(t, end)
	}
	b := appendField(w.start("abort"), "t", int64(t))
	b = appendStrField(b, "o", o.String())
	if code != "" {
		b = appendStrField(b, "code", code)
	}
	if end != 0 {
		b = appendField(b, "end", end)
	}
	w.buf = append(b, "}\n"...)
	w.emit()
	return w.err
}

// CommitOrder records t's place in the commit order: right after after
// (Init for the first place), in the order as recorded so far. Committed
// and client-aborted transactions get one; a later event may insert a
// transaction before earlier ones.
func (w *Writer) CommitOrder(t, after TxnID) error {
	b := appendField(w.start("co"), "t", int64(t))
	b = appendField(b, "after", int64(after))
	w.buf = append(b, "}\n"...)
	w.emit()
	return w.err
}

// VersionOrder records the order in which the versions of key k were
// installed, by writer, when the source of the history reveals it (see
// History.VersionOrder).
func (w *Writer) VersionOrder(k Key, order []TxnID) error { return w.versionOrder(k, order, false) }

// Checkpoint records that the committed state was folded into Init and a
// new history starts: a reader keeps the sessions and keys, makes Init
// write each key's co-latest committed version, and drops every
// transaction recorded so far.
func (w *Writer) Checkpoint() error {
	w.buf = append(w.start("checkpoint"), "}\n"...)
	w.emit()
	return w.Flush()
}

// Flush writes buffered events to the underlying writer.
func (w *Writer) Flush() error {
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.err
}

// errWriterClosed is returned after Close.
var errWriterClosed = errors.New("history: writer closed")

// Close flushes the Writer; later calls fail. It does not close the
// underlying writer.
func (w *Writer) Close() error {
	err := w.Flush()
	if w.err == nil {
		w.err = errWriterClosed
	}
	return err
}
