package sqlexec

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// TestDropPrimaryKeyWhileATransactionWaits pins what a transaction that
// began before ALTER TABLE ... DROP CONSTRAINT of a primary key sees: its
// read of the table waits for the DDL's ACCESS EXCLUSIVE lock, then sees
// the rows its level allows (READ COMMITTED the DDL's transaction's rows,
// REPEATABLE READ its own snapshot's under PostgreSQL's profile), and may
// insert a row with a key that exists now that no key is enforced. The
// history keeps each stored row as one key, named by its old primary key,
// and names the new rows apart.
func TestDropPrimaryKeyWhileATransactionWaits(t *testing.T) {
	for _, c := range []struct {
		level string
		cfg   isolation.Config
		want  string
	}{
		{"READ COMMITTED", isolation.Config{Strategy: isolation.StrategyLatest}, "[[1 dup] [1 x] [2 y2] [3 z]]"},
		{"READ COMMITTED", isolation.Config{Strategy: isolation.StrategyLatest, RealTime: true, StatementSnapshots: true, PostgresConcurrency: true}, "[[1 dup] [1 x] [2 y2] [3 z]]"},
		{"REPEATABLE READ", isolation.Config{Strategy: isolation.StrategyLatest, RealTime: true, StatementSnapshots: true, PostgresConcurrency: true}, "[[1 x] [2 y] [3 z]]"},
	} {
		t.Run(fmt.Sprintf("%s/postgres=%v", c.level, c.cfg.PostgresConcurrency), func(t *testing.T) {
			c.cfg.Record = true
			store := isolation.NewStore(c.cfg)
			eng, err := NewEngine(Config{Store: store})
			if err != nil {
				t.Fatal(err)
			}
			a, b := eng.NewSession(SessionInfo{User: "a"}), eng.NewSession(SessionInfo{User: "b"})
			mustRun(t, a, "CREATE TABLE p (a int PRIMARY KEY, b text)")
			mustRun(t, a, "INSERT INTO p VALUES (1, 'x'), (2, 'y'), (3, 'z')")
			mustRun(t, b, "BEGIN ISOLATION LEVEL "+c.level)
			mustRun(t, b, "SELECT 1") // the snapshot, before the DDL
			mustRun(t, a, "BEGIN")
			mustRun(t, a, "ALTER TABLE p DROP CONSTRAINT p_pkey")
			mustRun(t, a, "INSERT INTO p VALUES (1, 'dup')")
			mustRun(t, a, "UPDATE p SET b = 'y2' WHERE a = 2")
			got := make(chan string, 1)
			go func() {
				rows, err := query(t, b, "SELECT a, b FROM p ORDER BY a, b")
				if err == nil {
					err = runOne(b, "INSERT INTO p VALUES (2, 'b')")
				}
				if err == nil {
					err = runOne(b, "COMMIT")
				}
				if err != nil {
					got <- errorText(err)
					return
				}
				got <- fmt.Sprint(rows)
			}()
			select {
			case out := <-got:
				t.Fatalf("the read did not wait for the DDL: %s", out)
			case <-time.After(50 * time.Millisecond):
			}
			mustRun(t, a, "COMMIT")
			if out := <-got; out != c.want {
				t.Fatalf("got %s, want %s", out, c.want)
			}
			rows, err := query(t, a, "SELECT a, b FROM p ORDER BY a, b")
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(rows) != "[[1 dup] [1 x] [2 b] [2 y2] [3 z]]" {
				t.Fatalf("rows after both: %v", rows)
			}
			var names []string
			for _, k := range store.History().Keys {
				if strings.HasSuffix(k.Table, "p") {
					names = append(names, k.Name)
				}
			}
			slices.Sort(names)
			if want := []string{"#1", "#2", "1", "2", "3"}; !slices.Equal(names, want) {
				t.Fatalf("history keys of p %q, want %q", names, want)
			}
		})
	}
}

// TestDropPrimaryKeyUnderAPreparedStatement pins that statements another
// session prepared while the table was keyed by its primary key (an
// INSERT, an UPDATE of the key, an upsert on it) run by the table as it is
// after the key was dropped: a row with an existing key's values is
// inserted, not rejected or written over one, and the upsert finds no
// constraint to arbitrate.
func TestDropPrimaryKeyUnderAPreparedStatement(t *testing.T) {
	eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest})})
	if err != nil {
		t.Fatal(err)
	}
	a, b := eng.NewSession(SessionInfo{User: "a"}), eng.NewSession(SessionInfo{User: "b"})
	mustRun(t, a, "CREATE TABLE p (a int PRIMARY KEY, b text)")
	mustRun(t, a, "INSERT INTO p VALUES (1, 'x'), (2, 'y')")
	prepare := func(sql string) *Prepared {
		sts, err := b.Parse(sql)
		if err != nil {
			t.Fatal(err)
		}
		p, err := b.Prepare(sts[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	insert := prepare("INSERT INTO p VALUES ($1::int, $2::text)")
	update := prepare("UPDATE p SET a = $1::int WHERE b = $2::text")
	upsert := prepare("INSERT INTO p VALUES ($1::int, $2::text) ON CONFLICT (a) DO NOTHING")
	for _, p := range []*Prepared{insert, update} {
		if _, err := b.Execute(context.Background(), p, []any{int64(3), "z"}); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, a, "ALTER TABLE p DROP CONSTRAINT p_pkey")
	if _, err := b.Execute(context.Background(), insert, []any{int64(1), "dup"}); err != nil {
		t.Fatalf("insert of an existing key's values: %v", err)
	}
	if _, err := b.Execute(context.Background(), update, []any{int64(2), "x"}); err != nil {
		t.Fatalf("update to an existing key's values: %v", err)
	}
	if _, err := b.Execute(context.Background(), upsert, []any{int64(1), "up"}); pgerror.GetCode(err) != pgerror.InvalidColumnReference {
		t.Fatalf("upsert on the dropped key: %v", err)
	}
	rows, err := query(t, a, "SELECT a, b FROM p ORDER BY a, b")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rows) != "[[1 dup] [2 x] [2 y] [3 z]]" {
		t.Fatalf("rows: %v", rows)
	}
}
