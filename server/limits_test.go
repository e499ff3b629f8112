package server

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"maps"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/internal/testcert"
)

// TestUnauthenticatedClientCannotMakeTheServerBuffer: before a client is
// authenticated a message may be at most 64 kB, as in PostgreSQL; a longer
// claim is refused with FATAL 08P01 before its body is sent.
func TestUnauthenticatedClientCannotMakeTheServerBuffer(t *testing.T) {
	srv := startTestServer(t, Config{Password: "pw"})
	nc, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u"}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	if msg, err := fe.Receive(); err != nil {
		t.Fatal(err)
	} else if _, ok := msg.(*pgproto3.AuthenticationSASL); !ok {
		t.Fatalf("got %T, want the SASL request", msg)
	}
	// A SASLInitialResponse claiming 63 MB; only its header is sent.
	nc.Write(binary.BigEndian.AppendUint32([]byte{'p'}, 63<<20))
	msg, err := fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := msg.(*pgproto3.ErrorResponse); !ok || e.Code != "08P01" || e.Severity != "FATAL" {
		t.Fatalf("got %#v, want FATAL 08P01", msg)
	}
}

// TestMaxConnectionsRefusesTheClientBeyondWith53300: with room for two
// sessions a third client gets FATAL 53300 and the server goes on; once a
// session ends there is room again.
func TestMaxConnectionsRefusesTheClientBeyondWith53300(t *testing.T) {
	srv := startTestServer(t, Config{MaxConnections: 2})
	ctx := context.Background()
	dsn := fmt.Sprintf("postgres://u@%s/db?sslmode=disable", srv.Addr())
	var conns []*pgx.Conn
	for range 2 {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	if _, err := pgx.Connect(ctx, dsn); pgCode(err) != "53300" {
		t.Fatalf("third connection: %v, want 53300", err)
	}
	conns[0].Close(ctx)
	for deadline := time.Now().Add(5 * time.Second); ; {
		c, err := pgx.Connect(ctx, dsn)
		if err == nil {
			c.Close(ctx)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a session ended: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	conns[1].Close(ctx)
}

// failingListener fails its first Accepts with EMFILE, as a process out of
// file descriptors sees them.
type failingListener struct {
	net.Listener
	failures atomic.Int32
}

func (l *failingListener) Accept() (net.Conn, error) {
	if l.failures.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// TestAcceptLoopSurvivesRunningOutOfFileDescriptors: accept errors
// (EMFILE) pause the listener, they do not stop it.
func TestAcceptLoopSurvivesRunningOutOfFileDescriptors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &failingListener{Listener: ln}
	fl.failures.Store(5)
	srv, err := New(Config{Engine: newFakeEngine(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(fl) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://u@%s/db?sslmode=disable", ln.Addr()))
	if err != nil {
		t.Fatalf("connect after EMFILE: %v", err)
	}
	c.Close(ctx)
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != ErrServerClosed {
		t.Fatalf("Serve: %v", err)
	}
}

// TestSessionsLearnTheServersEndpointAndParameters: a session is told the
// address and port its client connected to (inet_server_addr and
// inet_server_port) and the parameters the server's configuration decides,
// as PostgreSQL's SHOW port, listen_addresses, max_connections and ssl
// report them.
func TestSessionsLearnTheServersEndpointAndParameters(t *testing.T) {
	cfg, _, _ := testcert.Write(t, t.TempDir())
	eng := newFakeEngine()
	srv := startTestServer(t, Config{Engine: eng, TLS: cfg, MaxConnections: 7})
	dialRaw(t, srv, nil).nc.Close()
	plainEng := newFakeEngine()
	plain := startTestServer(t, Config{Engine: plainEng})
	dialRaw(t, plain, nil).nc.Close()
	for _, c := range []struct {
		srv     *Server
		eng     *fakeEngine
		maxConn string
		ssl     string
	}{{srv, eng, "7", "on"}, {plain, plainEng, "100", "off"}} {
		addr := c.srv.Addr().(*net.TCPAddr)
		c.eng.mu.Lock()
		info := c.eng.infos[0]
		c.eng.mu.Unlock()
		want := map[string]string{"port": strconv.Itoa(addr.Port), "listen_addresses": "127.0.0.1", "max_connections": c.maxConn, "ssl": c.ssl}
		if !maps.Equal(info.ServerSettings, want) {
			t.Errorf("ServerSettings = %v, want %v", info.ServerSettings, want)
		}
		if info.ServerAddr != "127.0.0.1" || info.ServerPort != addr.Port {
			t.Errorf("server endpoint %s:%d, want 127.0.0.1:%d", info.ServerAddr, info.ServerPort, addr.Port)
		}
	}
}

// TestTLSServesClientsThatRequireIt: with a certificate, clients with
// sslmode=require and verify-full (against that certificate) connect over
// TLS; without one, sslmode=require is refused and prefer falls back.
func TestTLSServesClientsThatRequireIt(t *testing.T) {
	cfg, certFile, _ := testcert.Write(t, t.TempDir())
	srv := startTestServer(t, Config{TLS: cfg, Password: "pw"})
	_, port, _ := net.SplitHostPort(srv.Addr().String())
	ctx := context.Background()
	for _, mode := range []string{"require", "verify-full&sslrootcert=" + certFile} {
		c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://u:pw@localhost:%s/db?sslmode=%s", port, mode))
		if err != nil {
			t.Fatalf("sslmode=%s: %v", mode, err)
		}
		if _, ok := c.PgConn().Conn().(*tls.Conn); !ok {
			t.Errorf("sslmode=%s: the connection is not encrypted", mode)
		}
		var n int64
		if err := c.QueryRow(ctx, "ROWS 1", pgx.QueryExecModeSimpleProtocol).Scan(&n, new(string)); err != nil {
			t.Errorf("sslmode=%s: %v", mode, err)
		}
		c.Close(ctx)
	}
	plain := startTestServer(t, Config{})
	if _, err := pgx.Connect(ctx, fmt.Sprintf("postgres://u@%s/db?sslmode=require", plain.Addr())); err == nil {
		t.Fatal("sslmode=require connected to a server without TLS")
	}
	c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://u@%s/db?sslmode=prefer", plain.Addr()))
	if err != nil {
		t.Fatalf("sslmode=prefer without TLS: %v", err)
	}
	c.Close(ctx)
}
