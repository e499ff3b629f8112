package sqlexec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fickle-db/fickle/isolation"
)

// FuzzSQL runs arbitrary text through Parse, Prepare and Execute (and COPY
// when a statement asks for it) on a session with a few tables. Any input
// may fail, but only with a SQLSTATE error: a panic recovered as an
// internal engine error fails the fuzz test.
func FuzzSQL(f *testing.F) {
	files, _ := filepath.Glob("testdata/scripts/*.txt")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, b := range parseScript(nil, string(data)) {
			// Bulk loads make every execution slow; the fuzzer grows
			// large inputs by itself when they help.
			if b.directive == "sql" && !strings.Contains(b.input, "generate_series(1, 3000)") {
				f.Add(b.input)
			}
		}
	}
	f.Add("SELECT a, count(*) FROM f1 JOIN f2 ON f1.a = f2.a GROUP BY 1 HAVING sum(b) > 0 ORDER BY 2 DESC LIMIT 3")
	// Deep and long inputs: past maxParseDepth's length the depth check
	// scans the statement; the fuzzer grows and nests these further.
	f.Add("SELECT 1" + strings.Repeat("+1", maxParseDepth/2+100))
	f.Add("SELECT (" + strings.Repeat("abs(", 600) + "1" + strings.Repeat(")", 600) + ")" + strings.Repeat("||'x'", 1000))
	f.Add("SELECT a FROM f1 WHERE " + strings.Repeat("a = 1 OR ", 700) + "a::int::text::int" + strings.Repeat("::int", 700) + " = 2")
	f.Fuzz(func(t *testing.T, sql string) {
		store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
		eng, err := NewEngine(Config{Store: store})
		if err != nil {
			t.Fatal(err)
		}
		s := eng.NewSession(SessionInfo{User: "fuzz", Database: "fuzz"})
		defer s.Close()
		setup := "CREATE TABLE f1 (a int PRIMARY KEY, b text UNIQUE, c numeric); CREATE TABLE f2 (a int REFERENCES f1, d timestamptz); INSERT INTO f1 VALUES (1, 'x', 1.5), (2, 'y', NULL); INSERT INTO f2 VALUES (1, now())"
		runFuzz(t, s, setup)
		runFuzz(t, s, sql)
	})
}

func runFuzz(t *testing.T, s *Session, sql string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	sts, err := s.Parse(sql)
	checkNotInternal(t, sql, err)
	for _, st := range sts {
		if tc, ok := st.TxnControl(); ok {
			switch tc.Kind {
			case TxnBegin:
				err = s.Begin(tc.Options, true)
			case TxnCommit:
				err = s.Commit()
			case TxnRollback:
				err = s.Rollback()
			case TxnSavepoint:
				err = s.Savepoint(ctx, tc.Savepoint)
			case TxnRelease:
				err = s.ReleaseSavepoint(tc.Savepoint)
			case TxnRollbackTo:
				err = s.RollbackToSavepoint(tc.Savepoint)
			}
			checkNotInternal(t, sql, err)
			continue
		}
		p, err := s.Prepare(st, nil)
		checkNotInternal(t, sql, err)
		if err != nil {
			continue
		}
		res, err := s.Execute(ctx, p, make([]any, len(p.ParamOIDs)))
		checkNotInternal(t, sql, err)
		if err == nil && res.Copy != nil {
			if res.Copy.In {
				_, err = s.CopyIn(ctx, res.Copy, strings.NewReader("1\t2\n\\N\tx\n"))
			} else {
				_, err = s.CopyOut(ctx, res.Copy, func([]byte) error { return nil })
			}
			checkNotInternal(t, sql, err)
		}
		if err != nil && s.InTxn() {
			_ = s.Rollback()
		}
	}
}

func checkNotInternal(t *testing.T, sql string, err error) {
	if err != nil && strings.HasPrefix(err.Error(), "internal error in the SQL engine") {
		t.Fatalf("%q: %v", sql, err)
	}
}
