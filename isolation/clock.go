package isolation

import (
	"sort"

	"github.com/fickle-db/fickle/history"
)

// clock is a vector clock over sessions: the causal past of a transaction
// or session, as the highest session sequence number it includes from every
// session, sorted by session. Clocks are immutable once shared; every
// change copies. A sorted slice costs 16 bytes a session, a third of a
// map's, and every committed transaction keeps one.
type clock []clockEntry

type clockEntry struct {
	s   history.SessionID
	seq uint64
}

// get returns the sequence number of session s in c (0 when absent).
func (c clock) get(s history.SessionID) uint64 {
	i := sort.Search(len(c), func(i int) bool { return c[i].s >= s })
	if i < len(c) && c[i].s == s {
		return c[i].seq
	}
	return 0
}

// has reports whether committed transaction w is in the causal past.
func (c clock) has(w *txn) bool { return w.seq <= c.get(w.sess.id) }

// covers reports whether c includes everything d does.
func (c clock) covers(d clock) bool {
	i := 0
	for _, x := range d {
		for i < len(c) && c[i].s < x.s {
			i++
		}
		if i == len(c) || c[i].s != x.s || c[i].seq < x.seq {
			return false
		}
	}
	return true
}

// merge returns the union of c and d (c itself when it covers d).
func (c clock) merge(d clock) clock {
	if c.covers(d) {
		return c
	}
	out := make(clock, 0, len(c)+len(d))
	i, j := 0, 0
	for i < len(c) || j < len(d) {
		switch {
		case j == len(d) || (i < len(c) && c[i].s < d[j].s):
			out = append(out, c[i])
			i++
		case i == len(c) || d[j].s < c[i].s:
			out = append(out, d[j])
			j++
		default:
			e := c[i]
			e.seq = max(e.seq, d[j].seq)
			out = append(out, e)
			i, j = i+1, j+1
		}
	}
	return out
}

// with returns c plus session s up to seq.
func (c clock) with(s history.SessionID, seq uint64) clock {
	if c.get(s) >= seq {
		return c
	}
	return c.merge(clock{{s: s, seq: seq}})
}
