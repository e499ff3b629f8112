package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/server"
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

// serve runs the server until a value arrives on stop, then ends every
// session with 57P01 and returns 0. Its first line on stdout is
// "listening on ADDR", so that scripts and tests can use --listen
// 127.0.0.1:0 and read the port.
func serve(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:5432", "listen on `ADDR` (port 0 picks a free port)")
	password := fs.String("password", "", "require `P` from every client (SCRAM-SHA-256; md5 or cleartext when the client sets fickle.auth_method); default: trust")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: fickle serve [flags]\n\nServes PostgreSQL clients on an in-memory database until SIGINT or SIGTERM.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "fickle serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	engine, _, err := server.NewMemoryEngine(isolation.Config{})
	if err != nil {
		fmt.Fprintf(stderr, "fickle serve: %v\n", err)
		return 1
	}
	srv, err := server.New(server.Config{
		Engine:   engine,
		Password: *password,
		Logf:     func(format string, a ...any) { fmt.Fprintf(stderr, "fickle: "+format+"\n", a...) },
	})
	if err != nil {
		fmt.Fprintf(stderr, "fickle serve: %v\n", err)
		return 1
	}
	addr, err := srv.Start(*listen)
	if err != nil {
		fmt.Fprintf(stderr, "fickle serve: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "listening on %s\n", addr)
	sig := <-stop
	fmt.Fprintf(stderr, "fickle serve: %v: shutting down\n", sig)
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		fmt.Fprintf(stderr, "fickle serve: shutdown: %v\n", err)
		return 1
	}
	return 0
}
