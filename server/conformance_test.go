package server

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// conformanceTargets returns the servers a protocol conformance case runs
// against: fickle's real engine, and PostgreSQL when FICKLE_PGTEST_ADDR
// names one (user postgres), whose answers are the reference.
func conformanceTargets(t *testing.T) map[string]func(params map[string]string) *rawConn {
	srv := startSQLServer(t, Config{})
	targets := map[string]func(map[string]string) *rawConn{
		"fickle": func(p map[string]string) *rawConn { return dialRaw(t, srv, p) },
	}
	if addr := pgtestAddr(t); addr != "" {
		targets["postgres"] = func(p map[string]string) *rawConn {
			q := map[string]string{"user": "postgres", "database": "postgres"}
			for k, v := range p {
				q[k] = v
			}
			return dialAddr(t, addr, q)
		}
	}
	return targets
}

// summary renders messages as TYPE or TYPE:SEVERITY:CODE, for comparison.
func summary(msgs []pgproto3.BackendMessage) string {
	var parts []string
	for _, m := range msgs {
		if e, ok := m.(*pgproto3.ErrorResponse); ok {
			parts = append(parts, fmt.Sprintf("Error:%s:%s", e.Severity, e.Code))
			continue
		}
		parts = append(parts, strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3."))
	}
	return strings.Join(parts, " ")
}

// readUntilReadyOrEOF reads messages until ReadyForQuery or the end of the
// connection, within a second: a server that waits for more input fails.
func readUntilReadyOrEOF(c *rawConn) []pgproto3.BackendMessage {
	c.nc.SetReadDeadline(time.Now().Add(time.Second))
	var out []pgproto3.BackendMessage
	for {
		msg, err := c.fe.Receive()
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				out = append(out, &pgproto3.NoticeResponse{Message: "timeout"})
			}
			return out
		}
		out = append(out, msg)
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			return out
		}
	}
}

// TestMalformedMessagesGetPostgresAnswersAtOnce pins messages PostgreSQL
// answers at once, without waiting for a Sync: a Query without its
// terminating NUL (ERROR, then ReadyForQuery), and a message a session
// never sends after startup (FATAL).
func TestMalformedMessagesGetPostgresAnswersAtOnce(t *testing.T) {
	cases := []struct {
		name  string
		input []byte
		want  string
	}{
		{"query without its terminating NUL", frame('Q', []byte("SELECT 1")), "Error:ERROR:08P01 ReadyForQuery"},
		{"password message in a session", frame('p', []byte("secret\x00")), "Error:FATAL:08P01"},
	}
	for name, dial := range conformanceTargets(t) {
		for _, tc := range cases {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				c := dial(nil)
				c.nc.Write(tc.input)
				if got := summary(readUntilReadyOrEOF(c)); got != tc.want {
					t.Fatalf("got %q, want %q", got, tc.want)
				}
			})
		}
	}
}
