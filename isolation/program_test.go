package isolation

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/history"
)

// program is a small transactional program: transactions in sessions, each
// a list of reads and writes of integer rows. Anomaly and adversarial-power
// tests run programs through the engine under random interleavings.
type program struct {
	txns []ptxn
}

type ptxn struct {
	session int
	ops     []pop
}

type pop struct {
	write bool
	key   string
	val   int // the value written, or the value a read expects
}

// parseProgram reads "S1[w x=1, r y=0] S2[r x=1]".
func parseProgram(s string) (program, error) {
	var p program
	for _, part := range strings.Split(s, "]") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, body, ok := strings.Cut(part, "[")
		if !ok || !strings.HasPrefix(name, "S") {
			return p, fmt.Errorf("bad transaction %q", part)
		}
		sess, err := strconv.Atoi(name[1:])
		if err != nil {
			return p, fmt.Errorf("bad session in %q", part)
		}
		t := ptxn{session: sess}
		for _, op := range strings.Split(body, ",") {
			f := strings.Fields(op)
			if len(f) != 2 || (f[0] != "r" && f[0] != "w") {
				return p, fmt.Errorf("bad operation %q", op)
			}
			k, v, _ := strings.Cut(f[1], "=")
			n, err := strconv.Atoi(v)
			if err != nil {
				return p, fmt.Errorf("bad value in %q", op)
			}
			t.ops = append(t.ops, pop{write: f[0] == "w", key: k, val: n})
		}
		p.txns = append(p.txns, t)
	}
	return p, nil
}

// run is one execution of a program: the value every read saw (in program
// order of reads), and whether every transaction committed.
type run struct {
	reads     []int
	committed bool
	h         *history.History
}

// runProgram executes p with every transaction at level, interleaving the
// sessions with rng (a session's transactions run in order; a write that
// would wait for a row lock lets another session go first), or, with a nil
// rng, running the transactions one after another in the order listed (a
// script).
func runProgram(p program, level history.Level, cfg Config, rng *rand.Rand) (run, error) {
	cfg.Record = true
	s := NewStore(cfg)
	tab, err := s.CreateTable(TableSpec{Name: "t", FormatKey: func(k []byte) string { return string(k) }})
	if err != nil {
		return run{}, err
	}
	type sess struct {
		s     *Session
		queue []int // indexes of p.txns
		oi    int   // next op of queue[0]; -1 before begin
		tx    *Txn
		dead  bool // the current transaction failed
	}
	byID := map[int]*sess{}
	var order []*sess
	for i, t := range p.txns {
		ss := byID[t.session]
		if ss == nil {
			ss = &sess{s: s.NewSession(), oi: -1}
			byID[t.session] = ss
			order = append(order, ss)
		}
		ss.queue = append(ss.queue, i)
	}
	readSlot := map[[2]int]int{} // (txn, op) -> index in reads
	nreads := 0
	for i, t := range p.txns {
		for j, op := range t.ops {
			if !op.write {
				readSlot[[2]int{i, j}] = nreads
				nreads++
			}
		}
	}
	out := run{reads: make([]int, nreads), committed: true}
	for i := range out.reads {
		out.reads[i] = -1
	}
	held := func(ss *sess, key string) bool {
		s.e.mu.Lock()
		defer s.e.mu.Unlock()
		ent := s.e.lockEntry(resource{lockRow, uint32(tab), key})
		if ent == nil {
			return false
		}
		for _, h := range ent.holders {
			if h.t != ss.tx.t {
				return true
			}
		}
		return false
	}
	for {
		var ready []*sess
		for _, ss := range order {
			if len(ss.queue) == 0 {
				continue
			}
			t := p.txns[ss.queue[0]]
			if !ss.dead && ss.oi >= 0 && ss.oi < len(t.ops) && t.ops[ss.oi].write && held(ss, t.ops[ss.oi].key) {
				continue
			}
			ready = append(ready, ss)
		}
		if len(ready) == 0 {
			// Every session waits for another: a deadlock, which the
			// server would break by aborting one of them.
			for _, ss := range order {
				if len(ss.queue) > 0 {
					ss.dead = true
					ready = append(ready, ss)
					break
				}
			}
		}
		if len(ready) == 0 {
			break
		}
		ss := ready[0]
		if rng != nil {
			ss = ready[rng.IntN(len(ready))]
		} else {
			for _, c := range ready {
				if c.tx != nil || c.queue[0] < ss.queue[0] {
					ss = c
					if c.tx != nil {
						break
					}
				}
			}
		}
		ti := ss.queue[0]
		t := p.txns[ti]
		switch {
		case ss.oi < 0:
			tx, err := ss.s.Begin(TxnOptions{Level: level})
			if err != nil {
				return out, err
			}
			ss.tx, ss.oi, ss.dead = tx, 0, false
		case ss.oi == len(t.ops) || ss.dead:
			if ss.dead {
				_ = ss.tx.Rollback()
				out.committed = false
			} else if err := ss.tx.Commit(bg); err != nil {
				out.committed = false
			}
			ss.queue, ss.oi, ss.tx = ss.queue[1:], -1, nil
		default:
			op := t.ops[ss.oi]
			var err error
			if op.write {
				err = ss.tx.Update(bg, tab, []byte(op.key), []any{op.val})
			} else {
				var row []any
				var ok bool
				row, ok, err = ss.tx.Get(bg, tab, []byte(op.key), ReadOptions{})
				v := 0
				if ok {
					v = row[0].(int)
				}
				out.reads[readSlot[[2]int{ti, ss.oi}]] = v
			}
			if err != nil {
				ss.dead = true
			}
			ss.oi++
		}
	}
	for _, ss := range order {
		if len(ss.queue) > 0 {
			return out, fmt.Errorf("program deadlocked in the driver")
		}
	}
	out.h = s.History()
	return out, nil
}

// expectedReads lists the values a program's reads expect.
func (p program) expectedReads() []int {
	var out []int
	for _, t := range p.txns {
		for _, op := range t.ops {
			if !op.write {
				out = append(out, op.val)
			}
		}
	}
	return out
}
