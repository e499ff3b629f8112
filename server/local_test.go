package server

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fickle-db/fickle/isolation"
)

func TestStartLocalServesTheDSN(t *testing.T) {
	srv, store, err := StartLocal(Config{Password: "pw"}, isolation.Config{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	defer srv.Shutdown(ctx)
	conn, err := pgx.Connect(ctx, srv.DSN("app", "fickle"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE kv (k int PRIMARY KEY, v int)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO kv VALUES (1, 2)"); err != nil {
		t.Fatal(err)
	}
	if h := store.History(); h == nil || len(h.Txns) == 0 {
		t.Fatalf("the store recorded no history: %+v", h)
	}
}
