package isolation

import "github.com/fickle-db/fickle/history"

// clock is a vector clock over sessions: the causal past of a transaction
// or session, as the highest session sequence number it includes from every
// session. Clocks are immutable once shared; every change copies.
type clock map[history.SessionID]uint64

// has reports whether committed transaction w is in the causal past.
func (c clock) has(w *txn) bool { return w.seq <= c[w.sess.id] }

// covers reports whether c includes everything d does.
func (c clock) covers(d clock) bool {
	for s, n := range d {
		if c[s] < n {
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
	out := make(clock, len(c)+len(d))
	for s, n := range c {
		out[s] = n
	}
	for s, n := range d {
		if out[s] < n {
			out[s] = n
		}
	}
	return out
}

// with returns c plus session s up to seq.
func (c clock) with(s history.SessionID, seq uint64) clock {
	if c[s] >= seq {
		return c
	}
	out := make(clock, len(c)+1)
	for k, n := range c {
		out[k] = n
	}
	out[s] = seq
	return out
}
