package isolation

// Phase 1 visibility: every read that is not answered by the transaction's
// own writes takes the latest committed version, and transactions are
// appended to the commit order. This is PostgreSQL's READ COMMITTED with a
// snapshot per read; the level-aware engine replaces these functions.

// view is what a session has seen.
type view struct{}

func newView() *view { return &view{} }

// readState is a transaction's read bookkeeping.
type readState struct{}

func (e *engine) newReadState(*txn) *readState { return &readState{} }

// choose picks the committed version of ks that t reads.
func (e *engine) choose(_ *txn, _ *table, ks *keyState, _ ReadOptions) (version, error) {
	return ks.latest(), nil
}

// checkWrite is the level's check on a write (first-committer-wins).
func (e *engine) checkWrite(*txn, *table, *keyState) error { return nil }

// doomed returns the error of a transaction that can no longer commit.
func (e *engine) doomed(*txn) error { return nil }

// placeCommit returns the co node after which t commits.
func (e *engine) placeCommit(*txn) (*omNode, error) { return e.co.tail, nil }

// placeRollback returns the co node after which a client-aborted t goes.
func (e *engine) placeRollback(*txn) *omNode { return e.co.tail }

// finishReads folds an ended transaction's reads into its session's view.
func (e *engine) finishReads(*txn) {}
