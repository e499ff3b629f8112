package sqlexec

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// TestDMLMatchesModel applies seeded random INSERT, UPDATE, DELETE and
// upserts to a table with a primary key, a unique column and a secondary
// index, and after every statement compares the table (read by a scan, by
// primary-key point reads and by index lookups) with a Go map.
func TestDMLMatchesModel(t *testing.T) {
	for seed := int64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { dmlModelRun(t, seed, 150) })
	}
}

type modelRow struct{ v, u int64 }

func dmlModelRun(t *testing.T, seed int64, steps int) {
	rng := rand.New(rand.NewSource(seed))
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: uint64(seed)})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "prop"})
	ctx := context.Background()
	run := func(sql string, params ...any) (*Result, error) {
		sts, err := s.Parse(sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		p, err := s.Prepare(sts[0], nil)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return s.Execute(ctx, p, params)
	}
	if _, err := run("CREATE TABLE m (k int PRIMARY KEY, v int, u int UNIQUE)"); err != nil {
		t.Fatal(err)
	}
	if _, err := run("CREATE INDEX m_v ON m (v)"); err != nil {
		t.Fatal(err)
	}
	model := map[int64]modelRow{}
	uTaken := func(u int64, except int64) bool {
		for k, r := range model {
			if k != except && r.u == u {
				return true
			}
		}
		return false
	}
	for i := 0; i < steps; i++ {
		k, v, u := int64(rng.Intn(20)), int64(rng.Intn(5)), int64(rng.Intn(40))
		var op string
		var err error
		var wantCode pgerror.Code
		switch rng.Intn(5) {
		case 0, 1:
			op = fmt.Sprintf("insert k=%d v=%d u=%d", k, v, u)
			_, err = run("INSERT INTO m VALUES ($1, $2, $3)", k, v, u)
			if _, dup := model[k]; dup || uTaken(u, -1) {
				wantCode = pgerror.UniqueViolation
			} else {
				model[k] = modelRow{v, u}
			}
		case 2:
			op = fmt.Sprintf("update v=v+1 where v=%d", v)
			_, err = run("UPDATE m SET v = v + 1 WHERE v = $1", v)
			for key, r := range model {
				if r.v == v {
					model[key] = modelRow{r.v + 1, r.u}
				}
			}
		case 3:
			op = fmt.Sprintf("delete k=%d", k)
			_, err = run("DELETE FROM m WHERE k = $1", k)
			delete(model, k)
		case 4:
			op = fmt.Sprintf("upsert k=%d v=%d u=%d", k, v, u)
			_, err = run("INSERT INTO m VALUES ($1, $2, $3) ON CONFLICT (k) DO UPDATE SET v = excluded.v", k, v, u)
			if r, ok := model[k]; ok {
				model[k] = modelRow{v, r.u}
			} else if uTaken(u, -1) {
				wantCode = pgerror.UniqueViolation
			} else {
				model[k] = modelRow{v, u}
			}
		}
		if got := pgerror.GetCode(err); got != wantCode {
			t.Fatalf("step %d %s: error %v, want code %q", i, op, err, wantCode)
		}
		checkModel(t, run, model, fmt.Sprintf("step %d %s", i, op))
	}
}

func checkModel(t *testing.T, run func(string, ...any) (*Result, error), model map[int64]modelRow, where string) {
	t.Helper()
	res, err := run("SELECT k, v, u FROM m ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	keys := make([]int64, 0, len(model))
	for k := range model {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		want = append(want, fmt.Sprint(k, model[k].v, model[k].u))
	}
	var got []string
	for _, r := range res.Rows {
		got = append(got, fmt.Sprint(r[0], r[1], r[2]))
	}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Fatalf("%s: scan got %v, want %v", where, got, want)
	}
	for k := int64(0); k < 20; k++ {
		res, err := run("SELECT v FROM m WHERE k = $1", k)
		if err != nil {
			t.Fatal(err)
		}
		r, ok := model[k]
		if ok != (len(res.Rows) == 1) || ok && res.Rows[0][0] != r.v {
			t.Fatalf("%s: point read of %d got %v, model %v %v", where, k, res.Rows, r, ok)
		}
	}
	for v := int64(0); v < 8; v++ {
		res, err := run("SELECT count(*) FROM m WHERE v = $1", v)
		if err != nil {
			t.Fatal(err)
		}
		n := int64(0)
		for _, r := range model {
			if r.v == v {
				n++
			}
		}
		if res.Rows[0][0] != n {
			t.Fatalf("%s: index lookup v=%d counted %v, want %d", where, v, res.Rows[0][0], n)
		}
	}
}
