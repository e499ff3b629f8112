// Package integration holds fickle's end-to-end tests: real clients (pgx,
// lib/pq, psql, pgbench, node-postgres) against the fickle binary or an
// in-process server, and differential tests that
// run the same SQL against a real PostgreSQL 15 and compare results and
// SQLSTATEs.
//
// The tests build ./cmd/fickle once and start a fresh server per test with
// `fickle serve --listen 127.0.0.1:0`. The PostgreSQL they compare against is
// started once per run with initdb and pg_ctl in a temporary directory (as user
// postgres when running as root). When psql, pgbench or PostgreSQL's server are
// missing the tests that need them skip, unless FICKLE_REQUIRE_PG=1 (set by
// .ci/run, which installs every client), in which case they fail. The
// Node.js clients are an npm project in testdata/node (npm ci there).
package integration
