package history

import (
	"fmt"
	"sort"
)

// coTracker keeps the commit order as the JSONL reader learns it, as a
// linked list with order-maintenance labels, so that a scan can compare the
// positions of two transactions even after insertions in the past.
type coTracker struct {
	next, prev []TxnID
	label      []uint64
	member     []bool
	last       TxnID
	n          int
	gen        int // incremented by every relabeling
}

const coGap = 1 << 32

func newCoTracker() *coTracker {
	c := &coTracker{}
	c.grow(1)
	c.member[Init] = true
	c.next[Init], c.prev[Init] = NoWriter, NoWriter
	c.n = 1
	return c
}

// reserve gives c room for n transactions without growing.
func (c *coTracker) reserve(n int) {
	c.next = grow(c.next, n-len(c.next))
	c.prev = grow(c.prev, n-len(c.prev))
	c.label = grow(c.label, n-len(c.label))
	c.member = grow(c.member, n-len(c.member))
}

func (c *coTracker) grow(n int) {
	for len(c.next) < n {
		c.next = append(grow(c.next, 1), NoWriter)
		c.prev = append(grow(c.prev, 1), NoWriter)
		c.label = append(grow(c.label, 1), 0)
		c.member = append(grow(c.member, 1), false)
	}
}

func (c *coTracker) in(t TxnID) bool { return int(t) < len(c.member) && c.member[t] }

// insertAfter places t right after a.
func (c *coTracker) insertAfter(t, a TxnID) error {
	if c.in(t) {
		return fmt.Errorf("transaction %d placed in the commit order twice", t)
	}
	if !c.in(a) {
		return fmt.Errorf("commit order places %d after %d, which has no place yet", t, a)
	}
	b := c.next[a]
	var l uint64
	if b == NoWriter {
		if c.label[a] > ^uint64(0)-coGap {
			c.relabel()
		}
		l = c.label[a] + coGap
	} else {
		if c.label[b]-c.label[a] < 2 {
			c.relabel()
		}
		l = c.label[a] + (c.label[b]-c.label[a])/2
	}
	c.label[t], c.member[t] = l, true
	c.prev[t], c.next[t] = a, b
	c.next[a] = t
	if b == NoWriter {
		c.last = t
	} else {
		c.prev[b] = t
	}
	c.n++
	return nil
}

// relabel spreads the labels evenly; it is rare (a gap is exhausted only
// after about 32 insertions at one place).
func (c *coTracker) relabel() {
	c.gen++
	gap := ^uint64(0) / uint64(c.n+1)
	var l uint64
	for t := Init; t != NoWriter; t = c.next[t] {
		c.label[t] = l
		l += gap
	}
}

func (c *coTracker) order() []TxnID {
	out := make([]TxnID, 0, c.n)
	for t := Init; t != NoWriter; t = c.next[t] {
		out = append(out, t)
	}
	return out
}

// version is one committed write of a key, for scan expansion.
type version struct {
	txn   TxnID
	label uint64
	del   bool
}

// scanIndex holds, for each key, its committed versions in commit order,
// and the keys of each table; the JSONL reader builds it at the first scan
// event and keeps it current afterwards.
type scanIndex struct {
	versions [][]version // by KeyID
	tables   map[string][]KeyID
	co       *coTracker
	gen      int // co.gen the labels in versions are from
}

func newScanIndex(h *History, co *coTracker) *scanIndex {
	x := &scanIndex{versions: make([][]version, len(h.Keys)), tables: make(map[string][]KeyID), co: co, gen: co.gen}
	for i, k := range h.Keys {
		x.tables[k.Table] = append(x.tables[k.Table], KeyID(i))
	}
	for _, op := range h.Txns[Init].Ops {
		x.addWrite(Init, 0, op)
	}
	for t := co.next[Init]; t != NoWriter; t = co.next[t] {
		if h.Txns[t].Outcome == Committed {
			x.addTxn(h, co, t)
		}
	}
	return x
}

func (x *scanIndex) addKey(k Key, id KeyID) {
	for len(x.versions) <= int(id) {
		x.versions = append(x.versions, nil)
	}
	x.tables[k.Table] = append(x.tables[k.Table], id)
}

// addTxn adds the last write of each key by committed transaction t.
func (x *scanIndex) addTxn(h *History, co *coTracker, t TxnID) {
	if h.Txns[t].Outcome != Committed {
		return
	}
	x.sync()
	ops := h.Txns[t].Ops
	for i, op := range ops {
		if op.Kind != OpWrite || laterWrite(ops[i+1:], op.Key) {
			continue
		}
		x.addWrite(t, co.label[t], op)
	}
}

func laterWrite(ops []Op, k KeyID) bool {
	for _, op := range ops {
		if op.Kind == OpWrite && op.Key == k {
			return true
		}
	}
	return false
}

func (x *scanIndex) addWrite(t TxnID, label uint64, op Op) {
	for len(x.versions) <= int(op.Key) {
		x.versions = append(x.versions, nil)
	}
	vs := x.versions[op.Key]
	v := version{txn: t, label: label, del: op.Flags&FlagTombstone != 0}
	i := sort.Search(len(vs), func(i int) bool { return vs[i].label > label })
	if i > 0 && vs[i-1].txn == t {
		vs[i-1] = v // Init writing a key twice
		return
	}
	vs = append(vs, version{})
	copy(vs[i+1:], vs[i:])
	vs[i] = v
	x.versions[op.Key] = vs
}

// at returns the co-latest version of k at or before label, Init's
// tombstone when there is none.
func (x *scanIndex) at(k KeyID, label uint64) version {
	vs := x.versions[k]
	i := sort.Search(len(vs), func(i int) bool { return vs[i].label > label })
	if i == 0 {
		return version{txn: Init, del: true}
	}
	return vs[i-1]
}

// sync refreshes the labels when the tracker relabeled since the last call.
func (x *scanIndex) sync() {
	if x.gen == x.co.gen {
		return
	}
	x.gen = x.co.gen
	for _, vs := range x.versions {
		for i := range vs {
			vs[i].label = x.co.label[vs[i].txn]
		}
	}
}

func (jr *jsonlReader) scan(tb *TxnBuilder, ev *jsonlEvent) error {
	if !ev.hasAsof {
		return fmt.Errorf("scan event without \"asof\"")
	}
	asof, err := jr.txnRef(ev.asof)
	if err != nil {
		return err
	}
	if asof == NoWriter || !jr.co.in(asof) {
		return fmt.Errorf("scan as of transaction %d, which has no place in the commit order", ev.asof)
	}
	if jr.scans == nil {
		jr.scans = newScanIndex(&jr.b.h, jr.co)
	}
	jr.scans.sync()
	if ev.hasR {
		return fmt.Errorf("scan event with \"r\": want \"except\"")
	}
	if !ev.hasExcept {
		jr.items, jr.rows = jr.items[:0], jr.rows[:0]
	}
	override := make(map[KeyID]int, len(jr.items))
	for i, op := range jr.items {
		override[op.Key] = i
	}
	filtered := make(map[KeyID]bool)
	if ev.filtered != nil {
		s := jsonScanner{buf: ev.filtered}
		err := s.array(func(int) error {
			n, err := s.int()
			if err != nil {
				return err
			}
			k, err := jr.keyRef(n)
			filtered[k] = true
			return err
		})
		if err != nil {
			return err
		}
	}
	var keys []KeyID
	if ev.table == "" {
		keys = make([]KeyID, len(jr.b.h.Keys))
		for i := range keys {
			keys[i] = KeyID(i)
		}
	} else {
		keys = jr.scans.tables[ev.table]
	}
	label := jr.co.label[asof]
	for _, k := range keys {
		if _, ok := override[k]; ok {
			continue
		}
		v := jr.scans.at(k, label)
		op := Op{Kind: OpRead, Key: k, Writer: v.txn}
		switch {
		case v.del:
			op.Flags |= FlagTombstone
		case !filtered[k]:
			op.Flags |= FlagReturned
		}
		jr.items = append(jr.items, op)
		jr.rows = append(jr.rows, rowImage{})
	}
	// The explicit items come first, the expansion after them.
	jr.addItems(tb)
	return nil
}

// checkpoint folds the committed state into a new Init and drops every
// transaction recorded so far (pending ones included: their later events
// are ignored).
func (jr *jsonlReader) checkpoint() error {
	old := &jr.b.h
	x := newScanIndex(old, jr.co)
	if !jr.coSeen {
		// Without a recorded commit order, commits count in the order of
		// their commit events, which is the order the transactions ended.
		x = &scanIndex{versions: make([][]version, len(old.Keys)), co: jr.co, gen: jr.co.gen}
		for _, op := range old.Txns[Init].Ops {
			x.addWrite(Init, 0, op)
		}
		for t := 1; t < len(old.Txns); t++ {
			if old.Txns[t].Outcome == Committed {
				for _, op := range old.Txns[t].Ops {
					if op.Kind == OpWrite {
						x.versions[op.Key] = append(x.versions[op.Key], version{txn: TxnID(t), del: op.Flags&FlagTombstone != 0})
					}
				}
			}
		}
	}
	nb := NewBuilder()
	nb.h.Keys, nb.h.keyIndex = old.Keys, old.keyIndex
	nb.h.Checkpoints = old.Checkpoints + 1
	for _, s := range old.Sessions {
		nb.Session(s.Name)
	}
	init := &nb.h.Txns[Init]
	for k, vs := range x.versions {
		if len(vs) == 0 {
			continue
		}
		v := vs[len(vs)-1]
		op, row := lastWrite(old, v.txn, KeyID(k))
		op.Event = uint32(len(init.Ops))
		init.Ops = append(init.Ops, op)
		init.appendNoRow()
		init.setRowImage(len(init.Ops)-1, row, jr.file)
	}
	// Every file id seen so far now names a dropped transaction.
	for _, m := range []*idMap{&jr.txns} {
		for i, v := range m.dense {
			if v != 0 && i != 0 {
				m.dense[i] = retired + 1
			}
		}
		for id := range m.sparse {
			m.sparse[id] = retired
		}
	}
	jr.b = nb // the version orders named dropped transactions: they go too
	jr.stmt = jr.stmt[:1]
	jr.ended = jr.ended[:1]
	jr.co = newCoTracker()
	jr.coSeen = false
	jr.scans = nil
	return nil
}

// lastWrite returns t's last write to k and its row image.
func lastWrite(h *History, t TxnID, k KeyID) (Op, rowImage) {
	ops := h.Txns[t].Ops
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].Kind == OpWrite && ops[i].Key == k {
			return ops[i], h.Txns[t].rowImage(i)
		}
	}
	return Op{Kind: OpWrite, Key: k, Flags: FlagTombstone}, rowImage{}
}
