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
//   - SI: a lost update when two transactions overwrote one version, else
//     G-single;
//   - SER: write skew when two transactions each overwrote what the other
//     read, else G2.
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
		if len(cycle) == 2 {
			return "lost update"
		}
		return "G-single"
	}
	if len(cycle) == 2 && rw == 2 {
		return "write skew"
	}
	if rw == 1 {
		return "G-single"
	}
	return "G2"
}
