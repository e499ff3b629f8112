package history

import (
	"fmt"
	"strings"
)

// Level is a transaction's isolation level, weakest first.
type Level uint8

// The isolation levels of DESIGN.md §3, in order of strength.
const (
	LevelUnknown Level = iota
	ReadCommitted
	ReadAtomic
	Causal
	Prefix
	Snapshot
	Serializable
)

var levelNames = [...]string{"unknown", "RC", "RA", "CC", "PC", "SI", "SER"}

// String returns the short name (RC, RA, CC, PC, SI, SER).
func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", l)
}

// Levels lists the six levels from weakest to strongest.
var Levels = []Level{ReadCommitted, ReadAtomic, Causal, Prefix, Snapshot, Serializable}

// ParseLevel accepts fickle's short and long names and PostgreSQL's names, in
// any case, with spaces, dashes or underscores.
func ParseLevel(s string) (Level, error) {
	for l, name := range levelNames {
		if s == name && l != int(LevelUnknown) {
			return Level(l), nil
		}
	}
	n := strings.NewReplacer("-", " ", "_", " ").Replace(strings.ToLower(strings.TrimSpace(s)))
	switch n {
	case "rc", "read committed", "read uncommitted":
		return ReadCommitted, nil
	case "ra", "read atomic":
		return ReadAtomic, nil
	case "cc", "causal", "causal consistency":
		return Causal, nil
	case "pc", "prefix", "prefix consistency":
		return Prefix, nil
	case "si", "snapshot", "snapshot isolation", "repeatable read":
		return Snapshot, nil
	case "ser", "serializable", "serializability":
		return Serializable, nil
	}
	return LevelUnknown, fmt.Errorf("unknown isolation level %q", s)
}

// Outcome is how a transaction ended.
type Outcome uint8

// Transaction outcomes. A client-aborted transaction has no visible writes but
// its reads are checked and it has a place in the commit order; a
// server-aborted one (40001, 40P01) is ignored by the checker.
const (
	Committed Outcome = iota
	ClientAborted
	ServerAborted
	Pending
)

var outcomeNames = [...]string{"committed", "client-aborted", "server-aborted", "pending"}

// String returns the outcome's name as used in the JSONL format.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", o)
}

// ParseOutcome is the inverse of Outcome.String.
func ParseOutcome(s string) (Outcome, error) {
	for i, n := range outcomeNames {
		if n == s {
			return Outcome(i), nil
		}
	}
	return 0, fmt.Errorf("unknown transaction outcome %q", s)
}

// TxnID identifies a transaction: its index in History.Txns. Init (0) is the
// transaction that wrote the initial version of every key.
type TxnID uint32

// Init is the initial transaction, so-before every other transaction.
const Init TxnID = 0

// NoWriter marks a read whose value no write in the history produced (a
// thin-air read in an imported history).
const NoWriter TxnID = ^TxnID(0)

// SessionID identifies a session: its index in History.Sessions.
type SessionID uint32

// KeyID identifies a key: its index in History.Keys.
type KeyID uint32

// Key is a (table, primary key) pair; Name is the primary key's text form.
// Formats without tables use an empty Table.
type Key struct {
	Table string
	Name  string
}

// String returns "table/name", or the name alone when there is no table.
func (k Key) String() string {
	if k.Table == "" {
		return k.Name
	}
	return k.Table + "/" + k.Name
}

// OpKind says whether an operation reads or writes a key.
type OpKind uint8

// Operation kinds.
const (
	OpRead OpKind = iota
	OpWrite
)

// OpFlags qualify an operation.
type OpFlags uint8

// Operation flags.
const (
	// FlagTombstone on a write: the write deletes the key. On a read: the
	// version seen was a tombstone (absent row).
	FlagTombstone OpFlags = 1 << iota
	// FlagReturned on a read: the row was returned to the client (it existed
	// and matched the statement's predicate). Reads without it are
	// observations too: the row was inspected and filtered out or absent.
	FlagReturned
	// FlagHasValue: Value holds the integer value written or read (imported
	// formats identify writes by value).
	FlagHasValue
)

// Op is one key-level operation of a transaction. A statement that inspects
// several keys (a predicate read) is several consecutive read Ops with the
// same Event, the statement's index in Txn.Statements.
type Op struct {
	Kind   OpKind
	Flags  OpFlags
	Key    KeyID
	Event  uint32 // statement number within the transaction
	Writer TxnID  // reads: whose version was seen (the reader itself for its own write)
	Value  int64  // with FlagHasValue: the value written or read
}

// Statement describes one read or write event in the user's terms.
type Statement struct {
	SQL       string // the SQL text, when known
	Table     string // the table it reads or writes
	Predicate string // the WHERE clause of a predicate read, when any
	// Client, when set, makes the statement a client read (paper 000,
	// Def. 4): its read ops list only the rows it returned, and every
	// other key of Client.Table it did not write before may have been
	// inspected and filtered out by Client.Where, from a version the
	// history does not say. The checker fills in those versions.
	Client *ClientRead
}

// ClientRead is the predicate of a client read in a form the checker
// evaluates on row images without parsing SQL: a conjunction of
// comparisons of a row's column with a constant. A row matches when it
// exists and satisfies every condition; an empty Where matches every row.
type ClientRead struct {
	Table string
	Where []Condition
}

// Condition compares the column Column of a row image (a JSON object) with
// the constant Value, a JSON number, string or boolean. A missing or null
// column, or one of another JSON type than Value, satisfies no condition;
// numbers compare by value, strings byte by byte, false before true.
type Condition struct {
	Column string
	Op     CompareOp
	Value  string // the constant's JSON text
}

// CompareOp is a comparison of a Condition.
type CompareOp string

// The comparisons.
const (
	OpEq CompareOp = "="
	OpNe CompareOp = "<>"
	OpLt CompareOp = "<"
	OpLe CompareOp = "<="
	OpGt CompareOp = ">"
	OpGe CompareOp = ">="
)

// Valid reports whether op is one of the comparisons.
func (op CompareOp) Valid() bool {
	switch op {
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
		return true
	}
	return false
}

// HasClientReads reports whether any statement of h is a client read.
func (h *History) HasClientReads() bool {
	for i := range h.Txns {
		for j := range h.Txns[i].Statements {
			if h.Txns[i].Statements[j].Client != nil {
				return true
			}
		}
	}
	return false
}

// Txn is one transaction of a history.
type Txn struct {
	ID         TxnID
	Session    SessionID
	Level      Level
	Outcome    Outcome
	Name       string // the transaction's name in the source format, if any
	Ops        []Op
	Statements []Statement // indexed by Op.Event; nil when unknown
	// Rows, parallel to Ops, holds the row images (JSON) written or read,
	// when they are known and kept in memory; nil otherwise. A history read
	// from a file may keep them there instead: read them with Row (rows.go).
	Rows []string
	// Stale lists the reads that saw a version older than the key's latest
	// committed one at the time of the read, as the server that recorded
	// the history knew it; nil when none or unknown (imported histories).
	Stale      []StaleRead
	Start, End int64 // wall-clock nanoseconds, 0 when unknown (real-time variants)
	// rowRefs, parallel to Ops, are the row images kept in rowFile.
	rowRefs []rowRef
	rowFile *rowFile
}

// StaleRead marks the read Txn.Ops[Op] as served a version other than the
// key's latest committed one, which Latest wrote (JSONL: a read event's
// "newer" member).
type StaleRead struct {
	Op     int32
	Latest TxnID
}

// LatestOf returns the writer of the latest committed version when op i of
// t read an older one, and false when the read saw the latest (or the
// history does not say).
func (t *Txn) LatestOf(i int) (TxnID, bool) {
	for _, s := range t.Stale {
		if int(s.Op) == i {
			return s.Latest, true
		}
	}
	return 0, false
}

// Session is one session's transactions in session order.
type Session struct {
	ID   SessionID
	Name string
	Txns []TxnID
}

// History is a complete recorded history. Txns[0] is Init, which writes every
// key's initial version (a tombstone unless data was loaded first).
type History struct {
	Keys        []Key
	Sessions    []Session
	Txns        []Txn
	CommitOrder []TxnID // the server's commit order, when recorded; nil otherwise
	// Checkpoints counts the checkpoints the source went through: the
	// history is what followed the last of them (fickle_checkpoint()).
	Checkpoints int
	// VersionOrder, when the source format reveals it (Elle list-append),
	// lists by KeyID the transactions whose writes to the key were
	// observed, in the order the key's versions were installed; a
	// consistent commit order orders them so. Nil when unknown, and nil
	// for a key whose order is unknown.
	VersionOrder [][]TxnID
	// VersionOrderPrefix, by KeyID, marks the keys whose VersionOrder is
	// only a prefix of the key's version order: the versions listed were
	// installed first, in that order, and every other committed writer
	// of the key installed its version after the last one listed, in an
	// order not observed (Elle's list-append inference: the longest list
	// read of a key shows a prefix of its appends, so an append no read
	// showed came after the list's last element). Nil, or false for a
	// key, when the order says nothing of the writers it does not list.
	VersionOrderPrefix []bool
	// IncompatibleOrders lists, one per key, two list-append reads (Elle)
	// whose lists are not prefixes of one another: no version order of the
	// key explains both, a structural violation of every level (Elle's
	// incompatible order, which implies G1a). Such a key has no
	// VersionOrder.
	IncompatibleOrders []IncompatibleOrder

	keyIndex *keyIndex
}

// IncompatibleOrder is two reads of Key whose lists disagree: Reads[i] is
// operation Op of transaction Txn, which read the list List. Others are
// the key's other list reads: with no version order to rebuild them from,
// an export writes them as they were read.
type IncompatibleOrder struct {
	Key    KeyID
	Reads  [2]ListRead
	Others []ListRead
}

// ListRead is a list-append read: operation Op of Txn read List (the read
// Op itself records List's last element).
type ListRead struct {
	Txn  TxnID
	Op   int
	List []int64
}

// Intern returns the id of k, adding it to h.Keys if it is new.
func (h *History) Intern(k Key) KeyID {
	if h.keyIndex == nil {
		h.keyIndex = newKeyIndex(h.Keys)
	}
	return h.keyIndex.intern(&h.Keys, k)
}
