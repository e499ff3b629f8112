package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/hugepages"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/server"
	"github.com/fickle-db/fickle/sqlexec"
)

// shutdownGrace bounds how long serve waits for sessions to end after
// SIGINT or SIGTERM.
const shutdownGrace = 10 * time.Second

func init() {
	commands["serve"] = command{
		summary: "run the PostgreSQL-wire server",
		run: func(args []string) int {
			stop := make(chan os.Signal, 1)
			signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
			defer signal.Stop(stop)
			return serve(args, os.Stdout, os.Stderr, stop)
		},
	}
}

// serveOptions are the parsed flags of fickle serve.
type serveOptions struct {
	serverFlags
	listen      string
	seed        uint64
	historyPath string
	record      bool
	replay      string
	database    string
	pprofAddr   string
	netFlags
	memFlags
}

// parseServeFlags parses args; a non-nil exit code means serve must stop
// with it (0 after -h, 2 for a bad flag, with the reason on stderr).
func parseServeFlags(args []string, stderr io.Writer) (*serveOptions, *int) {
	exit := func(code int) (*serveOptions, *int) { return nil, &code }
	o := &serveOptions{}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.listen, "listen", "127.0.0.1:5432", "listen on `ADDR` (port 0 picks a free port)")
	o.serverFlags.register(fs)
	fs.Uint64Var(&o.seed, "seed", 0, "seed `N` of every choice (printed at start; the same seed and inputs replay a run)")
	fs.StringVar(&o.historyPath, "history", "", "write the history to `FILE` as it happens (fickle JSONL, flushed at each commit); turns on recording")
	fs.BoolVar(&o.record, "record", false, "record the history for SELECT * FROM fickle_check(), in a temporary file removed at exit (implied by --history)")
	fs.StringVar(&o.database, "database", sqlexec.DefaultDatabase, "name `NAME` of the main database, where --load runs (postgres, template0 and template1 exist too; CREATE DATABASE adds more)")
	fs.StringVar(&o.replay, "replay", "", "re-issue the choices recorded in `HISTORY` (a fickle JSONL history)")
	fs.StringVar(&o.pprofAddr, "pprof", "", "serve Go's profiles (go tool pprof http://ADDR/debug/pprof/heap) on `ADDR`; off by default")
	o.netFlags.register(fs)
	o.memFlags.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: fickle serve [flags]\n\nServes PostgreSQL clients on an in-memory database until SIGINT or SIGTERM.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exit(0)
		}
		return exit(2)
	}
	bad := func(format string, a ...any) (*serveOptions, *int) {
		fmt.Fprintf(stderr, "fickle serve: "+format+"\n", a...)
		return exit(2)
	}
	if fs.NArg() > 0 {
		return bad("unexpected argument %q", fs.Arg(0))
	}
	if err := o.serverFlags.resolve(fs); err != nil {
		return bad("%v", err)
	}
	if err := o.netFlags.resolve(o.password); err != nil {
		return bad("%v", err)
	}
	if err := o.memFlags.resolve(); err != nil {
		return bad("%v", err)
	}
	return o, nil
}

// serve runs the server until a value arrives on stop, then ends every
// session with 57P01, closes the history file and returns 0. Its first
// line on stdout is "listening on ADDR", so that scripts and tests can use
// --listen 127.0.0.1:0 and read the port; the second gives the seed and
// the settings that replay the run. A bad flag exits 2; a --load or
// --replay file that cannot be used, or a failure to listen, exits 1.
func serve(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	o, code := parseServeFlags(args, stderr)
	if code != nil {
		return *code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "fickle serve: "+format+"\n", a...)
		return 1
	}
	if o.hugePages == "try" {
		if _, err := hugepages.Advise(o.hugePageReserve()); err != nil {
			fmt.Fprintf(stderr, "fickle serve: --huge-pages try: %v; going on with the kernel's default pages\n", err)
		}
	}
	if o.maxMemory > 0 {
		// The garbage collector works harder from 90% of the ceiling on,
		// so that only live data reaches it (server/memory.go).
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(o.maxMemory / 10 * 9)))
	}
	cfg := isolation.Config{
		Strategy:            o.strategyValue,
		Seed:                o.seed,
		RealTime:            o.realtime,
		StatementSnapshots:  o.profile == "postgres",
		PostgresConcurrency: o.profile == "postgres",
		StaleWrites:         o.staleWrites,
		MaxStaleness:        o.maxStaleness,
		MaxKept:             keptPerTransaction * o.maxStaleness,
	}
	recorded := o.record || o.historyPath != ""
	if o.replay != "" {
		h, err := history.Import(o.replay, history.FormatFickle)
		if err != nil {
			return fail("--replay: %v", err)
		}
		cfg.Replay = h
	}
	hlog, closeHistory, err := openHistory(o)
	if err != nil {
		return fail("--history: %v", err)
	}
	defer func() { closeHistory() }()
	if hlog != nil {
		cfg.Log = hlog
	}

	store := isolation.NewStore(cfg)
	eng, err := sqlexec.NewEngine(sqlexec.Config{Store: store, DefaultIsolation: o.level, Strategy: cfg.Strategy, Record: recorded, RealTime: cfg.RealTime, Database: o.database})
	if err != nil {
		return fail("%v", err)
	}
	if o.loadPath != "" {
		if err := loadSQL(eng, o.loadPath); err != nil {
			return fail("--load %s: %v", o.loadPath, err)
		}
		if _, err := store.Checkpoint(); err != nil {
			return fail("--load %s: checkpoint: %v", o.loadPath, err)
		}
	}
	srv, err := server.New(server.Config{
		Engine:         server.NewSQLEngine(eng),
		Password:       o.password,
		AuthMethod:     o.authMethod,
		TLS:            o.tlsConfig,
		MaxConnections: o.maxConnections,
		MaxMemory:      o.maxMemory,
		Logf:           func(format string, a ...any) { fmt.Fprintf(stderr, "fickle: "+format+"\n", a...) },
	})
	if err != nil {
		return fail("%v", err)
	}
	addr, err := srv.Start(o.listen)
	if err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(stdout, "listening on %s\n", addr)
	if o.pprofAddr != "" {
		paddr, err := servePprof(o.pprofAddr)
		if err != nil {
			return fail("%v", err)
		}
		fmt.Fprintf(stderr, "fickle serve: profiles on http://%s/debug/pprof/\n", paddr)
	}
	fmt.Fprintf(stdout, "seed %d (--strategy %s --isolation %s --profile %s%s%s)\n", o.seed, o.strategy, o.isolationText, o.profile,
		map[bool]string{true: " --realtime"}[o.realtime], map[bool]string{true: " --stale-writes"}[o.staleWrites])
	sig := <-stop
	fmt.Fprintf(stderr, "fickle serve: %v: shutting down\n", sig)
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		// Sessions may still be ending and logging: leave the history
		// file as flushed at its last commit rather than race them.
		closeHistory = func() error { return nil }
		return fail("shutdown: %v", err)
	}
	if err := closeHistory(); err != nil {
		return fail("--history %s: %v", o.historyPath, err)
	}
	return 0
}
