package server

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestDeallocateForgetsProtocolPreparedStatements pins SQL DEALLOCATE on
// statements prepared with Parse messages, which share one namespace as in
// PostgreSQL: DEALLOCATE name forgets one (26000 for an unknown name),
// DEALLOCATE ALL every one; psycopg 3 sends DEALLOCATE ALL after a
// rollback.
func TestDeallocateForgetsProtocolPreparedStatements(t *testing.T) {
	srv := startSQLServer(t, Config{})
	ctx := context.Background()
	conn := connectPgx(t, srv.DSN("tester", "fickle"), pgx.QueryExecModeCacheStatement)
	pg := conn.PgConn()
	for _, name := range []string{"a", "b", "c"} {
		if _, err := pg.Prepare(ctx, name, "SELECT 1", nil); err != nil {
			t.Fatal(err)
		}
	}
	exec := func(sql string) error {
		_, err := pg.Exec(ctx, sql).ReadAll()
		return err
	}
	if err := exec("DEALLOCATE a"); err != nil {
		t.Fatalf("DEALLOCATE a: %v", err)
	}
	if err := exec("DEALLOCATE a"); pgCode(err) != "26000" {
		t.Fatalf("second DEALLOCATE a: %v, want 26000", err)
	}
	if _, err := pg.Prepare(ctx, "a", "SELECT 2", nil); err != nil {
		t.Fatalf("preparing a again: %v", err)
	}
	if err := exec("DEALLOCATE ALL"); err != nil {
		t.Fatalf("DEALLOCATE ALL: %v", err)
	}
	for _, name := range []string{"a", "b", "c"} {
		if err := pg.ExecPrepared(ctx, name, nil, nil, nil).Read().Err; pgCode(err) != "26000" {
			t.Errorf("executing %s after DEALLOCATE ALL: %v, want 26000", name, err)
		}
	}
}
