package signup_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fickle-db/fickle/examples/internal/exampledb"
	"github.com/fickle-db/fickle/examples/signup"
)

// TestEveryNameIsRegisteredOnce has three workers, each on its own
// connection, take turns signing up the same three names in different
// orders: each name ends up registered once, and exactly one signup of it
// succeeded. On PostgreSQL the buggy version passes this test (each signup
// sees the ones before); READ COMMITTED does not promise it, and fickle
// serves older states, as concurrent signups would see.
func TestEveryNameIsRegisteredOnce(t *testing.T) {
	ctx := context.Background()
	register, schema := signup.Signup(signup.FixedSignup), signup.FixedSchema
	if exampledb.Buggy(t) {
		register, schema = signup.BuggySignup, signup.BuggySchema
	}
	dsn := exampledb.DSN(t)
	setup := exampledb.Connect(t, dsn, "setup")
	exampledb.Exec(t, setup, `DROP TABLE IF EXISTS users`, schema)
	exampledb.Checkpoint(t, setup)
	orders := [][]string{{"ann", "bob", "cy"}, {"bob", "cy", "ann"}, {"cy", "ann", "bob"}}
	workers := make([]*pgx.Conn, len(orders))
	for i := range orders {
		workers[i] = exampledb.Connect(t, dsn, exampledb.Worker(i+1))
	}
	wins := map[string]int{}
	for turn := range 3 {
		for i, names := range orders {
			err := register(ctx, workers[i], names[turn])
			switch {
			case err == nil:
				wins[names[turn]]++
			case !errors.Is(err, signup.ErrTaken):
				t.Fatal(err)
			}
		}
	}
	rows, err := setup.Query(ctx, `SELECT username FROM users FOR SHARE`)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, n := range names {
		count[n]++
	}
	for _, n := range []string{"ann", "bob", "cy"} {
		if count[n] != 1 || wins[n] != 1 {
			t.Errorf("%q is registered %d times and %d signups of it succeeded; want once and one", n, count[n], wins[n])
		}
	}
}
