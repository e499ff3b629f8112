// Package sqlexec is fickle's SQL engine: it parses SQL with PostgreSQL's own
// parser (pg_query_go), binds names against the catalog, infers the types of
// $n parameters, plans and evaluates statements, and reads and writes rows
// only through an isolation.Txn.
//
// sqlexec owns the catalog (schemas, tables, columns, constraints, indexes,
// sequences), session settings (SET/SHOW/RESET), DDL, DML, SELECT, COPY and
// the small part of pg_catalog that drivers query. It must never decide
// which version of a row a read sees: the store does, and sqlexec reports
// which rows matched each predicate read. Value semantics (text I/O, casts,
// operators, functions, aggregates, key encoding) live in sqlexec/types.
//
// # Lifecycle of a statement
//
//  1. Session.Parse splits a query string into statements (PostgreSQL's
//     parser reports each statement's location) and caches the parse by text.
//  2. Session.Prepare binds names and types and builds a plan: access paths
//     (point reads by primary key or index, or scans), joins, filters,
//     grouping, ordering. The plan is kept in the Prepared and re-made when
//     DDL changed the catalog since.
//  3. Session.Execute runs the plan inside the session's open transaction.
//
// # DDL is not transactional
//
// CREATE, DROP, ALTER and TRUNCATE's catalog effects take effect at once, for
// every session, and are not undone when the transaction that ran them
// rolls back. (TRUNCATE deletes rows through the transaction like DELETE.)
// Sequences are not transactional either, as in PostgreSQL.
//
// # Debugging
//
// The datadriven scripts in testdata/ run SQL in-process against a real
// store; run one with go test ./sqlexec -run TestScripts/NAME and rewrite
// expected output with -rewrite.
package sqlexec
