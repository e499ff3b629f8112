package isolation

import "github.com/fickle-db/fickle/internal/pgerror"

// CheckConflictVisible is PostgreSQL's ExecCheckTupleVisible for INSERT ...
// ON CONFLICT DO NOTHING under Config.PostgresConcurrency: at REPEATABLE
// READ and SERIALIZABLE, skipping a row because of a conflict with the row
// at key of table (a unique or exclusion constraint's) is allowed only when
// the transaction's snapshot sees that row's version, or the transaction
// wrote it; otherwise the conflict is with a concurrent insert the snapshot
// cannot explain, and the transaction fails with 40001. Other levels and
// the axiomatic profile pass.
func (t *Txn) CheckConflictVisible(table TableID, key []byte) error {
	e, tx := t.t.e, t.t
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.cfg.PostgresConcurrency || !tx.windowed() {
		return nil
	}
	if err := e.live(tx); err != nil {
		return err
	}
	tb, err := e.table(table)
	if err != nil {
		return err
	}
	ks := tb.keyState(string(key), false)
	if ks == nil || tx.pendingWrite(ks) != nil || e.snapshotSees(tx, ks.latest().w) {
		return nil
	}
	return e.serverAbort(tx, pgerror.New(pgerror.SerializationFailure, "could not serialize access due to concurrent update"))
}
