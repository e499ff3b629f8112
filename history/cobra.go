package history

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// Cobra's initial-value write ids: a read of one of them read the initial
// state.
const (
	cobraInitWID  = 0xdeadbeef
	cobraInitWID2 = 0xbebeebee
)

// ReadCobra reads Cobra's binary logs, one file per client (session, in
// the order given). A log is a sequence of records, integers big-endian
// 64-bit: 'S' TXN starts a transaction, 'C' TXN commits it, 'A' TXN aborts
// it, 'W' WID KEY VAL writes, 'R' PREV WID KEY VAL reads the write WID
// (written by transaction PREV); KEY and VAL are hashes. Writes are
// identified by their write id, so a read is linked to the write with its
// WID. Initial reads: WID 0xdeadbeef or 0xbebeebee reads Init, so-before
// every transaction; another unmatched WID is a thin-air read. A
// transaction left open at the end of a log is pending; an aborted one is
// server-aborted. Errors name the byte offset.
func ReadCobra(files []LogFile) (*History, error) {
	b := NewBuilder()
	var keys intKeys
	name := ""
	for _, f := range files {
		name = f.Name
		data, err := readAllInput(f.R)
		if err != nil {
			return nil, fileErr(f.Name, "%v", err)
		}
		s := b.Session(f.Name)
		var tb *TxnBuilder
		var open int64
		for pos := 0; pos < len(data); {
			rec := data[pos]
			need := map[byte]int{'S': 8, 'C': 8, 'A': 8, 'W': 24, 'R': 32}[rec]
			if need == 0 {
				return nil, &ParseError{File: f.Name, Offset: int64(pos), Msg: fmt.Sprintf("unknown record type %q", rec)}
			}
			if len(data)-pos-1 < need {
				return nil, &ParseError{File: f.Name, Offset: int64(pos), Msg: fmt.Sprintf("record %q cut off: want %d bytes, have %d", rec, need, len(data)-pos-1)}
			}
			u := func(i int) int64 { return int64(binary.BigEndian.Uint64(data[pos+1+8*i:])) }
			bad := func(format string, args ...any) error {
				return &ParseError{File: f.Name, Offset: int64(pos), Msg: fmt.Sprintf(format, args...)}
			}
			switch rec {
			case 'S':
				if tb != nil {
					return nil, bad("transaction %d starts inside transaction %d", u(0), open)
				}
				tb, open = b.Txn(s, LevelUnknown).Name(strconv.FormatInt(u(0), 10)), u(0)
			case 'C', 'A':
				if tb == nil || u(0) != open {
					return nil, bad("%q of transaction %d, which is not the open one", rec, u(0))
				}
				if rec == 'C' {
					tb.End(Committed)
				} else {
					tb.End(ServerAborted)
				}
				tb = nil
			case 'W':
				if tb == nil {
					return nil, bad("write outside a transaction")
				}
				tb.Op(Op{Kind: OpWrite, Flags: FlagHasValue, Key: keys.get(b, u(1)), Value: u(0)})
			case 'R':
				if tb == nil {
					return nil, bad("read outside a transaction")
				}
				tb.Op(Op{Kind: OpRead, Flags: FlagReturned | FlagHasValue, Key: keys.get(b, u(2)), Value: u(1)})
			}
			pos += 1 + need
		}
	}
	if err := matchByValue(name, &b.h, nil, func(v int64) bool { return v == cobraInitWID || v == cobraInitWID2 }); err != nil {
		return nil, err
	}
	if err := b.h.validate(false); err != nil {
		return nil, fileErr(name, "%v", err)
	}
	return &b.h, nil
}
