// Package sqlexec is fickle's SQL engine: it parses SQL with PostgreSQL's own
// parser (pg_query_go), binds names against the catalog, infers the types of
// $n parameters, plans and evaluates statements, and reads and writes rows
// only through an isolation.Txn.
//
// sqlexec owns the catalog (schemas, tables, columns, constraints, indexes,
// sequences, views: a view is its stored query, expanded where a FROM item
// reads it), session settings (SET/SHOW/RESET), DDL, DML, SELECT, COPY and
// the part of pg_catalog and information_schema that drivers and psql
// query. It must never decide which version of a row a read sees: the store
// does, and sqlexec reports which rows matched each predicate read. It never
// speaks the wire protocol (package server does) and never implements value
// semantics itself: text I/O, casts, operators, functions, aggregates and the
// order-preserving key encoding live in sqlexec/types.
//
// # Lifecycle of a statement
//
//  1. Session.Parse splits a query string into statements by the locations
//     the parser reports, and caches the result by text (parse.go).
//  2. Session.Prepare binds names and types (bind.go, expr*.go, funcs.go)
//     and builds a plan (exec.go): for SELECT the FROM items with their
//     access paths (from.go: a point read by primary key, an index lookup, or
//     a scan; later items read once and hash-joined when they do not depend
//     on earlier ones), the conditions placed at the first item that binds
//     their columns, grouping (agg.go), ordering and limits (order.go),
//     subqueries, CTEs and set operations (subquery.go); for writes the
//     row source and a writer (write.go) that fills defaults and checks NOT
//     NULL, CHECK and foreign keys. Unknown tables and columns and type
//     mismatches fail here, as in PostgreSQL. Plans are kept in the Prepared,
//     and per session for statements prepared without parameter types, and
//     re-made when DDL changed the catalog since.
//  3. Session.Execute runs the plan in the session's transaction. The store
//     transaction begins with the first statement that needs it, so that
//     SET TRANSACTION after BEGIN can still choose the level.
//
// A simple query's one SELECT, INSERT, UPDATE or DELETE may skip steps 1 and
// 2: Session.PrepareLiterals replaces its literals by parameters
// (literals.go: numbers, and strings compared with a column in WHERE), so
// that texts differing only in values share one parse and one plan
// (literal_cache.go); whatever it is unsure of or fails on goes through
// Parse and Prepare of the text itself, which keeps results, errors and the
// history exactly those of the text.
//
// # What the store enforces and what sqlexec does
//
// Uniqueness (primary keys and unique indexes) is checked by the store on
// the latest committed state; sqlexec names the violated constraint.
// Foreign keys are checked by sqlexec by locking the parent row FOR KEY
// SHARE (isolation.Txn.LockRow), which reads its latest committed version;
// ON DELETE CASCADE / SET NULL / SET DEFAULT / RESTRICT / NO ACTION and
// ON UPDATE of the referenced key are applied by sqlexec through the same
// transaction. NO ACTION is checked at once, like RESTRICT, unless the
// constraint is deferred: then at COMMIT (deferred.go).
//
// # Locking
//
// Every statement that writes or locks a row works on its newest version,
// as a real database does: UPDATE and DELETE pick their rows with an
// ordinary read (adversarial where the level allows), then lock each with
// Txn.LockRow and, when the store hands back a newer version, evaluate
// their conditions again on it and compute the new row from it
// (dml_modify.go); INSERT ... ON CONFLICT DO UPDATE updates the locked
// latest row; MERGE locks a matched row its UPDATE or DELETE action
// changes, and on a newer version checks the join again and evaluates its
// WHEN clauses from the first (merge.go). SELECT ... FOR UPDATE / NO KEY UPDATE / SHARE / KEY SHARE
// locks its output rows after filtering and sorting, skipping rows SKIP
// LOCKED passes over and re-checking changed ones with the whole query's
// conditions, before OFFSET and LIMIT count them (lockrows.go), as
// PostgreSQL's LockRows node does.
//
// # Databases
//
// An Engine is one database; the engines of a server form a cluster that
// shares one store, so one history, one seed and one checkpoint
// (cluster.go). Config.Database names the main database (where fickle
// serve --load runs); postgres, template0 and template1 exist too, and
// CREATE DATABASE, DROP DATABASE [WITH (FORCE)] and ALTER DATABASE ...
// RENAME manage the rest (ddl_database.go). Engine.Connect picks a
// session's database (3D000 when it does not exist). The history names a
// table of a database other than the main one database.schema.table, and
// never gives a new table the name an earlier one had.
//
// # DDL is transactional
//
// CREATE, DROP, ALTER and COMMENT run in the session's transaction, on a
// copy of the catalog that other sessions do not see until COMMIT;
// ROLLBACK and ROLLBACK TO SAVEPOINT undo them, in the catalog and in the
// store (catalog_txn.go). Table locks taken through the transaction
// (ACCESS EXCLUSIVE for ALTER, DROP and RENAME) make other statements on
// the table wait, and a statement re-plans when DDL committed while it
// waited for its locks (exec.go). The catalog effects of TRUNCATE ...
// RESTART IDENTITY are not undone, and sequences are not transactional, as
// in PostgreSQL. A table created without a primary key is keyed by a
// hidden row id in the store; a primary key added later is enforced and
// used for lookups through a unique index.
//
// Settings follow PostgreSQL's rules at a transaction's end: SET is undone
// by ROLLBACK and ROLLBACK TO SAVEPOINT, SET LOCAL ends with the
// transaction (settings_txn.go).
//
// # Unsupported SQL
//
// Anything not implemented fails with 0A000 naming the feature (FULL JOIN
// on conditions other than equalities, set-returning functions in a select
// list with GROUP BY or window functions, EXPLAIN MERGE, LISTEN and
// NOTIFY, range types, hypothetical-set aggregates, writes through a view that is not
// automatically updatable and has no INSTEAD OF trigger, ...); no clause
// is silently ignored.
// A panic inside the engine is recovered at the API and becomes XX000 for
// that statement.
//
// # Routines and triggers
//
// CREATE FUNCTION and CREATE PROCEDURE keep a routine in its schema
// (functions.go); calls resolve among the routines of the name by
// PostgreSQL's rules before the built-ins (functions_call.go). LANGUAGE sql
// bodies are planned like client statements with the arguments as $n
// (functions_sql.go); PL/pgSQL bodies are parsed by PostgreSQL's own
// PL/pgSQL parser (pg_query_go) and interpreted (plpgsql*.go), their
// expressions and statements evaluated by this executor with the variables
// as parameters; an EXCEPTION block is a savepoint of the transaction.
// Triggers belong to their table and fire from INSERT, UPDATE and DELETE
// (triggers.go). Everything a routine or trigger reads and writes goes
// through the caller's store transaction; each SQL statement it runs is a
// store event of its own (it sees what the calling statement wrote so far,
// as in PostgreSQL), named in the history after the calling statement and
// the routines and triggers it runs in.
//
// # fickle's own functions
//
// SELECT fickle_checkpoint() folds the committed state into the store's
// init and starts a new history (not inside a transaction block, 25001);
// SELECT * FROM fickle_check() checks the history recorded so far with the
// oracle, each transaction at its own level and then every level from RC
// up, one row each (fickle_funcs.go). The sessions' default level and
// strategy come from Config (fickle serve --isolation, --strategy).
//
// # Debugging
//
// The scripts in testdata/scripts run SQL in-process against a real store:
// go test ./sqlexec -run TestScripts/NAME, and -rewrite regenerates their
// expected output. With FICKLE_TEST_PG set to a PostgreSQL 15 DSN,
// TestScriptsAgainstPostgres runs the same statements on PostgreSQL and
// reports every SQLSTATE or row that differs (intended differences are
// listed in testdata/pg_differences.txt). FuzzSQL fuzzes the whole entry
// point; BenchmarkTPCB measures pgbench's transaction in-process.
package sqlexec
