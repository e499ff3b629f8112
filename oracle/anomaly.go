package oracle

import "github.com/fickle-db/fickle/history"

// anomalyName names the anomaly a cycle shows, given the weakest level it
// breaks (DESIGN §3's table: each level forbids the row that names it):
//
//   - a cycle that needs real time (Options.RealTime) is a real-time
//     violation (a stale read);
//   - a cycle of so and wr alone is G1c (circular information flow);
//   - a cycle whose derived edges all come from a known version order is
//     G0, or G1c with a wr edge, at every level;
//   - RC: a non-monotonic read (a later statement saw an older version);
//   - RA: a non-repeatable read when one transaction read a key from two
//     writers, else a fractured read;
//   - CC: a causality violation;
//   - PC: a long fork;
//   - SI: a lost update when two transactions overwrote one version of a
//     key, else G-single;
//   - SER: write skew when two transactions each overwrote what the other
//     read, G0 for cycles of writes, G1c for writes and reads, G-single
//     for one anti-dependency, else G2.
func anomalyName(level history.Level, cycle []Edge, vis []visibility) string {
	derived, rw, wr := 0, 0, false
	for i, e := range cycle {
		wr = wr || e.Kind == EdgeWR
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
	if name := versionOrderAnomaly(cycle, vis); name != "" {
		return name
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
	case rw == 0 && wr:
		return "G1c"
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

// searchAnomalyName names the anomaly of a cycle the search's saturation
// closed, at the weakest level it breaks. At SER it counts, besides the
// cycle's own rw edges, the hiddenRW rw edges of the paths that justify its
// derived edges: a ww edge forced because the writer precedes a reader's
// snapshot by an anti-dependency makes a G-single, not a G0.
func searchAnomalyName(level history.Level, cycle []Edge, hiddenRW int) string {
	name := anomalyName(level, cycle, nil)
	if level != history.Serializable || name == "write skew" {
		return name
	}
	rw := hiddenRW
	for _, e := range cycle {
		rw += b2i(e.Kind == EdgeRW)
	}
	switch rw {
	case 0:
		return name
	case 1:
		return "G-single"
	}
	return "G2"
}
