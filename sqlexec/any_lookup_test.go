package sqlexec

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// anyLookupEngine returns a recording engine over the table
// t (id int PRIMARY KEY, grp int, v text) of rows 1..n with grp = id % 5,
// indexed, the two-column-key table m (a, b), the table h (id, v) whose
// primary key was added later (looked up through its index), and the
// varchar-keyed table s (name) of n rows each.
func anyLookupEngine(t testing.TB, strategy isolation.Strategy, seed uint64, n int) (*Engine, *isolation.Store) {
	t.Helper()
	store := isolation.NewStore(isolation.Config{Strategy: strategy, Seed: seed, Record: true})
	eng, err := NewEngine(Config{Store: store, Strategy: strategy, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	setup := eng.NewSession(SessionInfo{User: "setup"})
	for _, sql := range []string{
		"CREATE TABLE t (id int PRIMARY KEY, grp int, v text)",
		"CREATE INDEX t_grp ON t (grp)",
		fmt.Sprintf("INSERT INTO t SELECT g, g %% 5, 'v' || g FROM generate_series(1, %d) g", n),
		"CREATE TABLE m (a int, b int, PRIMARY KEY (a, b))",
		fmt.Sprintf("INSERT INTO m SELECT g, g FROM generate_series(1, %d) g", n),
		"CREATE TABLE h (id int, v text)",
		fmt.Sprintf("INSERT INTO h SELECT g, 'v' || g FROM generate_series(1, %d) g", n),
		"ALTER TABLE h ADD PRIMARY KEY (id)",
		"CREATE TABLE s (name varchar(10) PRIMARY KEY)",
		fmt.Sprintf("INSERT INTO s SELECT 'n' || g FROM generate_series(1, %d) g", n),
	} {
		if _, err := execOne(setup, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	return eng, store
}

// execParams runs one statement with parameters.
func execParams(s *Session, sql string, params ...any) (*Result, error) {
	sts, err := s.Parse(sql)
	if err != nil {
		return nil, err
	}
	p, err := s.Prepare(sts[0], nil)
	if err != nil {
		return nil, err
	}
	return s.Execute(context.Background(), p, params)
}

// TestAnyReadsOnlyTheListedKeys pins the access path of "col = ANY
// (array)" through the keys the history records: on the primary key and on
// an indexed column it reads the listed keys only (each once, an absent
// one too, NULL elements, an empty or NULL array reading nothing), as IN
// does, and so do "col = 'literal'" and IN lists of quoted literals, which
// take the column's type; a two-column key given by ANY, or an expression
// of the column, scans all 20 rows.
func TestAnyReadsOnlyTheListedKeys(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sql      string
		params   []any
		wantKeys int
		wantIDs  []int64
	}{
		{"pk literal", "SELECT id FROM t WHERE id = ANY('{3,5,7}')", nil, 3, []int64{3, 5, 7}},
		{"pk ARRAY constructor", "SELECT id FROM t WHERE id = ANY(ARRAY[7, 2])", nil, 2, []int64{2, 7}},
		{"pk parameter with duplicates and NULL", "SELECT id FROM t WHERE id = ANY($1)", []any{[]any{int64(5), nil, int64(3), int64(5), int64(99)}}, 3, []int64{3, 5}},
		{"pk bigint array", "SELECT id FROM t WHERE id = ANY('{4,6}'::bigint[])", nil, 2, []int64{4, 6}},
		{"pk empty array", "SELECT id FROM t WHERE id = ANY($1)", []any{[]any{}}, 0, nil},
		{"pk NULL array", "SELECT id FROM t WHERE id = ANY($1)", []any{nil}, 0, nil},
		{"pk with another condition", "SELECT id FROM t WHERE v <> 'v3' AND id = ANY('{3,4}')", nil, 2, []int64{4}},
		{"pk in UPDATE", "UPDATE t SET v = 'w' WHERE id = ANY('{8,9}') RETURNING id", nil, 2, []int64{8, 9}},
		{"pk in DELETE", "DELETE FROM t WHERE id = ANY('{11}') RETURNING id", nil, 1, []int64{11}},
		{"pk FOR UPDATE", "SELECT id FROM t WHERE id = ANY('{1,2}') FOR UPDATE", nil, 2, []int64{1, 2}},
		{"pk added later, through its index", "SELECT id FROM h WHERE id = ANY($1)", []any{[]any{int64(6), int64(2)}}, 2, []int64{2, 6}},
		{"varchar pk with text parameter", "SELECT length(name)::bigint FROM s WHERE name = ANY($1::text[])", []any{[]any{"n3", "n14", "x"}}, 3, []int64{3, 2}},
		{"index literal", "SELECT id FROM t WHERE grp = ANY('{1,2}')", nil, 8, []int64{1, 2, 6, 7, 11, 12, 16, 17}},
		{"index parameter with NULL", "SELECT id FROM t WHERE grp = ANY($1)", []any{[]any{nil, int64(4), int64(4)}}, 4, []int64{4, 9, 14, 19}},
		{"index IN list", "SELECT id FROM t WHERE grp IN (0, 3)", nil, 8, []int64{3, 5, 8, 10, 13, 15, 18, 20}},
		{"pk quoted literal, as pgx's simple protocol sends it", "SELECT id FROM t WHERE id = '7'", nil, 1, []int64{7}},
		{"pk quoted literal on the left", "SELECT id FROM t WHERE '7' = id", nil, 1, []int64{7}},
		{"pk quoted literal in UPDATE", "UPDATE t SET v = 'w' WHERE id = '9' RETURNING id", nil, 1, []int64{9}},
		{"pk IN of quoted literals", "SELECT id FROM t WHERE id IN ('3', '4')", nil, 2, []int64{3, 4}},
		{"index quoted literal", "SELECT id FROM t WHERE grp = '4'", nil, 4, []int64{4, 9, 14, 19}},
		{"two-column key quoted literals", "SELECT a FROM m WHERE a = '2' AND b = '2'", nil, 1, []int64{2}},
		{"two-column key scans", "SELECT a FROM m WHERE a = ANY('{1,2}')", nil, 20, []int64{1, 2}},
		{"expression of the column scans", "SELECT id FROM t WHERE id + 0 = ANY('{1,2}')", nil, 20, []int64{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng, store := anyLookupEngine(t, isolation.StrategyLatest, 0, 20)
			s := eng.NewSession(SessionInfo{User: "reader"})
			res, err := execParams(s, tc.sql, tc.params...)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, r := range res.Rows {
				ids = append(ids, r[0].(int64))
			}
			if !reflect.DeepEqual(ids, tc.wantIDs) {
				t.Errorf("rows %v, want %v", ids, tc.wantIDs)
			}
			if got := keysReadBy(store.History(), tc.sql); got != tc.wantKeys {
				t.Errorf("the statement read %d keys, want %d", got, tc.wantKeys)
			}
		})
	}
}

// TestAnyLookupReturnsWhatInAndAScanReturn checks on seeded random tables
// (NULLs in the indexed column) and random arrays (NULL elements,
// duplicates, absent values, empty) that id = ANY ($1) and grp = ANY ($1),
// alone, with another condition and as the inner side of a join, return
// exactly the rows, in the same order, of the IN list and of a scan
// (id + 0 = ANY ($1)).
func TestAnyLookupReturnsWhatInAndAScanReturn(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	for round := range 20 {
		store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: uint64(round)})
		eng, err := NewEngine(Config{Store: store})
		if err != nil {
			t.Fatal(err)
		}
		s := eng.NewSession(SessionInfo{User: "prop"})
		run := func(sql string, params ...any) [][]any {
			t.Helper()
			res, err := execParams(s, sql, params...)
			if err != nil {
				t.Fatalf("round %d: %s %v: %v", round, sql, params, err)
			}
			return res.Rows
		}
		run("CREATE TABLE r (id int PRIMARY KEY, grp int, v int)")
		run("CREATE INDEX r_grp ON r (grp)")
		for id := range 40 {
			if rng.Intn(3) == 0 {
				continue
			}
			grp := "NULL"
			if rng.Intn(6) > 0 {
				grp = fmt.Sprint(rng.Intn(8))
			}
			run(fmt.Sprintf("INSERT INTO r VALUES (%d, %s, %d)", id, grp, rng.Intn(10)))
		}
		for range 30 {
			elems := make([]any, rng.Intn(6))
			lits := make([]string, len(elems))
			for i := range elems {
				lits[i] = "NULL"
				if rng.Intn(5) > 0 {
					elems[i] = int64(rng.Intn(45))
					lits[i] = fmt.Sprint(elems[i])
				}
			}
			cutoff := int64(rng.Intn(10))
			for _, col := range []string{"id", "grp"} {
				shapes := []struct{ lookup, scan, in string }{
					{
						fmt.Sprintf("SELECT * FROM r WHERE %s = ANY($1)", col),
						fmt.Sprintf("SELECT * FROM r WHERE %s + 0 = ANY($1)", col),
						fmt.Sprintf("SELECT * FROM r WHERE %s IN (%s)", col, strings.Join(lits, ", ")),
					},
					{
						fmt.Sprintf("SELECT * FROM r WHERE v >= $2 AND %s = ANY($1)", col),
						fmt.Sprintf("SELECT * FROM r WHERE v >= $2 AND %s + 0 = ANY($1)", col),
						fmt.Sprintf("SELECT * FROM r WHERE v >= $1 AND %s IN (%s)", col, strings.Join(lits, ", ")),
					},
					{
						fmt.Sprintf("SELECT a.id, b.* FROM r a JOIN r b ON b.%s = ANY(ARRAY[a.v, a.grp] || $1) WHERE a.v >= $2 ORDER BY a.id", col),
						fmt.Sprintf("SELECT a.id, b.* FROM r a JOIN r b ON b.%s + 0 = ANY(ARRAY[a.v, a.grp] || $1) WHERE a.v >= $2 ORDER BY a.id", col),
						"",
					},
				}
				for _, sh := range shapes {
					params := []any{elems}
					if strings.Contains(sh.lookup, "$2") {
						params = append(params, cutoff)
					}
					want := run(sh.scan, params...)
					if got := run(sh.lookup, params...); !reflect.DeepEqual(got, want) {
						t.Fatalf("round %d: %s with %v = %v; the scan gives %v", round, sh.lookup, params, got, want)
					}
					if sh.in != "" && len(elems) > 0 {
						inParams := params[1:]
						if got := run(sh.in, inParams...); !reflect.DeepEqual(got, want) {
							t.Fatalf("round %d: %s with %v = %v; ANY gives %v", round, sh.in, inParams, got, want)
						}
					}
				}
			}
		}
	}
}

// TestSerializableAnyReadersOfDisjointKeysBothCommit runs two SERIALIZABLE
// transactions that each read id = ANY of their own ids and update one of
// them: their reads and writes touch disjoint keys, so under every seed of
// the adversarial strategy both commit, as in PostgreSQL. A full scan
// would read the other's written row both ways, a cycle one must abort.
func TestSerializableAnyReadersOfDisjointKeysBothCommit(t *testing.T) {
	for seed := range uint64(20) {
		eng, _ := anyLookupEngine(t, isolation.StrategyAdversarial, seed, 20)
		s1 := eng.NewSession(SessionInfo{User: "one"})
		s2 := eng.NewSession(SessionInfo{User: "two"})
		steps := []struct {
			s      *Session
			sql    string
			params []any
		}{
			{s1, "BEGIN ISOLATION LEVEL SERIALIZABLE", nil},
			{s2, "BEGIN ISOLATION LEVEL SERIALIZABLE", nil},
			{s1, "SELECT v FROM t WHERE id = ANY($1)", []any{[]any{int64(1), int64(2), int64(3)}}},
			{s2, "SELECT v FROM t WHERE id = ANY($1)", []any{[]any{int64(11), int64(12), int64(13)}}},
			{s1, "UPDATE t SET v = 'one' WHERE id = 2", nil},
			{s2, "UPDATE t SET v = 'two' WHERE id = 12", nil},
			{s1, "COMMIT", nil},
			{s2, "COMMIT", nil},
		}
		for _, st := range steps {
			res, err := execParams(st.s, st.sql, st.params...)
			if err != nil {
				t.Fatalf("seed %d: %s: %v (SQLSTATE %s)", seed, st.sql, err, pgerror.GetCode(err))
			}
			if st.sql == "COMMIT" && res.Tag != "COMMIT" {
				t.Fatalf("seed %d: COMMIT reported %q, want COMMIT", seed, res.Tag)
			}
		}
	}
}

// BenchmarkAnyLookup reads 3 ids of a 10,000-row table by id = ANY ($1)
// and, for comparison, by an IN list and by a scan (id + 0 = ANY ($1)).
func BenchmarkAnyLookup(b *testing.B) {
	eng, _ := anyLookupEngine(b, isolation.StrategyLatest, 0, 10000)
	s := eng.NewSession(SessionInfo{User: "bench"})
	ids := []any{int64(17), int64(5003), int64(9999)}
	for _, bc := range []struct{ name, sql string }{
		{"pk", "SELECT v FROM t WHERE id = ANY($1)"},
		{"in", "SELECT v FROM t WHERE id IN (17, 5003, 9999)"},
		{"scan", "SELECT v FROM t WHERE id + 0 = ANY($1)"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			sts, err := s.Parse(bc.sql)
			if err != nil {
				b.Fatal(err)
			}
			p, err := s.Prepare(sts[0], nil)
			if err != nil {
				b.Fatal(err)
			}
			var params []any
			if strings.Contains(bc.sql, "$1") {
				params = []any{ids}
			}
			for b.Loop() {
				if _, err := s.Execute(context.Background(), p, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
