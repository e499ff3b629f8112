package sqlexec

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// TestConcurrentSessions runs sessions in parallel that create and drop
// their own tables, use sequences and write to a shared table while others
// change the catalog; run with -race. Every failure must be a SQLSTATE
// error of the statement, never an internal error.
func TestConcurrentSessions(t *testing.T) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 7})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	setup := eng.NewSession(SessionInfo{User: "setup"})
	mustRun(t, setup, "CREATE TABLE shared (k int PRIMARY KEY, v int); CREATE SEQUENCE ids")
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := eng.NewSession(SessionInfo{User: fmt.Sprint("w", w)})
			defer s.Close()
			for i := 0; i < 30; i++ {
				stmts := []string{
					fmt.Sprintf("CREATE TABLE IF NOT EXISTS own%d (a serial PRIMARY KEY, b text)", w),
					fmt.Sprintf("INSERT INTO own%d (b) VALUES ('x') RETURNING a", w),
					fmt.Sprintf("INSERT INTO shared VALUES (nextval('ids'), %d) ON CONFLICT (k) DO UPDATE SET v = shared.v + 1", w),
					"SELECT count(*) FROM shared s JOIN shared t ON s.k = t.k",
					fmt.Sprintf("UPDATE shared SET v = v + 1 WHERE k %% 4 = %d", w),
				}
				if i%10 == 9 {
					stmts = append(stmts, fmt.Sprintf("DROP TABLE own%d", w))
				}
				for _, sql := range stmts {
					if err := runOne(s, sql); err != nil && pgerror.GetCode(err) == pgerror.InternalError {
						t.Errorf("%s: %v", sql, err)
					}
				}
			}
		}(w)
	}
	wg.Wait()
}

func runOne(s *Session, sql string) error {
	sts, err := s.Parse(sql)
	if err != nil {
		return err
	}
	p, err := s.Prepare(sts[0], nil)
	if err != nil {
		return err
	}
	_, err = s.Execute(context.Background(), p, nil)
	return err
}

func mustRun(t *testing.T, s *Session, sql string) {
	t.Helper()
	sts, err := s.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sts {
		p, err := s.Prepare(st, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Execute(context.Background(), p, nil); err != nil {
			t.Fatal(err)
		}
	}
}
