package integration

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// TestPgxCopyFromLoadsEveryTypeInBinary loads a row of every supported type
// and a row of NULLs with pgx's CopyFrom (COPY ... FROM STDIN WITH (FORMAT
// binary)), as Go test suites load fixtures, and reads them back.
func TestPgxCopyFromLoadsEveryTypeInBinary(t *testing.T) {
	srv := startFickle(t)
	conn := connectPgx(t, srv.DSN(), pgx.QueryExecModeCacheStatement)
	ctx := testCtx(t)
	cases := typeCases()
	defs, names := []string{"id integer PRIMARY KEY"}, []string{"id"}
	values, nulls := []any{int32(1)}, []any{int32(2)}
	for _, c := range cases {
		defs = append(defs, c.column+" "+c.sqlType)
		names = append(names, c.column)
		values = append(values, c.value)
		nulls = append(nulls, nil)
	}
	mustExec(t, conn, "CREATE TABLE fixtures ("+strings.Join(defs, ", ")+")")
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"fixtures"}, names, pgx.CopyFromRows([][]any{values, nulls}))
	if err != nil || n != 2 {
		t.Fatalf("CopyFrom: %d rows, %v", n, err)
	}
	for _, c := range cases {
		dst := c.scan()
		if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT %s FROM fixtures WHERE id = 1", c.column)).Scan(dst); err != nil {
			t.Errorf("%s: scan: %v", c.sqlType, err)
			continue
		}
		got := reflect.ValueOf(dst).Elem().Interface()
		eq := c.equal
		if eq == nil {
			eq = func(a, b any) bool { return reflect.DeepEqual(a, b) }
		}
		if !eq(got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.sqlType, got, c.want)
		}
		var null any = "not null"
		if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT %s FROM fixtures WHERE id = 2", c.column)).Scan(&null); err != nil || null != nil {
			t.Errorf("%s: NULL came back as %#v (%v)", c.sqlType, null, err)
		}
	}
}

// TestPgxCopyFromStreamsManyRowsAndFillsDefaults copies more rows than fit
// in one CopyData message into a table whose unlisted columns have defaults.
func TestPgxCopyFromStreamsManyRowsAndFillsDefaults(t *testing.T) {
	srv := startFickle(t)
	conn := connectPgx(t, srv.DSN(), pgx.QueryExecModeCacheStatement)
	ctx := testCtx(t)
	mustExec(t, conn, "CREATE TABLE many (id serial PRIMARY KEY, k int NOT NULL, note text DEFAULT 'none')")
	const rows = 5000
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"many"}, []string{"k"}, pgx.CopyFromSlice(rows, func(i int) ([]any, error) {
		return []any{int32(i)}, nil
	}))
	if err != nil || n != rows {
		t.Fatalf("CopyFrom: %d rows, %v", n, err)
	}
	var count, sum, distinctIDs int64
	var note string
	if err := conn.QueryRow(ctx, "SELECT count(*), sum(k), count(DISTINCT id), min(note) FROM many").Scan(&count, &sum, &distinctIDs, &note); err != nil {
		t.Fatal(err)
	}
	if count != rows || sum != rows*(rows-1)/2 || distinctIDs != rows || note != "none" {
		t.Errorf("count %d, sum %d, ids %d, note %q", count, sum, distinctIDs, note)
	}
}

// TestCopyBinaryAnnouncesBinaryFormat: CopyInResponse and CopyOutResponse
// say overall format 1 and format 1 for every column, as PostgreSQL's do.
func TestCopyBinaryAnnouncesBinaryFormat(t *testing.T) {
	srv := startFickle(t)
	ctx := testCtx(t)
	pc, err := pgconn.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(context.Background())
	if err := pc.Exec(ctx, "CREATE TABLE fmt (a int, b text)").Close(); err != nil {
		t.Fatal(err)
	}
	fe := pc.Frontend()
	for _, sql := range []string{"COPY fmt TO STDOUT (FORMAT binary)", "COPY fmt FROM STDIN (FORMAT binary)"} {
		fe.Send(&pgproto3.Query{String: sql})
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		for done := false; !done; {
			msg, err := fe.Receive()
			if err != nil {
				t.Fatal(err)
			}
			switch m := msg.(type) {
			case *pgproto3.CopyOutResponse:
				checkBinaryFormats(t, sql, m.OverallFormat, m.ColumnFormatCodes)
			case *pgproto3.CopyInResponse:
				checkBinaryFormats(t, sql, m.OverallFormat, m.ColumnFormatCodes)
				fe.Send(&pgproto3.CopyData{Data: []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff")})
				fe.Send(&pgproto3.CopyDone{})
				if err := fe.Flush(); err != nil {
					t.Fatal(err)
				}
			case *pgproto3.ErrorResponse:
				t.Errorf("%s: %s", sql, m.Message)
			case *pgproto3.ReadyForQuery:
				done = true
			}
		}
	}
}

func checkBinaryFormats(t *testing.T, sql string, overall byte, columns []uint16) {
	t.Helper()
	if overall != 1 || !reflect.DeepEqual(columns, []uint16{1, 1}) {
		t.Errorf("%s: overall format %d, column formats %v; want 1, [1 1]", sql, overall, columns)
	}
}

// binaryCopyTable has a column of every type fickle supports and rows with
// edge values and NULLs, for comparing COPY TO (FORMAT binary) with
// PostgreSQL's output.
const binaryCopyTable = `CREATE TABLE every (id int, c_bool boolean, c_int2 smallint, c_int4 int, c_int8 bigint,
	c_f4 real, c_f8 float8, c_num numeric(20,4), c_num_any numeric, c_text text, c_vc varchar(10), c_ch char(5),
	c_bytea bytea, c_date date, c_ts timestamp, c_tstz timestamptz, c_iv interval, c_uuid uuid, c_json json,
	c_jsonb jsonb, c_name name, c_qc "char", c_oid oid);
INSERT INTO every VALUES
	(1, true, -32768, 2147483647, -9223372036854775808, 1.5e-7, 3.141592653589793, -123456.7891, 0.000,
	 'héllo, ''w''', 'short', 'ab', '\x0001feff', '2024-02-29', '2024-02-29 12:34:56.789012',
	 '2024-02-29 12:34:56.789012+02', '1 year 2 mons 3 days 01:02:03.000004', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
	 '{"b": 1,  "a": [true, null]}', '{"b": 1, "a": [true, null, 1.50]}', 'nm', 'x', 42),
	(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	 NULL, NULL, NULL, NULL),
	(3, false, 1, -1, 0, 'NaN', '-Infinity', 'NaN', 'Infinity', '', '', '', '', '0001-01-01', '1999-12-31 23:59:59',
	 '1970-01-01 00:00:00+00', '-1 days', '00000000-0000-0000-0000-000000000000', '[]', '{}', '', 'ä', 0),
	(4, true, 32767, -2147483648, 9223372036854775807, '-Infinity', 1e-300, 0.0001, -0.5, repeat('x', 70000), 'tén',
	 'abcde', '\x', '2000-01-01', '2000-01-01 00:00:00', '2100-12-31 23:59:59.999999-08', '-178000000 years',
	 'ffffffff-ffff-ffff-ffff-ffffffffffff', '"x"', '[1, "a", {"k": null}]', repeat('n', 63), '', 4294967295)`

// binaryCopyArrays has array columns, NULL elements and empty arrays.
const binaryCopyArrays = `CREATE TABLE every (a int4[], b text[], c numeric[], d varchar(2)[], e bool[], f timestamptz[]);
INSERT INTO every VALUES ('{1,NULL,3}', '{"x y","",NULL}', '{1.50,NaN,-0.001}', '{ab,c}', '{t,f}',
	'{"2024-02-29 12:34:56.5+00"}'), ('{}', NULL, '{}', '{}', '{}', '{}'), (NULL, '{é}', '{0}', NULL, '{NULL}', NULL)`

// TestCopyToBinaryMatchesPostgresByteForByte copies the same tables out of
// fickle and PostgreSQL 15 in binary format and compares the streams.
func TestCopyToBinaryMatchesPostgresByteForByte(t *testing.T) {
	port := startPostgres(t)
	srv := startFickle(t)
	for name, setup := range map[string]string{"scalars": binaryCopyTable, "arrays": binaryCopyArrays} {
		t.Run(name, func(t *testing.T) {
			pgDSN := strings.Replace(postgresDSN(port), "/postgres?", "/"+freshPostgresDB(t, port)+"?", 1)
			ctx := testCtx(t)
			var streams [2][]byte
			for i, dsn := range []string{srv.DSN(), pgDSN} {
				pc, err := pgconn.Connect(ctx, dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer pc.Close(context.Background())
				if _, err := pc.Exec(ctx, "DROP TABLE IF EXISTS every; "+setup).ReadAll(); err != nil {
					t.Fatalf("%s: %v", dsn, err)
				}
				var out bytes.Buffer
				if _, err := pc.CopyTo(ctx, &out, "COPY every TO STDOUT (FORMAT binary)"); err != nil {
					t.Fatalf("%s: CopyTo: %v", dsn, err)
				}
				streams[i] = out.Bytes()
			}
			if !bytes.Equal(streams[0], streams[1]) {
				at := 0
				for at < len(streams[0]) && at < len(streams[1]) && streams[0][at] == streams[1][at] {
					at++
				}
				t.Errorf("fickle's stream (%d bytes) differs from PostgreSQL's (%d bytes) at byte %d:\nfickle   %x\npostgres %x",
					len(streams[0]), len(streams[1]), at, window(streams[0], at), window(streams[1], at))
			}
		})
	}
}

func window(b []byte, at int) []byte {
	return b[max(0, at-16):min(len(b), at+16)]
}

// TestCopyFromBinaryErrorsMatchPostgres sends the same malformed binary
// streams to fickle and PostgreSQL 15 and compares SQLSTATE, message and
// the COPY context line (CONTEXT).
func TestCopyFromBinaryErrorsMatchPostgres(t *testing.T) {
	port := startPostgres(t)
	pgDSN := strings.Replace(postgresDSN(port), "/postgres?", "/"+freshPostgresDB(t, port)+"?", 1)
	srv := startFickle(t)
	ctx := testCtx(t)
	header := []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	stream := func(parts ...any) []byte {
		out := append([]byte(nil), header...)
		for _, p := range parts {
			switch v := p.(type) {
			case int16:
				out = binary.BigEndian.AppendUint16(out, uint16(v))
			case int32:
				out = binary.BigEndian.AppendUint32(out, uint32(v))
			case string:
				out = append(out, v...)
			}
		}
		return out
	}
	inputs := []copyErrorInput{
		{"bad signature", "", []byte("PGCOPX\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")},
		{"missing flags", "", []byte("PGCOPY\n\xff\r\n\x00\x00")},
		{"critical flag", "", []byte("PGCOPY\n\xff\r\n\x00\x00\x04\x00\x00\x00\x00\x00\x00")},
		{"field count", "", stream(int16(1), int32(4), int32(7))},
		{"short tuple", "", stream(int16(2), int32(4), int32(7), int32(4), "ab")},
		{"invalid field size", "", stream(int16(2), int32(4), int32(7), int32(-5))},
		{"int4 too long", "", stream(int16(2), int32(5), int32(7), "x", int32(-1))},
		{"int4 too short", "", stream(int16(2), int32(2), "ab", int32(-1))},
		{"varchar too long", "", stream(int16(2), int32(4), int32(7), int32(4), "abcd")},
		{"data after trailer", "", stream(int16(2), int32(4), int32(7), int32(-1), int16(-1), "x")},
		{"error on second row", "", stream(int16(2), int32(4), int32(7), int32(-1), int16(2), int32(-1), int32(5), "abcde")},
	}
	compareCopyErrors(t, ctx, [2]string{srv.DSN(), pgDSN}, "CREATE TABLE target (a int, b varchar(3))", "COPY target FROM STDIN (FORMAT binary)", inputs)
}

// TestCopyFromTextErrorsMatchPostgres sends the same text and CSV COPY
// data with a bad line to fickle and PostgreSQL 15 and compares SQLSTATE,
// message and the CONTEXT line that tells a user which line and column
// failed (and, for a violated constraint, the line's text).
func TestCopyFromTextErrorsMatchPostgres(t *testing.T) {
	port := startPostgres(t)
	pgDSN := strings.Replace(postgresDSN(port), "/postgres?", "/"+freshPostgresDB(t, port)+"?", 1)
	srv := startFickle(t)
	ctx := testCtx(t)
	inputs := []copyErrorInput{
		{"bad integer", "", []byte("1\tx\n2\ty\nabc\tz\n")},
		{"missing column", "", []byte("1\tx\n2\n")},
		{"extra column", "", []byte("1\tx\n2\ty\tz\n")},
		{"not null", "", []byte("1\tx\n\\N\ty\n")},
		{"check", "", []byte("1\tx\n5\ty\n")},
		{"unique", "", []byte("1\tx\n1\ty\n")},
		{"long value", "", []byte("1\t" + strings.Repeat("é", 80) + "\n")},
		{"csv header and quoted line break", "(FORMAT csv, HEADER)", []byte("a,b\n1,\"x\ny\"\nq,z\n")},
		{"csv unterminated", "(FORMAT csv)", []byte("1,x\n2,\"y\n")},
		{"csv unterminated without line break", "(FORMAT csv)", []byte("1,x\n2,\"y")},
	}
	compareCopyErrors(t, ctx, [2]string{srv.DSN(), pgDSN}, "CREATE TABLE tc (a int NOT NULL UNIQUE CHECK (a < 3), b varchar(10))", "COPY tc FROM STDIN", inputs)
}

// copyErrorInput is COPY data that fails: its name, the COPY's options and
// the data.
type copyErrorInput struct {
	name, options string
	data          []byte
}

// compareCopyErrors runs setup, then copyStmt with each input's options and
// data, on fickle and on PostgreSQL (dsns), and fails the test where the
// two fail differently: SQLSTATE, message or CONTEXT.
func compareCopyErrors(t *testing.T, ctx context.Context, dsns [2]string, setup, copyStmt string, inputs []copyErrorInput) {
	t.Helper()
	type outcome struct{ code, message, where string }
	var results [2][]outcome
	for i, dsn := range dsns {
		pc, err := pgconn.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer pc.Close(context.Background())
		if _, err := pc.Exec(ctx, setup).ReadAll(); err != nil {
			t.Fatal(err)
		}
		for _, in := range inputs {
			_, err := pc.CopyFrom(ctx, bytes.NewReader(in.data), strings.TrimSpace(copyStmt+" "+in.options))
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				t.Fatalf("%s: %s: got %v, want an error", dsn, in.name, err)
			}
			results[i] = append(results[i], outcome{pe.Code, pe.Message, pe.Where})
		}
	}
	for j, in := range inputs {
		if got, want := results[0][j], results[1][j]; got != want {
			t.Errorf("%s: fickle %+v, PostgreSQL %+v", in.name, got, want)
		}
	}
}
