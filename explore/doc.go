// Package explore is fickle's bug-finding driver: it runs a user's test
// command many times, each run against a fresh in-process server with its
// own seed, keeps the first failure, replays it exactly, shrinks it to the
// few stale reads that cause it, and explains it in the user's SQL.
//
// explore starts servers (package server over sqlexec and isolation) and
// reads their histories (history, oracle); it never decides what a read
// sees, and nothing below it knows it exists. cmd/fickle's explore command
// and package fickletest are thin layers over it.
//
// # A run
//
//  1. startServer builds a store and an engine with the run's seed (RunSeed
//     of the exploration's seed and the run's number, so that any run can
//     be re-created alone), wraps the engine in the turnstile's gate, and
//     listens on a free loopback port; the history is written to
//     DIR/run-NNNNNN.jsonl as it happens.
//  2. The command runs with DATABASE_URL and the PG* variables pointing at
//     it, and FICKLE_SEED; its output's tail and exit status are kept.
//  3. The server stops; the run's schedule (the order in which its
//     connections' calls entered the engine) is written beside the
//     history; with Options.Check the history is checked against the
//     levels, a violation being a bug in fickle.
//
// # Why a turnstile
//
// The engine is a pure state machine fed by its callers (STYLE #1): given
// the same seed and the same calls in the same order, it makes the same
// choices. The gate (gate.go) makes that order an input: every call of a
// connection into the engine is a step that runs alone and is recorded
// (turnstile.go); a step that waits for a lock hands the turn on, and the
// steps it wakes finish their part before the next step starts. A replay
// (replay.go) admits the steps in the recorded order, whatever the Go
// scheduler does in the command, and re-issues the recorded choices
// (isolation's Config.Replay); the first step that cannot follow the
// recording is reported as where the run diverged.
//
// # Shrinking and the report
//
// Shrink (shrink.go) is delta debugging over a failing run's stale reads
// (history.Txn.Stale): each candidate replays the schedule with only some
// of the recorded stale choices kept and every other read served the latest
// version, and the smallest set that still fails is kept. The report
// (report.go) lists each stale read with its connection, application_name,
// transaction, SQL, row, the version served and the latest one, and the
// anomaly the oracle finds when it checks the history at SERIALIZABLE.
//
// # Debugging
//
// --keep keeps every run's history and schedule; `fickle explore --replay
// DIR/run-NNNNNN.jsonl -- CMD` replays one (add --runs 10 to replay it ten
// times); `fickle check` and `fickle report` read the histories. A replay
// that diverges names the step it expected and the ones it got instead.
package explore
