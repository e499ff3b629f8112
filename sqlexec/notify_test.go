package sqlexec

import (
	"slices"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

func notifyEngine(t *testing.T) *Engine {
	t.Helper()
	eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// payloads is what s received since the last call, as channel:payload from pid.
func payloads(s *Session) []string {
	var out []string
	for _, n := range s.TakeNotifications() {
		out = append(out, n.Channel+":"+n.Payload)
	}
	return out
}

// TestNotifyDeliveredAtCommit pins PostgreSQL's NOTIFY semantics: a
// transaction's notifications reach the sessions listening on their
// channel when it commits, in commit order and once per channel and
// payload, its own session included; a rollback, or a rollback to a
// savepoint, drops what it covers; LISTEN and UNLISTEN take effect at
// commit too.
func TestNotifyDeliveredAtCommit(t *testing.T) {
	eng := notifyEngine(t)
	a := eng.NewSession(SessionInfo{User: "a", ProcessID: 11})
	b := eng.NewSession(SessionInfo{User: "b", ProcessID: 12})
	c := eng.NewSession(SessionInfo{User: "c", ProcessID: 13})
	defer a.Close()
	defer b.Close()
	defer c.Close()

	mustRun(t, a, "LISTEN jobs")
	mustRun(t, b, "BEGIN; NOTIFY jobs, 'one'")
	if got := payloads(a); got != nil {
		t.Fatalf("before the commit a received %v", got)
	}
	mustRun(t, c, "BEGIN; NOTIFY jobs, 'two'; NOTIFY other, 'x'; COMMIT")
	mustRun(t, b, "NOTIFY jobs, 'one'; NOTIFY jobs, 'three'; COMMIT")
	select {
	case <-a.Notified():
	default:
		t.Fatal("Notified did not signal")
	}
	if got, want := payloads(a), []string{"jobs:two", "jobs:one", "jobs:three"}; !slices.Equal(got, want) {
		t.Fatalf("a received %v, want %v (commit order, duplicates once)", got, want)
	}

	mustRun(t, b, "BEGIN; NOTIFY jobs, 'lost'; ROLLBACK")
	mustRun(t, b, "BEGIN; NOTIFY jobs, 's1'; SAVEPOINT p; NOTIFY jobs, 's2'; ROLLBACK TO p; NOTIFY jobs, 's3'; COMMIT")
	if got, want := payloads(a), []string{"jobs:s1", "jobs:s3"}; !slices.Equal(got, want) {
		t.Fatalf("a received %v, want %v", got, want)
	}

	mustRun(t, c, "BEGIN; LISTEN jobs")
	mustRun(t, b, "NOTIFY jobs, 'before c commits'")
	mustRun(t, c, "COMMIT")
	mustRun(t, b, "SELECT pg_notify('jobs', 'after')")
	if got, want := payloads(c), []string{"jobs:after"}; !slices.Equal(got, want) {
		t.Fatalf("c received %v, want %v (LISTEN takes effect at commit)", got, want)
	}
	payloads(a)

	mustRun(t, a, "NOTIFY jobs, 'self'")
	if got, want := payloads(a), []string{"jobs:self"}; !slices.Equal(got, want) {
		t.Fatalf("a received %v, want its own %v", got, want)
	}
	payloads(c)
	mustRun(t, a, "UNLISTEN jobs")
	mustRun(t, c, "DISCARD ALL")
	mustRun(t, b, "NOTIFY jobs")
	if got := append(payloads(a), payloads(c)...); got != nil {
		t.Fatalf("after UNLISTEN and DISCARD ALL: received %v", got)
	}
}

// TestNotifyArguments pins pg_notify's and NOTIFY's checks and
// pg_listening_channels.
func TestNotifyArguments(t *testing.T) {
	eng := notifyEngine(t)
	s := eng.NewSession(SessionInfo{User: "a", ProcessID: 11})
	defer s.Close()
	for sql, code := range map[string]pgerror.Code{
		"SELECT pg_notify('', 'x')":                pgerror.InvalidParameterValue,
		"SELECT pg_notify(NULL, 'x')":              pgerror.InvalidParameterValue,
		"SELECT pg_notify(repeat('x', 64), 'x')":   pgerror.InvalidParameterValue,
		"SELECT pg_notify('c', repeat('x', 8000))": pgerror.InvalidParameterValue,
		"SELECT pg_notify(repeat('x', 63), NULL)":  "",
		"SELECT pg_notify('c', repeat('x', 7999))": "",
	} {
		if err := runOne(s, sql); pgerror.GetCode(err) != code {
			t.Errorf("%s: %v, want %q", sql, err, code)
		}
	}
	mustRun(t, s, `BEGIN READ ONLY; NOTIFY c; LISTEN d; COMMIT`)
	mustRun(t, s, `LISTEN b; LISTEN "A c"; LISTEN b`)
	res, err := runResult(s, "SELECT * FROM pg_listening_channels()")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 3 || res.Rows[0][0] != "d" || res.Rows[1][0] != "b" || res.Rows[2][0] != "A c" {
		t.Fatalf("pg_listening_channels: %v", res.Rows)
	}
}
