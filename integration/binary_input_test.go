package integration

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// binaryArray builds array_send's layout from its header fields and the
// elements' encodings (nil for NULL), so that a case can state exactly the
// header a client sends, whatever it claims.
func binaryArray(ndim, flags int32, elem uint32, dims [][2]int32, elems ...[]byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(ndim))
	b = binary.BigEndian.AppendUint32(b, uint32(flags))
	b = binary.BigEndian.AppendUint32(b, elem)
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, uint32(d[0]))
		b = binary.BigEndian.AppendUint32(b, uint32(d[1]))
	}
	for _, e := range elems {
		if e == nil {
			b = binary.BigEndian.AppendUint32(b, 0xffffffff)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
		b = append(b, e...)
	}
	return b
}

func int4Bytes(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

// binaryInputCase is one binary parameter and what PostgreSQL 15 answers to
// it: the text of the result, or an error's SQLSTATE and message, which
// fickle must give too.
type binaryInputCase struct {
	name    string
	sql     string
	oid     uint32
	value   []byte
	result  string
	code    string
	message string
}

var binaryInputCases = []binaryInputCase{
	{name: "text with invalid UTF-8", sql: "SELECT $1::text", oid: pgtype.TextOID, value: []byte("a\xffb"),
		code: "22021", message: `invalid byte sequence for encoding "UTF8": 0xff`},
	{name: "text with NUL", sql: "SELECT $1::text", oid: pgtype.TextOID, value: []byte("a\x00b"),
		code: "22021", message: `invalid byte sequence for encoding "UTF8": 0x00`},
	{name: "varchar with a bad three-byte character", sql: "SELECT $1::varchar", oid: pgtype.VarcharOID, value: []byte("x\xe2\x28\xa1"),
		code: "22021", message: `invalid byte sequence for encoding "UTF8": 0xe2 0x28 0xa1`},
	{name: "json with a truncated character", sql: "SELECT $1::json", oid: pgtype.JSONOID, value: []byte("\"\xe2\x82"),
		code: "22021", message: `invalid byte sequence for encoding "UTF8": 0xe2 0x82`},
	{name: "text array element with invalid UTF-8", sql: "SELECT $1::text[]", oid: pgtype.TextArrayOID,
		value: binaryArray(1, 0, pgtype.TextOID, [][2]int32{{1, 1}}, []byte("\xc3")),
		code:  "22021", message: `invalid byte sequence for encoding "UTF8": 0xc3`},
	{name: "negative number of dimensions", sql: "SELECT $1::int4[]", oid: pgtype.Int4ArrayOID,
		value: binaryArray(-1, 0, pgtype.Int4OID, nil),
		code:  "22P03", message: "invalid number of dimensions: -1"},
	{name: "seven dimensions", sql: "SELECT $1::int4[]", oid: pgtype.Int4ArrayOID,
		value: binaryArray(7, 0, pgtype.Int4OID, nil),
		code:  "54000", message: "number of array dimensions (7) exceeds the maximum allowed (6)"},
	{name: "has-null flag neither 0 nor 1", sql: "SELECT $1::int4[]", oid: pgtype.Int4ArrayOID,
		value: binaryArray(1, 2, pgtype.Int4OID, [][2]int32{{1, 1}}, int4Bytes(1)),
		code:  "22P03", message: "invalid array flags"},
	{name: "wrong element type", sql: "SELECT $1::int4[]", oid: pgtype.Int4ArrayOID,
		value: binaryArray(1, 0, pgtype.TextOID, [][2]int32{{1, 1}}, []byte("1")),
		code:  "42804", message: "binary data has array element type 25 (text) instead of expected 23 (integer)"},
	{name: "negative dimension", sql: "SELECT $1::int4[]", oid: pgtype.Int4ArrayOID,
		value: binaryArray(1, 0, pgtype.Int4OID, [][2]int32{{-1, 1}}),
		code:  "54000", message: "array size exceeds the maximum allowed (134217727)"},
	{name: "element count overflows", sql: "SELECT $1::int4[]", oid: pgtype.Int4ArrayOID,
		value: binaryArray(2, 0, pgtype.Int4OID, [][2]int32{{1 << 16, 1}, {1 << 16, 1}}),
		code:  "54000", message: "array size exceeds the maximum allowed (134217727)"},
	{name: "upper bound overflows", sql: "SELECT $1::int4[]", oid: pgtype.Int4ArrayOID,
		value: binaryArray(1, 0, pgtype.Int4OID, [][2]int32{{2, 0x7fffffff}}, int4Bytes(1), int4Bytes(2)),
		code:  "54000", message: "array lower bound is too large: 2147483647"},
	{name: "more elements claimed than sent", sql: "SELECT $1::int4[]", oid: pgtype.Int4ArrayOID,
		value: binaryArray(1, 0, pgtype.Int4OID, [][2]int32{{3, 1}}, int4Bytes(1)),
		code:  "08P01", message: "insufficient data left in message"},
	{name: "has-null flag set without NULLs is ignored", sql: "SELECT $1::int4[]", oid: pgtype.Int4ArrayOID,
		value:  binaryArray(1, 1, pgtype.Int4OID, [][2]int32{{2, 1}}, int4Bytes(1), int4Bytes(2)),
		result: "{1,2}"},
	{name: "has-null flag clear with a NULL is ignored", sql: "SELECT $1::int4[]", oid: pgtype.Int4ArrayOID,
		value:  binaryArray(1, 0, pgtype.Int4OID, [][2]int32{{2, 1}}, int4Bytes(1), nil),
		result: "{1,NULL}"},
	{name: "empty dimension with any lower bound is the empty array", sql: "SELECT $1::int4[]", oid: pgtype.Int4ArrayOID,
		value:  binaryArray(1, 0, pgtype.Int4OID, [][2]int32{{0, 5}}),
		result: "{}"},
	{name: "lower bound 0 is kept", sql: "SELECT $1::int4[]", oid: pgtype.Int4ArrayOID,
		value:  binaryArray(1, 0, pgtype.Int4OID, [][2]int32{{2, 0}}, int4Bytes(1), int4Bytes(2)),
		result: "[0:1]={1,2}"},
	{name: "lower bound 5 is kept", sql: "SELECT $1::int4[]", oid: pgtype.Int4ArrayOID,
		value:  binaryArray(1, 0, pgtype.Int4OID, [][2]int32{{1, 5}}, int4Bytes(7)),
		result: "[5:5]={7}"},
	{name: "two dimensions with a negative lower bound", sql: "SELECT $1::int4[]", oid: pgtype.Int4ArrayOID,
		value:  binaryArray(2, 0, pgtype.Int4OID, [][2]int32{{2, -1}, {1, 1}}, int4Bytes(7), nil),
		result: "[-1:0][1:1]={{7},{NULL}}"},
}

// runBinaryInput sends c's parameter in binary and returns the result's
// text or the server's error.
func runBinaryInput(ctx context.Context, conn *pgconn.PgConn, c binaryInputCase) (string, *pgconn.PgError, error) {
	res := conn.ExecParams(ctx, c.sql, [][]byte{c.value}, []uint32{c.oid}, []int16{1}, []int16{0}).Read()
	if res.Err != nil {
		var pgErr *pgconn.PgError
		if errors.As(res.Err, &pgErr) {
			return "", pgErr, nil
		}
		return "", nil, res.Err
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		return "", nil, fmt.Errorf("want one value, got %q", res.Rows)
	}
	return string(res.Rows[0][0]), nil, nil
}

// checkBinaryInput runs the cases on one server.
func checkBinaryInput(t *testing.T, dsn string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, c := range binaryInputCases {
		got, pgErr, err := runBinaryInput(ctx, conn, c)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		switch {
		case c.code != "":
			if pgErr == nil || pgErr.Code != c.code || pgErr.Message != c.message {
				t.Errorf("%s: got %q, %v; want %s %q", c.name, got, pgErr, c.code, c.message)
			}
		case pgErr != nil || got != c.result:
			t.Errorf("%s: got %q, %v; want %q", c.name, got, pgErr, c.result)
		}
		if pgErr != nil && strings.HasPrefix(pgErr.Code, "08") {
			// An error leaves the connection usable: the next case runs on it.
			continue
		}
	}
}

// TestBinaryInputRefusedAsPostgreSQLDoes pins PostgreSQL 15's answers to
// binary parameters it refuses (bad text encodings, malformed array
// headers) and checks that fickle gives the same SQLSTATE and message.
func TestBinaryInputRefusedAsPostgreSQLDoes(t *testing.T) {
	t.Run("fickle", func(t *testing.T) {
		checkBinaryInput(t, startFickle(t).DSN())
	})
	t.Run("postgres", func(t *testing.T) {
		checkBinaryInput(t, postgresDSN(startPostgres(t)))
	})
}
