package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// fuzzMaxBody is the message limit the fuzz targets run with.
const fuzzMaxBody = 1 << 16

// FuzzBackendReceive feeds arbitrary bytes to a backend as a stream of typed
// messages. Every message either decodes or is classified by ReceiveError
// as an I/O error, a FATAL error (stream unusable) or an ERROR (frame
// intact); decoding never panics and never reads past a FATAL frame.
func FuzzBackendReceive(f *testing.F) {
	seeds := [][]byte{
		[]byte("Q\x00\x00\x00\x0dSELECT 1\x00"),
		[]byte("P\x00\x00\x00\x08\x00\x00\x00\x00S\x00\x00\x00\x04"),
		[]byte("B\x00\x00\x00\x0e\x00\x00\x00\x00\x00\x01\x00\x00\x00\x01"),
		[]byte("B\x00\x00\x00\x12\x00\x00\x00\x00\x00\x01\x00\x7f\xff\xff\xff\x00\x00"),
		[]byte("E\x00\x00\x00\x09\x00\x00\x00\x00\x05"),
		[]byte("D\x00\x00\x00\x06S\x00C\x00\x00\x00\x06P\x00"),
		[]byte("d\x00\x00\x00\x07abcc\x00\x00\x00\x04f\x00\x00\x00\x05\x00"),
		[]byte("Z\x00\x00\x00\x04"),
		[]byte("Q\x7f\xff\xff\xff"),
		[]byte("Q\x00\x00\x00\x02"),
		[]byte("X\x00\x00\x00\x04"),
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		be := pgproto3.NewBackend(bytes.NewReader(data), io.Discard)
		be.SetMaxBodyLen(fuzzMaxBody)
		for range 64 {
			_, err := be.Receive()
			if err == nil {
				continue
			}
			err = ReceiveError(err)
			var pe *pgerror.Error
			if errors.As(err, &pe) {
				if pe.Code != pgerror.ProtocolViolation {
					t.Fatalf("malformed input classified as %s", pe.Code)
				}
				if pe.Severity == "FATAL" {
					return
				}
				continue
			}
			if !IsIOError(err) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
	})
}

// FuzzReadStartup feeds arbitrary bytes to the startup phase: it returns a
// startup, a cancel key, an I/O error or a FATAL error, and never panics.
func FuzzReadStartup(f *testing.F) {
	f.Add(startupPacket(u32(pgproto3.ProtocolVersion30), params("user", "a", "options", "-c x=1")))
	f.Add(append(startupPacket(u32(80877103)), startupPacket(u32(pgproto3.ProtocolVersion30), params("user", "b"))...))
	f.Add(startupPacket(u32(80877102), u32(1), u32(2)))
	f.Add(startupPacket(u32(pgproto3.ProtocolVersion32), params("user", "c", "_pq_.y", "z")))
	f.Add([]byte{0, 0, 0, 8, 0, 3, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		be := pgproto3.NewBackend(bytes.NewReader(data), io.Discard)
		st, err := ReadStartup(be, io.Discard, nil)
		if err != nil {
			var pe *pgerror.Error
			if !errors.As(err, &pe) && !IsIOError(err) {
				t.Fatalf("unclassified error %v", err)
			}
			if pe != nil && pe.Severity != "FATAL" {
				t.Fatalf("startup error %v is not FATAL", pe)
			}
			return
		}
		if st.Cancel == nil && st.Params["user"] == "" {
			t.Fatalf("startup without a user: %v", st.Params)
		}
	})
}

// FuzzDecodeBinary decodes arbitrary bytes as every supported type: a
// value that decodes re-encodes to bytes that decode to the same value.
func FuzzDecodeBinary(f *testing.F) {
	oids := []uint32{pgtype.BoolOID, pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.Float4OID,
		pgtype.Float8OID, pgtype.TextOID, pgtype.ByteaOID, pgtype.UUIDOID, pgtype.JSONBOID, pgtype.DateOID,
		pgtype.TimestampOID, pgtype.TimestamptzOID, pgtype.IntervalOID, pgtype.NumericOID, pgtype.Int4ArrayOID,
		pgtype.TextArrayOID, pgtype.NumericArrayOID}
	for _, c := range codecCases(f) {
		enc, err := AppendBinary(nil, c.oid, c.datum)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(0), enc)
	}
	f.Add(uint8(14), []byte{0, 2, 0, 0, 0, 0, 0, 4, 0, 1, 0, 2})
	f.Add(uint8(14), []byte{0, 1, 0x7f, 0xff, 0x40, 0, 0x3b, 0x9b, 0x28, 0xb1})
	f.Add(uint8(6), []byte("a\xffb"))
	f.Add(uint8(6), []byte("nul\x00"))
	f.Add(uint8(10), []byte{0x7f, 0xff, 0xff, 0xff})
	f.Add(uint8(11), []byte{0x80, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		oid := oids[int(which)%len(oids)]
		v, err := DecodeBinary(oid, data)
		if err != nil {
			if c := pgerror.GetCode(err); c == pgerror.InternalError {
				t.Fatalf("decode of %x as %d: internal error %v", data, oid, err)
			}
			return
		}
		if bad := invalidTextIn(v); bad != "" {
			t.Fatalf("decode of %x as %d: text %q with NUL or invalid UTF-8 was accepted", data, oid, bad)
		}
		enc, err := AppendBinary(nil, oid, v)
		if err != nil {
			t.Fatalf("re-encode of %#v as %d: %v", v, oid, err)
		}
		again, err := DecodeBinary(oid, enc)
		if err != nil || !datumEqual(again, v) {
			t.Fatalf("re-decode of %#v as %d: %#v, %v", v, oid, again, err)
		}
	})
}

// invalidTextIn returns a string in v, or among its elements, that holds NUL
// or invalid UTF-8, which textrecv refuses; "" when there is none.
func invalidTextIn(v any) string {
	switch v := v.(type) {
	case string:
		if pgerror.CheckUTF8(v) != nil {
			return v
		}
	case []any:
		for _, e := range v {
			if bad := invalidTextIn(e); bad != "" {
				return bad
			}
		}
	}
	return ""
}
