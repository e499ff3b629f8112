package explore

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"

	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/server"
)

// gatedEngine passes every session's calls into the engine through the
// turnstile. It only orders and records them: what runs is the inner
// engine's, unchanged. The calls that neither read nor change the database
// (parameter and setting lookups, value formatting, Parse, InTxn) pass
// straight through.
type gatedEngine struct {
	inner server.Engine
	ts    *turnstile
	// connections records, in connection order, each session's
	// application_name, for the report.
	connections *connectionLog
}

func (g *gatedEngine) NewSession(info server.SessionInfo) (server.Session, error) {
	a := g.ts.enter(-1, Step{Kind: stepConnect, Text: info.ApplicationName})
	defer g.ts.exit(a)
	g.connections.add(a.session, info.ApplicationName)
	inner, err := g.inner.NewSession(info)
	if err != nil {
		return nil, err
	}
	return &gatedSession{Session: inner, ts: g.ts, id: a.session}, nil
}

// gatedSession embeds the inner session for the calls that pass through.
type gatedSession struct {
	server.Session
	ts *turnstile
	id int
}

// step runs f as one step of s.
func (s *gatedSession) step(ctx context.Context, st Step, f func(ctx context.Context) error) error {
	st.Session = s.id
	a := s.ts.enter(s.id, st)
	defer s.ts.exit(a)
	return f(isolation.WithWaitObserver(ctx, stepObserver{ts: s.ts, a: a}))
}

func (s *gatedSession) simple(kind, text string, f func() error) error {
	return s.step(context.Background(), Step{Kind: kind, Text: text}, func(context.Context) error { return f() })
}

func (s *gatedSession) Close() {
	if !s.Session.InTxn() {
		s.Session.Close() // nothing to roll back: the engine is not involved
		return
	}
	_ = s.simple(stepClose, "", func() error { s.Session.Close(); return nil })
}

func (s *gatedSession) Begin(opts server.TxnOptions, explicit bool) error {
	return s.simple(stepBegin, "", func() error { return s.Session.Begin(opts, explicit) })
}

func (s *gatedSession) Commit() error {
	return s.simple(stepCommit, "", s.Session.Commit)
}

func (s *gatedSession) Rollback() error {
	return s.simple(stepRollback, "", s.Session.Rollback)
}

func (s *gatedSession) Savepoint(ctx context.Context, name string) error {
	return s.simple(stepSavepoint, name, func() error { return s.Session.Savepoint(ctx, name) })
}

func (s *gatedSession) ReleaseSavepoint(name string) error {
	return s.simple(stepRelease, name, func() error { return s.Session.ReleaseSavepoint(name) })
}

func (s *gatedSession) RollbackToSavepoint(name string) error {
	return s.simple(stepRollbackTo, name, func() error { return s.Session.RollbackToSavepoint(name) })
}

func (s *gatedSession) Prepare(st server.Statement, paramOIDs []uint32) (server.Prepared, error) {
	var p server.Prepared
	err := s.simple(stepPrepare, st.SQL(), func() error {
		var err error
		p, err = s.Session.Prepare(st, paramOIDs)
		return err
	})
	if err != nil {
		return nil, err
	}
	return gatedPrepared{Prepared: p, sql: st.SQL()}, nil
}

// gatedPrepared remembers the SQL text of a prepared statement, which
// names its executes in the schedule.
type gatedPrepared struct {
	server.Prepared
	sql string
}

func (s *gatedSession) Execute(ctx context.Context, p server.Prepared, params []any) (*server.Result, error) {
	gp := p.(gatedPrepared)
	var res *server.Result
	err := s.step(ctx, Step{Kind: stepExecute, Text: gp.sql, Params: paramsDigest(params)}, func(ctx context.Context) error {
		var err error
		res, err = s.Session.Execute(ctx, gp.Prepared, params)
		if err == nil && res.Stream != nil {
			// A streamed statement runs while its rows are drained: here,
			// inside the step, so that the turnstile orders its reads.
			var rows [][]any
			tag, serr := res.Stream(func(row []any) error {
				rows = append(rows, row)
				return nil
			})
			res.Stream, res.Rows, res.Tag = nil, rows, tag
			err = serr
		}
		return err
	})
	return res, err
}

func (s *gatedSession) CopyIn(ctx context.Context, req *server.CopyRequest, data io.Reader) (string, error) {
	var tag string
	err := s.step(ctx, Step{Kind: stepCopyIn}, func(ctx context.Context) error {
		var err error
		tag, err = s.Session.CopyIn(ctx, req, data)
		return err
	})
	return tag, err
}

func (s *gatedSession) CopyOut(ctx context.Context, req *server.CopyRequest, emit func(line []byte) error) (string, error) {
	var tag string
	err := s.step(ctx, Step{Kind: stepCopyOut}, func(ctx context.Context) error {
		var err error
		tag, err = s.Session.CopyOut(ctx, req, emit)
		return err
	})
	return tag, err
}

// paramsDigest identifies an execute's parameter values (a replay must
// send the same ones), without keeping them.
func paramsDigest(params []any) string {
	if len(params) == 0 {
		return ""
	}
	h := fnv.New64a()
	for _, p := range params {
		fmt.Fprintf(h, "%T:%v\x00", p, p)
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// stepObserver tells the turnstile when a step waits in the engine and
// when another step's release wakes it (isolation.WaitObserver).
type stepObserver struct {
	ts *turnstile
	a  *activeStep
}

func (o stepObserver) Waiting() { o.ts.waiting(o.a) }
func (o stepObserver) Woken()   { o.ts.woken(o.a) }
