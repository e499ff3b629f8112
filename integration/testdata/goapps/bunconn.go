package main

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

// runBunConn connects with pgdriver's startup parameters: an application name, a search path, a custom setting and
// a statement timeout, and reads them back. pgdriver quotes the search path as a single name.
func runBunConn(ctx context.Context, url string) {
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(url), pgdriver.WithApplicationName("goapps-bun"),
		pgdriver.WithConnParams(map[string]any{"search_path": "public", "goapps.mode": "test", "statement_timeout": "5min"})))
	db := bun.NewDB(sqldb, pgdialect.New())
	defer db.Close()
	var path, app, mode, timeout, activity string
	must(db.NewRaw("SELECT current_setting('search_path'), current_setting('application_name'), current_setting('goapps.mode'), "+
		"current_setting('statement_timeout'), (SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid())").
		Scan(ctx, &path, &app, &mode, &timeout, &activity))
	fmt.Println("startup parameters:", path, "|", app, "|", mode, "|", timeout, "|", activity)
	var schemas []string
	must(db.NewRaw("SELECT unnest(current_schemas(false))::text").Scan(ctx, &schemas))
	fmt.Println("current schemas:", schemas)
	var tags int
	must(db.NewRaw("SELECT count(*) FROM tags").Scan(ctx, &tags))
	fmt.Println("tags on the search path:", tags)
	bad := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(url), pgdriver.WithConnParams(map[string]any{"no_such_setting": "1"})))
	defer bad.Close()
	fmt.Println("unknown startup parameter:", bad.PingContext(ctx))
}
