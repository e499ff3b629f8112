package stress

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fickle-db/fickle/history"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// connectTimeout bounds each connection attempt.
const connectTimeout = 15 * time.Second

// runner is what a run's sessions share.
type runner struct {
	cfg      Config
	level    level
	rec      *recorder
	deadline time.Time
	issued   atomic.Int64
	stop     atomic.Bool

	mu struct {
		sync.Mutex
		committed, aborted, indeterminate int
		codes                             map[string]int
		err                               error // the failure that ended the run
		failed                            int   // sessions that failed
	}
}

// take reserves the next transaction, or says the run is over.
func (r *runner) take() bool {
	switch {
	case r.stop.Load():
		return false
	case !r.deadline.IsZero() && time.Now().After(r.deadline):
		return false
	case r.cfg.Txns > 0 && r.issued.Add(1) > int64(r.cfg.Txns):
		return false
	}
	return true
}

// fail ends the run: the first failure is its cause, and the other
// sessions stop after their current transaction (those that fail too,
// from the same cause, are counted).
func (r *runner) fail(err error) {
	r.stop.Store(true)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mu.failed++
	if r.mu.err == nil {
		r.mu.err = err
	}
}

// count tallies a transaction's outcome.
func (r *runner) count(t *txnRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch t.outcome {
	case history.Committed:
		r.mu.committed++
	case history.Pending:
		r.mu.indeterminate++
	default:
		r.mu.aborted++
		code := t.code
		if code == "" {
			code = "client"
		}
		r.mu.codes[code]++
	}
}

// Run runs the workload cfg describes against cfg.DSN, records the
// client-side history, checks it and reports. An error means the run
// could not start (bad configuration, no connection, no table); a run
// that starts and then fails (the database goes away, a statement fails)
// still returns its Report, with RunError set and the history checked up
// to its last complete transaction.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	lvl, _ := parseLevel(cfg.Level)
	isFickle, err := createTable(ctx, cfg, lvl)
	if err != nil {
		return nil, err
	}
	path, cleanup, err := historyFile(cfg.HistoryPath)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w, err := history.NewWriter(f, history.Header{Meta: meta(cfg, isFickle)})
	if err != nil {
		return nil, err
	}
	run := &runner{cfg: cfg, level: lvl, rec: newRecorder(w, cfg.Table, cfg.Workload)}
	run.mu.codes = map[string]int{}
	run.rec.initial(cfg.Objects)
	sessions, err := openSessions(ctx, run)
	defer func() {
		for _, s := range sessions {
			s.conn.Close(context.Background())
		}
	}()
	if err != nil {
		return nil, err
	}

	elapsed := run.sessions(ctx, sessions)
	closeErr := run.rec.close()
	if err := f.Close(); closeErr == nil {
		closeErr = err
	}
	rep := newReport(cfg, run, elapsed)
	if closeErr != nil {
		rep.RunError = errors.Join(rep.RunError, fmt.Errorf("writing the history: %w", closeErr))
	}
	rep.HistoryPath = cfg.HistoryPath
	rep.check(path, cfg)
	return rep, nil
}

// createTable creates the run's table, and says whether the database is
// fickle: then it folds the rows into the initial state, and only then
// may the level be one of fickle's own.
func createTable(ctx context.Context, cfg Config, lvl level) (isFickle bool, err error) {
	conn, err := connect(ctx, cfg.DSN)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	isFickle = probeFickle(ctx, conn)
	if lvl.set != "" && !isFickle {
		return false, fmt.Errorf("--level %s is one of fickle's own levels; this database is not fickle: use read-committed, repeatable-read or serializable", cfg.Level)
	}
	for _, sql := range schema(cfg.Workload, cfg.Table, cfg.Objects) {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return false, fmt.Errorf("creating the table: %s: %w", sql, err)
		}
	}
	if isFickle {
		// The rows become Init's, visible to every transaction at every
		// level, as they are before the history starts.
		if _, err := conn.Exec(ctx, "SELECT fickle_checkpoint()"); err != nil {
			return false, fmt.Errorf("fickle_checkpoint(): %w", err)
		}
	}
	return isFickle, nil
}

// openSessions connects the run's sessions, each at the run's level, and
// records them; on error it returns those it opened, for closing.
func openSessions(ctx context.Context, run *runner) ([]*session, error) {
	cfg := run.cfg
	var sessions []*session
	for i := 0; i < cfg.Sessions; i++ {
		conn, err := connect(ctx, cfg.DSN)
		if err != nil {
			return sessions, err
		}
		s := &session{id: history.SessionID(i), name: "S" + strconv.Itoa(i+1), conn: conn, run: run,
			gen: newGenerator(cfg.Workload, cfg.Dist, cfg.Objects, rand.New(rand.NewPCG(cfg.Seed, uint64(i))))}
		sessions = append(sessions, s)
		if run.level.set != "" {
			if _, err := conn.Exec(ctx, run.level.set); err != nil {
				return sessions, fmt.Errorf("%s: %w", run.level.set, err)
			}
		}
		run.rec.session(s.id, s.name)
	}
	return sessions, nil
}

// sessions runs the sessions concurrently until the run is over, and
// returns how long they ran.
func (r *runner) sessions(ctx context.Context, sessions []*session) time.Duration {
	began := time.Now()
	if r.cfg.Duration > 0 {
		r.deadline = began.Add(r.cfg.Duration)
	}
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.loop(ctx); err != nil {
				r.fail(err)
			}
		}()
	}
	wg.Wait()
	return time.Since(began)
}

// connect opens one connection, with a bounded wait.
func connect(ctx context.Context, dsn string) (*pgx.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	conn, err := pgx.Connect(cctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to %s: %w", redact(dsn), oneLine{err})
	}
	return conn, nil
}

// oneLine is an error whose text (pgx's connection errors list each
// address tried, a line each) is put on one line.
type oneLine struct{ err error }

func (e oneLine) Error() string {
	text := strings.NewReplacer(":\n", ": ", "\n", "; ").Replace(e.err.Error())
	return strings.Join(strings.Fields(text), " ")
}

func (e oneLine) Unwrap() error { return e.err }

// probeFickle asks the server whether it knows fickle's settings
// (PostgreSQL answers 42704, unrecognized configuration parameter).
func probeFickle(ctx context.Context, conn *pgx.Conn) bool {
	var v string
	return conn.QueryRow(ctx, "SHOW fickle.strategy").Scan(&v) == nil
}

// redact drops the password from a connection string, for messages and
// the history's header.
func redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxx")
		}
		return u.String()
	}
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return "the database"
	}
	return fmt.Sprintf("%s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
}

// historyFile returns the path to record the history at: the given one, or
// a temporary file that cleanup removes.
func historyFile(path string) (string, func(), error) {
	if path != "" {
		return path, func() {}, nil
	}
	f, err := os.CreateTemp("", "fickle-stress-*.jsonl")
	if err != nil {
		return "", nil, err
	}
	f.Close()
	return f.Name(), func() { os.Remove(f.Name()) }, nil
}

// meta is the history header's description of the run.
func meta(cfg Config, isFickle bool) map[string]string {
	server := "postgresql"
	if isFickle {
		server = "fickle"
	}
	return map[string]string{
		"recorder": "fickle stress", "workload": cfg.Workload, "isolation": cfg.Level, "dist": cfg.Dist,
		"sessions": strconv.Itoa(cfg.Sessions), "objects": strconv.Itoa(cfg.Objects), "seed": strconv.FormatUint(cfg.Seed, 10),
		"database": redact(cfg.DSN), "target": server,
	}
}
