package sqlexec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
	"github.com/fickle-db/fickle/wire"
)

// wireCodec is the codec the server hands binary COPY; the tests use the
// same one so that they pin the bytes clients see.
type wireCodec struct{}

func (wireCodec) AppendBinary(buf []byte, oid uint32, v any) ([]byte, error) {
	return wire.AppendBinary(buf, oid, v)
}

func (wireCodec) DecodeBinary(oid uint32, src []byte) (any, error) {
	return wire.DecodeBinary(oid, src)
}

// copyStream builds a binary COPY stream: the header, then parts appended
// raw (tuples built with tuple, or deliberately broken bytes).
func copyStream(parts ...[]byte) []byte {
	out := appendBinaryCopyHeader(nil)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// tuple encodes fields as a tuple; a nil field is NULL.
func tuple(fields ...[]byte) []byte {
	out := binary.BigEndian.AppendUint16(nil, uint16(len(fields)))
	for _, f := range fields {
		if f == nil {
			out = binary.BigEndian.AppendUint32(out, 0xffffffff)
			continue
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(f)))
		out = append(out, f...)
	}
	return out
}

func be16(v int16) []byte { return binary.BigEndian.AppendUint16(nil, uint16(v)) }
func be32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

var trailer = be16(-1)

func TestBinaryCopyReaderReadsTuplesNullsAndHeaderExtension(t *testing.T) {
	header := []byte(binaryCopySignature)
	header = append(header, be32(0x0000ffff)...) // low flag bits are not critical
	header = append(header, be32(3)...)
	header = append(header, "ext"...)
	in := append(header, tuple([]byte{}, nil)...)
	in = append(in, tuple([]byte("a"), nil)...)
	in = append(in, tuple(nil, []byte{})...)
	in = append(in, trailer...)
	br := newBinaryCopyReader(bufio.NewReader(bytes.NewReader(in)), "t", []string{"x", "y"})
	if err := br.readHeader(); err != nil {
		t.Fatal(err)
	}
	want := [][][]byte{{{}, nil}, {[]byte("a"), nil}, {nil, {}}}
	for i, w := range want {
		got, err := br.next()
		if err != nil {
			t.Fatalf("tuple %d: %v", i, err)
		}
		for j := range w {
			if (got[j] == nil) != (w[j] == nil) || !bytes.Equal(got[j], w[j]) {
				t.Errorf("tuple %d field %d: got %q (nil %v), want %q (nil %v)", i, j, got[j], got[j] == nil, w[j], w[j] == nil)
			}
		}
	}
	if _, err := br.next(); err != io.EOF {
		t.Errorf("after the trailer: %v, want io.EOF", err)
	}
}

// TestBinaryCopyReaderReportsPostgresFormatErrors pins the messages and the
// COPY context of PostgreSQL 15's ReceiveCopyBinaryHeader, NextCopyFrom and
// CopyReadBinaryAttribute (captured with psql's \copy).
func TestBinaryCopyReaderReportsPostgresFormatErrors(t *testing.T) {
	one := be32(1)
	tests := []struct {
		name    string
		in      []byte
		message string
		where   string
	}{
		{"empty input", nil, "COPY file signature not recognized", ""},
		{"wrong signature", []byte("PGCOPY\n\xff\r\n\x01"), "COPY file signature not recognized", ""},
		{"missing flags", []byte("PGCOPY\n\xff\r\n\x00\x00\x00"), "invalid COPY file header (missing flags)", ""},
		{"WITH OIDS", append([]byte(binaryCopySignature), 0, 1, 0, 0, 0, 0, 0, 0), "invalid COPY file header (WITH OIDS)", ""},
		{"critical flag", append([]byte(binaryCopySignature), 0, 2, 0, 0, 0, 0, 0, 0), "unrecognized critical flags in COPY file header", ""},
		{"negative extension", append([]byte(binaryCopySignature), 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff), "invalid COPY file header (missing length)", ""},
		{"short extension", append([]byte(binaryCopySignature), 0, 0, 0, 0, 0, 0, 0, 5, 'a'), "invalid COPY file header (wrong length)", ""},
		{"too few fields", copyStream(tuple(one)), "row field count is 1, expected 2", "COPY t, line 1"},
		{"too many fields", copyStream(tuple(one, one), tuple(one, one, one)), "row field count is 3, expected 2", "COPY t, line 2"},
		{"value cut short", copyStream(be16(2), be32(4), one, be32(4), []byte{0, 0}), "unexpected EOF in COPY data", "COPY t, line 1, column b"},
		{"length cut short", copyStream(be16(2), be32(4), one, []byte{0, 0}), "unexpected EOF in COPY data", "COPY t, line 1, column b"},
		{"negative field size", copyStream(be16(2), be32(4), one, be32(-2)), "invalid field size", "COPY t, line 1, column b"},
		{"data after trailer", copyStream(tuple(one, nil), trailer, []byte{0}), "received copy data after EOF marker", "COPY t, line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := readAllTuples(tt.in, []string{"a", "b"})
			var pe *pgerror.Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a PostgreSQL error", err)
			}
			if pe.Code != pgerror.BadCopyFileFormat || pe.Message != tt.message || pe.Where != tt.where {
				t.Errorf("got %s %q (context %q), want 22P04 %q (context %q)", pe.Code, pe.Message, pe.Where, tt.message, tt.where)
			}
		})
	}
}

func TestBinaryCopyReaderAcceptsAMissingTrailer(t *testing.T) {
	for _, in := range [][]byte{copyStream(), copyStream(tuple(nil)), copyStream(tuple(nil), []byte{0})} {
		if err := readAllTuples(in, []string{"a"}); err != nil {
			t.Errorf("%x: %v", in, err)
		}
	}
}

// TestBinaryCopyReaderPassesReadErrorsThrough: a CopyFail or a broken
// connection is not a format error.
func TestBinaryCopyReaderPassesReadErrorsThrough(t *testing.T) {
	failed := pgerror.New(pgerror.QueryCanceled, "COPY from stdin failed: no")
	r := io.MultiReader(bytes.NewReader(copyStream(be16(1), be32(8), []byte{1})), errReader{failed})
	br := newBinaryCopyReader(bufio.NewReader(r), "t", []string{"a"})
	if err := br.readHeader(); err != nil {
		t.Fatal(err)
	}
	if _, err := br.next(); pgerror.GetCode(err) != pgerror.QueryCanceled {
		t.Errorf("got %v, want the CopyFail error", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func readAllTuples(in []byte, columns []string) error {
	br := newBinaryCopyReader(bufio.NewReader(bytes.NewReader(in)), "t", columns)
	if err := br.readHeader(); err != nil {
		return err
	}
	for {
		if _, err := br.next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func TestAppendBinaryCopyTupleWritesLengthsAndNulls(t *testing.T) {
	got, err := appendBinaryCopyTuple(nil, wireCodec{}, []uint32{uint32(types.OidInt4), uint32(types.OidText), uint32(types.OidBool)}, []any{int64(7), nil, true})
	if err != nil {
		t.Fatal(err)
	}
	want := tuple(be32(7), nil, []byte{1})
	if !bytes.Equal(got, want) {
		t.Errorf("got %x, want %x", got, want)
	}
	if got := appendBinaryCopyTrailer(appendBinaryCopyHeader(nil)); !bytes.Equal(got, []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff")) {
		t.Errorf("empty stream %x", got)
	}
}

// everyTypeTable has a column of every type fickle stores, and rows that
// cover their edge values and NULLs.
const everyTypeTable = `CREATE TABLE every (id int, c_bool boolean, c_int2 smallint, c_int4 int, c_int8 bigint,
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
	 '1970-01-01 00:00:00+00', '-1 days', '00000000-0000-0000-0000-000000000000', '[]', '{}', '', 'ä', 0)`

func newCopyTestSession(t *testing.T) *Session {
	t.Helper()
	eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest})})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "copy"})
	t.Cleanup(s.Close)
	return s
}

// startCopy runs a COPY statement and returns its request with the codec the
// server would give it.
func startCopy(t testing.TB, s *Session, sql string) *CopyRequest {
	t.Helper()
	sts, err := s.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Prepare(sts[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Execute(context.Background(), p, nil)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if res.Copy == nil {
		t.Fatalf("%s: no COPY request", sql)
	}
	req := *res.Copy
	req.Codec = wireCodec{}
	return &req
}

func copyOutBytes(t *testing.T, s *Session, sql string) ([]byte, int) {
	t.Helper()
	var out []byte
	messages := 0
	tag, err := s.CopyOut(context.Background(), startCopy(t, s, sql), func(b []byte) error {
		out = append(out, b...)
		messages++
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if !strings.HasPrefix(tag, "COPY ") {
		t.Errorf("tag %q", tag)
	}
	return out, messages
}

func copyIn(s *Session, req *CopyRequest, data []byte) (string, error) {
	return s.CopyIn(context.Background(), req, bytes.NewReader(data))
}

func textOf(t *testing.T, s *Session, sql string) string {
	t.Helper()
	out, _ := copyOutBytes(t, s, sql)
	return string(out)
}

// TestBinaryCopyRoundTripsEveryType copies a table with every type out in
// binary, into an empty twin, and out again: the bytes and the text form of
// the rows are unchanged, and the stream has one message per tuple with the
// header on the first and the trailer alone at the end, as PostgreSQL sends.
func TestBinaryCopyRoundTripsEveryType(t *testing.T) {
	s := newCopyTestSession(t)
	mustRun(t, s, everyTypeTable)
	mustRun(t, s, strings.Replace(strings.SplitN(everyTypeTable, ";", 2)[0], "every", "twin", 1))
	out, messages := copyOutBytes(t, s, "COPY every TO STDOUT (FORMAT binary)")
	if messages != 4 {
		t.Errorf("%d CopyData messages, want 4", messages)
	}
	if !bytes.HasPrefix(out, appendBinaryCopyHeader(nil)) || !bytes.HasSuffix(out, trailer) {
		t.Fatalf("no header or trailer: %x", out)
	}
	tag, err := copyIn(s, startCopy(t, s, "COPY twin FROM STDIN (FORMAT binary)"), out)
	if err != nil || tag != "COPY 3" {
		t.Fatalf("COPY FROM: %q, %v", tag, err)
	}
	again, _ := copyOutBytes(t, s, "COPY twin TO STDOUT (FORMAT binary)")
	if !bytes.Equal(again, out) {
		t.Errorf("copied back:\n%x\nwant\n%x", again, out)
	}
	if got, want := textOf(t, s, "COPY twin TO STDOUT"), textOf(t, s, "COPY every TO STDOUT"); got != want {
		t.Errorf("text of the copy:\n%s\nwant\n%s", got, want)
	}
}

// TestBinaryCopyFromAppliesColumnTypes: the type modifiers and input checks
// of PostgreSQL's receive functions apply, listed columns get the values and
// the others their defaults, and errors carry the COPY context line.
func TestBinaryCopyFromAppliesColumnTypes(t *testing.T) {
	tests := []struct {
		name    string
		field   []byte
		want    string // the row in COPY's text format, or the error
		code    pgerror.Code
		message string
	}{
		{name: "char(n) pads", field: []byte("ab"), want: "1\tab   \t9\tzz\n"},
		{name: "varchar(n) cuts trailing spaces", field: []byte("abc   "), want: "1\tabc\t9\tzz\n"},
		{name: "too long", field: []byte("abcdef"), code: pgerror.StringDataRightTruncation, message: "value too long for type character(5)"},
		{name: "not UTF-8", field: []byte{0xff}, code: pgerror.CharacterNotInRepertoire},
		{name: "NUL", field: []byte{'a', 0}, code: pgerror.CharacterNotInRepertoire},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newCopyTestSession(t)
			mustRun(t, s, "CREATE TABLE t (id int, c char(5), d int DEFAULT 9, v varchar(3) DEFAULT 'zz')")
			req := startCopy(t, s, "COPY t (id, c) FROM STDIN (FORMAT binary)")
			if tt.name == "varchar(n) cuts trailing spaces" {
				req = startCopy(t, s, "COPY t (id, v) FROM STDIN (FORMAT binary)")
				tt.want = "1\t\\N\t9\tabc\n"
			}
			_, err := copyIn(s, req, copyStream(tuple(be32(1), tt.field), trailer))
			if tt.code != "" {
				var pe *pgerror.Error
				if !errors.As(err, &pe) || pe.Code != tt.code || pe.Where != "COPY t, line 1, column c" ||
					tt.message != "" && pe.Message != tt.message {
					t.Fatalf("got %#v, want %s %q with the COPY context", err, tt.code, tt.message)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(t, s, "COPY t TO STDOUT"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBinaryCopyFromRejectsMalformedValues(t *testing.T) {
	tests := []struct {
		typ     string
		field   []byte
		code    pgerror.Code
		message string
	}{
		{"int4", []byte{0, 0, 0, 0, 1}, pgerror.InvalidBinaryRepresentation, "incorrect binary data format"},
		{"boolean", []byte{1, 0}, pgerror.InvalidBinaryRepresentation, "incorrect binary data format"},
		{"int8", []byte{0, 0, 0, 1}, pgerror.ProtocolViolation, "insufficient data left in message"},
		{"uuid", []byte{}, pgerror.ProtocolViolation, "insufficient data left in message"},
		{"uuid", make([]byte, 17), pgerror.InvalidBinaryRepresentation, "incorrect binary data format"},
		{"jsonb", []byte{2, '{', '}'}, pgerror.InvalidBinaryRepresentation, "incorrect binary data format"},
		{"json", []byte("{"), pgerror.InvalidTextRepresentation, ""},
		{"numeric(3,1)", mustAppend(t, types.OidNumeric, mustNumeric(t, "1234.5")), pgerror.NumericValueOutOfRange, ""},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			s := newCopyTestSession(t)
			mustRun(t, s, "CREATE TABLE t (x "+tt.typ+")")
			_, err := copyIn(s, startCopy(t, s, "COPY t FROM STDIN (FORMAT binary)"), copyStream(tuple(tt.field), trailer))
			var pe *pgerror.Error
			if !errors.As(err, &pe) || pe.Code != tt.code || tt.message != "" && pe.Message != tt.message ||
				pe.Where != "COPY t, line 1, column x" {
				t.Errorf("got %#v, want %s %q with the COPY context", err, tt.code, tt.message)
			}
		})
	}
}

func mustNumeric(t testing.TB, s string) any {
	v, err := types.ParseText(types.NumericAny, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustAppend(t *testing.T, oid types.Oid, v any) []byte {
	b, err := wire.AppendBinary(nil, uint32(oid), v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBinaryCopyOptionsAsPostgres pins ProcessCopyOptions' refusals of the
// text-format options in binary mode.
func TestBinaryCopyOptionsAsPostgres(t *testing.T) {
	tests := []struct {
		option  string
		code    pgerror.Code
		message string
	}{
		{"DELIMITER ','", pgerror.SyntaxError, "cannot specify DELIMITER in BINARY mode"},
		{"NULL 'x'", pgerror.SyntaxError, "cannot specify NULL in BINARY mode"},
		{"HEADER", pgerror.FeatureNotSupported, "cannot specify HEADER in BINARY mode"},
		{"QUOTE '\"'", pgerror.FeatureNotSupported, "COPY quote available only in CSV mode"},
		{"ESCAPE 'x'", pgerror.FeatureNotSupported, "COPY escape available only in CSV mode"},
	}
	s := newCopyTestSession(t)
	mustRun(t, s, "CREATE TABLE t (x int)")
	for _, tt := range tests {
		sts, err := s.Parse("COPY t FROM STDIN (FORMAT binary, " + tt.option + ")")
		if err == nil {
			_, err = s.Prepare(sts[0], nil)
		}
		var pe *pgerror.Error
		if !errors.As(err, &pe) || pe.Code != tt.code || pe.Message != tt.message {
			t.Errorf("%s: got %v, want %s %q", tt.option, err, tt.code, tt.message)
		}
	}
}

// FuzzBinaryCopyFrom feeds untrusted bytes to COPY FROM (FORMAT binary) on a
// table of several types: it must never panic or fail with an internal
// error, and whatever it loads must copy out and in again unchanged.
func FuzzBinaryCopyFrom(f *testing.F) {
	f.Add(copyStream(tuple(be32(1), []byte("x"), []byte{0, 0, 0, 0, 0, 0, 0, 0}), trailer))
	f.Add(copyStream(tuple(nil, nil, nil)))
	f.Add(copyStream(tuple(be32(1), []byte{0xff}, nil), []byte{0xff, 0xff, 0}))
	f.Add([]byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x7f\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newCopyTestSession(t)
		mustRun(t, s, "CREATE TABLE t (a int, b varchar(4), c numeric(6,2)); CREATE TABLE u (a int, b varchar(4), c numeric(6,2))")
		_, err := copyIn(s, startCopy(t, s, "COPY t FROM STDIN (FORMAT binary)"), data)
		if code := pgerror.GetCode(err); code == pgerror.InternalError {
			t.Fatalf("internal error: %v", err)
		}
		if err != nil {
			return
		}
		out, _ := copyOutBytes(t, s, "COPY t TO STDOUT (FORMAT binary)")
		if _, err := copyIn(s, startCopy(t, s, "COPY u FROM STDIN (FORMAT binary)"), out); err != nil {
			t.Fatalf("copying back %x: %v", out, err)
		}
		if again, _ := copyOutBytes(t, s, "COPY u TO STDOUT (FORMAT binary)"); !bytes.Equal(again, out) {
			t.Fatalf("copied back %x, want %x", again, out)
		}
	})
}

// BenchmarkBinaryCopyFrom loads 10,000 rows of (int, text, numeric,
// timestamptz) per iteration through COPY FROM (FORMAT binary).
func BenchmarkBinaryCopyFrom(b *testing.B) {
	const rows = 10000
	stream := appendBinaryCopyHeader(nil)
	oids := []uint32{uint32(types.OidInt4), uint32(types.OidText), uint32(types.OidNumeric), uint32(types.OidTimestamptz)}
	ts, err := types.ParseText(types.Timestamptz, "2024-02-29 12:34:56.789+00")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < rows; i++ {
		row := []any{int64(i), "some fixture text", mustNumeric(b, "1234.56"), ts}
		if stream, err = appendBinaryCopyTuple(stream, wireCodec{}, oids, row); err != nil {
			b.Fatal(err)
		}
	}
	stream = appendBinaryCopyTrailer(stream)
	b.SetBytes(int64(len(stream)))
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest})})
		if err != nil {
			b.Fatal(err)
		}
		s := eng.NewSession(SessionInfo{User: "bench"})
		if err := runOne(s, "CREATE TABLE t (a int, b text, c numeric(8,2), d timestamptz)"); err != nil {
			b.Fatal(err)
		}
		req := startCopy(b, s, "COPY t FROM STDIN (FORMAT binary)")
		b.StartTimer()
		if tag, err := copyIn(s, req, stream); err != nil || tag != "COPY 10000" {
			b.Fatalf("%q, %v", tag, err)
		}
		b.StopTimer()
		s.Close()
	}
}

// TestBinaryCopyFromChecksArrayElements: each element gets its element
// type's checks with the array's typmod, as array_recv calls the element's
// receive function, and arrays round-trip.
func TestBinaryCopyFromChecksArrayElements(t *testing.T) {
	array := func(elem types.Type, elems ...any) []byte {
		arr, ok := types.ArrayOf(elem)
		if !ok {
			t.Fatalf("no array type of %v", elem)
		}
		return mustAppend(t, arr.Oid, elems)
	}
	tests := []struct {
		name   string
		column string
		field  []byte
		want   string // the value in COPY's text format, or the error code
	}{
		{"varchar(n) elements", "v", array(types.VarcharAny, "ab", nil), "{ab,NULL}"},
		{"varchar(n) element too long", "v", array(types.VarcharAny, "abc"), string(pgerror.StringDataRightTruncation)},
		{"numeric(p,s) elements round", "n", array(types.NumericAny, mustNumeric(t, "1.25")), "{1.3}"},
		{"numeric(p,s) element overflows", "n", array(types.NumericAny, mustNumeric(t, "1234.5")), string(pgerror.NumericValueOutOfRange)},
		{"text element not UTF-8", "x", array(types.Text, "ok", "\xff"), string(pgerror.CharacterNotInRepertoire)},
		{"empty text array", "x", array(types.Text), "{}"},
		{"int4 array", "i", array(types.Int4, int64(1), nil, int64(-3)), "{1,NULL,-3}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newCopyTestSession(t)
			mustRun(t, s, "CREATE TABLE t (v varchar(2)[], n numeric(3,1)[], x text[], i int4[])")
			_, err := copyIn(s, startCopy(t, s, "COPY t ("+tt.column+") FROM STDIN (FORMAT binary)"), copyStream(tuple(tt.field), trailer))
			if strings.HasPrefix(tt.want, "{") {
				if err != nil {
					t.Fatal(err)
				}
				if got := textOf(t, s, "COPY t ("+tt.column+") TO STDOUT"); got != tt.want+"\n" {
					t.Errorf("got %q, want %q", got, tt.want)
				}
				out, _ := copyOutBytes(t, s, "COPY t ("+tt.column+") TO STDOUT (FORMAT binary)")
				if tt.name != "numeric(p,s) elements round" && !bytes.Equal(out, copyStream(tuple(tt.field), trailer)) {
					t.Errorf("copied out %x, want the input back", out)
				}
				return
			}
			var pe *pgerror.Error
			if !errors.As(err, &pe) || string(pe.Code) != tt.want || pe.Where != "COPY t, line 1, column "+tt.column {
				t.Errorf("got %#v, want %s with the COPY context", err, tt.want)
			}
		})
	}
}
