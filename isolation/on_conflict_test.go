package isolation

import (
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

func TestCheckConflictVisibleFollowsTheSnapshot(t *testing.T) {
	cfg := Config{Strategy: StrategyLatest, RealTime: true, StatementSnapshots: true, PostgresConcurrency: true}
	for _, c := range []struct {
		level history.Level
		want  pgerror.Code
	}{{history.ReadCommitted, ""}, {history.Snapshot, pgerror.SerializationFailure}, {history.Serializable, pgerror.SerializationFailure}} {
		f := newFixture(t, cfg)
		a, b := f.s.NewSession(), f.s.NewSession()
		seen := begin(t, a, history.ReadCommitted)
		_, err := seen.Insert(bg, f.tab, []byte("old"), []any{"old", nil})
		must(t, err)
		must(t, seen.Commit(bg))

		tb := begin(t, b, c.level)
		tb.Statement(history.Statement{SQL: "INSERT ... ON CONFLICT DO NOTHING"})
		ta := begin(t, a, history.ReadCommitted)
		_, err = ta.Insert(bg, f.tab, []byte("new"), []any{"new", nil})
		must(t, err)
		must(t, ta.Commit(bg))
		must(t, tb.CheckConflictVisible(f.tab, []byte("old"))) // in the snapshot
		_, err = tb.Insert(bg, f.tab, []byte("own"), []any{"own", nil})
		must(t, err)
		must(t, tb.CheckConflictVisible(f.tab, []byte("own"))) // its own row
		if got := pgerror.GetCode(tb.CheckConflictVisible(f.tab, []byte("new"))); got != c.want {
			t.Errorf("%s: a conflict with a row committed after the snapshot: %q, want %q", c.level, got, c.want)
		}
	}
}
