package main

import (
	"context"
	"database/sql"
	"fmt"
	"testing/fstest"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// providerFiles are run by goose's Provider; the third fails halfway inside its transaction.
var providerFiles = fstest.MapFS{
	"00001_items.sql": {Data: []byte(`-- +goose Up
CREATE TABLE items (id integer PRIMARY KEY, label text NOT NULL, qty integer NOT NULL CHECK (qty >= 0));
INSERT INTO items VALUES (1, 'a', 1), (2, 'b', 2);
-- +goose Down
DROP TABLE items;
`)},
	"00003_broken.sql": {Data: []byte(`-- +goose Up
UPDATE items SET qty = qty + 10;
UPDATE items SET qty = qty - 100;
-- +goose Down
SELECT 1;
`)},
}

// providerGoMigration is version 2, a Go migration in a transaction.
func providerGoMigration() *goose.Migration {
	up := &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO items SELECT id + 10, upper(label), qty * $1 FROM items", 3)
		return err
	}}
	down := &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM items WHERE id > $1", 10)
		return err
	}}
	return goose.NewGoMigration(2, up, down)
}

func runGooseProvider(url string, db *sql.DB) {
	ctx := context.Background()
	items := func() {
		rows, err := db.Query("SELECT id, label, qty FROM items ORDER BY id")
		must(err)
		for rows.Next() {
			var id, qty int
			var label string
			must(rows.Scan(&id, &label, &qty))
			fmt.Println("  item", id, label, qty)
		}
		must(rows.Err())
	}
	results := func(label string, rs []*goose.MigrationResult, err error) {
		for _, r := range rs {
			fmt.Println(" ", label, r.Direction, r.Source.Type, r.Source.Version, r.Empty, r.Error)
		}
		fmt.Println(label, "error:", err)
	}
	status := func(p *goose.Provider) {
		ss, err := p.Status(ctx)
		must(err)
		for _, s := range ss {
			fmt.Println("  status", s.Source.Version, s.State, s.AppliedAt.IsZero())
		}
	}
	sessionLocker, err := lock.NewPostgresSessionLocker(lock.WithLockID(77))
	must(err)
	tableLocker, err := lock.NewPostgresTableLocker(lock.WithTableName("goose_locks"), lock.WithTableLockID(78))
	must(err)
	for _, locking := range []struct {
		name string
		opt  goose.ProviderOption
	}{
		{"session", goose.WithSessionLocker(sessionLocker)},
		{"table", goose.WithLocker(tableLocker)},
	} {
		fmt.Println("provider with a", locking.name, "lock")
		// Close closes the provider's database
		pdb, err := sql.Open("pgx", url)
		must(err)
		p, err := goose.NewProvider(goose.DialectPostgres, pdb, providerFiles, locking.opt,
			goose.WithTableName("provider_versions_"+locking.name), goose.WithGoMigrations(providerGoMigration()),
			goose.WithDisableGlobalRegistry(true))
		must(err)
		pending, err := p.HasPending(ctx)
		must(err)
		fmt.Println("pending:", pending)
		rs, err := p.Up(ctx)
		results("up", rs, err)
		items()
		status(p)
		current, target, err := p.GetVersions(ctx)
		must(err)
		fmt.Println("versions:", current, target)
		r, err := p.Down(ctx)
		results("down", []*goose.MigrationResult{r}, err)
		items()
		r, err = p.ApplyVersion(ctx, 2, true)
		results("apply 2", []*goose.MigrationResult{r}, err)
		r, err = p.ApplyVersion(ctx, 2, true)
		fmt.Println("apply 2 again:", r == nil, err)
		rs, err = p.DownTo(ctx, 0)
		results("down to 0", rs, err)
		status(p)
		must(p.Close())
	}
	rows, err := db.Query("SELECT lock_id, locked, locked_by IS NULL, lease_expires_at IS NULL FROM goose_locks ORDER BY lock_id")
	must(err)
	for rows.Next() {
		var id int64
		var locked, noOwner, noLease bool
		must(rows.Scan(&id, &locked, &noOwner, &noLease))
		fmt.Println("  goose_locks", id, locked, noOwner, noLease)
	}
	must(rows.Err())
	var free, unlocked bool
	must(db.QueryRow("SELECT pg_try_advisory_lock(77), pg_advisory_unlock(77)").Scan(&free, &unlocked))
	fmt.Println("session lock released:", free, unlocked)
}
