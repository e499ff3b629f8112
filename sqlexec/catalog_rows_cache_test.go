package sqlexec

import (
	"fmt"
	"sync"
	"testing"

	"github.com/fickle-db/fickle/isolation"
)

// TestKeptSystemRowsAreSharedSafely pins that sessions reading the same
// kept system-table rows at once (each building indexes over them) get
// each its own table's columns, and that a session's uncommitted DDL is
// seen by it alone: the rows are shared by catalog, settings, roles and
// user (catalog_rows_cache.go). Run under -race it checks the sharing.
func TestKeptSystemRowsAreSharedSafely(t *testing.T) {
	eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	setup := eng.NewSession(SessionInfo{User: "s"})
	for i := 0; i < 30; i++ {
		mustRun(t, setup, fmt.Sprintf("CREATE TABLE kr%d (id serial PRIMARY KEY, c%d int DEFAULT %d)", i, i, i))
	}
	query := func(table string) string {
		return "SELECT a.attname, pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum " +
			"JOIN pg_class c ON a.attrelid = c.oid WHERE c.relname = '" + table + "' AND a.attnum > 0 ORDER BY a.attnum"
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := eng.NewSession(SessionInfo{User: "s"})
			for i := 0; i < 30; i++ {
				res, err := execOne(s, query(fmt.Sprintf("kr%d", i)))
				if err != nil {
					errs <- err
					return
				}
				if got, want := fmt.Sprint(res.Rows), fmt.Sprintf("[[id nextval('kr%d_id_seq'::regclass)] [c%d %d]]", i, i, i); got != want {
					errs <- fmt.Errorf("kr%d: got %s, want %s", i, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	a, b := eng.NewSession(SessionInfo{User: "s"}), eng.NewSession(SessionInfo{User: "s"})
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "ALTER TABLE kr3 ADD COLUMN extra text DEFAULT 'e'")
	for _, c := range []struct {
		s    *Session
		want string
	}{{a, "[[id nextval('kr3_id_seq'::regclass)] [c3 3] [extra 'e'::text]]"}, {b, "[[id nextval('kr3_id_seq'::regclass)] [c3 3]]"}} {
		res, err := execOne(c.s, query("kr3"))
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(res.Rows); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}
	mustRun(t, a, "ROLLBACK")
}
