package explore

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The tests run explore with this test binary as the command: with
// helperEnv set, TestMain runs the named scenario against DATABASE_URL
// instead of the tests, and exits with its status.
const helperEnv = "FICKLE_EXPLORE_HELPER"

func TestMain(m *testing.M) {
	if name := os.Getenv(helperEnv); name != "" {
		os.Exit(runHelper(name))
	}
	os.Exit(m.Run())
}

// helperCommand is the command that runs scenario name.
func helperCommand(t *testing.T, name string) []string {
	t.Helper()
	t.Setenv(helperEnv, name)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe}
}

// helpers are the scenarios: each returns the command's exit status.
var helpers = map[string]func(ctx context.Context, dsn string) int{
	// counter-lost-update: two workers each add 1 three times by reading
	// the counter and writing back read+1; the final value must be 6.
	"counter-lost-update": func(ctx context.Context, dsn string) int {
		return counter(ctx, dsn, `SELECT n FROM counter WHERE id = 1`)
	},
	// counter-locked: the same with SELECT ... FOR UPDATE: never fails.
	"counter-locked": func(ctx context.Context, dsn string) int {
		return counter(ctx, dsn, `SELECT n FROM counter WHERE id = 1 FOR UPDATE`)
	},
	// lock-wait: a waits for b's row lock, which b holds across a pause.
	"lock-wait": lockWait,
	// two-sessions runs a fixed schedule of two sessions on one goroutine
	// (twoSessionProgram).
	"two-sessions": twoSessions,
	// no-connect exits without connecting.
	"no-connect": func(context.Context, string) int { return 0 },
	// hang connects and then sleeps past any test timeout.
	"hang": func(ctx context.Context, dsn string) int {
		conn := mustConnect(ctx, dsn, "hang")
		defer conn.Close(ctx)
		time.Sleep(time.Minute)
		return 0
	},
}

func runHelper(name string) int {
	f, ok := helpers[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown helper %q\n", name)
		return 100
	}
	return f(context.Background(), os.Getenv("DATABASE_URL"))
}

func mustConnect(ctx context.Context, dsn, app string) *pgx.Conn {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		panic(err)
	}
	cfg.RuntimeParams["application_name"] = app
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		panic(err)
	}
	return conn
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// counter runs two workers that each increment a counter three times,
// reading it with read; it fails (exit 1) when increments were lost.
func counter(ctx context.Context, dsn, read string) int {
	setup := mustConnect(ctx, dsn, "setup")
	defer setup.Close(ctx)
	_, err := setup.Exec(ctx, `CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL)`)
	must(err)
	_, err = setup.Exec(ctx, `INSERT INTO counter VALUES (1, 0)`)
	must(err)
	_, err = setup.Exec(ctx, `SELECT fickle_checkpoint()`)
	must(err)
	var wg sync.WaitGroup
	for w := range 2 {
		conn := mustConnect(ctx, dsn, fmt.Sprintf("worker-%d", w+1))
		defer conn.Close(ctx)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				must(pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
					var n int
					if err := tx.QueryRow(ctx, read).Scan(&n); err != nil {
						return err
					}
					_, err := tx.Exec(ctx, `UPDATE counter SET n = $1 WHERE id = 1`, n+1)
					return err
				}))
			}
		}()
	}
	wg.Wait()
	var n int
	must(setup.QueryRow(ctx, `SELECT n FROM counter WHERE id = 1 FOR SHARE`).Scan(&n))
	if n != 6 {
		fmt.Printf("counter = %d, want 6\n", n)
		return 1
	}
	return 0
}

// lockWait makes connection a wait for the row lock connection b holds:
// b updates the row, a's update waits, b commits after a pause, a goes on.
func lockWait(ctx context.Context, dsn string) int {
	setup := mustConnect(ctx, dsn, "setup")
	_, err := setup.Exec(ctx, `CREATE TABLE r (id int PRIMARY KEY, v int)`)
	must(err)
	_, err = setup.Exec(ctx, `INSERT INTO r VALUES (1, 0)`)
	must(err)
	_, err = setup.Exec(ctx, `SELECT fickle_checkpoint()`)
	must(err)
	setup.Close(ctx)
	a, b := mustConnect(ctx, dsn, "a"), mustConnect(ctx, dsn, "b")
	defer a.Close(ctx)
	defer b.Close(ctx)
	tx, err := b.Begin(ctx)
	must(err)
	_, err = tx.Exec(ctx, `UPDATE r SET v = 2 WHERE id = 1`)
	must(err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := a.Exec(ctx, `UPDATE r SET v = 1 WHERE id = 1`)
		must(err)
	}()
	time.Sleep(50 * time.Millisecond)
	must(tx.Commit(ctx))
	<-done
	return 0
}

// twoSessionProgram is the schedule of two-sessions: session A inserts x,
// session B reads x, A inserts y, B reads y and x again in the same
// transaction, then reads y and x in a second one. Each read is its own
// statement; the last step says how many reads happened.
var twoSessionProgram = []struct{ conn, sql string }{
	{"a", "INSERT INTO kv VALUES ('x', 1)"},
	{"b", "BEGIN"},
	{"b", "SELECT v FROM kv WHERE k = 'x'"},
	{"a", "INSERT INTO kv VALUES ('y', 1)"},
	{"b", "SELECT v FROM kv WHERE k = 'y'"},
	{"b", "SELECT v FROM kv WHERE k = 'x'"},
	{"b", "COMMIT"},
	{"b", "BEGIN"},
	{"b", "SELECT v FROM kv WHERE k = 'y'"},
	{"b", "SELECT v FROM kv WHERE k = 'x'"},
	{"b", "COMMIT"},
}

func twoSessions(ctx context.Context, dsn string) int {
	setup := mustConnect(ctx, dsn, "setup")
	_, err := setup.Exec(ctx, `CREATE TABLE kv (k text PRIMARY KEY, v int)`)
	must(err)
	_, err = setup.Exec(ctx, `SELECT fickle_checkpoint()`)
	must(err)
	conns := map[string]*pgx.Conn{"a": mustConnect(ctx, dsn, "a"), "b": mustConnect(ctx, dsn, "b")}
	for _, st := range twoSessionProgram {
		_, err := conns[st.conn].Exec(ctx, st.sql)
		if err != nil {
			fmt.Println(err) // a serialization failure ends the program: a run of its own
			return 0
		}
	}
	return 0
}
