package history

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ElleModel is the Elle workload an EDN export is written for: Elle checks
// rw-register and list-append histories with different checkers.
type ElleModel string

// The Elle models WriteElleEDNModel writes. ElleAuto picks one from the
// history (ElleModelOf).
const (
	ElleAuto       ElleModel = "auto"
	ElleRWRegister ElleModel = "rw-register"
	ElleListAppend ElleModel = "list-append"
)

// ElleModels lists the models' names, for usage messages.
var ElleModels = []ElleModel{ElleAuto, ElleRWRegister, ElleListAppend}

// ParseElleModel accepts a model's name ("" is auto).
func ParseElleModel(s string) (ElleModel, error) {
	switch m := ElleModel(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ElleAuto, nil
	case ElleAuto, ElleRWRegister, ElleListAppend:
		return m, nil
	}
	names := make([]string, len(ElleModels))
	for i, m := range ElleModels {
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown Elle model %q (known: %s)", s, strings.Join(names, ", "))
}

// ElleModelOf returns the model ElleAuto writes h in: list-append when h
// came from a list-append history (it carries version orders or
// incompatible orders), rw-register otherwise.
func ElleModelOf(h *History) ElleModel {
	if h.VersionOrder != nil || len(h.IncompatibleOrders) > 0 {
		return ElleListAppend
	}
	return ElleRWRegister
}

// CheckElleListAppend says why h cannot be written as an Elle list-append
// history, or nil when it can: its keys' version orders must be known,
// from a list-append import or a recorded commit order.
func CheckElleListAppend(h *History) error {
	if h.VersionOrder != nil || len(h.IncompatibleOrders) > 0 || h.CommitOrder != nil {
		return nil
	}
	return fmt.Errorf("list-append export needs each key's version order, and this history has neither a commit order nor list-append reads; export it as rw-register")
}

// WriteElleEDN writes h as a Jepsen/Elle history in EDN in the model
// ElleModelOf picks (see WriteElleEDNModel).
func WriteElleEDN(out io.Writer, h *History) error {
	return WriteElleEDNModel(out, h, ElleAuto)
}

// WriteElleEDNModel writes h as a Jepsen/Elle history in EDN, one
// operation map a line: for each transaction an :invoke and its completion
// (:ok when committed, :fail when aborted, :info when pending), processes
// numbered by session. Keys and values follow kvExport. :time is the
// transaction's start and end when recorded, else its place in the file,
// so that sessions appear one after another.
//
// As rw-register, reads are [:r k v], with nil for a read of Init, and
// writes [:w k v]; a delete writes a fresh value, since Elle has no
// tombstones.
//
// As list-append, writes are [:append k v] (a delete appends a fresh
// value) and a read is [:r k [v1 ... vn]]: the values of the versions of k
// up to the one it read, in the key's version order, which must be known
// (elleLists says from where); [] for a read of Init. Reads in :invoke
// operations are [:r k nil], as Jepsen writes them. Reading the result
// back (ReadElleEDN) gives the same reads, version orders and incompatible
// orders.
func WriteElleEDNModel(out io.Writer, h *History, model ElleModel) error {
	if model == ElleAuto {
		model = ElleModelOf(h)
	}
	x := newKVExport(h)
	var lists *elleLists
	switch model {
	case ElleRWRegister:
	case ElleListAppend:
		var err error
		if lists, err = newElleLists(h, x); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown Elle model %q", model)
	}
	w := bufio.NewWriterSize(out, 64<<10)
	var value, invoke []byte
	index := int64(0)
	for si, s := range h.Sessions {
		for _, id := range s.Txns {
			t := &h.Txns[id]
			value, invoke = append(value[:0], '['), append(invoke[:0], '[')
			for i, op := range t.Ops {
				if i > 0 {
					value, invoke = append(value, ' '), append(invoke, ' ')
				}
				start := len(value)
				v, initial := x.valueInit(id, i)
				switch {
				case op.Kind == OpWrite && lists != nil:
					value = append(value, "[:append "...)
				case op.Kind == OpWrite:
					value = append(value, "[:w "...)
				default:
					value = append(value, "[:r "...)
				}
				value = strconv.AppendInt(value, x.key(op.Key), 10)
				value = append(value, ' ')
				if lists != nil && op.Kind == OpRead {
					invoke = append(append(invoke, value[start:]...), "nil]"...)
					value = appendEDNList(value, lists.read(id, i))
				} else {
					if op.Kind == OpRead && initial {
						value = append(value, "nil"...)
					} else {
						value = strconv.AppendInt(value, v, 10)
					}
					invoke = append(invoke, value[start:]...)
					invoke = append(invoke, ']')
				}
				value = append(value, ']')
			}
			value, invoke = append(value, ']'), append(invoke, ']')
			if lists == nil {
				invoke = append(invoke[:0], value...)
			}
			start, end := t.Start, t.End
			if start == 0 && end == 0 {
				start, end = index, index+1
			}
			typ := ":ok"
			switch t.Outcome {
			case ClientAborted, ServerAborted:
				typ = ":fail"
			case Pending:
				typ = ":info"
			}
			writeElleOp(w, index, start, ":invoke", si, invoke)
			writeElleOp(w, index+1, end, typ, si, value)
			index += 2
		}
	}
	return w.Flush()
}

func appendEDNList(b []byte, list []int64) []byte {
	b = append(b, '[')
	for i, v := range list {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, v, 10)
	}
	return append(b, ']')
}

func writeElleOp(w *bufio.Writer, index, time int64, typ string, process int, value []byte) {
	var b [96]byte
	line := append(b[:0], "{:index "...)
	line = strconv.AppendInt(line, index, 10)
	line = append(line, ", :time "...)
	line = strconv.AppendInt(line, time, 10)
	line = append(line, ", :type "...)
	line = append(line, typ...)
	line = append(line, ", :process "...)
	line = strconv.AppendInt(line, int64(process), 10)
	line = append(line, ", :f :txn, :value "...)
	w.Write(line)
	w.Write(value)
	w.WriteString("}\n")
}

// elleLists gives each read of a history the list a list-append database
// would have returned. Each key's version order comes from
// History.VersionOrder (a list-append import) or else from the commit
// order (a history fickle recorded); the key's writers that neither names
// (unobserved, or not committed) follow, by id, aborted ones aside. A
// version's list is the values appended by the versions before it and its
// own appends, in operation order.
type elleLists struct {
	h *History
	x *kvExport
	// flat holds, by key, the values of every version's appends in
	// version order; span locates one transaction's appends in it.
	flat [][]int64
	span map[txnKey][2]int
	// recorded holds the lists of the reads of incompatible orders, which
	// no version order gives.
	recorded map[opRef][]int64
}

type txnKey struct {
	txn TxnID
	key KeyID
}

func newElleLists(h *History, x *kvExport) (*elleLists, error) {
	l := &elleLists{h: h, x: x, flat: make([][]int64, len(h.Keys)), span: make(map[txnKey][2]int)}
	orders := make([][]TxnID, len(h.Keys))
	switch {
	case h.VersionOrder != nil || len(h.IncompatibleOrders) > 0:
		for k := range orders {
			if k < len(h.VersionOrder) {
				orders[k] = append([]TxnID(nil), h.VersionOrder[k]...)
			}
		}
	case h.CommitOrder != nil:
		for _, t := range h.CommitOrder {
			if t == Init || int(t) >= len(h.Txns) || h.Txns[t].Outcome != Committed {
				continue
			}
			seen := make(map[KeyID]bool)
			for _, op := range h.Txns[t].Ops {
				if op.Kind == OpWrite && !seen[op.Key] {
					seen[op.Key] = true
					orders[op.Key] = append(orders[op.Key], t)
				}
			}
		}
	default:
		return nil, CheckElleListAppend(h)
	}
	placed := make(map[txnKey]bool)
	for k, order := range orders {
		for _, t := range order {
			placed[txnKey{t, KeyID(k)}] = true
		}
	}
	for i := 1; i < len(h.Txns); i++ {
		t := &h.Txns[i]
		if t.Outcome == ClientAborted || t.Outcome == ServerAborted {
			continue
		}
		for _, op := range t.Ops {
			if tk := (txnKey{TxnID(i), op.Key}); op.Kind == OpWrite && !placed[tk] {
				placed[tk] = true
				orders[op.Key] = append(orders[op.Key], TxnID(i))
			}
		}
	}
	for k, order := range orders {
		for _, t := range order {
			start := len(l.flat[k])
			l.flat[k] = append(l.flat[k], l.appends(t, KeyID(k), len(h.Txns[t].Ops))...)
			l.span[txnKey{t, KeyID(k)}] = [2]int{start, len(l.flat[k])}
		}
	}
	for _, io := range h.IncompatibleOrders {
		for _, r := range append(io.Reads[:], io.Others...) {
			if l.recorded == nil {
				l.recorded = make(map[opRef][]int64)
			}
			l.recorded[opRef{r.Txn, r.Op}] = r.List
		}
	}
	return l, nil
}

// appends returns the values t appends to k in its first n operations.
func (l *elleLists) appends(t TxnID, k KeyID, n int) []int64 {
	var vs []int64
	for i, op := range l.h.Txns[t].Ops[:n] {
		if op.Kind == OpWrite && op.Key == k {
			vs = append(vs, l.x.value(t, i))
		}
	}
	return vs
}

// read returns the list read j of transaction t shows: the versions before
// its writer's, then the writer's appends up to the value read (its own
// appends so far, for a read of its own write). A writer outside the
// version order (aborted, or no writer at all) comes after every version.
func (l *elleLists) read(t TxnID, j int) []int64 {
	if list, ok := l.recorded[opRef{t, j}]; ok {
		return list
	}
	op := l.h.Txns[t].Ops[j]
	k, w := op.Key, op.Writer
	if w == Init {
		return nil
	}
	v := l.x.value(t, j)
	flat := l.flat[k]
	if w == NoWriter || int(w) >= len(l.h.Txns) {
		return append(append([]int64(nil), flat...), v)
	}
	base, own := flat, []int64(nil)
	if sp, ok := l.span[txnKey{w, k}]; ok {
		base, own = flat[:sp[0]], flat[sp[0]:sp[1]]
	} else {
		own = l.appends(w, k, len(l.h.Txns[w].Ops))
	}
	if w == t {
		own = l.appends(t, k, j)
	}
	list := append([]int64(nil), base...)
	for i := len(own) - 1; i >= 0; i-- {
		if own[i] == v {
			return append(list, own[:i+1]...)
		}
	}
	return append(list, v)
}
