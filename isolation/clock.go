package isolation

import (
	"sort"
)

// clock is a vector clock over sessions: the causal past of a transaction
// or session, as the highest session sequence number it includes from every
// session, sorted by session id. Clocks are immutable once shared; every
// change copies. A sorted slice costs 16 bytes a session, a third of a
// map's, and every committed transaction keeps one. An entry points at its
// session, so that a closed session stays in memory only while some clock
// still names it, and the clock can tell which of its entries lie before
// the staleness horizon (forget).
type clock []clockEntry

type clockEntry struct {
	s   *session
	seq uint64
}

// get returns the sequence number of session s in c (0 when absent).
func (c clock) get(s *session) uint64 {
	i := sort.Search(len(c), func(i int) bool { return c[i].s.id >= s.id })
	if i < len(c) && c[i].s == s {
		return c[i].seq
	}
	return 0
}

// has reports whether committed transaction w is in the causal past.
func (c clock) has(w *txn) bool { return w.seq <= c.get(w.sess) }

// covers reports whether c includes everything d does.
func (c clock) covers(d clock) bool {
	i := 0
	for _, x := range d {
		for i < len(c) && c[i].s.id < x.s.id {
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
	out := make(clock, 0, unionLen(c, d)) // exact: sessions and pending transactions keep merged clocks
	i, j := 0, 0
	for i < len(c) || j < len(d) {
		switch {
		case j == len(d) || (i < len(c) && c[i].s.id < d[j].s.id):
			out = append(out, c[i])
			i++
		case i == len(c) || d[j].s.id < c[i].s.id:
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

// unionLen returns how many sessions c and d name together.
func unionLen(c, d clock) int {
	n, i, j := 0, 0, 0
	for i < len(c) && j < len(d) {
		switch {
		case c[i].s.id < d[j].s.id:
			i++
		case d[j].s.id < c[i].s.id:
			j++
		default:
			i, j = i+1, j+1
		}
		n++
	}
	return n + len(c) - i + len(d) - j
}

// with returns c plus session s up to seq.
func (c clock) with(s *session, seq uint64) clock {
	if c.get(s) >= seq {
		return c
	}
	return c.merge(clock{{s: s, seq: seq}})
}

// forget returns c without the entries whose transactions all lie before
// the staleness horizon (the session's pastSeq covers them), c itself when
// it has none. No visibility question concerns such a transaction: every
// version it wrote is a key's base version or collected (collect.go).
func (c clock) forget() clock {
	n := 0
	for _, x := range c {
		if x.seq <= x.s.pastSeq {
			n++
		}
	}
	if n == 0 {
		return c
	}
	out := make(clock, 0, len(c)-n)
	for _, x := range c {
		if x.seq > x.s.pastSeq {
			out = append(out, x)
		}
	}
	return out
}
