package server

import (
	"context"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/wire"
)

// runTxnControl applies a transaction-control statement through the state
// table and returns its command tag. Errors leave the session in the
// transition's error state.
func (c *conn) runTxnControl(sql string, ctl TxnControl) (string, error) {
	ev := eventOf(ctl.Kind)
	t := txnTable[c.state][ev]
	// A savepoint may begin the store's transaction, which in a logical
	// session waits for another connection's: it can be cancelled.
	ctx := c.ctx
	if ctl.Kind == TxnSavepoint {
		var cancel context.CancelCauseFunc
		ctx, cancel = c.statementContext()
		defer c.endStatement(cancel)
	}
	next, err := c.act(ctx, t, ev, &ctl)
	if err != nil {
		err = statementError(ctx, err)
		c.enter(t.onError)
		return "", err
	}
	switch t.notice {
	case warnNoTxn:
		c.be.Send(wire.NoticeResponse(pgerror.New(pgerror.NoActiveSqlTransaction, "there is no transaction in progress")))
	case warnInTxnAlready:
		c.be.Send(wire.NoticeResponse(pgerror.New(pgerror.ActiveSqlTransaction, "there is already a transaction in progress")))
	}
	c.enter(next)
	return txnTag(sql, ctl, t.action), nil
}

// beforeStatement fires evStatement before an ordinary statement runs: it
// opens the implicit transaction in Idle and rejects statements in Failed.
func (c *conn) beforeStatement() error {
	t := txnTable[c.state][evStatement]
	if _, err := c.act(c.ctx, t, evStatement, nil); err != nil {
		c.enter(t.onError)
		return err
	}
	c.enter(t.next)
	return nil
}

// fail fires evStmtError: an ordinary statement (or a message of the
// extended protocol) failed.
func (c *conn) fail() {
	t := txnTable[c.state][evStmtError]
	if _, err := c.act(c.ctx, t, evStmtError, nil); err != nil {
		c.srv.cfg.Logf("connection %d: rollback after error: %v", c.pid, err)
	}
	c.enter(t.next)
}

// endBatch fires evEndOfBatch at the end of a simple query and at Sync: the
// implicit transaction commits.
func (c *conn) endBatch() error {
	t := txnTable[c.state][evEndOfBatch]
	if _, err := c.act(c.ctx, t, evEndOfBatch, nil); err != nil {
		c.enter(t.onError)
		return err
	}
	c.enter(t.next)
	return nil
}

// enter moves to state s. Leaving a transaction drops every portal, as
// PostgreSQL drops non-holdable portals at transaction end, and rolls back
// what an error left open.
func (c *conn) enter(s txnState) {
	if s == stateIdle && c.sess.InTxn() {
		if err := c.sess.Rollback(); err != nil {
			c.srv.cfg.Logf("connection %d: rollback: %v", c.pid, err)
		}
	}
	if s == stateIdle && c.state != stateIdle {
		clear(c.portals)
	}
	c.state = s
}

// act performs the action of transition t and returns the state to enter on
// success (t.next, or InBlock when AND CHAIN opens the next block).
func (c *conn) act(ctx context.Context, t transition, ev txnEvent, ctl *TxnControl) (txnState, error) {
	chain := ctl != nil && ctl.Chain
	switch t.action {
	case actNone:
		if chain && (ev == evCommit || ev == evRollback) {
			return 0, noBlock(chainName(ev))
		}
	case actBeginImplicit:
		return t.next, c.sess.Begin(TxnOptions{}, false)
	case actRun:
	case actBeginExplicit:
		if err := c.sess.Begin(ctl.Options, true); err != nil {
			return 0, err
		}
		c.blockOpts = ctl.Options
	case actPromote:
		// The implicit transaction has run statements already: like SET
		// TRANSACTION, its characteristics can no longer change.
		switch o := ctl.Options; {
		case o.Isolation != "":
			return 0, pgerror.New(pgerror.ActiveSqlTransaction, "SET TRANSACTION ISOLATION LEVEL must be called before any query")
		case o.Deferrable || o.NotDeferrable:
			return 0, pgerror.New(pgerror.ActiveSqlTransaction, "SET TRANSACTION [NOT] DEFERRABLE must be called before any query")
		case o.ReadOnly:
			return 0, pgerror.Unsupported("BEGIN READ ONLY after other statements of the same query")
		}
		c.blockOpts = TxnOptions{}
	case actCommit, actRollback, actFailedCommit:
		if chain && c.state == stateImplicit {
			return 0, noBlock(chainName(ev))
		}
		var err error
		if t.action == actCommit {
			err = c.sess.Commit()
		} else {
			err = c.sess.Rollback()
		}
		if err != nil {
			return 0, err
		}
		if chain {
			if err := c.sess.Begin(c.blockOpts, true); err != nil {
				return 0, err
			}
			return stateInBlock, nil
		}
	case actSavepoint:
		return t.next, c.sess.Savepoint(ctx, ctl.Savepoint)
	case actRelease:
		return t.next, c.sess.ReleaseSavepoint(ctl.Savepoint)
	case actRollbackTo:
		return t.next, c.sess.RollbackToSavepoint(ctl.Savepoint)
	case actRollbackImplicit:
		return t.next, c.sess.Rollback()
	case actRejectAborted:
		return 0, pgerror.New(pgerror.InFailedSqlTransaction,
			"current transaction is aborted, commands ignored until end of transaction block")
	case actRejectNoBlock:
		return 0, noBlock(eventName(ev))
	case actPrepareDisabled:
		if c.state == stateImplicit {
			// PostgreSQL warns first, then fails to prepare.
			c.be.Send(wire.NoticeResponse(pgerror.New(pgerror.NoActiveSqlTransaction, "there is no transaction in progress")))
		}
		return 0, c.sess.PrepareTransaction()
	case actNoPrepared:
		return 0, pgerror.Newf(pgerror.UndefinedObject, "prepared transaction with identifier \"%s\" does not exist", ctl.GID)
	case actRejectInBlock:
		return 0, pgerror.Newf(pgerror.ActiveSqlTransaction, "%s cannot run inside a transaction block", finishPreparedName(ctl.Kind))
	}
	return t.next, nil
}

// finishPreparedName names COMMIT PREPARED or ROLLBACK PREPARED in errors.
func finishPreparedName(kind TxnControlKind) string {
	if kind == TxnCommitPrepared {
		return "COMMIT PREPARED"
	}
	return "ROLLBACK PREPARED"
}

func noBlock(what string) *pgerror.Error {
	return pgerror.Newf(pgerror.NoActiveSqlTransaction, "%s can only be used in transaction blocks", what)
}

func eventName(ev txnEvent) string {
	switch ev {
	case evSavepoint:
		return "SAVEPOINT"
	case evRelease:
		return "RELEASE SAVEPOINT"
	case evRollbackTo:
		return "ROLLBACK TO SAVEPOINT"
	}
	return ev.String()
}

func chainName(ev txnEvent) string {
	if ev == evCommit {
		return "COMMIT AND CHAIN"
	}
	return "ROLLBACK AND CHAIN"
}

// txnTag returns the command tag of a transaction-control statement, as
// PostgreSQL names it.
func txnTag(sql string, ctl TxnControl, action txnAction) string {
	switch ctl.Kind {
	case TxnBegin:
		if firstWordIs(sql, "START") {
			return "START TRANSACTION"
		}
		return "BEGIN"
	case TxnCommit:
		if action == actFailedCommit {
			return "ROLLBACK"
		}
		return "COMMIT"
	case TxnRollback, TxnRollbackTo, TxnPrepare:
		return "ROLLBACK" // a PREPARE TRANSACTION that succeeds prepares nothing: it rolls back
	case TxnSavepoint:
		return "SAVEPOINT"
	case TxnRelease:
		return "RELEASE"
	}
	return ""
}

// firstWordIs reports whether the statement text starts with word, ignoring
// case and what comes before the first keyword: blanks, an opening
// parenthesis, and comments.
func firstWordIs(sql, word string) bool {
	for {
		sql = strings.TrimLeft(sql, " \t\r\n(")
		switch {
		case strings.HasPrefix(sql, "--"):
			_, rest, ok := strings.Cut(sql, "\n")
			if !ok {
				return false
			}
			sql = rest
		case strings.HasPrefix(sql, "/*"):
			_, rest, ok := strings.Cut(sql, "*/")
			if !ok {
				return false
			}
			sql = rest
		default:
			return len(sql) >= len(word) && strings.EqualFold(sql[:len(word)], word)
		}
	}
}
