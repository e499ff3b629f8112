// Package stress tests any PostgreSQL-wire database, fickle included, for
// isolation bugs the black-box way (paper 001, MTC): concurrent sessions
// run a generated workload against one table, the client records what
// each transaction read and wrote with real-time bounds, and the history
// is checked against the isolation levels.
//
// It owns the workloads (mini-transactions, a read/write mix, list-append,
// compare-and-set), the client-side history they record in fickle's JSONL
// format (so that fickle check, report and convert apply to it), and the
// summary. It never decides consistency itself: package oracle does,
// with its linear-time mini-transaction checks (CheckMini,
// CheckLinearizable) where the history allows them and Check elsewhere.
// It talks to the database only through pgx, as any client would, and
// knows nothing of fickle's insides: against fickle it only folds the
// table it created into the initial state (fickle_checkpoint()), as a
// fixture.
//
// # A run
//
//  1. One connection drops and creates the table, one row per object (an
//     empty list for append, none for cas), and, against fickle, calls
//     fickle_checkpoint() so that every level sees the rows.
//  2. Each session opens its own connection and, until the run's
//     transaction budget or time is spent, draws a program (workload.go)
//     and runs it in a transaction at the run's level: BEGIN ISOLATION
//     LEVEL for PostgreSQL's names, fickle.isolation for fickle's others.
//     Every value written is the writing transaction's id, unique per key,
//     so a read names its writer by the value it returns. Nothing is
//     retried: a serialization failure or deadlock is an aborted
//     transaction in the history.
//  3. The recorder (recorder.go) writes each transaction's begin event when
//     it starts, with its start time, and the rest when it ends, with its
//     end time (the client's monotonic clock: real-time order). Commits
//     flush the file, so a history cut short parses up to its last
//     committed transaction.
//  4. Any other error ends the run: the failing session's transaction is
//     recorded as aborted, or, when its COMMIT got no answer, as committed
//     if another transaction read one of its writes and pending (writes
//     only) if none did; the other sessions stop after their current
//     transaction.
//  5. The history is read back and checked (check.go): mini-transactions
//     and compare-and-sets by the linear-time checks of SER, SI, strict SER
//     and linearizability, and, below SI, the run's level by oracle.Check;
//     the other workloads by oracle.StrongestLevel, level by level.
//
// Why the split: the workload and its recording are the only parts that
// touch a database, so that everything after step 4 is a pure function of
// a history file, which fickle check can redo.
//
// # Debugging
//
// Run with --history FILE to keep the history, then `fickle check --level
// L FILE` for a level's verdict and `fickle report FILE` to see the
// sessions and the reads. --seed fixes the programs (not the database's
// interleaving). --json prints the report as data.
package stress
