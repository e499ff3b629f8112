package server

import (
	"context"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// TestBitStringBinary holds bit_send's and varbit_send's bytes, as
// PostgreSQL 15 sent them, reads each back to the same text, and refuses
// what bit_recv refuses; pad bits sent set are cleared.
func TestBitStringBinary(t *testing.T) {
	checkBinaryGolden(t, []binaryGolden{
		{types.BitAny, "101", "00000003a0"},
		{types.VarbitAny, "101010111100", "0000000cabc0"},
		{types.BitAny, "", "00000000"},
		{types.VarbitAny, "101010101", "00000009aa80"},
		{types.Type{Oid: 1563, Typmod: -1}, "{101,1111,NULL}", "00000001000000010000061a00000003000000010000000500000003a00000000500000004f0ffffffff"},
	})
	padded, _ := hex.DecodeString("00000003ff")
	if v, err := decodeBinaryValue(uint32(types.OidBit), padded); err != nil || v != (types.BitString{Len: 3, Data: "\xe0"}) {
		t.Errorf("00000003ff: received %#v, %v; want 111", v, err)
	}
	checkBinaryRefused(t, types.OidVarbit, "", "000000", "ffffffff", "00000009aa", "00000003a000")
}

// TestBitStringPgx sends bit and bit varying values as pgx does in each
// mode (binary parameters and results where it asks for them) and reads
// them back.
func TestBitStringPgx(t *testing.T) {
	srv := startSQLServer(t, Config{})
	for _, mode := range execModes {
		t.Run(mode.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			conn := connectPgx(t, srv.DSN("tester", "fickle"), mode)
			table := fmt.Sprintf("bits_%d", int(mode))
			if _, err := conn.Exec(ctx, "CREATE TABLE "+table+" (a bit(4) PRIMARY KEY, b bit varying(12))"); err != nil {
				t.Fatal(err)
			}
			in := pgtype.Bits{Bytes: []byte{0xab, 0xc0}, Len: 12, Valid: true}
			if _, err := conn.Exec(ctx, "INSERT INTO "+table+" VALUES ($1, $2)", pgtype.Bits{Bytes: []byte{0xa0}, Len: 4, Valid: true}, in); err != nil {
				t.Fatal(err)
			}
			var a, b pgtype.Bits
			var text string
			if err := conn.QueryRow(ctx, "SELECT a, b, b::text FROM "+table).Scan(&a, &b, &text); err != nil {
				t.Fatal(err)
			}
			if a.Len != 4 || a.Bytes[0] != 0xa0 || b.Len != 12 || string(b.Bytes) != string(in.Bytes) || text != "101010111100" {
				t.Errorf("read %+v, %+v, %q", a, b, text)
			}
			_, err := conn.Exec(ctx, "INSERT INTO "+table+" VALUES ($1)", pgtype.Bits{Bytes: []byte{0xa0}, Len: 3, Valid: true})
			if pgCode(err) != "22026" {
				t.Errorf("bit(4) given 3 bits: %v", err)
			}
		})
	}
}

// FuzzBitStringBinary decodes arbitrary bytes as binary bit varying and
// bit varying[] parameters: whatever decodes prints as text and encodes
// back to bytes that decode to the same value.
func FuzzBitStringBinary(f *testing.F) {
	for _, s := range []string{"00000003a0", "0000000cabc0", "00000000", "00000001000000010000061a00000003000000010000000500000003a00000000500000004f0ffffffff"} {
		b, _ := hex.DecodeString(s)
		f.Add(false, b)
		f.Add(true, b)
	}
	f.Fuzz(func(t *testing.T, array bool, data []byte) {
		typ := types.VarbitAny
		if array {
			typ = types.Type{Oid: 1563, Typmod: -1}
		}
		v, err := decodeBinaryValue(uint32(typ.Oid), data)
		if err != nil {
			return
		}
		text := types.FormatText(typ, v, nil)
		b, err := appendBinaryValue(nil, uint32(typ.Oid), v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodeBinaryValue(uint32(typ.Oid), b)
		if err != nil || types.FormatText(typ, back, nil) != text {
			t.Fatalf("%x re-encodes as %x, which decodes to %v, %v; want %s", data, b, back, err, text)
		}
	})
}
