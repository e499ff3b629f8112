package history

import (
	"fmt"
	"slices"
	"strconv"
)

// The "order" event carries one key's History.VersionOrder, the writers
// in the order their versions were installed, and with "prefix":true the
// key's History.VersionOrderPrefix mark (every committed writer it does
// not list came after its last):
//
//	{"e":"order","k":3,"ts":[5,7],"prefix":true}
//
// The "incompatible" event carries one of History.IncompatibleOrders
// through the JSONL format: two list-append reads of key k whose lists are
// not prefixes of one another (Elle's incompatible order, a structural
// violation the checker reports). Its "ts" member lists the two reads, then
// the key's other list reads (IncompatibleOrder.Others), each as
// [transaction, operation index in the transaction, [list...]]:
//
//	{"e":"incompatible","k":3,"ts":[[5,0,[1,2]],[7,1,[2,1]]]}
//
// The writer emits it after every transaction, so that both reads exist
// when the reader meets it.

// VersionOrderPrefix is VersionOrder for an order that shows only the
// first versions of k: every committed writer of k that it does not list
// installed its version after the last one listed (see
// History.VersionOrderPrefix).
func (w *Writer) VersionOrderPrefix(k Key, order []TxnID) error {
	return w.versionOrder(k, order, true)
}

// versionOrder writes an "order" event, marked a prefix with prefix.
func (w *Writer) versionOrder(k Key, order []TxnID, prefix bool) error {
	id := w.key(k)
	b := appendField(w.start("order"), "k", id)
	b = append(b, `,"ts":[`...)
	for i, t := range order {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(t), 10)
	}
	b = append(b, ']')
	if prefix {
		b = append(b, `,"prefix":true`...)
	}
	w.buf = append(b, "}\n"...)
	w.emit()
	return w.err
}

// setVersionOrderPrefix marks (or unmarks) key k's version order as a
// prefix, growing VersionOrderPrefix only when a key is marked.
func (h *History) setVersionOrderPrefix(k KeyID, prefix bool) {
	if !prefix && int(k) >= len(h.VersionOrderPrefix) {
		return
	}
	for len(h.VersionOrderPrefix) <= int(k) {
		h.VersionOrderPrefix = append(h.VersionOrderPrefix, false)
	}
	h.VersionOrderPrefix[k] = prefix
}

// writeVersionOrders writes every known version order of h, with its
// prefix mark.
func (w *Writer) writeVersionOrders(h *History) {
	for k, order := range h.VersionOrder {
		if order == nil || k >= len(h.Keys) {
			continue
		}
		if k < len(h.VersionOrderPrefix) && h.VersionOrderPrefix[k] {
			w.VersionOrderPrefix(h.Keys[k], order)
		} else {
			w.VersionOrder(h.Keys[k], order)
		}
	}
}

// IncompatibleOrder records that two list-append reads of key k are not
// prefixes of one another, with the key's other list reads (see
// History.IncompatibleOrders).
func (w *Writer) IncompatibleOrder(k Key, io IncompatibleOrder) error {
	id := w.key(k)
	b := appendField(w.start("incompatible"), "k", id)
	b = append(b, `,"ts":[`...)
	for i, r := range append(io.Reads[:], io.Others...) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(r.Txn), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Op), 10)
		b = append(b, ",["...)
		for j, v := range r.List {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, v, 10)
		}
		b = append(b, "]]"...)
	}
	w.buf = append(b, "]}\n"...)
	w.emit()
	return w.err
}

// writeIncompatibleOrders writes every incompatible order of h.
func (w *Writer) writeIncompatibleOrders(h *History) {
	for _, io := range h.IncompatibleOrders {
		if int(io.Key) < len(h.Keys) {
			w.IncompatibleOrder(h.Keys[io.Key], io)
		}
	}
}

// incompatibleOrder applies an "incompatible" event: each read must be a
// read of the key by a transaction already recorded.
func (jr *jsonlReader) incompatibleOrder(ev *jsonlEvent) error {
	if !ev.hasK || ev.ts == nil {
		return fmt.Errorf("incompatible event without \"k\" and \"ts\"")
	}
	k, err := jr.keyRef(ev.k)
	if err != nil {
		return err
	}
	h := &jr.b.h
	io := IncompatibleOrder{Key: k}
	s := jsonScanner{buf: ev.ts}
	reads := 0
	err = s.array(func(i int) error {
		reads++
		r := &ListRead{}
		if i < len(io.Reads) {
			r = &io.Reads[i]
		} else {
			io.Others = append(io.Others, ListRead{})
			r = &io.Others[len(io.Others)-1]
		}
		return s.array(func(j int) error {
			switch j {
			case 0:
				n, err := s.int()
				if err != nil {
					return err
				}
				r.Txn, err = jr.txnRef(n)
				if err == nil && (r.Txn == Init || r.Txn == NoWriter) {
					err = fmt.Errorf("incompatible event names transaction %d as a reader", n)
				}
				return err
			case 1:
				n, err := s.int()
				if err != nil {
					return err
				}
				ops := h.Txns[r.Txn].Ops
				if n < 0 || n >= int64(len(ops)) || ops[n].Kind != OpRead || ops[n].Key != k {
					return fmt.Errorf("incompatible event: operation %d of transaction %d is not a read of key %d", n, r.Txn, ev.k)
				}
				r.Op = int(n)
				return nil
			case 2:
				r.List = []int64{}
				return s.array(func(int) error {
					v, err := s.int()
					r.List = append(r.List, v)
					return err
				})
			}
			return fmt.Errorf("incompatible event: a read is [transaction, operation, list]")
		})
	})
	if err != nil {
		return err
	}
	listless := func(r ListRead) bool { return r.List == nil }
	if reads < len(io.Reads) || listless(io.Reads[0]) || listless(io.Reads[1]) || slices.ContainsFunc(io.Others, listless) {
		return fmt.Errorf("incompatible event: want two reads or more, each [transaction, operation, list]")
	}
	h.IncompatibleOrders = append(h.IncompatibleOrders, io)
	return nil
}
