package server

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// TestRecordBinaryOutput holds the bytes PostgreSQL 15's record_send gave
// for anonymous records (nested, with arrays and NULLs), a composite type
// and an array of it, and checks fickle sends the same (pgx asks for
// records and composites in binary); a PostgreSQL at FICKLE_PGTEST_ADDR is
// checked against them too.
func TestRecordBinaryOutput(t *testing.T) {
	// {pair} and {posint} stand for the OIDs of the composite type and the
	// domain, which differ between servers: a field declared with a
	// domain is sent with the domain's OID.
	cases := []struct{ sql, hex string }{
		{"SELECT row('foo'::text, 42::int4)", "000000020000001900000003666f6f00000017000000040000002a"},
		{"SELECT row(1, array[1, null]::int4[], null::text)",
			"00000003000000170000000400000001000003ef0000002000000001000000010000001700000002000000010000000400000001ffffffff00000019ffffffff"},
		{"SELECT row(row(1, 'a'::text), 2.5::float8)",
			"00000002000008c90000001900000002000000170000000400000001000000190000000161000002bd000000084004000000000000"},
		{"SELECT row()", "00000000"},
		{"SELECT (1, 'x')::pair", "00000002000000170000000400000001000000190000000178"},
		{"SELECT array[(1, 'x')::pair, null]",
			"0000000100000001{pair}00000002000000010000001900000002000000170000000400000001000000190000000178ffffffff"},
		{"SELECT row(5)::dpair", "00000001{posint}0000000400000005"},
	}
	for name, dsn := range fickleAndPostgres(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := pgconn.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			if _, err := c.Exec(ctx, "BEGIN; CREATE TYPE pair AS (n int4, s text); CREATE DOMAIN posint AS int4 CHECK (VALUE > 0); CREATE TYPE dpair AS (d posint)").ReadAll(); err != nil {
				t.Fatal(err)
			}
			defer func() { _, _ = c.Exec(ctx, "ROLLBACK").ReadAll() }()
			oid := c.ExecParams(ctx, "SELECT 'pair'::regtype::oid, 'posint'::regtype::oid", nil, nil, nil, []int16{1}).Read()
			if oid.Err != nil {
				t.Fatal(oid.Err)
			}
			for _, tc := range cases {
				res := c.ExecParams(ctx, tc.sql, nil, nil, nil, []int16{1}).Read()
				if res.Err != nil {
					t.Fatalf("%s: %v", tc.sql, res.Err)
				}
				want := strings.NewReplacer("{pair}", hex.EncodeToString(oid.Rows[0][0]), "{posint}", hex.EncodeToString(oid.Rows[0][1])).Replace(tc.hex)
				if got := hex.EncodeToString(res.Rows[0][0]); got != want {
					t.Errorf("%s:\n got %s\nwant %s", tc.sql, got, want)
				}
			}
		})
	}
}

// TestBinaryOutputRefusedIsNotSupported pins that a result column asked
// for in binary whose binary form fickle does not write (int2vector) is
// refused with 0A000 at Bind, not with 42883, which PostgreSQL gives only
// for the types it has no send function for.
func TestBinaryOutputRefusedIsNotSupported(t *testing.T) {
	srv := startSQLServer(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgconn.Connect(ctx, fmt.Sprintf("postgres://tester@%s/fickle?sslmode=disable", srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	res := c.ExecParams(ctx, "SELECT '1 2'::int2vector", nil, nil, nil, []int16{1}).Read()
	if got := fmt.Sprint(res.Err); got != "ERROR: binary output of type int2vector is not supported by fickle (SQLSTATE 0A000)" {
		t.Fatalf("got %s", got)
	}
}

// recvTestComposite registers, once, a composite type like PostgreSQL's
// "CREATE TYPE bf_c AS (a int4, b text, c varchar(2), d numeric(4,1))"
// under an OID no catalog gives, for the record_recv tests.
var recvTestComposite = sync.OnceValue(func() types.Type {
	const oid, array = 0x7ff00001, 0x7ff00002
	types.RegisterComposite(oid, array, "bf_c", []types.Field{
		{Name: "a", Type: types.Int4},
		{Name: "b", Type: types.Text},
		{Name: "c", Type: types.Type{Oid: types.OidVarchar, Typmod: 2 + 4}},
		{Name: "d", Type: types.Type{Oid: types.OidNumeric, Typmod: 4<<16 | 1 + 4}},
	})
	return types.Type{Oid: oid, Typmod: -1}
})

// TestRecordRecvMatchesPostgres pins what PostgreSQL 15's record_recv made
// of binary values of bf_c: the value's text, or the error, field types
// checked only where both OIDs are built-in, typmods applied as in
// assignment.
func TestRecordRecvMatchesPostgres(t *testing.T) {
	rec := recvTestComposite()
	const i4, tx, vc, nm = "00000017", "00000019", "00000413", "000006a4"
	const head = "00000004" + i4 + "0000000400000001" + tx + "0000000161"
	ok := []struct{ hex, text string }{
		{head + vc + "0000000162" + nm + "ffffffff", "(1,a,b,)"},
		{head + vc + "00000003612020" + nm + "ffffffff", `(1,a,"a ",)`},
		{head + vc + "0000000162" + nm + "0000000c000200000000000100011388", "(1,a,b,1.5)"},
		{head + vc + "0000000162" + nm + "0000000c000200000000000200011389", "(1,a,b,1.5)"},
		{"00000004000061a80000000400000001" + tx + "ffffffff" + vc + "ffffffff" + nm + "ffffffff", "(1,,,)"},
	}
	for _, c := range ok {
		b, _ := hex.DecodeString(c.hex)
		v, err := decodeBinaryValue(uint32(rec.Oid), b)
		if err != nil || types.FormatText(rec, v, nil) != c.text {
			t.Errorf("%s: received %v, %v; want %s", c.hex, v, err, c.text)
		}
	}
	nulls := tx + "ffffffff" + vc + "ffffffff" + nm + "ffffffff"
	bad := []struct {
		hex     string
		code    pgerror.Code
		message string
	}{
		{head + vc + "00000003616263" + nm + "ffffffff", pgerror.StringDataRightTruncation, "value too long for type character varying(2)"},
		{head + vc + "0000000162" + nm + "0000000c000200010000000100011388", pgerror.NumericValueOutOfRange, "numeric field overflow"},
		{"00000003" + i4 + "00000004000000010000001900000002" + vc + "00000001", pgerror.DatatypeMismatch, "wrong number of columns: 3, expected 4"},
		{"ffffffff", pgerror.DatatypeMismatch, "wrong number of columns: -1, expected 4"},
		{"00000004" + tx + "0000000400000001", pgerror.DatatypeMismatch, "binary data has type 25 (text) instead of expected 23 (integer) in record column 1"},
		{"00000004000004120000000400000001", pgerror.DatatypeMismatch, "binary data has type 1042 (character) instead of expected 23 (integer) in record column 1"},
		{"00000004" + i4 + "000000050000000100" + nulls, pgerror.InvalidBinaryRepresentation, "improper binary format in record column 1"},
		{"00000004" + i4 + "0000000900000001" + nulls, pgerror.InvalidBinaryRepresentation, "improper binary format in record column 1"},
		{"00000004" + i4 + "0000000400000001" + nulls + "00", pgerror.InvalidBinaryRepresentation, "incorrect binary data format in bind parameter 1"},
		{"00000004" + i4 + "fffffffe", pgerror.InvalidBinaryRepresentation, "insufficient data left in message"},
		{"00000004" + i4, pgerror.ProtocolViolation, "insufficient data left in message"},
		{"000000", pgerror.ProtocolViolation, "insufficient data left in message"},
	}
	for _, c := range bad {
		checkBindError(t, uint32(rec.Oid), c.hex, c.code, c.message)
	}
	checkBindError(t, uint32(types.OidRecord), "00000000", pgerror.FeatureNotSupported, "input of anonymous composite types is not implemented")
}

// TestCompositeParamChecksFieldDomains pins that a composite parameter
// whose field is declared with a domain has the domain's constraints
// checked, in binary (record_recv, the field sent with the domain's OID)
// and in text (record_in), inside arrays and nested composites too, on
// fickle as on PostgreSQL.
func TestCompositeParamChecksFieldDomains(t *testing.T) {
	for name, dsn := range fickleAndPostgres(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := pgconn.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			if _, err := c.Exec(ctx, "BEGIN; CREATE DOMAIN posint AS int4 CHECK (VALUE > 0); CREATE TYPE dpair AS (d posint); CREATE TYPE dnest AS (p dpair)").ReadAll(); err != nil {
				t.Fatal(err)
			}
			defer func() { _, _ = c.Exec(ctx, "ROLLBACK").ReadAll() }()
			oids := c.ExecParams(ctx, "SELECT 'posint'::regtype::oid::text", nil, nil, nil, nil).Read()
			if oids.Err != nil {
				t.Fatal(oids.Err)
			}
			posint, _ := strconv.Atoi(string(oids.Rows[0][0]))
			record := func(v int32) []byte {
				return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 1), uint32(posint)), 4), uint32(v))
			}
			const violates = `ERROR: value for domain posint violates check constraint "posint_check" (SQLSTATE 23514)`
			cases := []struct {
				sql    string
				value  []byte
				format int16
				want   string
			}{
				{"SELECT $1::dpair::text", record(5), 1, "(5)"},
				{"SELECT $1::dpair::text", record(-1), 1, violates},
				{"SELECT $1::dpair::text", []byte("(5)"), 0, "(5)"},
				{"SELECT $1::dpair::text", []byte("(-1)"), 0, violates},
				{"SELECT $1::dpair[]::text", []byte(`{"(5)",NULL}`), 0, `{(5),NULL}`},
				{"SELECT $1::dpair[]::text", []byte(`{"(5)","(-1)"}`), 0, violates},
				{"SELECT $1::dnest::text", []byte(`("(-1)")`), 0, violates},
				{"SELECT $1::dnest::text", []byte(`("(2)")`), 0, `("(2)")`},
			}
			for _, tc := range cases {
				if _, err := c.Exec(ctx, "SAVEPOINT s").ReadAll(); err != nil {
					t.Fatal(err)
				}
				res := c.ExecParams(ctx, tc.sql, [][]byte{tc.value}, nil, []int16{tc.format}, nil).Read()
				got := fmt.Sprint(res.Err)
				if res.Err == nil {
					got = string(res.Rows[0][0])
				}
				if got != tc.want {
					t.Errorf("%s with %x (format %d): got %s, want %s", tc.sql, tc.value, tc.format, got, tc.want)
				}
				if _, err := c.Exec(ctx, "ROLLBACK TO s").ReadAll(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// FuzzRecordBinary decodes arbitrary bytes as a binary bf_c or bf_c[]
// parameter: whatever decodes encodes back to bytes that decode to the
// same text.
func FuzzRecordBinary(f *testing.F) {
	for _, s := range []string{
		"000000040000001700000004000000010000001900000001610000041300000001620000006a40000000c000200000000000100011388",
		"00000004000061a80000000400000001ffffffff00000019ffffffff00000413ffffffff000006a4ffffffff",
		"0000000100000000000040060000000100000001ffffffff",
	} {
		b, _ := hex.DecodeString(s)
		f.Add(false, b)
		f.Add(true, b)
	}
	f.Fuzz(func(t *testing.T, array bool, data []byte) {
		rec := recvTestComposite()
		typ := rec
		if array {
			typ, _ = types.ArrayOf(rec)
		}
		v, err := decodeTypedBinary(typ, data)
		if err != nil {
			return
		}
		text := types.FormatText(typ, v, nil)
		b, err := appendTypedBinary(nil, typ, v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodeTypedBinary(typ, b)
		if err != nil || types.FormatText(typ, back, nil) != text {
			t.Fatalf("%x re-encodes as %x, which decodes to %v, %v; want %s", data, b, back, err, text)
		}
	})
}
