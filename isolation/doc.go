// Package isolation is fickle's multi-version store and its adversary.
//
// It owns every committed version of every row (with its writer and its
// place in the commit order co), the transactions that read and write them
// at their own isolation level (RC, RA, CC, PC, SI, SER), the choice of the
// version every read sees, the physical locks real databases take whatever
// the level (row locks, unique index keys, table locks, advisory locks,
// deadlock detection), and the recording of the history: every key a read
// inspected with the writer of the version it saw, every write, every
// outcome, and co.
//
// It must never parse SQL or interpret a row: rows are opaque []any, keys
// are the executor's order-preserving byte strings, and index keys come from
// the executor's functions. It must never read the clock, use global
// randomness or start goroutines (purity_test.go enforces it): seeds arrive
// in Config, deadlines in the caller's context, and one owner (engine.mu)
// serializes every call, so that the order of calls is the order recorded
// in the history and a run replays from its seed or its history.
//
// # Lifecycle
//
//  1. The executor registers tables (CreateTable) and indexes (CreateIndex).
//  2. Each connection opens a Session (or shares a named one, beginning
//     with BeginWait so that its transactions stay a sequence); each
//     transaction is Session.Begin with its level, read-only flag and
//     strategy. The transaction's PRNG derives from (seed, session,
//     sequence number).
//  3. Reads (Get, Scan, ScanIndex) compute, for every inspected key, the
//     committed versions the level allows given co as it stands
//     (visibility.go), pick one with the strategy (strategy.go), and record
//     it; predicate reads call the executor back with each live row without
//     the mutex held and record whether it matched. ReadOptions.Latest
//     (and, in the axiomatic profile, ForLock) reads see the latest
//     committed version, or fail with 40001 when the level cannot explain
//     it. A scan also reads from init
//     every key created after it passed the key's place, and an index
//     lookup reads every row that enters its range later as it was, outside
//     the range (phantom.go): a later scan or lookup cannot return a row
//     inserted or moved in meanwhile where the level forbids phantoms, and
//     the history lists the read.
//  4. A statement that locks rows (SELECT ... FOR, UPDATE, DELETE, upserts,
//     foreign key checks) locks each row it picked with LockRow (lockrow.go)
//     and works on the row's newest version, read once, at every level:
//     the executor re-checks its conditions when it is not the version the
//     statement read (EvalPlanQual); 40001 where the level cannot explain
//     it (Config.StaleWrites lets writes keep the version read).
//     Writes (Insert, Update, Delete) take row write locks, waiting for
//     pending writers as PostgreSQL does (locks.go), and enforce primary
//     keys and unique indexes on the latest committed state plus the
//     transaction's own writes (write.go). SI checks first-committer-wins.
//     Writes stay private until Commit.
//  5. Commit places the transaction in co (serialize.go): after its session
//     predecessors, read sources and the latest writers of the keys it
//     writes, inside its window for SER, at a position the insertion check
//     accepts for every transaction it affects, possibly in the past; 40001
//     when there is none. Rollback places it too, with no writes, because
//     its reads are still checked. Server aborts (40001, 40P01) and doomed
//     windows leave co untouched.
//  6. After a placement the staleness horizon may move (collect.go,
//     Config.MaxStaleness and MaxKept): the versions no later read may
//     choose, and the transactions and co places only they needed, are
//     freed, and pending transactions whose reads need them are doomed
//     (40001 "snapshot too old").
//
// # Why the splits
//
// engine.go holds tables, keys and versions; txn.go the transaction
// lifecycle; read.go and write.go the data path; lockrow.go row locks and
// the newest version a locked row is worked on; locks.go and advisory.go
// the lock table; order.go co as an order-maintenance list; clock.go the
// causal vector clocks; visibility.go which versions a read may see;
// serialize.go where a transaction goes in co; strategy.go which valid
// choice is made; record.go the history (in memory and streamed to
// Config.Log); replay.go re-issuing a recorded history's choices;
// checkpoint.go folding the state into init; collect.go the staleness
// horizon, before which versions and transactions are freed (what the
// store keeps, docs/memory.md); phantom.go the keys created
// after a scan passed them; statement_reads.go one version per key and
// statement; ssi.go PostgreSQL's serializable snapshot isolation under
// --profile postgres. Only visibility.go, serialize.go and phantom.go know
// the levels' rules; ssi.go adds PostgreSQL's aborts on top of them.
//
// # Profiles
//
// The axiomatic profile is the default: no real time, any valid version.
// --profile postgres gives PostgreSQL's outcomes: StrategyLatest with
// Config.RealTime (a transaction sees what committed before it began),
// Config.StatementSnapshots (READ COMMITTED reads as of its statement's
// start) and Config.PostgresConcurrency, which adds what PostgreSQL does
// on top of the levels, every addition a server abort or a later read the
// axioms allow: PC, SI and SER read from their first statement's snapshot;
// an UPDATE, DELETE or locking read of a row whose latest version
// committed after the snapshot fails with 40001 under SI and SER
// (first-updater-wins, write.go) and, under READ COMMITTED, hands the
// executor that version to re-evaluate its WHERE clause on
// (Txn.LockRow, EvalPlanQual; the re-check is a read event of its
// own); SER transactions run PostgreSQL's SSI (ssi.go), which fails the
// statement or the commit that closes a dangerous structure, where
// PostgreSQL does. integration/hermitage_test.go holds the profile to
// PostgreSQL's outcomes on Hermitage's cases.
//
// # Soundness and power
//
// The engine never offers a choice the axioms of DESIGN §3 forbid: the
// soundness test checks every history of random mixed-level workloads (with
// every strategy, rollbacks, real time) against a brute-force reading of
// the axioms and against the oracle; with -tags invariants every ending
// transaction re-verifies the recorded co with the oracle. It may offer
// fewer choices than the axioms allow (it fixes co as it goes, and tries at
// most maxPlaceCandidates places), but the power test, which enumerates the
// engine's behaviours exhaustively on small programs, reaches every outcome
// the axioms allow on the programs it explores.
//
// # Debugging
//
// Config.Record keeps the history; Store.History returns it with co, ready
// for the oracle; Config.Log streams it as fickle JSONL. Config.Replay
// re-runs a recorded history's choices (delete reads from it to shrink a
// failure). The scenario files in testdata/scenarios drive the engine with
// a small command language (scenario_test.go: begin, read, scan, write,
// valid, commit, rollback, history, check, _breakpoint); run
// go test ./isolation -run Scenario -rewrite to regenerate their output.
// go test ./isolation -run Soundness -case N reruns one random workload;
// -long runs 100,000 of them and 60 exhaustively explored programs.
package isolation
