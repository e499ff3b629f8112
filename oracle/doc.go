// Package oracle is fickle's axiomatic checker: it decides whether a recorded
// history satisfies RC, RA, CC, PC, SI or SER (DESIGN.md §3), each
// transaction at its own level or all at one, with or without real time, and
// explains a violation as a minimal cycle in the user's terms.
//
// The oracle only reads histories. It never parses SQL, never talks to a
// server, never panics on a history however malformed, and is a pure
// function of its input: no clock, no global randomness, no goroutines, so a
// verdict is reproducible. Its budget (Options.MaxSteps) bounds the
// exponential searches; when it runs out the verdict is Unknown, never a
// guess.
//
// # How a check runs
//
//  1. Well-formedness (structural_wellformed.go): ids, sessions, ranges and
//     the recorded commit order, in O(n) without maps, so that every later
//     stage can index without checks.
//  2. Structural checks (structural.go): defects no commit order can fix,
//     paper 003's Read Consistency plus fickle's statement rules: thin-air,
//     aborted (G1a), future, intermediate (G1b), not-my-own-write,
//     not-my-last-write and split reads.
//  3. RC, RA and CC (saturate*.go): a saturated, minimal commit relation co'
//     (paper 003, Def. 3.1) whose acyclicity decides the level. RC is
//     Alg. 1 (O(n^{3/2}): for each writer only its first read matters, and
//     intersections iterate over the smaller set), extended with fickle's
//     session-order visibility and with read events that are statements,
//     several keys at once. RA is Alg. 2 (O(n^{3/2})). CC is Alg. 3
//     (O(n·k)) with vector clocks computed on the fly in a topological
//     order of so ∪ wr and freed when their last reader is done. Levels mix
//     per transaction: each reader applies its own level's axiom. Real time
//     adds a timeline and per-key prefix chains of virtual nodes, so co'
//     stays linear.
//  4. PC, SI and SER (order*.go, search*.go): a recorded commit order that
//     passes the axioms is a witness; otherwise the causal part is checked
//     by saturation and a commit order is searched for (paper 002).
//  5. A violation is explained (explain*.go, anomaly.go, dot.go): the check
//     is repeated with every level capped at RC, then RA, ... to find the
//     weakest level that fails; the cycle is a shortest cycle of its
//     strongly connected component (breadth-first searches, bounded), and
//     each edge says in the user's terms why it is there: session order, a
//     read (with the SQL text, table, key and value), or an order the
//     reader's level forces (and through which read or causal path).
//
// Read committed has two definitions in the literature (rc_definition.go):
// paper 000's, fickle's default, where a session's earlier transactions are
// visible to its reads, and Biswas and Enea's, the one AWDIT, dbcop and
// Plume check, where only the writers an earlier read saw are
// (Options.RC). Every stage applies the one asked for, and an explanation
// at read committed names it.
//
// Why the split: saturation is polynomial and exact for RC, RA and CC, and
// is the first, cheap answer for every level; only PC, SI and SER need a
// commit order, which is NP-hard to find in general.
//
// # Mini-transaction histories
//
// CheckMini (mini*.go) decides SI, SER and strict SER in linear time (plus
// a sort of the end times) for read-modify-write histories, paper 001's
// mini-transactions among them: there, WR and WW are given by the reads, so
// the dependency graph is unique unless two transactions overwrote one
// version (a lost update). CheckLinearizable decides linearizability of
// lightweight (compare-and-set) histories. fickle stress records such
// histories. Each violation they find is named at the weakest level that
// the few transactions involved break, by Check on them; when that is the
// level checked, the check's own cycle stands, every anti-dependency an
// edge of it.
//
// # Debugging
//
// `fickle check --level L FILE` prints the verdict and the explanation;
// `--json` gives the same as data, `--dot cycle.dot` writes the cycle for
// Graphviz (`dot -Tsvg cycle.dot`). Without --level it prints the strongest
// level that holds and why the next one does not. In tests, the scripts in
// testdata/check take histories in DESIGN §3's notation; run
// `go test ./oracle -run TestCheckScripts -rewrite` to regenerate their
// expected outputs, and `go test ./oracle -fuzz FuzzCheckNeverPanics` to
// fuzz Check with malformed histories.
package oracle
