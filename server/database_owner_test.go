package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestStartupRefusesRolesWithoutLoginOrConnect pins the checks a startup
// makes for a user that names a role, on fickle and on PostgreSQL: a role
// without LOGIN is refused with FATAL 28000, one without CONNECT on the
// database (REVOKE CONNECT ... FROM PUBLIC) with FATAL 42501 and
// PostgreSQL's detail, and a GRANT CONNECT lets it in as that role. On
// fickle a user that names no role still connects, as the bootstrap
// superuser.
func TestStartupRefusesRolesWithoutLoginOrConnect(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for name, dsn := range fickleAndPostgres(t) {
		t.Run(name, func(t *testing.T) {
			base, err := pgx.ParseConfig(dsn)
			if err != nil {
				t.Fatal(err)
			}
			as := func(user, database string) *pgx.ConnConfig {
				c := base.Copy()
				c.User, c.Database = user, database
				return c
			}
			admin, err := pgx.ConnectConfig(ctx, base)
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close(ctx)
			exec := func(sql string) {
				t.Helper()
				if _, err := admin.Exec(ctx, sql); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
			}
			cleanup := func() {
				exec("DROP DATABASE IF EXISTS dbo_startup WITH (FORCE)")
				exec("DROP ROLE IF EXISTS dbo_login, dbo_nologin")
			}
			cleanup()
			defer cleanup()
			exec("CREATE ROLE dbo_login LOGIN")
			exec("CREATE ROLE dbo_nologin")
			exec("CREATE DATABASE dbo_startup")
			exec("REVOKE CONNECT ON DATABASE dbo_startup FROM PUBLIC")

			refused := func(user, database, code, message, detail string) {
				t.Helper()
				c, err := pgx.ConnectConfig(ctx, as(user, database))
				if err == nil {
					c.Close(ctx)
					t.Fatalf("%s connected to %s, want %s", user, database, code)
				}
				var pe *pgconn.PgError
				if !errors.As(err, &pe) || pe.Severity != "FATAL" || pe.Code != code || pe.Message != message || pe.Detail != detail {
					t.Fatalf("%s connecting to %s: %v, want FATAL %s %q (%q)", user, database, err, code, message, detail)
				}
			}
			refused("dbo_nologin", base.Database, "28000", `role "dbo_nologin" is not permitted to log in`, "")
			refused("dbo_login", "dbo_startup", "42501", `permission denied for database "dbo_startup"`,
				"User does not have CONNECT privilege.")

			exec("GRANT CONNECT ON DATABASE dbo_startup TO dbo_login")
			c, err := pgx.ConnectConfig(ctx, as("dbo_login", "dbo_startup"))
			if err != nil {
				t.Fatalf("dbo_login after GRANT CONNECT: %v", err)
			}
			var user string
			var super bool
			err = c.QueryRow(ctx, "SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&user, &super)
			c.Close(ctx)
			if err != nil || user != "dbo_login" || super {
				t.Fatalf("dbo_login's session runs as %q (superuser %v), %v", user, super, err)
			}

			if name == "fickle" {
				c, err := pgx.ConnectConfig(ctx, as("dbo_nobody", "dbo_startup"))
				if err != nil {
					t.Fatalf("a user that names no role: %v", err)
				}
				c.Close(ctx)
			}
		})
	}
}
