package explore

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/server"
	"github.com/fickle-db/fickle/sqlexec"
)

// ServerConfig is what each run's server is: fickle serve's settings
// (DESIGN §6) except where it listens, its seed and its history, which
// explore chooses per run.
type ServerConfig struct {
	// Level is every session's default isolation level (ReadCommitted
	// when zero).
	Level history.Level
	// Strategy is the default strategy of reads (StrategyAdversarial when
	// zero: exploring is looking for the reads that break the command).
	Strategy isolation.Strategy
	// RealTime adds real time to every level (--realtime).
	RealTime bool
	// Postgres is --profile postgres: PostgreSQL's snapshots, re-checks and
	// aborts.
	Postgres bool
	// StaleWrites is --stale-writes: UPDATE and DELETE compute on the
	// version their WHERE clause read (the pure axioms).
	StaleWrites bool
	// Password, when set, is required from every client.
	Password string
	// Setup, when set, runs on the fresh database before the history
	// starts (fickle serve --load); the store is then checkpointed.
	Setup func(*sqlexec.Engine) error
	// Meta is written into each history's header, beside the run's seed
	// and settings, for the commands that read it back.
	Meta map[string]string

	_ struct{}
}

func (c ServerConfig) withDefaults() ServerConfig {
	if c.Level == history.LevelUnknown {
		c.Level = history.ReadCommitted
	}
	if c.Strategy == isolation.StrategyDefault {
		c.Strategy = isolation.StrategyAdversarial
	}
	return c
}

// meta returns the history header's settings of a run with seed.
func (c ServerConfig) meta(seed uint64) map[string]string {
	m := map[string]string{}
	for k, v := range c.Meta {
		m[k] = v
	}
	profile := "axiomatic"
	if c.Postgres {
		profile = "postgres"
	}
	m["server"] = "fickle"
	m["seed"] = strconv.FormatUint(seed, 10)
	m["strategy"] = c.Strategy.String()
	m["isolation"] = c.Level.String()
	m["profile"] = profile
	m["realtime"] = strconv.FormatBool(c.RealTime)
	m["stale-writes"] = strconv.FormatBool(c.StaleWrites)
	return m
}

// Server is one run's in-process server: a fresh store and engine on a free
// loopback port, its sessions' calls ordered by a turnstile, its history
// written to a file as it happens.
type Server struct {
	srv         *server.Server
	store       *isolation.Store
	addr        *net.TCPAddr
	ts          *turnstile
	connections *connectionLog
	file        *os.File
	log         *history.Writer
	password    string
}

// StartServer starts a server with seed that writes its history to
// historyPath (fickletest's, and each run's).
func StartServer(cfg ServerConfig, seed uint64, historyPath string) (*Server, error) {
	return startServer(cfg, seed, historyPath, runSpec{})
}

// startServer starts a server for a run with seed that records its history
// at historyPath; with spec.replay it re-issues that history's choices and
// admits the steps in the order of spec.script; with spec.observe it also
// keeps the history in memory and reports every read's choice to it.
func startServer(cfg ServerConfig, seed uint64, historyPath string, spec runSpec) (*Server, error) {
	cfg = cfg.withDefaults()
	f, err := os.Create(historyPath)
	if err != nil {
		return nil, err
	}
	log, err := history.NewWriter(f, history.Header{Meta: cfg.meta(seed)})
	if err != nil {
		f.Close()
		return nil, err
	}
	in := &Server{ts: newTurnstile(spec.script), connections: &connectionLog{}, file: f, log: log, password: cfg.Password}
	fail := func(err error) (*Server, error) {
		in.ts.close()
		log.Close()
		f.Close()
		return nil, err
	}
	store := isolation.NewStore(isolation.Config{
		Strategy:            cfg.Strategy,
		Seed:                seed,
		Record:              spec.observe != nil,
		RealTime:            cfg.RealTime || cfg.Postgres,
		StatementSnapshots:  cfg.Postgres,
		PostgresConcurrency: cfg.Postgres,
		StaleWrites:         cfg.StaleWrites,
		Log:                 log,
		Replay:              spec.replay,
	})
	if spec.observe != nil {
		store.OnReadChoice(spec.observe)
	}
	in.store = store
	eng, err := sqlexec.NewEngine(sqlexec.Config{Store: store, DefaultIsolation: cfg.Level, Strategy: cfg.Strategy, RealTime: cfg.RealTime || cfg.Postgres})
	if err != nil {
		return fail(err)
	}
	if cfg.Setup != nil {
		if err := cfg.Setup(eng); err != nil {
			return fail(err)
		}
		if _, err := store.Checkpoint(); err != nil {
			return fail(fmt.Errorf("checkpoint after setup: %w", err))
		}
	}
	srv, err := server.New(server.Config{
		Engine:   &gatedEngine{inner: server.NewSQLEngine(eng), ts: in.ts, connections: in.connections},
		Password: cfg.Password,
	})
	if err != nil {
		return fail(err)
	}
	addr, err := srv.Start("127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	in.srv, in.addr = srv, addr.(*net.TCPAddr)
	return in, nil
}

// DSN returns the connection string of the server.
func (in *Server) DSN() string {
	if in.password != "" {
		return fmt.Sprintf("postgres://fickle:%s@%s/fickle?sslmode=disable", in.password, in.addr)
	}
	return fmt.Sprintf("postgres://fickle@%s/fickle?sslmode=disable", in.addr)
}

// env returns the environment that points a client at the server.
func (in *Server) env(seed uint64) []string {
	env := []string{
		"PGHOST=" + in.addr.IP.String(),
		"PGPORT=" + strconv.Itoa(in.addr.Port),
		"PGUSER=fickle",
		"PGDATABASE=fickle",
		"PGSSLMODE=disable",
		"FICKLE_SEED=" + strconv.FormatUint(seed, 10),
	}
	if in.password != "" {
		env = append(env, "PGPASSWORD="+in.password)
	}
	return append(env, "DATABASE_URL="+in.DSN())
}

// shutdownGrace bounds how long stop waits for the sessions to end.
const shutdownGrace = 10 * time.Second

// Stop shuts the server down and closes its history file; it returns the
// connections' application names, in connection order.
func (in *Server) Stop() ([]string, error) {
	_, _, apps, err := in.stop()
	return apps, err
}

// stop ends the ordering (the command has exited), shuts the server down
// and closes the history file; it returns the schedule, the replay's
// divergence, and the connections' application names.
func (in *Server) stop() ([]Step, *Divergence, []string, error) {
	steps, div := in.ts.close()
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := in.srv.Shutdown(ctx)
	if err != nil {
		// Sessions may still be logging: leave the file as flushed at its
		// last commit.
		in.file.Close()
		return steps, div, in.connections.names(), fmt.Errorf("shutting the server down: %w", err)
	}
	if cerr := in.log.Close(); err == nil {
		err = cerr
	}
	if cerr := in.file.Close(); err == nil {
		err = cerr
	}
	return steps, div, in.connections.names(), err
}

// connectionLog keeps each connection's application_name by its index.
type connectionLog struct {
	mu struct {
		sync.Mutex
		apps []string
	}
}

func (l *connectionLog) add(i int, app string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.mu.apps) <= i {
		l.mu.apps = append(l.mu.apps, "")
	}
	l.mu.apps[i] = app
}

func (l *connectionLog) names() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.mu.apps...)
}
