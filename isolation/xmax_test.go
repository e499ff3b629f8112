package isolation

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// versionOfX reads x in a new READ COMMITTED transaction of session s and
// returns its system columns.
func versionOfX(t *testing.T, f *lockFixture, s *Session) RowVersion {
	t.Helper()
	tx := begin(t, s, history.ReadCommitted)
	var v RowVersion
	if _, ok, err := tx.Get(bg, f.tab, []byte("x"), ReadOptions{Version: &v}); err != nil || !ok {
		t.Fatalf("read x: %v %v", ok, err)
	}
	must(t, tx.Commit(bg))
	return v
}

// TestRowVersionShowsPostgresHeaders pins xmin and xmax as PostgreSQL's heap
// shows them: the writer, then whoever replaced, locked or tried to delete
// the newest version (a rolled-back writer stays), a lock carried to the
// locker's own update, and a multixact for two lockers at once.
func TestRowVersionShowsPostgresHeaders(t *testing.T) {
	f := newLockFixture(t, Config{Strategy: StrategyLatest})
	reader := f.s.NewSession()
	first := versionOfX(t, f, reader)
	if first.Xmin <= frozenXID || first.Xmax != 0 {
		t.Fatalf("inserted x: %+v, want a normal xmin and xmax 0", first)
	}

	// An old version read after its replacement committed shows the
	// replacer as xmax; the new version starts clean.
	snap := begin(t, f.s.NewSession(), history.Snapshot)
	var v RowVersion
	_, _, err := snap.Get(bg, f.tab, []byte("x"), ReadOptions{Version: &v})
	must(t, err)
	upd := f.commitX(t, 2)
	row, _, err := snap.Get(bg, f.tab, []byte("x"), ReadOptions{Version: &v})
	must(t, err)
	if row[1] != 1 || xids(v) != (RowVersion{Xmin: first.Xmin, Xmax: upd.XID()}) {
		t.Fatalf("snapshot's x = %v after its update: %+v, want xmin %d xmax %d", row[1], v, first.Xmin, upd.XID())
	}
	if got := versionOfX(t, f, reader); xids(got) != (RowVersion{Xmin: upd.XID()}) {
		t.Fatalf("replaced x: %+v, want xmin %d xmax 0", got, upd.XID())
	}
	must(t, snap.Rollback())

	// A lock writes the locker into xmax, and it stays after commit.
	locker := begin(t, f.s.NewSession(), history.ReadCommitted)
	got, err := locker.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockUpdate})
	must(t, err)
	if xids(got.Version) != (RowVersion{Xmin: upd.XID()}) {
		t.Fatalf("LockRow returned %+v, the version before the lock", got.Version)
	}
	if got := versionOfX(t, f, reader); got.Xmax != locker.XID() {
		t.Fatalf("locked x: xmax %d, want the locker %d", got.Xmax, locker.XID())
	}
	// Updating the row it locked carries the lock to its new version.
	must(t, locker.Update(bg, f.tab, []byte("x"), []any{"x", 3}))
	if own := locker.OwnVersion(f.tab, []byte("x")); xids(own) != (RowVersion{Xmin: locker.XID(), Xmax: locker.XID()}) {
		t.Fatalf("own version after lock and update: %+v", own)
	}
	if got := versionOfX(t, f, reader); xids(got) != (RowVersion{Xmin: upd.XID(), Xmax: locker.XID()}) {
		t.Fatalf("x while its update is pending: %+v", got)
	}
	must(t, locker.Commit(bg))
	if got := versionOfX(t, f, reader); xids(got) != (RowVersion{Xmin: locker.XID(), Xmax: locker.XID()}) {
		t.Fatalf("x after the locked update: %+v", got)
	}

	// A plain update leaves xmax 0 on its version; a rolled-back delete
	// leaves its id on the version it tried to delete.
	plain := f.commitX(t, 4)
	del := begin(t, f.s.NewSession(), history.ReadCommitted)
	dv, err := del.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockUpdate, Write: true})
	must(t, err)
	if xids(dv.Version) != (RowVersion{Xmin: plain.XID(), Xmax: del.XID()}) {
		t.Fatalf("LockRow for a write: %+v, want xmax the writer", dv.Version)
	}
	must(t, del.Delete(bg, f.tab, []byte("x")))
	must(t, del.Rollback())
	if got := versionOfX(t, f, reader); xids(got) != (RowVersion{Xmin: plain.XID(), Xmax: del.XID()}) {
		t.Fatalf("x after a rolled-back delete: %+v", got)
	}

	// Two share lockers at once: a multixact, not either's id.
	a := begin(t, f.s.NewSession(), history.ReadCommitted)
	b := begin(t, f.s.NewSession(), history.ReadCommitted)
	for _, tx := range []*Txn{a, b} {
		_, err := tx.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockShare})
		must(t, err)
	}
	if got := versionOfX(t, f, reader); got.Xmax == a.XID() || got.Xmax == b.XID() || got.Xmax == 0 {
		t.Fatalf("x share-locked twice: xmax %d, want a multixact (a %d, b %d)", got.Xmax, a.XID(), b.XID())
	}
	must(t, a.Commit(bg))
	must(t, b.Commit(bg))
}

// TestXIDsNeverRepeatAcrossCheckpoints pins that a checkpoint, which
// restarts the history's transaction numbering, does not restart the ids
// clients see: an optimistic lock on xmin must not match a later writer.
func TestXIDsNeverRepeatAcrossCheckpoints(t *testing.T) {
	f := newLockFixture(t, Config{Strategy: StrategyLatest})
	before := f.commitX(t, 2).XID()
	if _, err := f.s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if got := versionOfX(t, f, f.s.NewSession()); got.Xmin != frozenXID {
		t.Fatalf("xmin after a checkpoint: %d, want frozen", got.Xmin)
	}
	if after := f.commitX(t, 3).XID(); after <= before {
		t.Fatalf("xid after a checkpoint %d, before %d", after, before)
	}
}

// TestSubtransactionWritesHaveTheirOwnXmin pins PostgreSQL's ids for writes
// in savepoints: each subtransaction that writes gets an id after its
// parent's, released ones keep theirs in the versions they wrote, and the
// savepoint a ROLLBACK TO keeps starts a new one.
func TestSubtransactionWritesHaveTheirOwnXmin(t *testing.T) {
	f := newLockFixture(t, Config{Strategy: StrategyLatest})
	tx := begin(t, f.s.NewSession(), history.ReadCommitted)
	xminOf := func(key string) uint32 {
		t.Helper()
		var v RowVersion
		if _, ok, err := tx.Get(bg, f.tab, []byte(key), ReadOptions{Version: &v}); err != nil || !ok {
			t.Fatalf("read %s: %v %v", key, ok, err)
		}
		return v.Xmin
	}
	_, err := tx.Insert(bg, f.tab, []byte("a"), []any{"a", 11})
	must(t, err)
	sp := tx.Savepoint()
	_, err = tx.Insert(bg, f.tab, []byte("b"), []any{"b", 12})
	must(t, err)
	must(t, tx.Release(sp))
	sp = tx.Savepoint()
	_, err = tx.Insert(bg, f.tab, []byte("c"), []any{"c", 13})
	must(t, err)
	must(t, tx.RollbackTo(sp))
	_, err = tx.Insert(bg, f.tab, []byte("d"), []any{"d", 14})
	must(t, err)
	top, b, d := xminOf("a"), xminOf("b"), xminOf("d")
	if top != tx.XID() || b <= top || d <= b+1 {
		t.Fatalf("xmin of a %d (top %d), b %d, d %d: want top < b < (rolled back c) < d", top, tx.XID(), b, d)
	}
	must(t, tx.Commit(bg))
	reader := begin(t, f.s.NewSession(), history.ReadCommitted)
	for key, want := range map[string]uint32{"a": top, "b": b, "d": d} {
		var v RowVersion
		if _, ok, err := reader.Get(bg, f.tab, []byte(key), ReadOptions{Version: &v}); err != nil || !ok || v.Xmin != want {
			t.Fatalf("committed %s: xmin %d, want %d (%v %v)", key, v.Xmin, want, ok, err)
		}
	}
	must(t, reader.Commit(bg))
}

// TestRowVersionsFollowTheWritesProperty runs seeded random interleavings
// of transactions that insert, update, delete, lock and read a few keys
// (READ COMMITTED with real time, reads choosing at random among the
// versions the level allows) and checks every read's system columns
// against a model of the committed versions: xmin is the writer's id (its
// own for a transaction's own write), xmax of a replaced version the
// replacer's, of the newest one 0 or a transaction that locked or wrote
// the key since (no two hold a lock at once here, so no multixact); ids
// are never reused.
func TestRowVersionsFollowTheWritesProperty(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		s := NewStore(Config{Strategy: StrategyRandom, RealTime: true, Seed: seed})
		tab, err := s.CreateTable(TableSpec{Name: "t"})
		must(t, err)
		type open struct {
			tx    *Txn
			wrote map[string]bool
		}
		keys := []string{"a", "b", "c"}
		committed := map[string][]uint32{} // writers' xids in commit order; 0 for a delete
		touched := map[string]map[uint32]bool{}
		holder := map[string]*open{} // the open transaction holding a key's row lock
		sessions := []*Session{s.NewSession(), s.NewSession(), s.NewSession()}
		txns := make([]*open, len(sessions))
		seen := map[uint32]bool{}
		for step := range 300 {
			i := rng.IntN(len(sessions))
			if txns[i] == nil {
				tx, err := sessions[i].Begin(TxnOptions{Level: history.ReadCommitted})
				must(t, err)
				txns[i] = &open{tx: tx, wrote: map[string]bool{}}
			}
			o := txns[i]
			k := keys[rng.IntN(len(keys))]
			free := holder[k] == nil || holder[k] == o
			switch op := rng.IntN(10); {
			case op < 4: // read
				var v RowVersion
				row, ok, err := o.tx.Get(bg, tab, []byte(k), ReadOptions{Version: &v})
				must(t, err)
				if !ok {
					continue
				}
				writer := row[0].(uint32)
				if v.Xmin != writer {
					t.Fatalf("seed %d step %d: %s written by %d read with xmin %d", seed, step, k, writer, v.Xmin)
				}
				if o.wrote[k] {
					continue
				}
				vs := committed[k]
				at := slices.Index(vs, writer)
				switch {
				case at < len(vs)-1 && v.Xmax != vs[at+1]:
					t.Fatalf("seed %d step %d: %s by %d replaced by %d, read with xmax %d", seed, step, k, writer, vs[at+1], v.Xmax)
				case at < 0:
					t.Fatalf("seed %d step %d: %s read from %d, which did not commit it", seed, step, k, writer)
				case at == len(vs)-1 && v.Xmax != 0 && !touched[k][v.Xmax] && (holder[k] == nil || holder[k].tx.XID() != v.Xmax):
					t.Fatalf("seed %d step %d: newest %s read with xmax %d, which no transaction touching it has", seed, step, k, v.Xmax)
				}
			case op < 7 && free: // write
				var err error
				if _, live, _ := o.tx.Get(bg, tab, []byte(k), ReadOptions{Latest: true}); !live {
					_, err = o.tx.Insert(bg, tab, []byte(k), []any{o.tx.XID()})
				} else if rng.IntN(4) == 0 {
					err = o.tx.Delete(bg, tab, []byte(k))
				} else {
					err = o.tx.Update(bg, tab, []byte(k), []any{o.tx.XID()})
				}
				must(t, err)
				o.wrote[k], holder[k] = true, o
			case op < 8 && free: // lock
				if _, err := o.tx.LockRow(bg, tab, []byte(k), LockRequest{Mode: RowLockShare, Wait: WaitNoWait}); err == nil {
					holder[k] = o
				}
			default: // end
				xid := o.tx.XID()
				if seen[xid] {
					t.Fatalf("seed %d step %d: xid %d given twice", seed, step, xid)
				}
				seen[xid] = true
				for key := range o.wrote {
					if touched[key] == nil {
						touched[key] = map[uint32]bool{}
					}
					touched[key][xid] = true
				}
				for key, h := range holder {
					if h == o {
						if touched[key] == nil {
							touched[key] = map[uint32]bool{}
						}
						touched[key][xid] = true
						delete(holder, key)
					}
				}
				if rng.IntN(3) == 0 {
					must(t, o.tx.Rollback())
				} else {
					must(t, o.tx.Commit(bg))
					for key := range o.wrote {
						committed[key] = append(committed[key], xid)
					}
				}
				txns[i] = nil
			}
		}
	}
}

// xids returns v's transaction ids alone, its place (tid_test.go) dropped.
func xids(v RowVersion) RowVersion {
	v.Ctid = Tid{}
	return v
}
