package sqlexec

import (
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
