package sqlexec

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fickle-db/fickle/internal/testpg"
	"github.com/fickle-db/fickle/isolation"
)

// lockScenarioBackend runs the sessions of a lock scenario, on fickle or
// on PostgreSQL; start runs a statement that may wait, done gives its
// output once it returned.
type lockScenarioBackend interface {
	pid(session string) int
	run(session, sql string) string
	start(session, sql string) (done <-chan string)
}

type fickleLockBackend struct {
	sessions map[string]*scriptSession
}

func (f *fickleLockBackend) pid(session string) int {
	return int(f.sessions[session].s.info.ProcessID)
}

func (f *fickleLockBackend) run(session, sql string) string {
	return runSQL(f.sessions[session], sql, "")
}

func (f *fickleLockBackend) start(session, sql string) <-chan string {
	done := make(chan string, 1)
	go func() { done <- f.run(session, sql) }()
	return done
}

type pgLockBackend struct {
	conns map[string]*pgx.Conn
	pids  map[string]int
}

func (p *pgLockBackend) pid(session string) int { return p.pids[session] }

func (p *pgLockBackend) run(session, sql string) string {
	return pgOutput(context.Background(), p.conns[session], sql)
}

func (p *pgLockBackend) start(session, sql string) <-chan string {
	done := make(chan string, 1)
	go func() { done <- p.run(session, sql) }()
	return done
}

// lockScenario runs sessions a, b, c and d through row, advisory and
// table lock waits, observed from session o, and returns what o saw:
// pg_locks' rows of a to d with pids, transaction ids and virtual ids
// replaced by the sessions' names (index, tuple and catalog locks left
// out: fickle takes none), and each session's wait event and blockers.
func lockScenario(t *testing.T, be lockScenarioBackend) string {
	t.Helper()
	names := map[int]string{}
	var values []string
	for _, s := range []string{"a", "b", "c", "d"} {
		names[be.pid(s)] = s
		values = append(values, fmt.Sprintf("(%d, '%s')", be.pid(s), s))
	}
	sessions := "n(pid, name) AS (VALUES " + strings.Join(values, ", ") + ")"
	var out strings.Builder
	step := func(session, sql string) string {
		got := be.run(session, sql)
		if strings.HasPrefix(got, "ERROR") {
			t.Fatalf("%s: %s: %s", session, sql, got)
		}
		return got
	}
	waitFor := func(cond string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if strings.Contains(be.run("o", "SELECT "+cond+" AS ok"), "\nt") {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", cond)
			}
		}
	}
	blocked := func(session string) {
		waitFor(fmt.Sprintf("EXISTS (SELECT FROM pg_locks WHERE pid = %d AND NOT granted)", be.pid(session)))
	}
	// idle waits until a session that returned is waiting for its client
	// again: its result reaches the test before its server loop reads on.
	idle := func(session string) {
		waitFor(fmt.Sprintf("(SELECT wait_event = 'ClientRead' FROM pg_stat_activity WHERE pid = %d)", be.pid(session)))
	}
	returned := func(session string, done <-chan string, want string) {
		t.Helper()
		select {
		case got := <-done:
			if !strings.Contains(got, want) {
				t.Fatalf("%s returned %q, want %q", session, got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not return", session)
		}
		idle(session)
	}
	var xids []string
	observe := func(when string) {
		x := "x(xid, name) AS (VALUES " + strings.Join(xids, ", ") + ")"
		out.WriteString("-- " + when + "\n")
		out.WriteString(step("o", `WITH `+sessions+`, `+x+`
			SELECT n.name, l.locktype, l.relation::regclass::text AS rel, l.classid, l.objid, l.objsubid,
				CASE WHEN l.transactionid IS NOT NULL THEN coalesce((SELECT x.name FROM x WHERE x.xid = l.transactionid::text), 'own') END AS xid,
				l.virtualxid = l.virtualtransaction AS own_vxid, l.mode, l.granted, l.fastpath, l.waitstart IS NOT NULL AS waits,
				l.database IS NOT NULL AS has_db
			FROM pg_locks l JOIN n ON n.pid = l.pid
			WHERE l.locktype <> 'tuple' AND (l.relation IS NULL OR l.relation IN
				(SELECT oid FROM pg_class WHERE relkind IN ('r', 'v', 'S', 'p') AND relnamespace <> 'pg_catalog'::regnamespace))
			ORDER BY 1, 2, 3, 4, 5, 6, 7, 9, 10`))
		out.WriteString(step("o", `WITH `+sessions+`
			SELECT n.name, a.wait_event_type, a.wait_event,
				array(SELECT m.name FROM n m WHERE m.pid = ANY (pg_blocking_pids(n.pid)) ORDER BY 1) AS blocked_by,
				cardinality(pg_safe_snapshot_blocking_pids(n.pid)) AS safe_snapshot_blockers
			FROM n JOIN pg_stat_activity a ON a.pid = n.pid ORDER BY 1`))
	}

	step("a", "CREATE TABLE r (id int PRIMARY KEY, v int); INSERT INTO r VALUES (1, 0), (2, 0)")
	step("a", "BEGIN")
	step("a", "UPDATE r SET v = 1 WHERE id = 1")
	step("a", "SELECT pg_advisory_lock(10), pg_advisory_xact_lock_shared(20, 30)")
	xa := step("a", "SELECT pg_current_xact_id()::text AS xid")
	xids = append(xids, fmt.Sprintf("('%s', 'a')", strings.TrimSpace(strings.SplitN(xa, "\n", 2)[1])))
	step("b", "BEGIN")
	step("b", "SELECT pg_advisory_lock_shared(11)")
	bUpdate := be.start("b", "UPDATE r SET v = 2 WHERE id = 1")
	blocked("b")
	cLock := be.start("c", "SELECT pg_advisory_lock(10)")
	blocked("c")
	step("d", "BEGIN")
	dLock := be.start("d", "LOCK TABLE r IN SHARE MODE")
	blocked("d")
	observe("b waits for a's row, c for a's advisory lock, d for a's and b's ROW EXCLUSIVE")

	step("a", "COMMIT")
	returned("b", bUpdate, "UPDATE 1")
	observe("a committed: b updated, c and d still wait")

	step("a", "SELECT pg_advisory_unlock(10)")
	returned("c", cLock, "pg_advisory_lock")
	step("b", "COMMIT")
	returned("d", dLock, "LOCK TABLE")
	observe("c holds the advisory lock, d the table")
	step("d", "COMMIT")
	step("c", "SELECT pg_advisory_unlock_all()")
	step("b", "SELECT pg_advisory_unlock_all()")
	return out.String()
}

// TestLockWaitsShowAsInPostgres runs lockScenario on fickle and on
// PostgreSQL 15 and compares what pg_locks, pg_blocking_pids and
// pg_stat_activity showed: a waiting UPDATE as a ShareLock wait for the
// row's updater's transaction id, advisory and table lock waits on the
// lock itself, with granted false and a waitstart, and the holders as
// the blockers.
func TestLockWaitsShowAsInPostgres(t *testing.T) {
	dsn := testpg.DSN(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	const db = "sqlexec_pglocks_waits"
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")

	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
	eng, err := NewEngine(Config{Store: store, Database: db})
	if err != nil {
		t.Fatal(err)
	}
	fb := &fickleLockBackend{sessions: map[string]*scriptSession{}}
	pb := &pgLockBackend{conns: map[string]*pgx.Conn{}, pids: map[string]int{}}
	for i, name := range []string{"a", "b", "c", "d", "o"} {
		s := eng.NewSession(SessionInfo{User: "postgres", Database: db, ProcessID: uint32(4000 + i)})
		defer s.Close()
		fb.sessions[name] = &scriptSession{s: s}
		cfg := admin.Config().Copy()
		cfg.Database = db
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		pb.conns[name] = c
		pb.pids[name] = int(c.PgConn().PID())
	}
	theirs := lockScenario(t, pb)
	mine := lockScenario(t, fb)
	if mine != theirs {
		t.Errorf("fickle:\n%s\nPostgreSQL:\n%s", mine, theirs)
	}
}
