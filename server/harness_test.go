package server

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// startTestServer starts a server on a free loopback port and shuts it
// down when the test ends.
func startTestServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	if cfg.Engine == nil {
		cfg.Engine = newFakeEngine()
	}
	cfg.Logf = t.Logf
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return srv
}

// rawConn is a protocol-level client.
type rawConn struct {
	t   testing.TB
	nc  net.Conn
	fe  *pgproto3.Frontend
	key *pgproto3.BackendKeyData
}

// dialRaw connects and completes the startup with trust authentication,
// consuming everything up to the first ReadyForQuery.
func dialRaw(t testing.TB, srv *Server, params map[string]string) *rawConn {
	t.Helper()
	return dialAddr(t, srv.Addr().String(), params)
}

// dialAddr is dialRaw for any server address, PostgreSQL's included.
func dialAddr(t testing.TB, addr string, params map[string]string) *rawConn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	c := &rawConn{t: t, nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
	p := map[string]string{"user": "tester", "database": "fickle"}
	for k, v := range params {
		p[k] = v
	}
	c.fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: p})
	if err := c.fe.Flush(); err != nil {
		t.Fatal(err)
	}
	for {
		msg := c.receive()
		switch m := msg.(type) {
		case *pgproto3.BackendKeyData:
			k := *m
			k.SecretKey = append([]byte(nil), m.SecretKey...)
			c.key = &k
		case *pgproto3.ErrorResponse:
			t.Fatalf("startup failed: %s %s", m.Code, m.Message)
		case *pgproto3.ReadyForQuery:
			return c
		}
	}
}

func (c *rawConn) receive() pgproto3.BackendMessage {
	c.t.Helper()
	msg, err := c.fe.Receive()
	if err != nil {
		c.t.Fatalf("receive: %v", err)
	}
	return msg
}

func (c *rawConn) send(msgs ...pgproto3.FrontendMessage) {
	c.t.Helper()
	for _, m := range msgs {
		c.fe.Send(m)
	}
	if err := c.fe.Flush(); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// untilReady collects messages up to and including ReadyForQuery.
func (c *rawConn) untilReady() []pgproto3.BackendMessage {
	c.t.Helper()
	var out []pgproto3.BackendMessage
	for {
		msg := c.receive()
		out = append(out, msg)
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			return out
		}
	}
}
