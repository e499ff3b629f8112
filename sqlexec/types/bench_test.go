package types

import (
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
)

func BenchmarkParseText(b *testing.B) {
	cases := []struct {
		typ Type
		in  string
	}{
		{Int4, "123456"},
		{Float8, "3.141592653589793"},
		{NumericAny, "12345.6789"},
		{Timestamptz, "2024-01-01 10:00:00.123456+02"},
		{Interval, "1 day 02:03:04"},
		{JSONB, `{"b": 1, "a": [1, 2, 3]}`},
		{UUID, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
	}
	for _, c := range cases {
		b.Run(c.typ.Name(), func(b *testing.B) {
			for b.Loop() {
				if _, err := ParseText(c.typ, c.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFormatText(b *testing.B) {
	cases := []struct {
		typ Type
		v   any
	}{
		{Int8, int64(1234567890)},
		{Float8, 3.141592653589793},
		{NumericAny, apd.New(123456789, -4)},
		{Timestamptz, time.Date(2024, 1, 1, 10, 0, 0, 123456000, time.UTC)},
	}
	for _, c := range cases {
		b.Run(c.typ.Name(), func(b *testing.B) {
			for b.Loop() {
				FormatText(c.typ, c.v, time.UTC)
			}
		})
	}
}

func BenchmarkOperators(b *testing.B) {
	cases := []struct {
		op   string
		l, r Type
		a, c any
	}{
		{"+", Int4, Int4, int64(1), int64(2)},
		{"=", Text, Text, "hello", "hellp"},
		{"<", Int4, NumericAny, int64(3), apd.New(35, -1)},
		{"/", NumericAny, NumericAny, apd.New(1, 0), apd.New(3, 0)},
		{"~~", Text, Text, "hello world", "%wor%"},
	}
	for _, c := range cases {
		op, err := ResolveBinaryOp(c.op, c.l, c.r)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.l.Name()+c.op+c.r.Name(), func(b *testing.B) {
			for b.Loop() {
				if _, err := op.Eval(c.a, c.c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkResolveBinaryOp(b *testing.B) {
	for b.Loop() {
		if _, err := ResolveBinaryOp("+", Int4, NumericAny); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendKey(b *testing.B) {
	buf := make([]byte, 0, 64)
	cases := []struct {
		typ Type
		v   any
	}{
		{Int8, int64(42)},
		{Text, "customer-000042"},
		{NumericAny, apd.New(123456789, -4)},
		{UUID, [16]byte{1, 2, 3}},
	}
	for _, c := range cases {
		b.Run(c.typ.Name(), func(b *testing.B) {
			for b.Loop() {
				buf = AppendKey(buf[:0], c.typ, c.v)
			}
		})
	}
}
