package sqlexec

import (
	"sync"
	"testing"

	"github.com/fickle-db/fickle/isolation"
)

// TestTempSchemasOfClosedSessionsAreEmpty: sessions that create a temporary
// table and close, many at once, leave their pg_temp_N schemas empty, so
// that the next session given a number creates its table without 42P07.
func TestTempSchemasOfClosedSessionsAreEmpty(t *testing.T) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	workers := 8
	var wg sync.WaitGroup
	errs := make(chan error, 800)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				s := eng.NewSession(SessionInfo{User: "postgres"})
				if err := runOne(s, "CREATE TEMP TABLE foo (a int)"); err != nil {
					errs <- err
				}
				if err := runOne(s, "INSERT INTO foo VALUES (1)"); err != nil {
					errs <- err
				}
				s.Close()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c, _ := eng.NewSession(SessionInfo{User: "postgres"}).catalog()
	for name, sc := range c.schemas {
		if isTempSchema(name) && len(sc.tables) > 0 {
			t.Errorf("%s keeps %d tables after its sessions closed", name, len(sc.tables))
		}
	}
}
