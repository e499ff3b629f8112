package isolation

import (
	"context"
	"errors"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// TestInsertOnConflictReportsTheArbiterFirst pins the order in which
// InsertOnConflict checks keys: a row whose primary key and arbiter index
// key are both taken conflicts on the arbiter (PostgreSQL checks ON
// CONFLICT's arbiters before inserting), where Insert reports the primary
// key; a row that conflicts on the primary key alone still does.
func TestInsertOnConflictReportsTheArbiterFirst(t *testing.T) {
	s := NewStore(Config{Strategy: StrategyLatest})
	tab, err := s.CreateTable(TableSpec{Name: "t", FormatKey: func(k []byte) string { return string(k) }})
	must(t, err)
	loadRows(t, s, tab, [][2]string{{"a", "1"}, {"b", "2"}})
	ix, err := s.CreateIndex(tab, IndexSpec{Name: "t_v", Unique: true, Key: valueKey})
	must(t, err)
	ctx := context.Background()
	tx := begin(t, s.NewSession(), history.ReadCommitted)
	defer func() { _ = tx.Rollback() }()
	for _, c := range []struct {
		name     string
		key, v   string
		arbiter  IndexID
		wantIdx  IndexID
		wantKey  string
		conflict bool
	}{
		{name: "both taken, arbiter index", key: "a", v: "1", arbiter: ix, wantIdx: ix, wantKey: "a", conflict: true},
		{name: "both taken by different rows, arbiter index", key: "a", v: "2", arbiter: ix, wantIdx: ix, wantKey: "b", conflict: true},
		{name: "both taken, primary key arbiter", key: "a", v: "2", arbiter: NoIndex, wantIdx: NoIndex, wantKey: "a", conflict: true},
		{name: "only the primary key taken", key: "a", v: "3", arbiter: ix, wantIdx: NoIndex, wantKey: "a", conflict: true},
		{name: "nothing taken", key: "c", v: "3", arbiter: ix},
	} {
		sp := tx.Savepoint()
		_, err := tx.InsertOnConflict(ctx, tab, []byte(c.key), []any{c.key, c.v}, c.arbiter)
		var uc *UniqueConflict
		switch {
		case !c.conflict && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.conflict && !errors.As(err, &uc):
			t.Errorf("%s: %v, want a unique conflict", c.name, err)
		case c.conflict && (uc.Index != c.wantIdx || string(uc.Key) != c.wantKey):
			t.Errorf("%s: conflict on index %d with row %q, want index %d, row %q", c.name, uc.Index, uc.Key, c.wantIdx, c.wantKey)
		}
		must(t, tx.RollbackTo(sp))
	}
}
