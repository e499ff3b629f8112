package server

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// startupBytes is a valid v3.0 startup packet for user tester.
func startupBytes() []byte {
	b, _ := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "tester"}}).Encode(nil)
	return b
}

func frame(typ byte, body []byte) []byte {
	return append(binary.BigEndian.AppendUint32([]byte{typ}, uint32(len(body)+4)), body...)
}

// TestMalformedInput sends broken bytes on one connection and checks the
// server's answer (an error code, then either more service or a closed
// connection), and that another connection is still served afterwards.
func TestMalformedInput(t *testing.T) {
	srv := startTestServer(t, Config{MaxMessageSize: 1 << 20})
	tests := []struct {
		name     string
		input    []byte
		wantCode string // "" when the server just closes the connection
		closes   bool
	}{
		{name: "unknown message type", input: frame('z', nil), wantCode: "08P01", closes: true},
		{name: "length below four", input: []byte{'Q', 0, 0, 0, 2}, wantCode: "08P01", closes: true},
		{name: "huge length claim", input: []byte{'Q', 0x40, 0, 0, 0}, wantCode: "08P01", closes: true},
		{name: "negative length", input: []byte{'Q', 0x80, 0, 0, 0}, wantCode: "08P01", closes: true},
		{name: "truncated message then hang-up", input: []byte{'Q', 0, 0, 0, 100, 'S'}, closes: true},
		{name: "bind with truncated parameter", input: append(frame('B', []byte{0, 0, 0, 0, 0, 1, 0, 0, 0, 9, 'x'}), frame('S', nil)...), wantCode: "08P01"},
		{name: "parse without terminator", input: append(frame('P', []byte("abc")), frame('S', nil)...), wantCode: "08P01"},
		{name: "describe of unknown kind", input: append(frame('D', []byte{'X', 0}), frame('S', nil)...), wantCode: "08P01"},
		// A FunctionCall answers ReadyForQuery itself, as a Query does;
		// this test's engine calls no function by OID.
		{name: "function call", input: frame('F', []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0}), wantCode: "0A000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dialRaw(t, srv, nil)
			c.nc.Write(tt.input)
			if tt.wantCode == "" {
				c.nc.(*net.TCPConn).CloseWrite()
			}
			msg, err := c.fe.Receive()
			if tt.wantCode != "" {
				if err != nil {
					t.Fatalf("receive: %v", err)
				}
				e, ok := msg.(*pgproto3.ErrorResponse)
				if !ok || e.Code != tt.wantCode {
					t.Fatalf("got %#v, want error %s", msg, tt.wantCode)
				}
				if tt.closes != (e.Severity == "FATAL") {
					t.Fatalf("severity %s, closes=%v", e.Severity, tt.closes)
				}
				msg, err = c.fe.Receive()
			}
			if tt.closes {
				if err == nil {
					t.Fatalf("connection still open, got %T", msg)
				}
				return
			}
			if _, ok := msg.(*pgproto3.ReadyForQuery); !ok || err != nil {
				t.Fatalf("got %T %v, want ReadyForQuery", msg, err)
			}
			c.send(&pgproto3.Query{String: "ROWS 1"})
			if got := c.untilReady(); len(got) != 4 {
				t.Fatalf("connection not usable after the error: %v", got)
			}
		})
	}
	other := dialRaw(t, srv, nil)
	other.send(&pgproto3.Query{String: "ROWS 2"})
	if got := other.untilReady(); len(got) != 5 {
		t.Fatalf("server no longer serves: %v", got)
	}
}

// TestMalformedStartup: broken startup packets get a FATAL error or a
// closed connection, never a hang or a crash.
func TestMalformedStartup(t *testing.T) {
	srv := startTestServer(t, Config{})
	inputs := map[string][]byte{
		"huge length":      {0x7f, 0, 0, 0, 0, 3, 0, 0},
		"tiny length":      {0, 0, 0, 2},
		"unknown protocol": {0, 0, 0, 8, 0, 9, 0, 0},
		"truncated":        startupBytes()[:12],
		"missing user":     {0, 0, 0, 9, 0, 3, 0, 0, 0},
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			nc, err := net.Dial("tcp", srv.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(10 * time.Second))
			nc.Write(in)
			nc.(*net.TCPConn).CloseWrite()
			out, err := io.ReadAll(nc)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if len(out) > 0 {
				fe := pgproto3.NewFrontend(strings.NewReader(string(out)), io.Discard)
				msg, err := fe.Receive()
				if e, ok := msg.(*pgproto3.ErrorResponse); err != nil || !ok || e.Severity != "FATAL" {
					t.Fatalf("got %#v %v, want a FATAL error", msg, err)
				}
			}
		})
	}
	c := dialRaw(t, srv, nil)
	c.send(&pgproto3.Query{String: "ROWS 1"})
	c.untilReady()
}

func sendCancel(t *testing.T, srv *Server, key *pgproto3.BackendKeyData) {
	nc, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	b, _ := (&pgproto3.CancelRequest{ProcessID: key.ProcessID, SecretKey: key.SecretKey}).Encode(nil)
	nc.Write(b)
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	io.ReadAll(nc) // the server closes after acting on it
}

func errorCode(msgs []pgproto3.BackendMessage) string {
	for _, m := range msgs {
		if e, ok := m.(*pgproto3.ErrorResponse); ok {
			return e.Code
		}
	}
	return ""
}

func TestCancelRequestCancelsRunningStatement(t *testing.T) {
	srv := startTestServer(t, Config{})
	c := dialRaw(t, srv, nil)
	c.send(&pgproto3.Query{String: "SLEEP 10000"})
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	sendCancel(t, srv, c.key)
	got := c.untilReady()
	if code := errorCode(got); code != "57014" {
		t.Fatalf("got %v, want 57014", got)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("cancel took too long")
	}
	c.send(&pgproto3.Query{String: "ROWS 1"})
	if code := errorCode(c.untilReady()); code != "" {
		t.Fatalf("connection unusable after cancel: %s", code)
	}
}

func TestCancelRequestWithWrongKeyIsIgnored(t *testing.T) {
	srv := startTestServer(t, Config{})
	c := dialRaw(t, srv, nil)
	c.send(&pgproto3.Query{String: "SLEEP 300"})
	time.Sleep(50 * time.Millisecond)
	wrong := *c.key
	wrong.SecretKey = []byte{^c.key.SecretKey[0], 0, 0, 0}
	sendCancel(t, srv, &wrong)
	if code := errorCode(c.untilReady()); code != "" {
		t.Fatalf("statement failed with %s", code)
	}
}

func TestStatementTimeout(t *testing.T) {
	srv := startTestServer(t, Config{})
	c := dialRaw(t, srv, nil)
	c.send(&pgproto3.Query{String: "SET statement_timeout 50ms; SLEEP 5000"})
	got := c.untilReady()
	var msg string
	for _, m := range got {
		if e, ok := m.(*pgproto3.ErrorResponse); ok {
			msg = e.Code + " " + e.Message
		}
	}
	if msg != "57014 canceling statement due to statement timeout" {
		t.Fatalf("got %q", msg)
	}
}

func TestShutdownEndsRunningSessionsWithAdminShutdown(t *testing.T) {
	srv, err := New(Config{Engine: newFakeEngine(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	busy := dialRaw(t, srv, nil)
	idle := dialRaw(t, srv, nil)
	busy.send(&pgproto3.Query{String: "BEGIN; SLEEP 10000"})
	time.Sleep(50 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	for name, c := range map[string]*rawConn{"busy": busy, "idle": idle} {
		var last pgproto3.BackendMessage
		for {
			msg, err := c.fe.Receive()
			if err != nil {
				break
			}
			last = msg
		}
		if e, ok := last.(*pgproto3.ErrorResponse); !ok || e.Code != "57P01" || e.Severity != "FATAL" {
			t.Errorf("%s session: last message %#v, want FATAL 57P01", name, last)
		}
	}
	if _, err := net.DialTimeout("tcp", srv.Addr().String(), time.Second); err == nil {
		t.Error("server still accepts connections")
	}
}

func TestPanicInStatementBecomesInternalError(t *testing.T) {
	testHookExecute = func(sql string) {
		if sql == "ROWS 13" {
			panic("boom")
		}
	}
	t.Cleanup(func() { testHookExecute = nil })
	srv := startTestServer(t, Config{})
	c := dialRaw(t, srv, nil)
	c.send(&pgproto3.Query{String: "ROWS 13"})
	got := c.untilReady()
	if errorCode(got) != "XX000" {
		t.Fatalf("got %v, want XX000", got)
	}
	// Inside a block the panic fails the block like any error.
	c.send(&pgproto3.Query{String: "BEGIN"}, &pgproto3.Query{String: "ROWS 13"})
	c.untilReady()
	got = c.untilReady()
	if rfq := got[len(got)-1].(*pgproto3.ReadyForQuery); rfq.TxStatus != 'E' || errorCode(got) != "XX000" {
		t.Fatalf("got %v, want XX000 and a failed block", got)
	}
	// Through the extended protocol, the rest of the batch is skipped.
	c.send(&pgproto3.Query{String: "ROLLBACK"},
		&pgproto3.Parse{Query: "ROWS 13"}, &pgproto3.Bind{}, &pgproto3.Execute{},
		&pgproto3.Parse{Query: "ROWS 1"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	c.untilReady()
	got = c.untilReady()
	if errorCode(got) != "XX000" || len(got) != 4 {
		t.Fatalf("got %v, want ParseComplete, BindComplete, XX000, ReadyForQuery", got)
	}
	// A panic while Sync commits still ends with ReadyForQuery.
	panicCommit = true
	c.send(&pgproto3.Parse{Query: "PUT x 1"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	got = c.untilReady()
	panicCommit = false
	if errorCode(got) != "XX000" || got[len(got)-1].(*pgproto3.ReadyForQuery).TxStatus != 'I' {
		t.Fatalf("panic at Sync: got %v", got)
	}
	c.send(&pgproto3.Query{String: "GET x"})
	if code := errorCode(c.untilReady()); code != "" {
		t.Fatalf("after panic at Sync: %s", code)
	}
	other := dialRaw(t, srv, nil)
	other.send(&pgproto3.Query{String: "ROWS 1"})
	if code := errorCode(other.untilReady()); code != "" {
		t.Fatalf("other connection: %s", code)
	}
}

func TestPreparedStatementAndPortalLimits(t *testing.T) {
	srv := startTestServer(t, Config{MaxPreparedStatements: 2, MaxPortals: 1})
	c := dialRaw(t, srv, nil)
	c.send(&pgproto3.Parse{Name: "a", Query: "ROWS 1"}, &pgproto3.Parse{Name: "b", Query: "ROWS 1"},
		&pgproto3.Parse{Name: "c", Query: "ROWS 1"}, &pgproto3.Sync{})
	if code := errorCode(c.untilReady()); code != "54000" {
		t.Fatalf("third statement: %q, want 54000", code)
	}
	c.send(&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "a"},
		&pgproto3.Bind{DestinationPortal: "q", PreparedStatement: "a"}, &pgproto3.Sync{})
	if code := errorCode(c.untilReady()); code != "54000" {
		t.Fatalf("second portal: %q, want 54000", code)
	}
	// Closing frees a slot; the unnamed statement is never limited.
	c.send(&pgproto3.Close{ObjectType: 'S', Name: "a"}, &pgproto3.Parse{Name: "c", Query: "ROWS 1"},
		&pgproto3.Parse{Query: "ROWS 1"}, &pgproto3.Sync{})
	if code := errorCode(c.untilReady()); code != "" {
		t.Fatalf("after close: %s", code)
	}
}

func TestParameterStatusResentAfterSet(t *testing.T) {
	srv := startTestServer(t, Config{})
	c := dialRaw(t, srv, map[string]string{"application_name": "first"})
	c.send(&pgproto3.Query{String: "SET application_name second; SET TimeZone UTC"})
	var got []string
	for _, m := range c.untilReady() {
		if ps, ok := m.(*pgproto3.ParameterStatus); ok {
			got = append(got, ps.Name+"="+ps.Value)
		}
	}
	if strings.Join(got, ",") != "application_name=second" {
		t.Fatalf("ParameterStatus after SET: %v", got)
	}
}

func TestStartupAnnouncesParametersAndKey(t *testing.T) {
	srv := startTestServer(t, Config{})
	nc, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	// SSLRequest first, as libpq's sslmode=prefer does.
	nc.Write([]byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f})
	var n [1]byte
	if _, err := io.ReadFull(nc, n[:]); err != nil || n[0] != 'N' {
		t.Fatalf("SSLRequest answer %q %v", n, err)
	}
	nc.Write(startupBytes())
	fe := pgproto3.NewFrontend(nc, nc)
	params := map[string]string{}
	var key *pgproto3.BackendKeyData
	for {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if ps, ok := msg.(*pgproto3.ParameterStatus); ok {
			params[ps.Name] = ps.Value
		}
		if k, ok := msg.(*pgproto3.BackendKeyData); ok {
			key = k
		}
		if rfq, ok := msg.(*pgproto3.ReadyForQuery); ok {
			if rfq.TxStatus != 'I' {
				t.Fatalf("status %c", rfq.TxStatus)
			}
			break
		}
	}
	if key == nil || key.ProcessID == 0 || len(key.SecretKey) != 4 {
		t.Fatalf("BackendKeyData %+v", key)
	}
	for _, p := range []string{"server_version", "client_encoding", "DateStyle", "TimeZone", "integer_datetimes", "standard_conforming_strings"} {
		if params[p] == "" {
			t.Errorf("ParameterStatus %s missing", p)
		}
	}
}

// TestShutdownDoesNotWaitForSilentClients: a client that connected but
// never sent its startup packet does not hold Shutdown up.
func TestShutdownDoesNotWaitForSilentClients(t *testing.T) {
	srv, err := New(Config{Engine: newFakeEngine(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	silent, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	half, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer half.Close()
	half.Write(startupBytes()[:6])
	time.Sleep(50 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

// TestTraceRecordsMessagesOfConcurrentConnections: Config.Trace receives
// both directions of every connection; writes from concurrent connections
// are serialized (run with -race).
func TestTraceRecordsMessagesOfConcurrentConnections(t *testing.T) {
	var buf strings.Builder
	srv := startTestServer(t, Config{Trace: &buf})
	// Connections are made on the test's goroutine (dialRaw may t.Fatal);
	// the concurrent part reports its errors back.
	conns := []*rawConn{dialRaw(t, srv, nil), dialRaw(t, srv, nil)}
	errs := make(chan error, len(conns))
	for _, c := range conns {
		go func() {
			c.fe.Send(&pgproto3.Query{String: "ROWS 1"})
			err := c.fe.Flush()
			for err == nil {
				var msg pgproto3.BackendMessage
				if msg, err = c.fe.Receive(); err == nil {
					if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
						break
					}
				}
			}
			errs <- err
		}()
	}
	for range conns {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	srv.Shutdown(context.Background())
	out := buf.String()
	for _, want := range []string{"Query", "DataRow", "ReadyForQuery"} {
		if strings.Count(out, want) < 2 {
			t.Errorf("trace has fewer than two %s:\n%s", want, out)
		}
	}
}

// TestChangedResultTypeIsRejected: a prepared statement whose result
// columns change under it (SELECT * after ADD COLUMN) fails with 0A000, as
// in PostgreSQL, instead of sending rows that do not match the
// RowDescription the client has. PostgreSQL notices at Bind, fickle at
// Execute (the engine's plan version is not visible at Bind).
func TestChangedResultTypeIsRejected(t *testing.T) {
	srv := startSQLServer(t, Config{})
	c := dialRaw(t, srv, nil)
	c.send(&pgproto3.Query{String: "CREATE TABLE replan (id integer PRIMARY KEY)"},
		&pgproto3.Parse{Name: "star", Query: "SELECT * FROM replan"}, &pgproto3.Sync{},
		&pgproto3.Query{String: "ALTER TABLE replan ADD COLUMN v text"},
		&pgproto3.Bind{PreparedStatement: "star", ResultFormatCodes: []int16{1}}, &pgproto3.Execute{}, &pgproto3.Sync{})
	c.untilReady()
	c.untilReady()
	c.untilReady()
	if code := errorCode(c.untilReady()); code != "0A000" {
		t.Fatalf("got %q, want 0A000", code)
	}
	c.send(&pgproto3.Query{String: "SELECT count(*) FROM replan"})
	if code := errorCode(c.untilReady()); code != "" {
		t.Fatalf("connection unusable: %s", code)
	}
}

// TestClientThatClosesItsConnectionStopsItsStatement: a statement whose
// client has gone is cancelled within a few checks instead of running on.
func TestClientThatClosesItsConnectionStopsItsStatement(t *testing.T) {
	eng := newFakeEngine()
	srv := startTestServer(t, Config{Engine: eng})
	c := dialRaw(t, srv, nil)
	c.send(&pgproto3.Query{String: "SLEEP 60000"})
	time.Sleep(100 * time.Millisecond)
	c.nc.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		eng.mu.Lock()
		n := eng.cancelledSleeps
		eng.mu.Unlock()
		if n == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the statement of a closed connection still runs after 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
