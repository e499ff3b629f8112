package server

import (
	"crypto/tls"
	"fmt"
	"io"
	"sync"

	"github.com/fickle-db/fickle/wire"
)

// Default limits; see doc.go.
const (
	DefaultMaxMessageSize        = 64 << 20
	DefaultMaxPreparedStatements = 10_000
	DefaultMaxPortals            = 10_000
	DefaultMaxConnections        = 100
)

// maxAuthMessage bounds every message a client sends before it is
// authenticated, as PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH does: an
// unauthenticated client cannot make the server buffer more.
const maxAuthMessage = 65535

// Config configures a Server. Zero values mean the defaults.
type Config struct {
	// Engine runs the SQL of every session. Required.
	Engine Engine
	// Password, when set, is required from every client (SCRAM-SHA-256 by
	// default); without it every client is trusted.
	Password string
	// AuthMethod is how clients prove they know Password: scram-sha-256
	// (the default), md5 or password. The server chooses, never the client.
	AuthMethod wire.AuthMethod
	// TLS, when set, serves TLS to clients that ask for it (SSLRequest);
	// without it they are told the server has no SSL.
	TLS *tls.Config
	// MaxConnections bounds the sessions served at once, those still
	// authenticating included; a client beyond it gets FATAL 53300, as
	// from PostgreSQL's max_connections.
	MaxConnections int
	// MaxMessageSize bounds the body of every frontend message; a longer
	// claim ends the connection with FATAL 08P01 before it is read.
	MaxMessageSize int
	// MaxPreparedStatements bounds the named prepared statements of a
	// session; Parse beyond it fails with 54000.
	MaxPreparedStatements int
	// MaxPortals bounds the named portals of a session; Bind beyond it
	// fails with 54000.
	MaxPortals int
	// MaxMemory, when positive, is the memory ceiling in bytes: while the
	// memory in use is past it, every running statement fails with 53200
	// (out_of_memory) and the server lives on (memory.go).
	MaxMemory uint64
	// MemoryInUse measures the memory in use for MaxMemory; nil measures
	// what the Go runtime holds from the operating system.
	MemoryInUse func() uint64
	// Logf, when set, receives one line per connection-level event
	// (recovered panics, protocol violations). Nil discards them.
	Logf func(format string, args ...any)
	// Trace, when set, receives every protocol message of every connection
	// in libpq's PQtrace format.
	Trace io.Writer

	_ struct{}
}

func (c *Config) withDefaults() (Config, error) {
	out := *c
	if out.Engine == nil {
		return out, fmt.Errorf("server: Config.Engine is required")
	}
	if out.MaxMessageSize <= 0 {
		out.MaxMessageSize = DefaultMaxMessageSize
	}
	if out.MaxPreparedStatements <= 0 {
		out.MaxPreparedStatements = DefaultMaxPreparedStatements
	}
	if out.MaxPortals <= 0 {
		out.MaxPortals = DefaultMaxPortals
	}
	if out.MaxConnections <= 0 {
		out.MaxConnections = DefaultMaxConnections
	}
	if out.MemoryInUse == nil {
		out.MemoryInUse = runtimeMemory
	}
	if out.Logf == nil {
		out.Logf = func(string, ...any) {}
	}
	if out.Trace != nil {
		out.Trace = &lockedWriter{w: out.Trace}
	}
	return out, nil
}

// lockedWriter serializes the writes of all connections' tracers, so that
// Config.Trace need not be safe for concurrent use.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
