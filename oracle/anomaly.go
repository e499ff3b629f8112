package oracle

import "github.com/fickle-db/fickle/history"

// anomalyName names the anomaly a cycle shows, given the weakest level it
// breaks (DESIGN §3's table: each level forbids the row that names it):
//
//   - a cycle that needs real time (Options.RealTime) is a real-time
//     violation (a stale read);
//   - a cycle of so and wr alone is G1c (circular information flow);
//   - RC: a non-monotonic read (a later statement saw an older version);
//   - RA: a non-repeatable read when one transaction read a key from two
//     writers, else a fractured read;
//   - CC: a causality violation;
//   - PC: a long fork;
//   - SI: a lost update when two transactions overwrote one version of a
//     key, else G-single;
//   - SER: write skew when two transactions each overwrote what the other
//     read, G0 for write cycles, G-single for one anti-dependency, else G2.
func anomalyName(level history.Level, cycle []Edge, vis []visibility) string {
	derived, rw := 0, 0
	for i, e := range cycle {
		if e.Kind == EdgeRT || (i < len(vis) && (vis[i] == visRealTime || vis[i] == visCausalRealTime)) {
			return "real-time violation"
		}
		switch e.Kind {
		case EdgeWW:
			derived++
		case EdgeRW:
			derived++
			rw++
		}
	}
	if derived == 0 {
		return "G1c"
	}
	switch level {
	case history.ReadCommitted:
		return "non-monotonic read"
	case history.ReadAtomic:
		for _, v := range vis {
			if v == visRepeat {
				return "non-repeatable read"
			}
		}
		return "fractured read"
	case history.Causal:
		return "causality violation"
	case history.Prefix:
		return "long fork"
	case history.Snapshot:
		if isLostUpdate(cycle) {
			return "lost update"
		}
		return "G-single"
	}
	switch {
	case isWriteSkew(cycle):
		return "write skew"
	case rw == 0:
		return "G0"
	case rw == 1:
		return "G-single"
	}
	return "G2"
}

// isLostUpdate reports whether a cycle is two transactions that each
// overwrote the version of one key the other read or wrote.
func isLostUpdate(cycle []Edge) bool {
	if len(cycle) != 2 || cycle[0].Key != cycle[1].Key {
		return false
	}
	for _, e := range cycle {
		if e.Kind != EdgeRW && e.Kind != EdgeWW {
			return false
		}
	}
	return true
}
