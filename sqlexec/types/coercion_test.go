package types

import (
	"bytes"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestCommonTypeMatchesSelectCommonType pins select_common_type on the
// results PostgreSQL 15 gives for COALESCE and CASE.
func TestCommonTypeMatchesSelectCommonType(t *testing.T) {
	tests := []struct {
		in   []Type
		want Type
		code pgerror.Code
	}{
		{[]Type{Int4, NumericAny}, NumericAny, ""},
		{[]Type{Int2, Int8}, Int8, ""},
		{[]Type{Float4, NumericAny}, Float4, ""},
		{[]Type{Varchar(3), Text}, VarcharAny, ""},
		{[]Type{Varchar(3), Unknown}, VarcharAny, ""}, // select_common_typmod: the unknown differs
		{[]Type{Varchar(3), Varchar(3)}, Varchar(3), ""},
		{[]Type{Timestamptz, Date}, Timestamptz, ""},
		{[]Type{Date, Timestamp}, Timestamp, ""},
		{[]Type{Int4, Float8, NumericAny}, Float8, ""},
		{[]Type{Unknown, Unknown}, Text, ""},
		{[]Type{Int8, Unknown}, Int8, ""},
		{[]Type{Int4, Bool}, Type{}, pgerror.DatatypeMismatch},
		{[]Type{Text, Int4}, Type{}, pgerror.DatatypeMismatch},
		{[]Type{JSON, JSONB}, Type{}, pgerror.CannotCoerce},
	}
	for _, tt := range tests {
		got, err := CommonType("COALESCE", tt.in...)
		if code := pgerror.GetCode(err); code != tt.code || (err == nil && got != tt.want) {
			t.Errorf("CommonType(%v) = %s, %v; want %s, %s", tt.in, FormatType(got), err, FormatType(tt.want), tt.code)
		}
	}
}

// TestAssignmentCoercionChecksTypmods pins the difference between an
// INSERT (assignment: too long fails) and an explicit cast (truncates).
func TestAssignmentCoercionChecksTypmods(t *testing.T) {
	tests := []struct {
		v        any
		from, to Type
		ctx      CastContext
		want     any
		code     pgerror.Code
	}{
		{"abcd", Text, Varchar(3), CastAssignment, nil, pgerror.StringDataRightTruncation},
		{"abcd", Text, Varchar(3), CastExplicit, "abc", ""},
		{"abc  ", Text, Varchar(3), CastAssignment, "abc", ""},
		{"ab", Unknown, Bpchar(4), CastAssignment, "ab  ", ""},
		{"abcde", Unknown, Bpchar(4), CastAssignment, nil, pgerror.StringDataRightTruncation},
		{"12.345", Unknown, Numeric(4, 2), CastAssignment, apd.New(1235, -2), ""},
		{"123.45", Unknown, Numeric(4, 2), CastAssignment, nil, pgerror.NumericValueOutOfRange},
		{int64(1), Int4, Bool, CastAssignment, nil, pgerror.DatatypeMismatch},
		{int64(1), Int4, Bool, CastExplicit, true, ""},
		{"1", Text, Int4, CastAssignment, nil, pgerror.DatatypeMismatch},
		{int64(70000), Int4, Int2, CastAssignment, nil, pgerror.NumericValueOutOfRange},
		{int64(7), Int4, Text, CastAssignment, "7", ""},
		{int64(7), Int4, Text, CastImplicit, nil, pgerror.DatatypeMismatch},
		{true, Bool, Date, CastExplicit, nil, pgerror.CannotCoerce},
	}
	for _, tt := range tests {
		got, err := Coerce(tt.v, tt.from, tt.to, tt.ctx)
		if code := pgerror.GetCode(err); code != tt.code || (err == nil && Compare(tt.to, got, tt.want) != 0) {
			t.Errorf("Coerce(%v, %s, %s, %d) = %v, %v; want %v, %s", tt.v, FormatType(tt.from), FormatType(tt.to), tt.ctx, got, err, tt.want, tt.code)
		}
	}
	if _, err := ParseText(Varchar(2), "abc"); pgerror.GetCode(err) != pgerror.StringDataRightTruncation {
		t.Errorf("ParseText(varchar(2), abc) = %v, want 22001", err)
	}
}

// TestSessionTimeFunctionsUseEnv checks that now(), current_date,
// localtimestamp, statement_timestamp and clock_timestamp read the Env and
// that gen_random_uuid reads Env.Rand, producing a version 4 UUID.
func TestSessionTimeFunctionsUseEnv(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	txn := time.Date(2024, 1, 2, 3, 4, 5, 123456789, time.UTC)
	env := &Env{Location: ny, TxnTime: txn, StmtTime: txn.Add(time.Second),
		Clock: func() time.Time { return txn.Add(time.Minute) }, Rand: bytes.NewReader(bytes.Repeat([]byte{0xab}, 16))}
	tests := []struct {
		name string
		want string
	}{
		{"now", "2024-01-01 22:04:05.123456-05"},
		{"current_timestamp", "2024-01-01 22:04:05.123456-05"},
		{"statement_timestamp", "2024-01-01 22:04:06.123456-05"},
		{"clock_timestamp", "2024-01-01 22:05:05.123456-05"},
		{"current_date", "2024-01-01"},
		{"localtimestamp", "2024-01-01 22:04:05.123456"},
		{"gen_random_uuid", "abababab-abab-4bab-abab-abababababab"},
	}
	for _, tt := range tests {
		f, err := ResolveFunc(tt.name, nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		v, err := f.Eval(env, nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := FormatText(f.Result, v, ny); got != tt.want {
			t.Errorf("%s() = %s, want %s", tt.name, got, tt.want)
		}
	}
	for name, want := range map[string]Volatility{"now": Stable, "gen_random_uuid": Volatile, "clock_timestamp": Volatile, "lower": Immutable} {
		args := []Type{}
		if name == "lower" {
			args = []Type{Text}
		}
		if f, _ := ResolveFunc(name, args); f == nil || f.Volatility != want {
			t.Errorf("%s volatility = %v, want %c", name, f, want)
		}
	}
	if f, _ := ResolveFunc("now", nil); f != nil {
		if _, err := f.Eval(nil, nil); pgerror.GetCode(err) != pgerror.FeatureNotSupported {
			t.Errorf("now() without Env: %v, want 0A000", err)
		}
	}
}

// TestRelativeDateInputsUseTransactionTime covers 'now', 'today',
// 'tomorrow' and 'yesterday' as input.
func TestRelativeDateInputsUseTransactionTime(t *testing.T) {
	env := &Env{TxnTime: time.Date(2024, 2, 29, 23, 30, 0, 0, time.UTC)}
	tests := []struct {
		typ      Type
		in, want string
	}{
		{Date, "today", "2024-02-29"},
		{Date, "tomorrow", "2024-03-01"},
		{Timestamp, "yesterday", "2024-02-28 00:00:00"},
		{Timestamptz, "now", "2024-02-29 23:30:00+00"},
		{Date, "now", "2024-02-29"},
	}
	for _, tt := range tests {
		v, err := ParseTextEnv(env, tt.typ, tt.in)
		if err != nil {
			t.Errorf("%s %q: %v", FormatType(tt.typ), tt.in, err)
			continue
		}
		if got := FormatText(tt.typ, v, nil); got != tt.want {
			t.Errorf("%s %q = %s, want %s", FormatType(tt.typ), tt.in, got, tt.want)
		}
	}
}
