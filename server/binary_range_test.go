package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Ranges travel in binary as range_send writes them, and binary input
// checks and canonicalizes them as text input does.
func TestRangeValuesInBinary(t *testing.T) {
	cases := []struct {
		oid  types.Oid
		text string
		wire []byte
	}{
		{types.OidInt4Range, "[1,5)", []byte{0x02, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 5}},
		{types.OidInt4Range, "empty", []byte{0x01}},
		{types.OidInt8Range, "(,3)", []byte{0x08, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 3}},
		{types.OidInt4Range, "(,)", []byte{0x18}},
	}
	for _, c := range cases {
		checkBinaryRoundTrip(t, c.oid, c.text, c.wire)
	}
	closed := []byte{0x06, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 5}
	if v, err := decodeBinaryValue(uint32(types.OidInt4Range), closed); err != nil ||
		types.FormatText(types.Type{Oid: types.OidInt4Range, Typmod: -1}, v, nil) != "[1,6)" {
		t.Errorf("[1,5] received as %v, %v; want [1,6)", v, err)
	}
	backwards := []byte{0x02, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 4, 0, 0, 0, 1}
	if _, err := decodeBinaryValue(uint32(types.OidInt4Range), backwards); pgerror.GetCode(err) != pgerror.DataException {
		t.Errorf("[5,1) received: error %v, want 22000", err)
	}
	for _, bad := range [][]byte{{}, {0x02, 0, 0, 0, 4, 0, 0, 0, 1}, {0x01, 0}} {
		if _, err := decodeBinaryValue(uint32(types.OidInt4Range), bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// pgx reads and writes the range types and arrays of them in binary, in
// every query mode.
func TestPgxRanges(t *testing.T) {
	srv := startSQLServer(t, Config{})
	for _, mode := range execModes {
		t.Run(mode.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			conn := connectPgx(t, srv.DSN("tester", "fickle"), mode)
			table := fmt.Sprintf("r_%d", int(mode))
			if _, err := conn.Exec(ctx, "CREATE TABLE "+table+" (id int PRIMARY KEY, seats int4range, during tstzrange, amount numrange)"); err != nil {
				t.Fatal(err)
			}
			seats := pgtype.Range[pgtype.Int4]{Lower: pgtype.Int4{Int32: 1, Valid: true}, Upper: pgtype.Int4{Int32: 4, Valid: true},
				LowerType: pgtype.Inclusive, UpperType: pgtype.Inclusive, Valid: true}
			from := time.Date(2020, 1, 1, 10, 0, 0, 0, time.UTC)
			during := pgtype.Range[pgtype.Timestamptz]{Lower: pgtype.Timestamptz{Time: from, Valid: true},
				LowerType: pgtype.Inclusive, UpperType: pgtype.Unbounded, Valid: true}
			if _, err := conn.Exec(ctx, "INSERT INTO "+table+" VALUES (1, $1, $2, '[1.5,2)')", seats, during); err != nil {
				t.Fatal(err)
			}
			var gotSeats pgtype.Range[pgtype.Int4]
			var gotDuring pgtype.Range[pgtype.Timestamptz]
			var text string
			err := conn.QueryRow(ctx, "SELECT seats, during, seats::text FROM "+table+" WHERE seats @> $1::int4", 4).Scan(&gotSeats, &gotDuring, &text)
			if err != nil {
				t.Fatal(err)
			}
			if text != "[1,5)" || gotSeats.Lower.Int32 != 1 || gotSeats.Upper.Int32 != 5 || gotSeats.UpperType != pgtype.Exclusive {
				t.Errorf("seats = %+v (%s), want [1,5)", gotSeats, text)
			}
			if !gotDuring.Lower.Time.Equal(from) || gotDuring.UpperType != pgtype.Unbounded {
				t.Errorf("during = %+v", gotDuring)
			}
			var list []pgtype.Range[pgtype.Int4]
			err = conn.QueryRow(ctx, "SELECT array_append($1::int4range[], 'empty')", []pgtype.Range[pgtype.Int4]{seats}).Scan(&list)
			if err != nil || len(list) != 2 || list[0].Upper.Int32 != 5 || list[1].LowerType != pgtype.Empty {
				t.Errorf("int4range[] = %+v, %v; want {[1,5),empty}", list, err)
			}
		})
	}
}

// Multiranges travel in binary as multirange_send writes them (the count,
// then each range's range_send form with its length); binary input makes
// them canonical as text input does.
func TestMultirangeValuesInBinary(t *testing.T) {
	one := []byte{0, 0, 0, 17, 0x02, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 3}
	cases := []struct {
		text string
		wire []byte
	}{
		{"{}", []byte{0, 0, 0, 0}},
		{"{[1,3)}", append([]byte{0, 0, 0, 1}, one...)},
		{"{(,)}", []byte{0, 0, 0, 1, 0, 0, 0, 1, 0x18}},
	}
	for _, c := range cases {
		checkBinaryRoundTrip(t, types.OidInt4Multirange, c.text, c.wire)
	}
	overlapping := append(append([]byte{0, 0, 0, 3}, one...), append(one, 0, 0, 0, 1, 0x01)...)
	if v, err := decodeBinaryValue(uint32(types.OidInt4Multirange), overlapping); err != nil ||
		types.FormatText(types.Type{Oid: types.OidInt4Multirange, Typmod: -1}, v, nil) != "{[1,3)}" {
		t.Errorf("{[1,3),[1,3),empty} received as %v, %v; want {[1,3)}", v, err)
	}
	for _, bad := range [][]byte{{}, {0, 0, 0, 1}, {0, 0, 0, 1, 0, 0, 0, 9, 0x01}, {0xff, 0xff, 0xff, 0xff}, append(append([]byte{0, 0, 0, 1}, one...), 0)} {
		if _, err := decodeBinaryValue(uint32(types.OidInt4Multirange), bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// pgx reads and writes multiranges in binary, in every query mode.
func TestPgxMultiranges(t *testing.T) {
	srv := startSQLServer(t, Config{})
	for _, mode := range execModes {
		t.Run(mode.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			conn := connectPgx(t, srv.DSN("tester", "fickle"), mode)
			r := func(lo, hi int32) pgtype.Range[pgtype.Int4] {
				return pgtype.Range[pgtype.Int4]{Lower: pgtype.Int4{Int32: lo, Valid: true}, Upper: pgtype.Int4{Int32: hi, Valid: true},
					LowerType: pgtype.Inclusive, UpperType: pgtype.Exclusive, Valid: true}
			}
			in := pgtype.Multirange[pgtype.Range[pgtype.Int4]]{r(5, 7), r(1, 3), r(2, 4)}
			var got pgtype.Multirange[pgtype.Range[pgtype.Int4]]
			var text string
			if err := conn.QueryRow(ctx, "SELECT $1::int4multirange, $1::int4multirange::text", in).Scan(&got, &text); err != nil {
				t.Fatal(err)
			}
			if text != "{[1,4),[5,7)}" || len(got) != 2 || got[0].Upper.Int32 != 4 || got[1].Lower.Int32 != 5 {
				t.Errorf("multirange = %+v (%s), want {[1,4),[5,7)}", got, text)
			}
		})
	}
}
