package sqlexec

import (
	"github.com/fickle-db/fickle/internal/pgerror"
)

// COMMIT and ROLLBACK inside procedures and DO blocks. PostgreSQL lets a
// routine end the transaction only in a non-atomic context: a CALL or DO
// the client sent on its own, outside a transaction block, or a CALL or
// DO such a routine ran directly (a chain of CALLs), and only when no
// function, trigger or EXCEPTION block lies between. The transaction
// commits (or rolls back) like a client's, recorded as its own in the
// history, and a new one starts at the session's default level (AND
// CHAIN: with the same characteristics), whose reads and writes the rest
// of the CALL makes.

// invokeCalled runs the routine of a CALL or DO statement. batch says
// the statement came in a query string with others, which PostgreSQL
// runs as one implicit transaction block.
func (s *Session) invokeCalled(x *execCtx, f *funcDesc, vals []any, batch bool) ([][]any, error) {
	free := len(f.config) == 0 && !f.secDef && s.txn != nil && len(s.txn.savepoints) == 0
	top := s.routineDepth == 0 && !batch && !s.txn.explicit
	if free && (top || s.routineDepth > 0 && s.routineDepth == s.nonAtomic) {
		s.nonAtomic++
		defer func() { s.nonAtomic-- }()
	}
	return s.invoke(x, f, vals)
}

// inBatch reports whether a query string holds more than one statement.
func inBatch(full string) bool {
	sts, err := parseStatements(full)
	return err == nil && len(sts) > 1
}

// endTransaction runs COMMIT (commit) or ROLLBACK of the frame's routine.
func (fr *plFrame) endTransaction(commit, chain bool) error {
	s := fr.s
	switch {
	case s.nonAtomic == 0 || s.routineDepth != s.nonAtomic:
		return pgerror.New(pgerror.InvalidTransactionTermination, "invalid transaction termination")
	case len(s.txn.savepoints) > 0 && commit:
		return pgerror.New(pgerror.InvalidTransactionTermination, "cannot commit while a subtransaction is active")
	case len(s.txn.savepoints) > 0:
		return pgerror.New(pgerror.InvalidTransactionTermination, "cannot roll back while a subtransaction is active")
	case s.routineDepth > 1:
		// The outer procedures' statements hold the transaction too.
		return pgerror.Unsupported("COMMIT and ROLLBACK in a procedure called by another procedure")
	}
	t := s.txn
	opts := TxnOptions{}
	if chain {
		opts = TxnOptions{Isolation: t.level.String(), ReadOnly: t.readOnly, ReadWrite: !t.readOnly, Deferrable: t.deferrable, NotDeferrable: !t.deferrable}
	}
	var ended error
	if commit {
		ended = s.commit()
	} else {
		ended = s.rollback()
	}
	// The next transaction starts even when the commit failed, so that
	// the CALL's error ends a transaction the server can roll back.
	if err := s.begin(opts, false); err != nil {
		return err
	}
	kv, err := s.kvTxn(fr.x.ctx)
	if err != nil {
		return err
	}
	kv.Statement(s.stmt)
	fr.x.txn = kv
	fr.scalarCtx = nil
	return ended
}
