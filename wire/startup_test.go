package wire

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// startupPacket builds an untyped startup packet: length, then body.
func startupPacket(body ...[]byte) []byte {
	var b []byte
	for _, p := range body {
		b = append(b, p...)
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b)+4)), b...)
}

func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

func params(kv ...string) []byte {
	var b []byte
	for _, s := range kv {
		b = append(append(b, s...), 0)
	}
	return append(b, 0)
}

// runStartup feeds input to ReadStartup over a pipe and returns its result
// and every byte the server wrote back (the raw 'N' answers and the buffered
// messages, flushed after ReadStartup returns).
// With hangUp the client closes the connection after writing input.
func runStartup(t *testing.T, input []byte, hangUp bool) (*Startup, error, []byte) {
	t.Helper()
	client, server := net.Pipe()
	defer client.Close()
	type result struct {
		st  *Startup
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer server.Close()
		be := pgproto3.NewBackend(server, server)
		st, err := ReadStartup(be, server, nil)
		if err == nil {
			err = be.Flush()
		}
		done <- result{st, err}
	}()
	go func() {
		client.Write(input)
		if hangUp {
			client.Close()
		}
	}()
	client.SetReadDeadline(time.Now().Add(5 * time.Second))
	out, _ := io.ReadAll(client)
	r := <-done
	return r.st, r.err, out
}

func TestReadStartup(t *testing.T) {
	v30 := u32(pgproto3.ProtocolVersion30)
	tests := []struct {
		name       string
		input      []byte
		wantParams map[string]string
		wantCancel *CancelKey
		wantCode   pgerror.Code // "" when the startup succeeds; "io" for an I/O error
		wantOut    []byte       // prefix of what the server writes back
	}{
		{
			name:       "plain v3.0 defaults database to user",
			input:      startupPacket(v30, params("user", "alice")),
			wantParams: map[string]string{"user": "alice", "database": "alice"},
		},
		{
			name:       "SSLRequest answered N then startup",
			input:      append(startupPacket(u32(80877103)), startupPacket(v30, params("user", "bob", "database", "db"))...),
			wantParams: map[string]string{"user": "bob", "database": "db"},
			wantOut:    []byte{'N'},
		},
		{
			name:       "GSSENCRequest then SSLRequest both answered N",
			input:      append(append(startupPacket(u32(80877104)), startupPacket(u32(80877103))...), startupPacket(v30, params("user", "c"))...),
			wantParams: map[string]string{"user": "c", "database": "c"},
			wantOut:    []byte{'N', 'N'},
		},
		{
			name:     "three negotiation packets are refused",
			input:    append(append(startupPacket(u32(80877104)), startupPacket(u32(80877103))...), startupPacket(u32(80877103))...),
			wantCode: pgerror.ProtocolViolation,
		},
		{
			name:       "cancel request",
			input:      startupPacket(u32(80877102), u32(42), u32(7)),
			wantCancel: &CancelKey{ProcessID: 42, SecretKey: u32(7)},
		},
		{
			name:       "protocol 3.2 and _pq_ options negotiated down",
			input:      startupPacket(u32(pgproto3.ProtocolVersion32), params("user", "d", "_pq_.x", "1")),
			wantParams: map[string]string{"user": "d", "database": "d"},
			wantOut:    append([]byte{'v'}, u32(4+4+4+7)...),
		},
		{
			name:       "options -c settings merged",
			input:      startupPacket(v30, params("user", "e", "options", `-c search_path=a\ b --statement-timeout=5s -cDateStyle=ISO`)),
			wantParams: map[string]string{"user": "e", "database": "e", "search_path": "a b", "statement_timeout": "5s", "DateStyle": "ISO"},
		},
		{
			name:     "options with a bad switch",
			input:    startupPacket(v30, params("user", "e", "options", "-X")),
			wantCode: pgerror.ProtocolViolation,
		},
		{
			name:     "missing user",
			input:    startupPacket(v30, params("database", "x")),
			wantCode: pgerror.InvalidAuthorizationSpecification,
		},
		{
			name:     "protocol 2.0 unsupported",
			input:    startupPacket(u32(2<<16), params("user", "x")),
			wantCode: pgerror.FeatureNotSupported,
		},
		{
			name:     "length below minimum",
			input:    []byte{0, 0, 0, 5, 1},
			wantCode: pgerror.ProtocolViolation,
		},
		{
			name:     "huge length claim",
			input:    []byte{0x7f, 0xff, 0xff, 0xff, 0, 3, 0, 0},
			wantCode: pgerror.ProtocolViolation,
		},
		{
			name:     "truncated packet",
			input:    startupPacket(v30, params("user", "x"))[:10],
			wantCode: "io",
		},
		{
			name:     "unterminated parameters",
			input:    startupPacket(v30, []byte("user\x00x")),
			wantCode: pgerror.ProtocolViolation,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err, out := runStartup(t, tt.input, tt.wantCode == "io")
			switch {
			case tt.wantCode == "io":
				if !IsIOError(err) {
					t.Fatalf("err = %v, want an I/O error", err)
				}
				return
			case tt.wantCode != "":
				var pe *pgerror.Error
				if !errors.As(err, &pe) || pe.Code != tt.wantCode || pe.Severity != "FATAL" {
					t.Fatalf("err = %#v, want FATAL %s", err, tt.wantCode)
				}
				return
			case err != nil:
				t.Fatalf("ReadStartup: %v", err)
			}
			if tt.wantCancel != nil {
				if !reflect.DeepEqual(st.Cancel, tt.wantCancel) {
					t.Fatalf("cancel = %+v, want %+v", st.Cancel, tt.wantCancel)
				}
			} else if !reflect.DeepEqual(st.Params, tt.wantParams) {
				t.Fatalf("params = %v, want %v", st.Params, tt.wantParams)
			}
			if len(out) < len(tt.wantOut) || string(out[:len(tt.wantOut)]) != string(tt.wantOut) {
				t.Fatalf("server wrote %q, want prefix %q", out, tt.wantOut)
			}
		})
	}
}
