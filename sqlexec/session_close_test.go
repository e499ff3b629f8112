package sqlexec

import (
	"context"
	"fmt"
	"testing"

	"github.com/fickle-db/fickle/isolation"
)

// TestClosingASessionClosesItsStoreSession: a connection's session, closed
// in the middle of a transaction or not, leaves no session open in the
// store (its state would stay for ever); a named one (fickle.session),
// which other connections share, stays.
func TestClosingASessionClosesItsStoreSession(t *testing.T) {
	store := isolation.NewStore(isolation.Config{})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	setup := eng.NewSession(SessionInfo{User: "u"})
	mustRun(t, setup, "CREATE TABLE t (id int PRIMARY KEY)")
	setup.Close()
	for i := range 50 {
		s := eng.NewSession(SessionInfo{User: "u"})
		mustRun(t, s, "BEGIN")
		mustRun(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d)", i))
		if i%2 == 0 {
			mustRun(t, s, "COMMIT")
		}
		s.Close()
	}
	named := eng.NewSession(SessionInfo{User: "u", StartupParams: map[string]string{"fickle.session": "app"}})
	mustRun(t, named, "SELECT 1")
	named.Close()
	if st := store.Stats(); st.OpenSessions != 1 || st.Pending != 0 {
		t.Fatalf("after closing 51 connections' sessions and a named one the store has %d sessions open and %d transactions pending, want the named session and none", st.OpenSessions, st.Pending)
	}
}

// waitSignal is a store wait observer that reports the first wait.
type waitSignal chan struct{}

func (w waitSignal) Waiting() {
	select {
	case w <- struct{}{}:
	default:
	}
}

func (waitSignal) Woken() {}

// TestConnectionsOfALogicalSessionTakeTurns: a statement (or a SAVEPOINT)
// on one connection of a logical session (fickle.session) that needs a
// transaction while another connection of the session has one in progress
// waits for it to end and then sees its commit, as the session's
// transactions must form one sequence; it failed with 25001.
func TestConnectionsOfALogicalSessionTakeTurns(t *testing.T) {
	eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	info := SessionInfo{User: "u", StartupParams: map[string]string{"fickle.session": "app"}}
	a, b := eng.NewSession(info), eng.NewSession(info)
	mustRun(t, a, "CREATE TABLE t (id int PRIMARY KEY)")
	for i, waiter := range []string{"INSERT INTO t VALUES (10)", "SAVEPOINT s"} {
		mustRun(t, a, fmt.Sprintf("BEGIN; INSERT INTO t VALUES (%d)", i))
		if waiter == "SAVEPOINT s" {
			mustRun(t, b, "BEGIN")
		}
		waiting, done := make(waitSignal, 1), make(chan error, 1)
		go func() {
			ctx := isolation.WithWaitObserver(context.Background(), waiting)
			sts, err := b.Parse(waiter)
			if err == nil {
				var p *Prepared
				if p, err = b.Prepare(sts[0], nil); err == nil {
					_, err = b.Execute(ctx, p, nil)
				}
			}
			done <- err
		}()
		select {
		case <-waiting:
		case err := <-done:
			t.Fatalf("%s on the session's second connection did not wait for the first's transaction: %v", waiter, err)
		}
		mustRun(t, a, "COMMIT")
		if err := <-done; err != nil {
			t.Fatalf("%s on the session's second connection: %v", waiter, err)
		}
		if waiter == "SAVEPOINT s" {
			mustRun(t, b, "COMMIT")
		}
	}
	res, err := runResult(b, "SELECT count(*) FROM t")
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != int64(3) {
		t.Fatalf("the second connection counts %v (%v), want the three rows both committed", res, err)
	}
}
