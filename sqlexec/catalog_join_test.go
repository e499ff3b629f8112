package sqlexec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/isolation"
)

// TestSystemTableJoinIsHashed pins that a join of system tables hashes the
// later tables on an equality with the earlier ones, as a join of user
// tables does: ActiveRecord's pk_and_sequence_for, run for every fixture
// table, joins five catalogs, and a nested loop over every combination of
// their rows took seconds a query.
func TestSystemTableJoinIsHashed(t *testing.T) {
	eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "s"})
	for i := 0; i < 20; i++ {
		mustRun(t, s, fmt.Sprintf("CREATE TABLE hj%d (id serial PRIMARY KEY, a int, b text)", i))
	}
	res, err := execOne(s, `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)
		SELECT attr.attname, nsp.nspname, seq.relname
		FROM pg_class seq, pg_attribute attr, pg_depend dep, pg_constraint cons, pg_namespace nsp
		WHERE seq.oid = dep.objid AND seq.relkind = 'S'
		  AND attr.attrelid = dep.refobjid AND attr.attnum = dep.refobjsubid
		  AND attr.attrelid = cons.conrelid AND attr.attnum = cons.conkey[1]
		  AND seq.relnamespace = nsp.oid AND cons.contype = 'p'
		  AND dep.classid = 'pg_class'::regclass AND dep.refobjid = 'hj7'::regclass`)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for _, r := range res.Rows {
		plan = append(plan, fmt.Sprint(r[0]))
	}
	text := strings.Join(plan, "\n")
	for _, want := range []string{"Hash Cond: (seq.oid = dep.objid)", "Hash Cond: (attr.attrelid = cons.conrelid)", "Hash Cond: (seq.relnamespace = nsp.oid)"} {
		if !strings.Contains(text, want) {
			t.Errorf("plan lacks %q:\n%s", want, text)
		}
	}
	res, err = execOne(s, `SELECT attr.attname, nsp.nspname, seq.relname
		FROM pg_class seq, pg_attribute attr, pg_depend dep, pg_constraint cons, pg_namespace nsp
		WHERE seq.oid = dep.objid AND seq.relkind = 'S'
		  AND attr.attrelid = dep.refobjid AND attr.attnum = dep.refobjsubid
		  AND attr.attrelid = cons.conrelid AND attr.attnum = cons.conkey[1]
		  AND seq.relnamespace = nsp.oid AND cons.contype = 'p'
		  AND dep.classid = 'pg_class'::regclass AND dep.refobjid = 'hj7'::regclass`)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(res.Rows); got != "[[id public hj7_id_seq]]" {
		t.Errorf("rows = %s, want [[id public hj7_id_seq]]", got)
	}
}
