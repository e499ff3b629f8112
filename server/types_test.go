package server

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestPgxRoundTripsEveryType writes a value of every supported type as a
// parameter and reads it back, in every exec mode: the extended modes carry
// most values in binary, the simple protocol in text. A row of NULLs comes
// back as NULLs.
func TestPgxRoundTripsEveryType(t *testing.T) {
	srv := startSQLServer(t, Config{})
	ts := time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC)
	day := time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC)
	u := [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}
	iv := pgtype.Interval{Months: 14, Days: 3, Microseconds: 4*3600e6 + 5e6, Valid: true}
	cases := []struct {
		typ  string
		in   any
		out  func() any // a fresh scan target
		want any
	}{
		{"boolean", true, func() any { return new(bool) }, true},
		{"smallint", int16(-5), func() any { return new(int16) }, int16(-5)},
		{"integer", int32(123456), func() any { return new(int32) }, int32(123456)},
		{"bigint", int64(-1 << 40), func() any { return new(int64) }, int64(-1 << 40)},
		{"real", float32(1.5), func() any { return new(float32) }, float32(1.5)},
		{"double precision", 2.25, func() any { return new(float64) }, 2.25},
		{"numeric(10,3)", "12.345", func() any { return new(string) }, "12.345"},
		{"text", "héllo", func() any { return new(string) }, "héllo"},
		{"varchar(10)", "abc", func() any { return new(string) }, "abc"},
		{"char(5)", "ab", func() any { return new(string) }, "ab   "},
		{"bytea", []byte{0, 1, 0xff}, func() any { return new([]byte) }, []byte{0, 1, 0xff}},
		{"date", day, func() any { return new(time.Time) }, day},
		{"timestamp", ts, func() any { return new(time.Time) }, ts},
		{"timestamptz", ts, func() any { return new(time.Time) }, ts},
		{"interval", iv, func() any { return new(pgtype.Interval) }, iv},
		{"uuid", pgtype.UUID{Bytes: u, Valid: true}, func() any { return new([16]byte) }, u},
		{"json", `{"b": [1, 2]}`, func() any { return new(string) }, `{"b": [1, 2]}`},
		{"jsonb", `{"b":[1,2]}`, func() any { return new(string) }, `{"b": [1, 2]}`},
	}
	for _, mode := range execModes {
		t.Run(mode.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			conn := connectPgx(t, srv.DSN("tester", "fickle"), mode)
			for i, c := range cases {
				table := fmt.Sprintf("rt_%d_%d", int(mode), i)
				if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (id int PRIMARY KEY, v %s)", table, c.typ)); err != nil {
					t.Fatalf("%s: create: %v", c.typ, err)
				}
				if _, err := conn.Exec(ctx, "INSERT INTO "+table+" VALUES (1, $1), (2, NULL)", c.in); err != nil {
					t.Fatalf("%s: insert %v: %v", c.typ, c.in, err)
				}
				got := c.out()
				if err := conn.QueryRow(ctx, "SELECT v FROM "+table+" WHERE id = 1").Scan(got); err != nil {
					t.Fatalf("%s: select: %v", c.typ, err)
				}
				v := reflect.ValueOf(got).Elem().Interface()
				if tm, ok := v.(time.Time); ok {
					if !tm.Equal(c.want.(time.Time)) {
						t.Errorf("%s: got %v, want %v", c.typ, tm, c.want)
					}
				} else if !reflect.DeepEqual(v, c.want) {
					t.Errorf("%s: got %#v, want %#v", c.typ, v, c.want)
				}
				var isNull bool
				var null any
				if err := conn.QueryRow(ctx, "SELECT v, v IS NULL FROM "+table+" WHERE id = 2").Scan(&null, &isNull); err != nil {
					t.Fatalf("%s: select NULL: %v", c.typ, err)
				}
				if null != nil || !isNull {
					t.Errorf("%s: NULL came back as %#v (IS NULL %v)", c.typ, null, isNull)
				}
			}
		})
	}
}

// TestTimeZoneChangeAppliesToLaterOutput: text output of timestamptz
// follows SET TimeZone, within one query string and across transactions
// (SET LOCAL reverts at commit).
func TestTimeZoneChangeAppliesToLaterOutput(t *testing.T) {
	srv := startSQLServer(t, Config{})
	c := dialRaw(t, srv, nil)
	c.send(&pgproto3.Query{String: "SET TimeZone = 'Europe/Paris'; SELECT '2024-01-01 00:00:00+00'::timestamptz"})
	if got := lastDataRow(c.untilReady()); got != "2024-01-01 01:00:00+01" {
		t.Fatalf("after SET: %q", got)
	}
	c.send(&pgproto3.Query{String: "BEGIN; SET LOCAL TimeZone = 'UTC'; SELECT '2024-01-01 00:00:00+00'::timestamptz"})
	if got := lastDataRow(c.untilReady()); got != "2024-01-01 00:00:00+00" {
		t.Fatalf("after SET LOCAL: %q", got)
	}
	c.send(&pgproto3.Query{String: "COMMIT; SELECT '2024-01-01 00:00:00+00'::timestamptz"})
	if got := lastDataRow(c.untilReady()); got != "2024-01-01 01:00:00+01" {
		t.Fatalf("after COMMIT: %q", got)
	}
}

func lastDataRow(msgs []pgproto3.BackendMessage) string {
	var s string
	for _, m := range msgs {
		if d, ok := m.(*pgproto3.DataRow); ok && len(d.Values) > 0 {
			s = string(d.Values[0])
		}
	}
	return s
}
