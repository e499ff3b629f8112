// Package history is the model of a recorded run shared by the isolation
// engine, which writes histories, and the oracle, which checks them: sessions,
// transactions with a level and an outcome each, key-level reads that name the
// transaction whose version they saw (rows not returned included), writes,
// and the server's commit order when known.
//
// It also owns the versioned JSONL format (docs/history-format.md) and the
// importers and exporters for other checkers' formats. It never decides
// consistency: that is package oracle's job.
package history
