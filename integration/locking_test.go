package integration

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
)

// The textbook cures for lost updates must work on fickle as on any SQL
// database, under real concurrency: a read with SELECT ... FOR UPDATE then
// a write, an atomic UPDATE ... SET v = v + 1, and a job queue drained
// with FOR UPDATE SKIP LOCKED. Every level and every profile is tried;
// where a level may abort a transaction (40001, 40P01) the client retries
// it, as a well-written application does, and the total is still exact.

// lockingProfile is a server configuration and the levels it is tried at.
type lockingProfile struct {
	name   string
	cfg    isolation.Config
	levels []history.Level
}

func lockingProfiles() []lockingProfile {
	pgLevels := []history.Level{history.ReadCommitted, history.Snapshot, history.Serializable}
	return []lockingProfile{
		{"adversarial", isolation.Config{Strategy: isolation.StrategyAdversarial, Seed: 11}, history.Levels},
		{"latest-realtime", isolation.Config{Strategy: isolation.StrategyLatest, RealTime: true}, history.Levels},
		{"postgres", postgresProfileConfig(), pgLevels},
	}
}

// retryable reports whether err is an abort a client retries.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// retryTxn runs body in a transaction at level, retrying it while the
// transaction aborts with 40001 or 40P01; it returns the number of
// attempts.
func retryTxn(ctx context.Context, conn *pgx.Conn, level history.Level, body func() error) (int, error) {
	for attempt := 1; ; attempt++ {
		err := func() error {
			for _, st := range beginStatements(level) {
				if _, err := conn.Exec(ctx, st); err != nil {
					return err
				}
			}
			if err := body(); err != nil {
				return err
			}
			_, err := conn.Exec(ctx, "COMMIT")
			return err
		}()
		if err == nil {
			return attempt, nil
		}
		_, _ = conn.Exec(ctx, "ROLLBACK")
		if !retryable(err) || attempt == 1000 {
			return attempt, err
		}
	}
}

// lockingServer starts an in-process server with cfg, runs setup and folds
// it into the initial state.
func lockingServer(t *testing.T, cfg isolation.Config, setup ...string) *inprocFickle {
	t.Helper()
	f := startInProcess(t, cfg)
	t.Cleanup(func() { f.stop(t) })
	conn := connect(t, f.dsn)
	for _, sql := range setup {
		if _, err := conn.Exec(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	f.checkpoint(t)
	return f
}

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// latestBalance reads acct 1 with FOR SHARE, which sees the latest version
// whatever the strategy.
func latestBalance(t *testing.T, dsn string) int {
	t.Helper()
	var bal int
	if err := connect(t, dsn).QueryRow(context.Background(), "SELECT bal FROM acct WHERE id = 1 FOR SHARE").Scan(&bal); err != nil {
		t.Fatal(err)
	}
	return bal
}

// checkWithFickleCheck writes the server's history as JSONL and runs
// `fickle check` on it, as a user would: it must hold at every
// transaction's own level.
func checkWithFickleCheck(t *testing.T, f *inprocFickle, realTime bool) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "history.jsonl")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := history.WriteJSONL(out, f.store.History(), history.Header{}); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	args := []string{"check"}
	if realTime {
		args = append(args, "--realtime")
	}
	res, err := exec.Command(fickleBin, append(args, path)...).CombinedOutput()
	if err != nil {
		t.Errorf("fickle check %s: %v\n%s", path, err, res)
	}
}

// workers runs n workers concurrently, each on its own connection, and
// fails the test with the first error.
func workers(t *testing.T, dsn string, n int, work func(ctx context.Context, w int, conn *pgx.Conn) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range n {
		conn := connect(t, dsn)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := work(ctx, w, conn); err != nil {
				errs <- fmt.Errorf("worker %d: %w", w, err)
				cancel()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

const (
	incrementWorkers = 8
	incrementsEach   = 12
)

// TestIncrementsThroughSelectForUpdateAreNeverLost: N connections each
// read the balance with SELECT ... FOR UPDATE and write it back plus one,
// M times. The total is N x M at every level in every profile, and no
// locking read ever returns two rows for one primary key; also when the
// table is partitioned and the row is locked through the parent, in the
// partition it lives in.
func TestIncrementsThroughSelectForUpdateAreNeverLost(t *testing.T) {
	runOnShapes(t, []tableShape{
		{"plain", []string{"CREATE TABLE acct (id int PRIMARY KEY, bal int NOT NULL)"}},
		{"partitioned", []string{
			"CREATE TABLE acct (id int PRIMARY KEY, bal int NOT NULL) PARTITION BY RANGE (id)",
			"CREATE TABLE acct_low PARTITION OF acct FOR VALUES FROM (0) TO (10)",
			"CREATE TABLE acct_high PARTITION OF acct FOR VALUES FROM (10) TO (100)",
		}},
	}, incrementThroughSelectForUpdate)
}

// tableShape is a table a locking test runs on: its name in the subtest's
// name and the statements that create it.
type tableShape struct {
	name  string
	setup []string
}

// runOnShapes runs test on each shape in every locking profile at each of
// the profile's levels.
func runOnShapes(t *testing.T, shapes []tableShape, test func(t *testing.T, p lockingProfile, level history.Level, setup []string)) {
	for _, shape := range shapes {
		for _, p := range lockingProfiles() {
			for _, level := range p.levels {
				t.Run(shape.name+"/"+p.name+"/"+level.String(), func(t *testing.T) {
					test(t, p, level, shape.setup)
				})
			}
		}
	}
}

// incrementThroughSelectForUpdate runs TestIncrementsThroughSelectForUpdateAreNeverLost's
// workload on the table acct that setup creates.
func incrementThroughSelectForUpdate(t *testing.T, p lockingProfile, level history.Level, setup []string) {
	f := lockingServer(t, p.cfg, append(setup, "INSERT INTO acct VALUES (1, 0)")...)
	workers(t, f.dsn, incrementWorkers, func(ctx context.Context, w int, conn *pgx.Conn) error {
		for range incrementsEach {
			_, err := retryTxn(ctx, conn, level, func() error {
				rows, err := conn.Query(ctx, "SELECT bal FROM acct WHERE id = $1 FOR UPDATE", 1)
				if err != nil {
					return err
				}
				bals, err := pgx.CollectRows(rows, pgx.RowTo[int])
				if err != nil {
					return err
				}
				if len(bals) != 1 {
					return fmt.Errorf("SELECT ... FOR UPDATE of one key returned %d rows: %v", len(bals), bals)
				}
				_, err = conn.Exec(ctx, "UPDATE acct SET bal = $1 WHERE id = $2", bals[0]+1, 1)
				return err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	assertNoIncrementLost(t, f, p.cfg.RealTime)
}

// assertNoIncrementLost checks that acct's balance counts every one of the
// workers' increments and that the history checks at every level.
func assertNoIncrementLost(t *testing.T, f *inprocFickle, realTime bool) {
	t.Helper()
	if got, want := latestBalance(t, f.dsn), incrementWorkers*incrementsEach; got != want {
		t.Errorf("balance %d after %d increments: %d lost", got, want, want-got)
	}
	checkWithFickleCheck(t, f, realTime)
}

// TestUpsertIncrementsAreNeverLost: N connections each run INSERT ... ON
// CONFLICT DO UPDATE SET n = n + 1 on a few keys, none of which exists at
// first, M times. The first insert of a key makes the others wait for it
// and then update, so every key counts every upsert of it, at every level
// in every profile, also when the table is partitioned (each row's
// conflict is found in its partition).
func TestUpsertIncrementsAreNeverLost(t *testing.T) {
	runOnShapes(t, []tableShape{
		{"plain", []string{"CREATE TABLE counter (k int PRIMARY KEY, n int NOT NULL)"}},
		{"partitioned", []string{
			"CREATE TABLE counter (k int PRIMARY KEY, n int NOT NULL) PARTITION BY RANGE (k)",
			"CREATE TABLE counter_low (n int NOT NULL, k int NOT NULL)",
			"ALTER TABLE counter ATTACH PARTITION counter_low FOR VALUES FROM (0) TO (2)",
			"CREATE TABLE counter_high PARTITION OF counter FOR VALUES FROM (2) TO (100)",
		}},
	}, upsertIncrements)
}

// upsertIncrements runs TestUpsertIncrementsAreNeverLost's workload on the
// table counter that setup creates.
func upsertIncrements(t *testing.T, p lockingProfile, level history.Level, setup []string) {
	const keys = 3
	f := lockingServer(t, p.cfg, setup...)
	workers(t, f.dsn, incrementWorkers, func(ctx context.Context, w int, conn *pgx.Conn) error {
		for i := range incrementsEach {
			_, err := retryTxn(ctx, conn, level, func() error {
				_, err := conn.Exec(ctx, "INSERT INTO counter VALUES ($1, 1) ON CONFLICT (k) DO UPDATE SET n = counter.n + 1", (w+i)%keys)
				return err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	var total, rows int
	if err := connect(t, f.dsn).QueryRow(context.Background(),
		"SELECT sum(n), count(*) FROM (SELECT n FROM counter FOR SHARE) c").Scan(&total, &rows); err != nil {
		t.Fatal(err)
	}
	if want := incrementWorkers * incrementsEach; total != want || rows != keys {
		t.Errorf("%d upserts counted %d in %d rows, want %d rows", want, total, rows, keys)
	}
	checkWithFickleCheck(t, f, p.cfg.RealTime)
}

// TestAtomicIncrementsAreNeverLost: N connections each run UPDATE ... SET
// bal = bal + 1 M times. An UPDATE computes on the row's latest version
// (DESIGN §4), so the total is N x M at every level in every profile, in
// autocommit and in explicit transactions.
func TestAtomicIncrementsAreNeverLost(t *testing.T) {
	for _, p := range lockingProfiles() {
		for _, level := range p.levels {
			t.Run(p.name+"/"+level.String(), func(t *testing.T) {
				f := lockingServer(t, p.cfg, "CREATE TABLE acct (id int PRIMARY KEY, bal int NOT NULL)", "INSERT INTO acct VALUES (1, 0)")
				workers(t, f.dsn, incrementWorkers, func(ctx context.Context, w int, conn *pgx.Conn) error {
					for i := range incrementsEach {
						if w%2 == 0 && i%2 == 0 && level == history.ReadCommitted {
							if _, err := conn.Exec(ctx, "UPDATE acct SET bal = bal + 1 WHERE id = 1"); err != nil {
								return err
							}
							continue
						}
						_, err := retryTxn(ctx, conn, level, func() error {
							tag, err := conn.Exec(ctx, "UPDATE acct SET bal = bal + 1 WHERE id = 1")
							if err == nil && tag.RowsAffected() != 1 {
								err = fmt.Errorf("UPDATE of an existing row: %s", tag)
							}
							return err
						})
						if err != nil {
							return err
						}
					}
					return nil
				})
				assertNoIncrementLost(t, f, p.cfg.RealTime)
			})
		}
	}
}

const (
	queueJobs    = 100
	queueWorkers = 8
)

// TestSkipLockedQueueHandsEachJobToOneWorker drains a queue of 100 jobs
// with 8 workers that each take the next job with ORDER BY id LIMIT 1 FOR
// UPDATE SKIP LOCKED: every job is done exactly once, and a worker finds
// the queue empty only when no job is left that another worker could not
// be holding.
func TestSkipLockedQueueHandsEachJobToOneWorker(t *testing.T) {
	for _, p := range lockingProfiles() {
		for _, level := range p.levels {
			if level != history.ReadCommitted && level != history.Serializable {
				continue
			}
			t.Run(p.name+"/"+level.String(), func(t *testing.T) {
				f := lockingServer(t, p.cfg,
					"CREATE TABLE jobs (id int PRIMARY KEY, done boolean NOT NULL DEFAULT false, worker int)",
					fmt.Sprintf("INSERT INTO jobs (id) SELECT g FROM generate_series(1, %d) g", queueJobs))
				var mu sync.Mutex
				doneBy := map[int]int{}
				busy := map[int]bool{} // workers inside a transaction: each may hold one job
				workers(t, f.dsn, queueWorkers, func(ctx context.Context, w int, conn *pgx.Conn) error {
					for {
						mu.Lock()
						busy[w] = true
						mu.Unlock()
						job := 0
						_, err := retryTxn(ctx, conn, level, func() error {
							job = 0
							rows, err := conn.Query(ctx, "SELECT id FROM jobs WHERE NOT done ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED")
							if err != nil {
								return err
							}
							ids, err := pgx.CollectRows(rows, pgx.RowTo[int])
							if err != nil || len(ids) == 0 {
								return err
							}
							job = ids[0]
							tag, err := conn.Exec(ctx, "UPDATE jobs SET done = true, worker = $1 WHERE id = $2 AND NOT done", w, job)
							if err == nil && tag.RowsAffected() != 1 {
								err = fmt.Errorf("job %d, locked by SKIP LOCKED, was done already", job)
							}
							return err
						})
						mu.Lock()
						busy[w] = false
						if err == nil && job != 0 {
							if prev, ok := doneBy[job]; ok {
								err = fmt.Errorf("job %d done twice, by workers %d and %d", job, prev, w)
							}
							doneBy[job] = w
						}
						remaining, holders := queueJobs-len(doneBy), 0
						for _, b := range busy {
							if b {
								holders++
							}
						}
						mu.Unlock()
						switch {
						case err != nil:
							return err
						case job != 0:
							continue
						case remaining == 0:
							return nil
						case remaining > holders:
							return fmt.Errorf("found the queue empty while %d jobs remained and at most %d were held", remaining, holders)
						}
						time.Sleep(time.Millisecond)
					}
				})
				if len(doneBy) != queueJobs {
					t.Errorf("%d of %d jobs done", len(doneBy), queueJobs)
				}
				checkWithFickleCheck(t, f, p.cfg.RealTime)
			})
		}
	}
}
