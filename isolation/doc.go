// Package isolation is fickle's multi-version store and its adversary.
//
// It owns every committed version of every row (with its writer and its
// place in the commit order co), the transactions that read and write them,
// the physical locks real databases take whatever the isolation level (row
// locks, unique index keys, table locks, deadlock detection), and the
// recording of the history: every key a read inspected with the writer of
// the version it saw, every write, every outcome, and co.
//
// It must never parse SQL or interpret a row: rows are opaque []any, keys
// are the executor's order-preserving byte strings, and index keys come from
// the executor's functions. It must never read the clock, use global
// randomness or start goroutines: seeds arrive in Config, deadlines in the
// caller's context, and one owner (engine.mu) serializes every call, so
// that the order of calls is the order recorded in the history.
//
// # Lifecycle
//
//  1. The executor registers tables (CreateTable) and indexes (CreateIndex).
//  2. Each connection opens a Session; each transaction is Session.Begin
//     with its level, read-only flag and strategy.
//  3. Reads (Get, Scan, ScanIndex) choose, for every inspected key, one
//     committed version the level allows (or the transaction's own write)
//     and record it; predicate reads call the executor back with each live
//     row and record whether it matched.
//  4. Writes (Insert, Update, Delete) take row write locks, waiting for
//     pending writers as PostgreSQL does, and enforce primary keys and
//     unique indexes on the latest committed state. They stay private to the
//     transaction until Commit.
//  5. Commit places the transaction in co (an order-maintenance list) and
//     publishes its last write to every key; Rollback places it in co too,
//     with no writes, because its reads are still checked. Server aborts
//     (40001, 40P01) leave co untouched.
//
// # Why the splits
//
// engine.go holds the tables, keys and versions; txn.go the transaction
// lifecycle; read.go and write.go the data path; locks.go the lock table;
// order.go co; visibility.go which version a read may see; record.go the
// history. Only visibility.go knows about isolation levels.
//
// # Debugging
//
// Config.Record keeps the history; Store.History returns it with co, ready
// for the oracle. The scenario tests in testdata/ drive the engine with a
// small command language (see scenario_test.go) and print choices and
// histories; run them with -rewrite to regenerate the golden files.
package isolation
