package stress

import (
	"context"
	"errors"
	"fmt"

	"github.com/fickle-db/fickle/history"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// session is one connection running transactions one after another.
type session struct {
	id   history.SessionID
	name string
	conn *pgx.Conn
	gen  *generator
	run  *runner
}

// loop runs transactions until the run's budget or time is spent, or a
// session fails; it returns the failure that ends the run, if any.
func (s *session) loop(ctx context.Context) error {
	for ctx.Err() == nil && s.run.take() {
		if err := s.transaction(ctx); err != nil {
			return err
		}
	}
	return nil
}

// transaction runs and records one transaction. A serialization failure
// or deadlock aborts it (recorded as aborted by the server, not retried);
// any other error ends the run.
func (s *session) transaction(ctx context.Context) error {
	ops := s.gen.next()
	t := s.run.rec.begin(s.id, s.run.level.level)
	stmt, err := s.execute(ctx, t, ops)
	t.end = s.run.rec.now()
	var pgErr *pgconn.PgError
	var fatal error
	switch {
	case err == nil:
		t.outcome = history.Committed
		for i, o := range ops {
			if i < len(t.stmts) {
				s.gen.learn(o, t.stmts[i].res, int64(t.id))
			}
		}
	case errors.As(err, &pgErr):
		t.outcome, t.code = history.ServerAborted, pgErr.Code
		if !retryable(pgErr.Code) {
			fatal = fmt.Errorf("session %s: %s: %w", s.name, stmt, err)
		}
		if _, rbErr := s.conn.Exec(ctx, "ROLLBACK"); rbErr != nil && fatal == nil {
			fatal = fmt.Errorf("session %s lost its connection during ROLLBACK after %s: %w", s.name, pgErr.Code, rbErr)
			if !s.conn.IsClosed() {
				fatal = fmt.Errorf("session %s: ROLLBACK after %s: %w", s.name, pgErr.Code, rbErr)
			}
		}
	case ctx.Err() != nil:
		// Interrupted: the connection is closed, and a COMMIT sent may
		// have committed.
		t.outcome, t.code = history.ServerAborted, "57014"
		if t.commitSent {
			t.outcome = history.Pending
		}
		fatal = fmt.Errorf("session %s interrupted during %s: %w", s.name, stmt, ctx.Err())
	case t.commitSent && !errors.Is(err, errRolledBack) && !pgconn.SafeToRetry(err):
		// COMMIT went out and no answer came back: it may have committed.
		t.outcome = history.Pending
		fatal = fmt.Errorf("session %s lost its connection during COMMIT: %w", s.name, err)
	case s.conn.IsClosed():
		// The server rolls back the transaction of a lost connection.
		t.outcome, t.code = history.ServerAborted, "08006"
		fatal = fmt.Errorf("session %s lost its connection during %s: %w", s.name, stmt, err)
	default:
		// A failure on the client's side (a row gone, a value of another
		// type): roll back and stop.
		t.outcome = history.ServerAborted
		fatal = fmt.Errorf("session %s: %s: %w", s.name, stmt, err)
		_, _ = s.conn.Exec(ctx, "ROLLBACK")
	}
	if t.outcome != history.Committed {
		s.gen.forget(ops)
	}
	s.run.count(t)
	s.run.rec.finish(t)
	return fatal
}

// retryable reports whether a transaction aborted with code may simply be
// tried again: a serialization failure or a deadlock.
func retryable(code string) bool { return code == "40001" || code == "40P01" }

// errNoRow is an UPDATE of a row that should exist and did not: someone
// else changed the table. errRolledBack is a COMMIT the server answered
// with ROLLBACK.
var (
	errNoRow      = errors.New("the row is gone: did another client change the table?")
	errRolledBack = errors.New("COMMIT answered ROLLBACK")
)

// execute runs ops in a transaction and commits it, recording each
// statement's result in t. It returns the failing statement's text with
// the error.
func (s *session) execute(ctx context.Context, t *txnRecord, ops []op) (string, error) {
	level := s.run.level.begin
	if _, err := s.conn.Exec(ctx, level); err != nil {
		return level, err
	}
	for _, o := range ops {
		sql, args, text := statement(s.run.cfg.Table, o, int64(t.id))
		res, err := s.do(ctx, o, sql, args)
		if err != nil {
			return text, err
		}
		t.stmts = append(t.stmts, stmtRecord{text: text, op: o, res: res})
	}
	t.commitSent = true
	tag, err := s.conn.Exec(ctx, "COMMIT")
	if err == nil && tag.String() != "COMMIT" {
		err = errRolledBack
	}
	return "COMMIT", err
}

// do runs one statement.
func (s *session) do(ctx context.Context, o op, sql string, args []any) (opResult, error) {
	var res opResult
	if o.kind == opRead {
		var err error
		if s.run.cfg.Workload == "append" {
			var list []int64
			err = s.conn.QueryRow(ctx, sql, args...).Scan(&list)
			if err == nil {
				res.list = list
				res.absent = len(list) == 0
				if !res.absent {
					res.value = list[len(list)-1]
				}
			}
		} else {
			err = s.conn.QueryRow(ctx, sql, args...).Scan(&res.value)
		}
		if errors.Is(err, pgx.ErrNoRows) {
			return opResult{absent: true}, nil
		}
		return res, err
	}
	tag, err := s.conn.Exec(ctx, sql, args...)
	if err != nil {
		return res, err
	}
	res.applied = tag.RowsAffected() == 1
	if !res.applied && (o.kind == opWrite || o.kind == opAppend) {
		return res, errNoRow
	}
	return res, nil
}
