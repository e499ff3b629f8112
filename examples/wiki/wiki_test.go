package wiki_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fickle-db/fickle/examples/internal/exampledb"
	"github.com/fickle-db/fickle/examples/wiki"
)

// TestNoEditIsLost has three editors, each on its own connection, take
// turns appending a line to the same page, as requests from different
// clients do: every line must be on the page at the end. On PostgreSQL,
// where a transaction sees every commit that came before it, the buggy
// version passes this test; READ COMMITTED does not promise it (a load
// may return an older version of the page), and fickle serves them.
func TestNoEditIsLost(t *testing.T) {
	ctx := context.Background()
	save := wiki.Save(wiki.FixedSave)
	if exampledb.Buggy(t) {
		save = wiki.BuggySave
	}
	dsn := exampledb.DSN(t)
	setup := exampledb.Connect(t, dsn, "setup")
	exampledb.Exec(t, setup, `DROP TABLE IF EXISTS pages`, wiki.Schema, `INSERT INTO pages VALUES (1, 'title')`)
	exampledb.Checkpoint(t, setup)
	editors := make([]*pgx.Conn, 3)
	for i := range editors {
		editors[i] = exampledb.Connect(t, dsn, exampledb.Worker(i+1))
	}
	var want []string
	for round := range 2 {
		for i, conn := range editors {
			line := exampledb.Worker(i+1) + " round " + string(rune('1'+round))
			want = append(want, line)
			if err := wiki.Edit(ctx, conn, save, 1, func(body string) string { return body + "\n" + line }); err != nil {
				t.Fatal(err)
			}
		}
	}
	var body string
	if err := setup.QueryRow(ctx, `SELECT body FROM pages WHERE id = 1 FOR SHARE`).Scan(&body); err != nil {
		t.Fatal(err)
	}
	for _, line := range want {
		if !strings.Contains(body, line) {
			t.Fatalf("the edit %q was lost; the page reads:\n%s", line, body)
		}
	}
}
