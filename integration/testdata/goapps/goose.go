package main

import (
	"database/sql"
	"fmt"
	"regexp"
	"testing/fstest"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
)

// gooseFiles are goose's SQL migrations: a table, a PL/pgSQL function between StatementBegin and StatementEnd,
// seed rows with an index, and a migration run outside a transaction.
var gooseFiles = fstest.MapFS{
	"migrations/00001_accounts.sql": {Data: []byte(`-- +goose Up
CREATE TABLE accounts (
	id bigserial PRIMARY KEY,
	owner text NOT NULL,
	balance numeric(12,2) NOT NULL DEFAULT 0
);

-- +goose Down
DROP TABLE accounts;
`)},
	"migrations/00002_interest.sql": {Data: []byte(`-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION add_interest(rate numeric) RETURNS integer AS $$
DECLARE
	n integer;
BEGIN
	UPDATE accounts SET balance = round(balance * (1 + rate), 2);
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END;
$$ LANGUAGE plpgsql;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION add_interest(numeric);
`)},
	"migrations/00003_seed.sql": {Data: []byte(`-- +goose Up
INSERT INTO accounts (owner, balance) VALUES ('ann', 100), ('bob', 50.50);
CREATE UNIQUE INDEX accounts_owner_idx ON accounts (owner);

-- +goose Down
DROP INDEX accounts_owner_idx;
DELETE FROM accounts;
`)},
	"migrations/00004_notx.sql": {Data: []byte(`-- +goose NO TRANSACTION
-- +goose Up
CREATE INDEX CONCURRENTLY accounts_balance_idx ON accounts (balance);

-- +goose Down
DROP INDEX CONCURRENTLY accounts_balance_idx;
`)},
}

// gooseLog prints goose's messages with the application times and durations replaced.
type gooseLog struct{}

var (
	ansicTime = regexp.MustCompile(`[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d \d{4}`)
	duration  = regexp.MustCompile(`\([0-9.]+[µnm]?s\)`)
)

func (gooseLog) Printf(format string, v ...any) {
	s := fmt.Sprintf(format, v...)
	s = ansicTime.ReplaceAllString(s, "<applied at>            ")
	fmt.Println(duration.ReplaceAllString(s, "(<duration>)"))
}

func (gooseLog) Fatalf(format string, v ...any) {
	fmt.Printf("FATAL: "+format+"\n", v...)
}

func runGoose(url string) {
	db, err := sql.Open("pgx", url)
	must(err)
	defer db.Close()
	goose.SetBaseFS(gooseFiles)
	goose.SetLogger(gooseLog{})
	must(goose.SetDialect("postgres"))
	result := func(label string, err error) {
		if err == nil {
			fmt.Println(label, "ok")
		} else {
			fmt.Println(label, "error:", err)
		}
	}
	version := func(label string) {
		v, err := goose.GetDBVersion(db)
		must(err)
		fmt.Println(label, "version:", v)
	}
	accounts := func() {
		rows, err := db.Query("SELECT owner, balance::text FROM accounts ORDER BY owner")
		must(err)
		for rows.Next() {
			var owner, balance string
			must(rows.Scan(&owner, &balance))
			fmt.Println("  account", owner, balance)
		}
		must(rows.Err())
		rows, err = db.Query("SELECT indexname FROM pg_indexes WHERE tablename = 'accounts' ORDER BY indexname")
		must(err)
		for rows.Next() {
			var name string
			must(rows.Scan(&name))
			fmt.Println("  index", name)
		}
		must(rows.Err())
	}
	result("status on an empty database", goose.Status(db, "migrations"))
	result("up", goose.Up(db, "migrations"))
	version("after up")
	result("status", goose.Status(db, "migrations"))
	accounts()
	var n int
	must(db.QueryRow("SELECT add_interest(0.1)").Scan(&n))
	fmt.Println("add_interest updated", n)
	accounts()
	result("up again", goose.Up(db, "migrations"))
	result("down", goose.Down(db, "migrations"))
	version("after down")
	accounts()
	result("redo", goose.Redo(db, "migrations"))
	version("after redo")
	accounts()
	result("down to 1", goose.DownTo(db, "migrations", 1))
	version("after down to 1")
	result("status", goose.Status(db, "migrations"))
	var fn sql.NullString
	must(db.QueryRow("SELECT to_regprocedure('add_interest(numeric)')::text").Scan(&fn))
	fmt.Println("function after down:", fn.String, fn.Valid)
	result("up by one", goose.UpByOne(db, "migrations"))
	version("after up by one")
	result("reset", goose.Reset(db, "migrations"))
	version("after reset")
	rows, err := db.Query("SELECT version_id, is_applied FROM goose_db_version ORDER BY id")
	must(err)
	for rows.Next() {
		var v int64
		var applied bool
		must(rows.Scan(&v, &applied))
		fmt.Println("  goose_db_version", v, applied)
	}
	must(rows.Err())
	runGooseProvider(url, db)
}
