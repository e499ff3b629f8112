package integration

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/lib/pq"
)

// arraySetup creates a table with array columns of several element types
// and fills it through pgx parameters (Go slices, some with NULL elements;
// uuids as strings, which pgx's text modes can send without a type).
var arraySetup = []string{
	`CREATE TABLE arr (id integer PRIMARY KEY, big bigint, name text, tags text[], nums int8[], small int2[],
		vals float8[], flags bool[], ids uuid[], ats timestamptz[], days date[], docs jsonb[], amounts numeric[], codes varchar(3)[])`,
}

// arrayRows are the rows arraySetup's table gets, as pgx parameters.
func arrayRows() [][]any {
	at := time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC)
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	u := "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
	null := pgtype.Text{}
	return [][]any{
		{int32(1), int64(10), "ann", []string{"red", "green", "a b", `q"uote`, `back\slash`, "", "NULL", "{x,y}"}, []int64{1, -9223372036854775808, 9223372036854775807},
			[]int16{-32768, 0, 32767}, []float64{1.5, -0.25, 1e300}, []bool{true, false}, []string{u}, []time.Time{at}, []time.Time{day},
			[]string{`{"a": 1}`, `[1, 2]`}, []string{"1.50", "-3.25", "NaN"}, []string{"abc", "x"}},
		{int32(2), int64(20), "bob", []pgtype.Text{{String: "blue", Valid: true}, null}, []int64{}, nil,
			[]float64{}, []bool{}, []string{}, []time.Time{}, []time.Time{}, []string{}, []string{}, []string{}},
		{int32(3), int64(30), "cy", nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
	}
}

// arrayQuery is a query with parameters whose rows are compared between
// fickle and PostgreSQL.
type arrayQuery struct {
	sql  string
	args []any
}

func arrayQueries() []arrayQuery {
	return []arrayQuery{
		{"SELECT id FROM arr WHERE id = ANY($1) ORDER BY id", []any{[]int32{1, 3, 7}}},
		{"SELECT id FROM arr WHERE id = ANY($1) ORDER BY id", []any{[]int32{}}},
		{"SELECT id FROM arr WHERE big = ANY($1) ORDER BY id", []any{[]int64{20, 30, -1}}},
		{"SELECT id FROM arr WHERE name = ANY($1) ORDER BY id", []any{[]string{"ann", "cy", "zed"}}},
		{"SELECT id FROM arr WHERE name <> ALL($1) ORDER BY id", []any{[]string{"ann"}}},
		{"SELECT id FROM arr WHERE $1 = ANY(tags) ORDER BY id", []any{"blue"}},
		{"SELECT id FROM arr WHERE tags @> $1 ORDER BY id", []any{[]string{"red"}}},
		{"SELECT id FROM arr WHERE nums && $1 ORDER BY id", []any{[]int64{1, 2}}},
		{"SELECT id, tags, nums, small, vals, flags, ids, ats, days, docs, amounts, codes FROM arr ORDER BY id", nil},
		{"SELECT id, tags[1], nums[2:3], array_length(tags, 1), cardinality(nums) FROM arr ORDER BY id", nil},
		{"SELECT tags::text, nums::text, codes::text FROM arr ORDER BY id", nil},
		{"SELECT $1::int4[] AS a, $2::text[] AS b", []any{[]int32{3, 1, 2}, []string{"x", "y z"}}},
		{"SELECT ARRAY[1, 2, NULL]::int4[], ARRAY['a', NULL]::text[], '{}'::int8[]", nil},
		{"SELECT array_agg(id) FROM (SELECT id FROM arr ORDER BY id) s", nil},
		{"SELECT u FROM unnest($1::text[]) AS u ORDER BY u", []any{[]string{"b", "a"}}},
		{"SELECT '{1,'::int[]", nil},
		{"SELECT '[0:1][1:2]={{1,2},{3,NULL}}'::int4[] AS shaped, $1::int4[] AS param, array_dims($1::int4[])", []any{[][]int32{{1, 2}, {3, 4}}}},
		{"SELECT ARRAY[[1.5, 2], [3, 4]]::float8[], '[-2:-1]={a,b}'::text[], array_agg(ARRAY[id, id]) FROM arr", nil},
		{"SELECT 1 = ANY(1)", nil},
	}
}

// scanAll reads every row as text-rendered values: arrays are scanned into
// []pgtype.Text-like generic values by pgx and printed, so that fickle's and
// PostgreSQL's answers compare as strings, and errors as SQLSTATEs.
func scanAll(ctx context.Context, conn *pgx.Conn, q arrayQuery) string {
	rows, err := conn.Query(ctx, q.sql, q.args...)
	if err != nil {
		return "ERROR " + sqlState(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return "ERROR " + sqlState(err) + " " + err.Error()
		}
		out = append(out, fmt.Sprint(vals...))
	}
	if err := rows.Err(); err != nil {
		return "ERROR " + sqlState(err)
	}
	return strings.Join(out, "\n")
}

// TestPgxArraysMatchPostgres round-trips array columns and = ANY($1)
// parameters through pgx in every exec mode (binary parameters and
// results in the cached modes, text in the simple protocol) against fickle
// and PostgreSQL 15, and requires the same rows and SQLSTATEs.
func TestPgxArraysMatchPostgres(t *testing.T) {
	port := startPostgres(t)
	srv := startFickle(t)
	for i, mode := range execModes {
		t.Run(mode.String(), func(t *testing.T) {
			db := freshPostgresDB(t, port)
			pgDSN := strings.Replace(postgresDSN(port), "/postgres?", "/"+db+"?", 1)
			mine, theirs := connectPgx(t, srv.DSN(), mode), connectPgx(t, pgDSN, mode)
			ctx := testCtx(t)
			for _, conn := range []*pgx.Conn{mine, theirs} {
				if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
					t.Fatal(err)
				}
				for _, s := range arraySetup {
					if _, err := conn.Exec(ctx, strings.Replace(s, "arr ", fmt.Sprintf("arr%d ", i), 1)); err != nil {
						t.Fatalf("%s: %v", s, err)
					}
				}
				for _, r := range arrayRows() {
					if _, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO arr%d VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::uuid[], $10, $11, $12, $13, $14)", i), r...); err != nil {
						t.Fatalf("insert %v: %v", r[0], err)
					}
				}
			}
			for _, q := range arrayQueries() {
				q.sql = strings.ReplaceAll(q.sql, "FROM arr ", fmt.Sprintf("FROM arr%d ", i))
				got, want := scanAll(ctx, mine, q), scanAll(ctx, theirs, q)
				if got != want {
					t.Errorf("%s %v:\nfickle:\n%s\npostgres:\n%s", q.sql, q.args, got, want)
				}
			}
		})
	}
}

// TestPgxScansArrayColumnsIntoSlices pins the typed scans applications
// write: []int32, []int64, []string and []*string (NULL elements) from
// fickle's binary results, and a []int64 sent as = ANY($1).
func TestPgxScansArrayColumnsIntoSlices(t *testing.T) {
	srv := startFickle(t)
	conn := connectPgx(t, srv.DSN(), pgx.QueryExecModeCacheStatement)
	ctx := testCtx(t)
	if _, err := conn.Exec(ctx, "CREATE TABLE s (id int8 PRIMARY KEY, tags text[], nums int4[])"); err != nil {
		t.Fatal(err)
	}
	x := "x"
	if _, err := conn.Exec(ctx, "INSERT INTO s VALUES (1, $1, $2), (2, $3, $4)", []*string{&x, nil}, []int32{4, 5}, []string{}, []int32{}); err != nil {
		t.Fatal(err)
	}
	var tags []*string
	var nums []int32
	if err := conn.QueryRow(ctx, "SELECT tags, nums FROM s WHERE id = ANY($1)", []int64{1}).Scan(&tags, &nums); err != nil {
		t.Fatal(err)
	}
	if len(tags) != 2 || tags[0] == nil || *tags[0] != "x" || tags[1] != nil || !reflect.DeepEqual(nums, []int32{4, 5}) {
		t.Errorf("got tags %v nums %v", tags, nums)
	}
	var empty []string
	if err := conn.QueryRow(ctx, "SELECT tags FROM s WHERE id = 2").Scan(&empty); err != nil || empty == nil || len(empty) != 0 {
		t.Errorf("empty array scanned as %#v, %v", empty, err)
	}
}

// TestLibpqArraysRoundTrip drives arrays through database/sql and lib/pq,
// which sends pq.Array parameters as text literals and reads text results:
// = ANY($1) over int8 and text, and array columns scanned back into slices.
func TestLibpqArraysRoundTrip(t *testing.T) {
	srv := startFickle(t)
	db := openLibpq(t, srv.DSN())
	ctx := testCtx(t)
	if _, err := db.ExecContext(ctx, "CREATE TABLE lp (id int8 PRIMARY KEY, tags text[], vals float8[])"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO lp VALUES ($1, $2, $3), ($4, $5, $6)",
		1, pq.Array([]string{"a b", `q"`, ""}), pq.Array([]float64{1.5, -2}), 2, pq.Array([]string{}), pq.Array([]float64{})); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	rows, err := db.QueryContext(ctx, "SELECT id FROM lp WHERE id = ANY($1) AND $2 <> ALL(tags) ORDER BY id", pq.Array([]int64{1, 2, 3}), "zz")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil || !reflect.DeepEqual(ids, []int64{1, 2}) {
		t.Errorf("= ANY: got %v, %v", ids, err)
	}
	var tags []string
	var vals []float64
	if err := db.QueryRowContext(ctx, "SELECT tags, vals FROM lp WHERE id = 1").Scan(pq.Array(&tags), pq.Array(&vals)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tags, []string{"a b", `q"`, ""}) || !reflect.DeepEqual(vals, []float64{1.5, -2}) {
		t.Errorf("got tags %q vals %v", tags, vals)
	}
}
