// Package history is the model of a recorded run shared by the isolation
// engine, which writes histories, and the oracle, which checks them: sessions,
// transactions with a level and an outcome each, key-level reads that name the
// transaction whose version they saw (rows not returned included), writes,
// and the server's commit order when known.
//
// It owns the versioned fickle JSONL format (docs/history-format.md) and the
// importers and exporters for other checkers' formats. It never decides
// consistency: that is package oracle's job. Validate checks only that a
// history is well formed; every anomaly the checker must report (thin-air,
// aborted, future and intermediate reads) stays representable.
//
// # Lifecycle
//
//  1. The isolation engine appends events to a Writer as they happen
//     (session, begin, statement, read or scan, write, commit order, commit
//     or abort, checkpoint); the Writer flushes at each commit, before the
//     server acknowledges it.
//  2. ReadJSONL, or Import for any format (Detect guesses it), builds a
//     History. Importers name the file and line, or byte offset, of bad
//     input and never panic (each parser has a fuzz target).
//  3. The oracle checks the History; Export writes it for other checkers.
//
// Tests and benchmarks build histories with Builder, or with Generate,
// which simulates an execution consistent at each transaction's level.
//
// # Why the split
//
// Importers that see whole transactions at once collect operations in large
// chunks and allocate History.Txns once, and value matching uses one sorted
// slice rather than a map: a 10^6-transaction history is read in seconds
// and without growing garbage. The JSONL reader has its own small JSON
// scanner for the same reason.
//
// # Debugging
//
// History.Dump prints one transaction a line (the golden files in
// testdata/jsonl use it). fickle convert --to fickle turns any supported
// format into JSONL to inspect it; --to elle, plume, dbcop or awdit feeds a
// fickle history to another checker.
package history
