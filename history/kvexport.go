package history

import "strconv"

// kvExport maps a history onto the integer keys and unique integer values
// of the key-value formats (AWDIT, Plume, dbcop, Elle).
//
// Keys keep their numbers when every key name is a distinct non-negative
// integer, and are numbered by KeyID otherwise. A key keeps its values when
// every write to it carries a distinct non-negative value, and not 0 when a
// read of the key sees the initial value (0); otherwise its writes
// get the values 1, 2, ... in transaction order. A read shows the value it
// recorded when its key keeps its values (so intermediate and thin-air
// reads survive), else the value of its writer's last write to the key
// (its own last earlier write for a read of its own write). A read from Init
// shows the initial value, 0; a read from NoWriter without a value shows a
// value no transaction wrote.
type kvExport struct {
	h      *History
	keyNum []int64
	synth  []bool          // by key: values were renumbered
	synthV map[opRef]int64 // renumbered write values
	maxV   []int64         // by key: largest value written
}

type opRef struct {
	txn TxnID
	idx int
}

func newKVExport(h *History) *kvExport {
	x := &kvExport{h: h, keyNum: make([]int64, len(h.Keys)), synth: make([]bool, len(h.Keys)), maxV: make([]int64, len(h.Keys))}
	numeric := true
	seen := make(map[int64]bool, len(h.Keys))
	for i, k := range h.Keys {
		n, err := strconv.ParseInt(k.Name, 10, 64)
		if err != nil || n < 0 || seen[n] || strconv.FormatInt(n, 10) != k.Name {
			numeric = false
			break
		}
		seen[n] = true
		x.keyNum[i] = n
	}
	if !numeric {
		for i := range x.keyNum {
			x.keyNum[i] = int64(i)
		}
	}
	type kv struct {
		key KeyID
		v   int64
	}
	initRead := make([]bool, len(h.Keys))
	for i := 1; i < len(h.Txns); i++ {
		for _, op := range h.Txns[i].Ops {
			if op.Kind == OpRead && op.Writer == Init {
				initRead[op.Key] = true
			}
		}
	}
	values := make(map[kv]bool)
	for i := 1; i < len(h.Txns); i++ {
		for _, op := range h.Txns[i].Ops {
			if op.Kind != OpWrite {
				continue
			}
			if op.Flags&FlagHasValue == 0 || op.Value < 0 || (op.Value == 0 && initRead[op.Key]) || values[kv{op.Key, op.Value}] {
				x.synth[op.Key] = true
			}
			values[kv{op.Key, op.Value}] = true
			x.maxV[op.Key] = max(x.maxV[op.Key], op.Value)
		}
	}
	next := make([]int64, len(h.Keys))
	for i := 1; i < len(h.Txns); i++ {
		for j, op := range h.Txns[i].Ops {
			if op.Kind == OpWrite && x.synth[op.Key] {
				if x.synthV == nil {
					x.synthV = make(map[opRef]int64)
				}
				next[op.Key]++
				x.synthV[opRef{TxnID(i), j}] = next[op.Key]
				x.maxV[op.Key] = max(x.maxV[op.Key], next[op.Key])
			}
		}
	}
	return x
}

func (x *kvExport) key(k KeyID) int64 { return x.keyNum[k] }

// value returns the value operation i of transaction t writes or reads.
func (x *kvExport) value(t TxnID, i int) int64 {
	v, _ := x.valueInit(t, i)
	return v
}

// valueInit is value, also saying whether a read saw the initial state.
func (x *kvExport) valueInit(t TxnID, i int) (int64, bool) {
	op := x.h.Txns[t].Ops[i]
	if op.Kind == OpWrite {
		if x.synth[op.Key] {
			return x.synthV[opRef{t, i}], false
		}
		return op.Value, false
	}
	switch {
	case op.Writer == Init:
		return 0, true
	case op.Flags&FlagHasValue != 0 && !x.synth[op.Key]:
		return op.Value, false
	case op.Writer == NoWriter || int(op.Writer) >= len(x.h.Txns):
		return x.maxV[op.Key] + 1, false
	}
	limit := len(x.h.Txns[op.Writer].Ops)
	if op.Writer == t {
		limit = i
	}
	ops := x.h.Txns[op.Writer].Ops
	for j := limit - 1; j >= 0; j-- {
		if ops[j].Kind == OpWrite && ops[j].Key == op.Key {
			return x.value(op.Writer, j), false
		}
	}
	return x.maxV[op.Key] + 1, false
}
