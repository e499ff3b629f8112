package sqlexec

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/isolation"
)

// literalTemplates are statements with {} where a number goes, {s} where a
// string does, {q} a quoted number and {d} a quoted interval; they cover what a number can mean to the binder (a value
// of each kind, a sign, a column position, a type modifier, a LIMIT), what
// a string compared with a column of each type means, and the errors they
// can cause.
var literalTemplates = []string{
	"SELECT {}",
	"SELECT {}, {} AS x, -{}, - {}, +{}",
	"SELECT {} + {}, {} - {}, {} * {}, {} / {}, {} % {}",
	"SELECT {}::text, CAST({} AS int), {}::numeric(6,2), {}::float8",
	"SELECT pg_typeof({}), pg_typeof(-{}), pg_typeof({} + 1)",
	"SELECT k, v FROM lt WHERE k = {}",
	"SELECT k, v FROM lt WHERE k = -{} OR v > {}",
	"SELECT k FROM lt WHERE k IN ({}, {}, {}) ORDER BY 1",
	"SELECT k FROM lt WHERE k BETWEEN {} AND {} ORDER BY k DESC LIMIT {} OFFSET {}",
	"SELECT k, v FROM lt ORDER BY 2, 1 LIMIT {}",
	"SELECT v, count(*) FROM lt WHERE k > {} GROUP BY 1 HAVING count(*) > {} ORDER BY 1",
	"SELECT CASE WHEN k > {} THEN {} ELSE {} END FROM lt ORDER BY k",
	"SELECT coalesce(NULL, {}), greatest({}, {}), abs({}), round({}, 2)",
	"SELECT k FROM lt WHERE b = {} ORDER BY k",
	"SELECT k FROM lt WHERE n < {} ORDER BY k",
	"SELECT k FROM lt WHERE t = {} ORDER BY k",
	"SELECT k FROM lt WHERE f >= {} ORDER BY k",
	"SELECT {} UNION ALL SELECT {} ORDER BY 1",
	"SELECT x FROM generate_series(1, 10) x WHERE x > {} LIMIT {}",
	"SELECT (SELECT max(k) FROM lt WHERE k < {}) + {}",
	"SELECT sum(k) OVER (ORDER BY k ROWS 1 PRECEDING), {} FROM lt ORDER BY k",
	"SELECT substr('abcdef', {}, {})",
	"SELECT {} + 'x'",
	"SELECT nosuch + {}",
	"SELECT {} FROM nosuch",
	"SELECT k FROM lt WHERE k = {} AND nosuch = 1",
	"SELECT {}::int2, {}::int4",
	"SELECT k FROM lt ORDER BY {}",
	"SELECT k FROM lt GROUP BY {}",
	"SELECT ARRAY[{}, {}]",
	"SELECT k FROM lt WHERE t = '5' AND k > {} ORDER BY k",
	"SELECT 'a' || {}, {} || 'b', {} = '1', '2' < {}",
	"SELECT interval '1 day' * {}, date '2020-01-01' + {}, interval '1' day * {}",
	"SELECT t, t || {} FROM lt WHERE k = {}",
	"SELECT /* {} */ {} -- {}\n",
	"SELECT k FROM lt WHERE k = {};",
	"INSERT INTO lt (k, v, b, n, t, s) VALUES ({}, {}, {}, {}, {}, {}) RETURNING *",
	"INSERT INTO lt (k, v) VALUES ({}, {}), ({}, {})",
	"UPDATE lt SET v = v + {} WHERE k = {} RETURNING k, v",
	"UPDATE lt SET n = {}, s = {} WHERE k > {}",
	"UPDATE lt SET v = v / {} WHERE k = {}",
	"DELETE FROM lt WHERE k = {} OR v < -{} RETURNING k",
	"DELETE FROM lt WHERE nosuch = {}",
	"SELECT k FROM lt WHERE k = {s}",
	"SELECT k, t FROM lt WHERE t = {s} OR t < {s} ORDER BY k",
	"SELECT k FROM lt WHERE n = {s} ORDER BY k",
	"SELECT k FROM lt WHERE b >= {s} AND k < {} ORDER BY k",
	"SELECT k FROM lt WHERE lt.f <> {s} ORDER BY k LIMIT {}",
	"SELECT k FROM lt WHERE s = {s}",
	"SELECT k FROM st WHERE vc = {s}",
	"SELECT k FROM st WHERE ch = {s}",
	"SELECT k FROM st WHERE \"vc\" > {s} ORDER BY k",
	"SELECT k FROM st WHERE d = {s} OR d > {s}",
	"SELECT k FROM st WHERE ts <= {s}",
	"SELECT k FROM st WHERE tz = {s}",
	"SELECT k FROM st WHERE bo = {s}",
	"SELECT k FROM st WHERE bt = {s}",
	"SELECT k FROM st WHERE iv = {s}",
	"SELECT k FROM st WHERE nn = {s}",
	"SELECT k FROM st WHERE current_date > {s} AND k = {}",
	"SELECT x FROM (SELECT 'abc' AS x) q WHERE x = {s}",
	"SELECT k FROM st WHERE CASE WHEN vc = {s} THEN true END",
	"SELECT k FROM st WHERE k IN (SELECT k FROM lt WHERE t = {s})",
	"UPDATE st SET vc = {s} WHERE vc = {s} RETURNING k, vc",
	"DELETE FROM st WHERE ch = {s} RETURNING k, ch",
	"INSERT INTO st (k, vc) SELECT k + 10, t FROM lt WHERE t = {s} RETURNING k, vc",
	"SELECT k + {q}, v * {q}, f - {q}, n / {q}, b - {q} FROM lt WHERE k = {}",
	"SELECT t + {q}, s * {q} FROM lt WHERE k = {q}",
	"SELECT d - {q}, d + {q}, ts - {d}, ts + {d}, iv * {q}, tz - {d}, nn * {q} FROM st ORDER BY k",
	"SELECT d - {s}, ts - {s} FROM st ORDER BY k",
	"UPDATE lt SET v = v + {q} WHERE k = {q} RETURNING v",
	"UPDATE lt SET v = v - {q}, n = n * {q}, s = s + {q} WHERE k = {} RETURNING v, n, s",
	"UPDATE st SET d = d + {q}, ts = ts - {d}, nn = nn / {q} WHERE k = {} RETURNING d, ts, nn",
	"UPDATE st SET vc = vc + {q} WHERE k = {}",
	"INSERT INTO st (k, vc) VALUES ({}, {s}) RETURNING *",
	"INSERT INTO st (k, ch, nn) VALUES ({}, {s}, {q}) RETURNING *",
	"INSERT INTO st (k, d, ts) VALUES ({}, {s}, {s}), ({}, {s}, NULL) RETURNING *",
	"INSERT INTO st (k, tz, bo) VALUES ({}, {s}, {s}) RETURNING k, bo",
	"INSERT INTO st (k, bt, iv) VALUES ({}, {s}, {d}) RETURNING *",
	"INSERT INTO st (k, vc) VALUES ({}, {s}), ({}, {s}) ON CONFLICT (k) DO NOTHING RETURNING k, vc",
	"INSERT INTO lt (k, t) VALUES ({}, {s}) ON CONFLICT (k) DO UPDATE SET t = {s} RETURNING k, t",
	"INSERT INTO at (k, im) VALUES ({}, {d}) RETURNING *",
	"INSERT INTO at (k, dm, dp) VALUES ({}, {d}, {q}) RETURNING *",
	"INSERT INTO at (k, j, ia) VALUES ({}, {s}, {s}) RETURNING *",
	"INSERT INTO at (k, g) VALUES ({}, {q})",
	"UPDATE st SET vc = {s}, ch = {s} WHERE k = {} RETURNING *",
	"UPDATE st SET iv = {d}, nn = {q} WHERE k = {} RETURNING *",
	"UPDATE at SET im = {d} WHERE k = {} RETURNING *",
	"UPDATE at SET dm = {d}, dp = {q} FROM lt WHERE at.k = lt.k AND lt.k = {} RETURNING at.*",
	"UPDATE at SET j = {s}, ia = {s} WHERE k = {} RETURNING *",
	"SELECT k FROM st WHERE vc IN ({s}, {s}) OR ch NOT IN ({s}) ORDER BY k",
	"SELECT k FROM st WHERE d IN ({s}, {s}, {s}) OR bo IN ({s}) ORDER BY k",
	"SELECT k FROM lt WHERE t IN ({s}, {s}) AND k IN ({}, {q}) ORDER BY k",
	"SELECT {s}::date, {s}::text AS x",
	"SELECT {s}::timestamptz, {s}::timestamp, {s}::time",
	"SELECT {s}::int + {}, {s}::numeric * 2, {s}::float8",
	"SELECT {s}::bool, {s}::bytea, {s}::jsonb, {s}::json",
	"SELECT {s}::interval, {d}::interval, {d}::interval * 2",
	"SELECT {s}::regclass, {s}::varchar, {s}::bpchar, {s}::name, {s}::\"char\"",
	"SELECT {s}::dpos, {s}::dmin",
	"SELECT pg_typeof({s}::int8), {s}::text || 'x', {s}::date - {s}::date",
	"SELECT k FROM st WHERE d > {s}::date OR ts < {s}::timestamp ORDER BY k",
	"SELECT k FROM st WHERE tz = {s}::timestamptz AND k < {}",
	"SELECT k FROM lt WHERE t = {s}::text OR k = {s}::int ORDER BY k",
	"INSERT INTO st (k, d, tz) VALUES ({}, {s}::date, {s}::timestamptz) RETURNING *",
	"INSERT INTO st (k, vc, nn, iv) VALUES ({}, {s}::text, {s}::numeric, {d}::interval) RETURNING *",
	"INSERT INTO at (k, im, dp) VALUES ({}, {d}::interval, {q}::int) RETURNING *",
	"UPDATE st SET ts = {s}::timestamp, ch = {s}::text WHERE k = {} RETURNING *",
	"UPDATE st SET vc = {s}::text WHERE k = {}",
	"UPDATE st SET d = {s}::timestamptz WHERE k = {} RETURNING d",
}

// literalNumberStrings are quoted numbers, as pgx's simple protocol sends
// numbers, and literalIntervals quoted intervals.
var (
	literalNumberStrings = []string{"'1'", "'-3'", "'5'", "' 5 '", "'1.5'", "'0'", "'99999999999'", "'1e3'", "'x'"}
	literalIntervals     = []string{"'1 day'", "'-2 hours'", "'1'", "'00:30'", "'P1D'", "'x'"}
)

var literalStrings = []string{
	"'1'", "'5'", "' 5 '", "'-3'", "'1.5'", "'1e3'", "''", "'abc'", "'abcd'", "'ab '", "'it''s'", "'x'",
	"'2020-01-01'", "'2020-01-01 10:00'", "'2020-01-01 10:00+02'", "'true'", "'t'", "'1 day'", "'\\x41'",
	"'NaN'", "'A'", "'abc  '", "'99999999999'", "'now'", "'today'", "'{1,2}'", "'[1, \"a\"]'", "'lt'", "'10:00'", "'infinity'",
}

var literalValues = []string{
	"0", "1", "2", "3", "7", "007", "-1", "- 4", "10", "2147483647", "2147483648", "-2147483648",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "1.5", "-0.25", ".5",
	"1e3", "2.5e-1", "1.", "99999999999999999999999", "1e400", "32768", "40000",
}

// literalCacheSession is a session over the tables the literal cache's
// tests use.
func literalCacheSession(t *testing.T) *Session {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1, Record: true})
	eng, err := NewEngine(Config{Store: store, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "tester", Database: "fickle"})
	t.Cleanup(s.Close)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE lt (k int PRIMARY KEY, v int, b bigint, n numeric(7,2), t text, f float8, s smallint)",
		"INSERT INTO lt SELECT i, i % 3, i::int8 * 1000000000, i / 4.0, i::text, i / 3.0, i FROM generate_series(1, 12) i",
		"CREATE TABLE st (k int PRIMARY KEY, vc varchar(3), ch char(4), d date, ts timestamp, tz timestamptz, bo bool, bt bytea, iv interval, nn numeric(4,1))",
		"CREATE DOMAIN dmin AS interval minute",
		"CREATE DOMAIN dpos AS int CHECK (VALUE > 0)",
		"CREATE TABLE at (k int PRIMARY KEY, im interval minute, dm dmin, dp dpos, j jsonb, ia int[], g int GENERATED ALWAYS AS (k * 2) STORED)",
		"INSERT INTO at (k) VALUES (1), (2), (3)",
		"INSERT INTO st VALUES (1, 'abc', 'ab', '2020-01-01', '2020-01-01 10:00', '2020-01-01 10:00+02', true, 'A', '1 day', 1.5), (2, 'x', 'abc', '2021-01-01', NULL, NULL, false, 'it''s', '2 days', 99.9), (3, '1', 'it''s', NULL, '2020-01-01', now(), NULL, '', '1 day', -3)",
	} {
		sts, err := s.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.Prepare(sts[0], nil)
		if err == nil {
			_, err = s.Execute(ctx, p, nil)
		}
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return s
}

// TestLiteralCacheTakesAssignedAndCastStrings pins which strings assigned
// to columns or cast to a type the cache takes: a value its column's type
// and modifier accept, and not one that PostgreSQL's planner would fail on
// (too long for varchar(3)), one an interval column's fields read
// differently, nor a domain's.
func TestLiteralCacheTakesAssignedAndCastStrings(t *testing.T) {
	s := literalCacheSession(t)
	for _, c := range []struct {
		sql   string
		taken bool
	}{
		{"INSERT INTO st (k, vc, ch, d) VALUES (10, 'ab', 'x', '2020-01-02') RETURNING *", true},
		{"INSERT INTO st (k, vc) VALUES (10, 'abc'), (11, 'de')", true},
		{"UPDATE st SET vc = 'xyz', bo = 't' WHERE k = 1", true},
		{"INSERT INTO lt (k, t) VALUES (1, 'a') ON CONFLICT (k) DO UPDATE SET t = 'b'", true},
		{"UPDATE st SET vc = 'abcd' WHERE k = 99", false},
		{"INSERT INTO st (k, nn) VALUES (10, '12345')", false},
		{"INSERT INTO at (k, im) VALUES (10, '1')", false},
		{"UPDATE at SET dm = '1' WHERE k = 1", false},
		{"INSERT INTO st (k, ts) VALUES (10, 'now')", false},
		{"INSERT INTO st (k, d, tz) VALUES (10, '2020-01-01'::date, '2020-01-01 10:00+00'::timestamptz)", true},
		{"SELECT k FROM st WHERE d > '2020-01-01'::date AND vc = 'x'::text", true},
		{"UPDATE st SET vc = 'abcd'::text WHERE k = 99", false},
		{"SELECT '-1'::dpos", false},
	} {
		if _, _, ok := runLiteralsForTest(s, c.sql); ok != c.taken {
			t.Errorf("%s: taken by the literal cache %v, want %v", c.sql, ok, c.taken)
		}
	}
}

// TestLiteralCacheMatchesThePlainPath runs generated statements through the
// literal cache and as they are, each in a transaction that is rolled back,
// and requires the same rows, columns, tags, errors (with positions) and
// history statements; the cache must also take most of them.
func TestLiteralCacheMatchesThePlainPath(t *testing.T) {
	s := literalCacheSession(t)
	rng := rand.New(rand.NewSource(1))
	cached, total, succeeded, cachedSucceeded := 0, 0, 0, 0
	for _, tmpl := range literalTemplates {
		for range 12 {
			sql := tmpl
			for strings.Contains(sql, "{}") {
				sql = strings.Replace(sql, "{}", literalValues[rng.Intn(len(literalValues))], 1)
			}
			for _, r := range []struct {
				mark   string
				values []string
			}{{"{s}", literalStrings}, {"{q}", literalNumberStrings}, {"{d}", literalIntervals}} {
				for strings.Contains(sql, r.mark) {
					sql = strings.Replace(sql, r.mark, r.values[rng.Intn(len(r.values))], 1)
				}
			}
			plain, plainHist := runPlainForTest(s, sql)
			lit, litHist, ok := runLiteralsForTest(s, sql)
			total++
			if !strings.HasPrefix(plain, "ERROR") {
				succeeded++
				if ok {
					cachedSucceeded++
				}
			}
			if !ok {
				continue
			}
			cached++
			if lit != plain {
				t.Errorf("%s:\nthrough the literal cache:\n%s\nas it is:\n%s", sql, lit, plain)
			}
			if litHist != plainHist && !strings.HasPrefix(plain, "ERROR") {
				t.Errorf("%s: history %s, want %s", sql, litHist, plainHist)
			}
		}
	}
	// Errors of the values (1.5 for an int4 column) fall back by design; of
	// the statements that succeed, the cache must take most.
	t.Logf("the literal cache took %d of %d statements, %d of the %d that succeed", cached, total, cachedSucceeded, succeeded)
	if cachedSucceeded < succeeded*7/10 {
		t.Errorf("the literal cache took %d of the %d statements that succeed", cachedSucceeded, succeeded)
	}
}

func runPlainForTest(s *Session, sql string) (out, hist string) {
	if err := s.Begin(TxnOptions{}, true); err != nil {
		return errText(err), ""
	}
	defer s.Rollback()
	sts, err := s.Parse(sql)
	if err != nil {
		return errText(err), ""
	}
	p, err := s.Prepare(sts[0], nil)
	if err != nil {
		return errText(err), ""
	}
	return executeForTest(s, p, nil), fmt.Sprintf("%+v", p.historyStatement(true))
}

func runLiteralsForTest(s *Session, sql string) (out, hist string, ok bool) {
	p, params, ok := s.PrepareLiterals(sql)
	if !ok {
		return "", "", false
	}
	if err := s.Begin(TxnOptions{}, true); err != nil {
		return errText(err), "", true
	}
	defer s.Rollback()
	return executeForTest(s, p, params), fmt.Sprintf("%+v", p.historyStatement(true)), true
}

func executeForTest(s *Session, p *Prepared, params []any) string {
	res, err := s.Execute(context.Background(), p, params)
	if err != nil {
		return errText(err)
	}
	return fmt.Sprintf("%+v\n%s", res.Columns, formatResult(s, res))
}

// TestLiteralCacheReplansFromTheTextAfterDDL prepares a statement through
// the literal cache, lets another session change the compared column's type,
// and requires the statement to run as its text does on the new table: its
// string was read as the old type's value.
func TestLiteralCacheReplansFromTheTextAfterDDL(t *testing.T) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	s1 := eng.NewSession(SessionInfo{User: "tester", Database: "fickle"})
	defer s1.Close()
	s2 := eng.NewSession(SessionInfo{User: "tester", Database: "fickle"})
	defer s2.Close()
	for _, q := range []string{
		"CREATE TABLE r (k int PRIMARY KEY, v int)",
		"INSERT INTO r VALUES (1, 2), (2, 20)",
	} {
		sts, _ := s2.Parse(q)
		p, err := s2.Prepare(sts[0], nil)
		if err == nil {
			_, err = s2.Execute(context.Background(), p, nil)
		}
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const q = "SELECT k, v FROM r WHERE v < '3'"
	p, params, ok := s1.PrepareLiterals(q)
	if !ok {
		t.Fatal("not through the literal cache")
	}
	sts, _ := s2.Parse("ALTER TABLE r ALTER COLUMN v TYPE text")
	ddl, err := s2.Prepare(sts[0], nil)
	if err == nil {
		_, err = s2.Execute(context.Background(), ddl, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	got := executeForTest(s1, p, params)
	want, _ := runPlainForTest(s1, q)
	if got != want || !strings.Contains(got, "20") {
		t.Errorf("after the DDL the cached statement gives\n%s\nits text gives\n%s", got, want)
	}
}
