package wire

import (
	"bytes"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/internal/pgerror"
)

func TestReceiveErrorClassifiesFrames(t *testing.T) {
	tests := []struct {
		name     string
		input    []byte
		wantCode pgerror.Code // "" for an I/O error
		fatal    bool
	}{
		{name: "unknown type", input: []byte{'z', 0, 0, 0, 4}, wantCode: pgerror.ProtocolViolation, fatal: true},
		{name: "short length", input: []byte{'Q', 0, 0, 0, 3}, wantCode: pgerror.ProtocolViolation, fatal: true},
		{name: "over the limit", input: []byte{'Q', 0, 1, 0, 0}, wantCode: pgerror.ProtocolViolation, fatal: true},
		{name: "parse body ends early", input: []byte{'P', 0, 0, 0, 7, 'a', 'b', 'c'}, wantCode: pgerror.ProtocolViolation},
		{name: "bind body ends early", input: []byte{'B', 0, 0, 0, 6, 0, 0}, wantCode: pgerror.ProtocolViolation},
		{name: "truncated frame", input: []byte{'Q', 0, 0, 0, 9, 'x'}},
		{name: "nothing", input: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			be := pgproto3.NewBackend(bytes.NewReader(tt.input), io.Discard)
			be.SetMaxBodyLen(1000)
			_, err := be.Receive()
			if err == nil {
				t.Fatal("Receive succeeded")
			}
			err = ReceiveError(err)
			if tt.wantCode == "" {
				if !IsIOError(err) {
					t.Fatalf("err = %v, want an I/O error", err)
				}
				return
			}
			pe, ok := err.(*pgerror.Error)
			if !ok || pe.Code != tt.wantCode || (pe.Severity == "FATAL") != tt.fatal {
				t.Fatalf("err = %#v, want %s fatal=%v", err, tt.wantCode, tt.fatal)
			}
		})
	}
}
