package server

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestNotificationsReachIdleListeners pins how NOTIFY reaches a client, as
// in PostgreSQL: a listener idle outside a transaction receives a
// notification as soon as the notifying transaction commits, with no
// query of its own; one inside a transaction block receives it only after
// the block ends; a session's own notification comes before the
// ReadyForQuery that ends its NOTIFY; a listener in another database
// receives nothing.
func TestNotificationsReachIdleListeners(t *testing.T) {
	srv := startSQLServer(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	listener := connectPgx(t, srv.DSN("u", "postgres"), pgx.QueryExecModeSimpleProtocol)
	sender := connectPgx(t, srv.DSN("u", "postgres"), pgx.QueryExecModeCacheStatement)
	if _, err := sender.Exec(ctx, "CREATE DATABASE elsewhere"); err != nil {
		t.Fatal(err)
	}
	stranger := connectPgx(t, srv.DSN("u", "elsewhere"), pgx.QueryExecModeSimpleProtocol)
	for _, c := range []*pgx.Conn{listener, stranger} {
		if _, err := c.Exec(ctx, "LISTEN jobs"); err != nil {
			t.Fatal(err)
		}
	}
	senderPID := sender.PgConn().PID()

	wait := func(c *pgx.Conn, d time.Duration) *pgconn.Notification {
		t.Helper()
		wctx, wcancel := context.WithTimeout(ctx, d)
		defer wcancel()
		n, err := c.WaitForNotification(wctx)
		if err != nil {
			return nil
		}
		return n
	}

	tx, err := sender.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT pg_notify('jobs', $1)", "job 1"); err != nil {
		t.Fatal(err)
	}
	if n := wait(listener, 200*time.Millisecond); n != nil {
		t.Fatalf("notified before the sender committed: %+v", n)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	n := wait(listener, 5*time.Second)
	if n == nil || n.Channel != "jobs" || n.Payload != "job 1" || n.PID != senderPID {
		t.Fatalf("idle listener received %+v, want jobs/job 1 from %d", n, senderPID)
	}
	if n := wait(stranger, 200*time.Millisecond); n != nil {
		t.Fatalf("a listener in another database received %+v", n)
	}

	// Inside a transaction block the notification waits for its end.
	if _, err := listener.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := sender.Exec(ctx, "NOTIFY jobs, 'job 2'"); err != nil {
		t.Fatal(err)
	}
	if n := wait(listener, 200*time.Millisecond); n != nil {
		t.Fatalf("notified inside a transaction block: %+v", n)
	}
	if _, err := listener.Exec(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if n := wait(listener, 5*time.Second); n == nil || n.Payload != "job 2" {
		t.Fatalf("after COMMIT the listener received %+v, want job 2", n)
	}

	// A session's own notification arrives with its NOTIFY's result.
	var got []string
	cfg := listener.Config().Config
	cfg.OnNotification = func(_ *pgconn.PgConn, n *pgconn.Notification) { got = append(got, n.Payload) }
	self, err := pgconn.ConnectConfig(ctx, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer self.Close(ctx)
	if _, err := self.Exec(ctx, "LISTEN jobs; NOTIFY jobs, 'mine'").ReadAll(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "mine" {
		t.Fatalf("own notification: %v, want [mine] before the query returned", got)
	}
}
