package integration

import (
	"math/big"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// typeCase is one column type with a value to round-trip through it. want is
// what scanning the stored value back into a fresh *T must give.
type typeCase struct {
	column  string // column name
	sqlType string
	value   any        // parameter sent by the client
	scan    func() any // a pointer to scan into
	want    any        // expected dereferenced scan result
	equal   func(a, b any) bool
}

func deref[T any](p any) any { return *(p.(*T)) }

func newOf[T any]() func() any { return func() any { return new(T) } }

var sampleTime = time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC)

// typeCases covers every type fickle supports.
func typeCases() []typeCase {
	num := pgtype.Numeric{Int: big.NewInt(-1234567891), Exp: -4, Valid: true}
	return []typeCase{
		{column: "c_bool", sqlType: "boolean", value: true, scan: newOf[bool](), want: true},
		{column: "c_int2", sqlType: "smallint", value: int16(-32768), scan: newOf[int16](), want: int16(-32768)},
		{column: "c_int4", sqlType: "integer", value: int32(2147483647), scan: newOf[int32](), want: int32(2147483647)},
		{column: "c_int8", sqlType: "bigint", value: int64(-9223372036854775808), scan: newOf[int64](), want: int64(-9223372036854775808)},
		{column: "c_float4", sqlType: "real", value: float32(1.5e-7), scan: newOf[float32](), want: float32(1.5e-7)},
		{column: "c_float8", sqlType: "double precision", value: 3.141592653589793, scan: newOf[float64](), want: 3.141592653589793},
		{column: "c_numeric", sqlType: "numeric(20,4)", value: num, scan: newOf[pgtype.Numeric](), want: num,
			equal: func(a, b any) bool { return numericText(a.(pgtype.Numeric)) == numericText(b.(pgtype.Numeric)) }},
		{column: "c_text", sqlType: "text", value: "héllo, 'world'\n\ttab", scan: newOf[string](), want: "héllo, 'world'\n\ttab"},
		{column: "c_varchar", sqlType: "varchar(10)", value: "short", scan: newOf[string](), want: "short"},
		{column: "c_char", sqlType: "char(5)", value: "ab", scan: newOf[string](), want: "ab   "},
		{column: "c_bytea", sqlType: "bytea", value: []byte{0, 1, 2, 0xfe, 0xff}, scan: newOf[[]byte](), want: []byte{0, 1, 2, 0xfe, 0xff}},
		{column: "c_date", sqlType: "date", value: time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), scan: newOf[time.Time](),
			want: time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), equal: timeEqual},
		{column: "c_ts", sqlType: "timestamp", value: sampleTime, scan: newOf[time.Time](), want: sampleTime, equal: timeEqual},
		{column: "c_tstz", sqlType: "timestamptz", value: sampleTime, scan: newOf[time.Time](), want: sampleTime, equal: timeEqual},
		{column: "c_interval", sqlType: "interval", value: pgtype.Interval{Months: 14, Days: 3, Microseconds: 3723000004, Valid: true},
			scan: newOf[pgtype.Interval](), want: pgtype.Interval{Months: 14, Days: 3, Microseconds: 3723000004, Valid: true}},
		{column: "c_uuid", sqlType: "uuid", value: pgtype.UUID{Valid: true, Bytes: [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}},
			scan: newOf[[16]byte](), want: [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}},
		{column: "c_json", sqlType: "json", value: `{"b": 1, "a": [true, null]}`, scan: newOf[string](), want: `{"b": 1, "a": [true, null]}`},
		{column: "c_jsonb", sqlType: "jsonb", value: `{"b": 1, "a": [true, null]}`, scan: newOf[string](), want: `{"a": [true, null], "b": 1}`},
	}
}

func numericText(n pgtype.Numeric) string {
	v, err := n.Value()
	if err != nil {
		return "error: " + err.Error()
	}
	s, _ := v.(string)
	return s
}

func timeEqual(a, b any) bool { return a.(time.Time).Equal(b.(time.Time)) }
