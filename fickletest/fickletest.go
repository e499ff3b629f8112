// Package fickletest runs Go tests against an in-process fickle server.
//
// Start gives a test the DSN of a fresh fickle server on 127.0.0.1 (a free
// port) that serves, for every read, one of the versions the transaction's
// isolation level allows, chosen from a seed. When the test ends, the server
// stops and its recorded history is checked: a history that violates its
// own levels fails the test as a bug in fickle, and a test that failed gets
// the reads fickle served stale, in SQL terms, and the anomaly they form,
// with the seed that reproduces the run (FICKLE_SEED).
//
//	func TestTransfer(t *testing.T) {
//		dsn := fickletest.Start(t, fickletest.Level("read-committed"))
//		db, _ := pgx.Connect(ctx, dsn)
//		...
//	}
//
// Explore runs a test body over many seeds, each against its own server, as
// subtests.
//
// fickletest must never reach past explore's server: what a test sees is a
// PostgreSQL server on a socket, as in production.
package fickletest

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/explore"
	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/oracle"
)

// SeedEnv is the environment variable whose value, when set, is the seed of
// every server Start starts (and the only seed Explore runs).
const SeedEnv = "FICKLE_SEED"

// config is what Start's options set.
type config struct {
	server  explore.ServerConfig
	seed    uint64
	hasSeed bool
	err     error
}

// Option configures the server Start starts.
type Option func(*config)

// Level sets the sessions' default isolation level: PostgreSQL's names
// (read-committed, repeatable-read, serializable) or fickle's (read-atomic,
// causal, prefix, snapshot).
func Level(name string) Option {
	return func(c *config) {
		l, err := history.ParseLevel(name)
		if err != nil {
			c.err = err
		}
		c.server.Level = l
	}
}

// Strategy sets how reads pick among the versions their level allows:
// latest, random, oldest or adversarial (the default).
func Strategy(name string) Option {
	return func(c *config) {
		s, err := isolation.ParseStrategy(name)
		if err != nil {
			c.err = err
		}
		c.server.Strategy = s
	}
}

// Seed fixes the seed of the server's choices (FICKLE_SEED overrides it);
// without it every Start draws a seed, printed when the test fails.
func Seed(seed uint64) Option {
	return func(c *config) { c.seed, c.hasSeed = seed, true }
}

// RealTime adds real time to every level: a transaction sees every
// transaction that committed before it began.
func RealTime() Option {
	return func(c *config) { c.server.RealTime = true }
}

// Profile sets the profile: axiomatic (the levels' axioms, the default) or
// postgres (PostgreSQL's own behaviour, with the latest strategy).
func Profile(name string) Option {
	return func(c *config) {
		switch name {
		case "axiomatic":
			c.server.Postgres = false
		case "postgres":
			c.server.Postgres, c.server.RealTime = true, true
			if c.server.Strategy == isolation.StrategyDefault {
				c.server.Strategy = isolation.StrategyLatest
			}
		default:
			c.err = fmt.Errorf("unknown profile %q: want axiomatic or postgres", name)
		}
	}
}

func newConfig(t testing.TB, opts []Option) *config {
	c := &config{}
	for _, o := range opts {
		o(c)
	}
	if c.err != nil {
		t.Fatalf("fickletest: %v", c.err)
	}
	if s := os.Getenv(SeedEnv); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("fickletest: %s=%q: not a seed", SeedEnv, s)
		}
		c.seed, c.hasSeed = seed, true
	}
	if !c.hasSeed {
		var b [8]byte
		_, _ = rand.Read(b[:])
		c.seed = binary.LittleEndian.Uint64(b[:]) >> 1
	}
	return c
}

// Start starts a fickle server for the test and returns its DSN. When the
// test ends the server stops; its history is checked against the levels
// (a violation fails the test: a bug in fickle), and when the test has
// failed, the reads fickle served stale and the anomaly they form are
// logged with the seed and how to reproduce the run.
func Start(t testing.TB, opts ...Option) string {
	t.Helper()
	c := newConfig(t, opts)
	return start(t, c.server, c.seed)
}

func start(t testing.TB, cfg explore.ServerConfig, seed uint64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "history.jsonl")
	srv, err := explore.StartServer(cfg, seed, path)
	if err != nil {
		t.Fatalf("fickletest: starting the server: %v", err)
	}
	t.Cleanup(func() { finish(t, srv, path, cfg, seed) })
	return srv.DSN()
}

// finish stops the server and checks and explains its history.
func finish(t testing.TB, srv *explore.Server, path string, cfg explore.ServerConfig, seed uint64) {
	apps, err := srv.Stop()
	if err != nil {
		t.Errorf("fickletest: stopping the server: %v", err)
		return
	}
	h, err := history.Import(path, history.FormatFickle)
	if err != nil {
		t.Errorf("fickletest: reading the history: %v", err)
		return
	}
	res := oracle.Check(h, oracle.Options{RealTime: cfg.RealTime || cfg.Postgres, MaxSteps: 50_000_000})
	if res.Verdict == oracle.Violation {
		t.Errorf("fickletest: BUG IN FICKLE: the history (seed %d) violates its own levels:\n%s", seed, res.Explanation.Text(h))
	}
	if !t.Failed() {
		return
	}
	rep, err := explore.Explain(path, apps)
	if err != nil {
		t.Logf("fickletest: explaining the history: %v", err)
		return
	}
	t.Logf("fickle seed %d: rerun with %s=%d go test -run '^%s$'\n%s", seed, SeedEnv, seed, runPattern(t.Name()), rep.Text())
}

// runPattern turns a test name into a -run pattern matching it alone.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	return strings.Join(parts, "$/^")
}

// Explore runs body n times as subtests named by their seed, each against a
// fresh server with its own seed, and stops at the first failing one. With
// FICKLE_SEED set it runs that seed alone, once: the failing subtest's log
// says which.
func Explore(t *testing.T, n int, body func(t *testing.T, dsn string), opts ...Option) {
	t.Helper()
	c := newConfig(t, opts)
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = explore.RunSeed(c.seed, i+1)
	}
	if os.Getenv(SeedEnv) != "" {
		seeds = []uint64{c.seed}
	}
	for _, seed := range seeds {
		ok := t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			dsn := start(t, c.server, seed)
			body(t, dsn)
		})
		if !ok {
			return
		}
	}
}
