package server

import (
	"context"
	"testing"
	"time"
)

// TestRegclassOverTheWire pins that regclass values travel as relation
// names, as PostgreSQL's text format has them: a name sent as a regclass
// parameter resolves along the session's search path, and a regclass
// result prints as the relation's name, in every pgx exec mode.
func TestRegclassOverTheWire(t *testing.T) {
	srv := startSQLServer(t, Config{})
	setup := connectPgx(t, srv.DSN("tester", "fickle"), execModes[0])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, sql := range []string{"CREATE SCHEMA s2", "CREATE TABLE s2.accounts (id integer PRIMARY KEY)", "CREATE SEQUENCE s2.ids"} {
		if _, err := setup.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, mode := range execModes {
		t.Run(mode.String(), func(t *testing.T) {
			conn := connectPgx(t, srv.DSN("tester", "fickle"), mode)
			var name, qualified string
			var next int64
			if err := conn.QueryRow(ctx, "SELECT $1::regclass::text, 's2.accounts'::regclass::text", "s2.accounts").Scan(&qualified, &name); err != nil {
				t.Fatal(err)
			}
			if qualified != "s2.accounts" || name != "s2.accounts" {
				t.Errorf("outside the search path: %q, %q, want s2.accounts", qualified, name)
			}
			if _, err := conn.Exec(ctx, "SET search_path = s2, public"); err != nil {
				t.Fatal(err)
			}
			if err := conn.QueryRow(ctx, "SELECT $1::regclass::text, nextval($2::regclass)", "accounts", "ids").Scan(&name, &next); err != nil {
				t.Fatal(err)
			}
			if name != "accounts" || next < 1 {
				t.Errorf("on the search path: %q, nextval %d; want accounts and a value", name, next)
			}
			if err := conn.QueryRow(ctx, "SELECT 'accounts'::regclass").Scan(&name); err != nil || name != "accounts" {
				t.Errorf("regclass result: %q, %v; want accounts", name, err)
			}
			_, err := conn.Exec(ctx, "SELECT $1::regclass", "nosuch")
			if pgCode(err) != "42P01" {
				t.Errorf("unknown relation: %v, want 42P01", err)
			}
		})
	}
}
