// Package oracle is fickle's axiomatic checker: it decides whether a recorded
// history satisfies RC, RA, CC, PC, SI or SER (DESIGN.md §3), each
// transaction at its own level or all at one, with or without real time, and
// explains a violation as a minimal cycle in the user's terms.
//
// The oracle only reads histories. It never parses SQL, never talks to a
// server, and is a pure function of its input: it has no clock, no global
// randomness and no goroutines, so a verdict is reproducible.
//
// # How a check runs
//
//  1. Structural checks (structural*.go): defects no commit order can fix,
//     such as thin-air, aborted and intermediate reads.
//  2. RC, RA and CC (saturate*.go): saturation plus acyclicity (paper 002,
//     Alg. 1) at AWDIT's bounds (paper 003): O(n^{3/2}) for RC and RA,
//     O(n·k) for CC with per-session vector clocks.
//  3. PC, SI and SER (order*.go, search*.go): verify the recorded commit
//     order; without one, or when it fails, search for one (paper 002).
//  4. A violation is explained (explain*.go, anomaly*.go, dot*.go): the
//     weakest level it breaks, the anomaly's name, and a minimal cycle whose
//     edges name sessions, transactions, SQL text, tables, keys and values.
//
// # Debugging
//
// `fickle check --level L --dot cycle.dot FILE` prints the explanation and
// writes the cycle for Graphviz; `--json` gives the same as data.
package oracle
