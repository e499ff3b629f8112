package sqlexec

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fickle-db/fickle/internal/testpg"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The sweep calls every signature of every system function (sysFuncs) with
// arguments of each kind: literals (every combination of a few values per
// type, so that lookups both find and miss), the typed columns of
// sweepSchema's table, and NULL in each position. On fickle alone no call
// may fail with XX000; against PostgreSQL 15 (FICKLE_TEST_PG) every call must
// give the same rows or the same SQLSTATE, but for the differences
// sweepKnownDifference explains.

// sweepSchema is the table whose columns the calls read: one column per
// argument type, holding that type's first literal.
const sweepSchema = `CREATE TABLE sweep_args (id serial PRIMARY KEY, c_bool bool, c_int2 int2, c_int4 int4, c_int8 int8,
	c_name name, c_numeric numeric, c_oid oid, c_regclass regclass, c_text text, c_float8 float8, c_char "char",
	c_regdictionary regdictionary, c_regconfig regconfig, c_json json, c_jsonb jsonb, c_tsquery tsquery, c_tid tid, c_refcursor refcursor);
INSERT INTO sweep_args (c_bool, c_int2, c_int4, c_int8, c_name, c_numeric, c_oid, c_regclass, c_text, c_float8, c_char,
	c_regdictionary, c_regconfig, c_json, c_jsonb, c_tsquery, c_tid, c_refcursor)
	VALUES (true, 1, 23, 10240, 'postgres', 123.45, 1259, 'sweep_args', 'sweep_args', 0.001, 'r', 'english_stem', 'english',
	'{"a": "sweep_args cats", "b": [1, true]}', '{"a": "sweep_args cats", "n": 1.5}', 'cat & !dog', '(0,1)', 'nosuch')`

// sweepLiterals are the literal arguments of each type: names of objects
// that exist and do not, privilege names, OIDs of a catalog table and a
// type, attribute numbers.
var sweepLiterals = map[types.Oid][]string{
	types.OidBool:          {"true", "false"},
	types.OidInt2:          {"1::int2", "0::int2"},
	types.OidInt4:          {"23", "-1"},
	types.OidInt8:          {"10240::int8", "-20000::int8"},
	types.OidName:          {"'postgres'::name", "'nosuch'::name"},
	types.OidNumeric:       {"123.45", "-1e20"},
	types.OidOid:           {"1259::oid", "23::oid", "0::oid"},
	types.OidRegclass:      {"'sweep_args'::regclass", "'pg_class'::regclass"},
	types.OidText:          {"'sweep_args'", "'id'", "'select'", "'nosuch'"},
	types.OidFloat8:        {"0.001::float8", "-1::float8"},
	types.OidChar:          {`'r'::"char"`, `'f'::"char"`},
	types.OidRegdictionary: {"'english_stem'::regdictionary", "'simple'::regdictionary"},
	types.OidRegconfig:     {"'english'::regconfig", "'simple'::regconfig"},
	types.OidJSON:          {`'{"a": "sweep_args cats", "b": [1, true]}'::json`, `'"nosuch"'::json`},
	types.OidJSONB:         {`'{"a": "sweep_args cats", "n": 1.5}'::jsonb`, `'["all"]'::jsonb`},
	types.OidTSQuery:       {"'cat & !dog'::tsquery", "'id:*'::tsquery"},
	types.OidTID:           {"'(0,1)'::tid", "'(5,1)'::tid"},
	types.OidRefcursor:     {"'nosuch'::refcursor"},
}

// sweepParams are the text values the sweep binds to each parameter of a
// call written with $n placeholders, whose types each server infers from
// the function's signatures.
var sweepParams = map[types.Oid]string{
	types.OidBool: "true", types.OidInt2: "1", types.OidInt4: "23", types.OidInt8: "10240", types.OidName: "postgres",
	types.OidNumeric: "123.45", types.OidOid: "1259", types.OidRegclass: "sweep_args", types.OidText: "sweep_args",
	types.OidFloat8: "0.001", types.OidChar: "r", types.OidRegdictionary: "english_stem",
	types.OidRegconfig: "english", types.OidJSON: `{"a": "cats"}`, types.OidJSONB: `["all"]`, types.OidTSQuery: "cat",
	types.OidTID: "(0,1)", types.OidRefcursor: "nosuch",
}

// sweepSkipped are the functions the sweep does not call: they change the
// session or the store (nextval, setval, set_config, fickle_checkpoint,
// the large-object functions) or read session state the two servers do
// not share (currval, lastval).
var sweepSkipped = map[string]bool{"nextval": true, "setval": true, "currval": true, "lastval": true,
	"set_config": true, "fickle_checkpoint": true, "lo_create": true, "lo_creat": true, "lo_open": true, "lo_close": true,
	"loread": true, "lowrite": true, "lo_lseek": true, "lo_lseek64": true, "lo_tell": true, "lo_tell64": true,
	"lo_truncate": true, "lo_truncate64": true, "lo_unlink": true, "lo_get": true, "lo_put": true, "lo_from_bytea": true}

// sweepValuesDiffer are the functions whose values legitimately differ
// between the servers (process ids, transaction ids, version strings,
// database names, ports): only their resolution is compared, by calling
// them in a query that keeps no value.
var sweepValuesDiffer = map[string]bool{"version": true, "pg_backend_pid": true, "txid_current": true,
	"pg_current_xact_id": true, "current_database": true, "inet_server_port": true, "inet_server_addr": true,
	"inet_client_addr": true, "inet_client_port": true, "database_to_xml": true}

// sweepKnownDifference reports why fickle may answer a call differently
// from PostgreSQL, or "" when it must not: fickle keeps no on-disk sizes
// and refuses the size functions with 0A000, and lists no columns of the
// system catalogs, whose pg_describe_object it refuses; it stores expressions as
// their text, so pg_get_expr's first argument is text where PostgreSQL's
// is pg_node_tree, whose input function refuses every literal (its real
// argument, pg_attrdef.adbin and its kin, is checked by sweepCatalogCalls).
func sweepKnownDifference(sql, fickle string) string {
	for _, f := range []string{"pg_relation_size(", "pg_table_size(", "pg_total_relation_size(", "pg_indexes_size(", "pg_database_size("} {
		if strings.HasPrefix(sql, "SELECT "+f) && strings.HasPrefix(fickle, "ERROR 0A000") {
			return "on-disk sizes"
		}
	}
	if strings.HasPrefix(sql, "SELECT pg_get_expr(") && !strings.HasPrefix(sql, "SELECT pg_get_expr(NULL") {
		return "pg_node_tree"
	}
	if strings.HasPrefix(sql, "SELECT acldefault(") && strings.Contains(fickle, "acldefault:_text") {
		return "aclitem[] as text[]"
	}
	if strings.Contains(sql, "_to_xml(") && strings.Contains(sql, "pg_class") {
		return "the rows of pg_class (fickle's catalog holds its own)"
	}
	if strings.Contains(sql, "pg_describe_object(") && strings.HasPrefix(fickle, "ERROR 0A000") {
		return "columns of system catalogs (pg_attribute lists none)"
	}
	return ""
}

// sweepCatalogCalls are calls the functions get from clients, over the
// catalog rows they are meant for.
var sweepCatalogCalls = []string{
	"SELECT pg_get_expr(adbin, adrelid), pg_get_expr(adbin, adrelid, true) FROM pg_attrdef WHERE adrelid = 'sweep_args'::regclass",
	"SELECT pg_get_constraintdef(oid), pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid = 'sweep_args'::regclass",
	"SELECT pg_get_indexdef(indexrelid), pg_get_indexdef(indexrelid, 1, true) FROM pg_index WHERE indrelid = 'sweep_args'::regclass",
	"SELECT pg_get_serial_sequence('sweep_args', 'id'), pg_get_userbyid(relowner), obj_description(oid, 'pg_class') FROM pg_class WHERE relname = 'sweep_args'",
	"SELECT obj_description(oid, 'pg_proc') FROM pg_proc WHERE proname = 'format_type'",
	"SELECT obj_description(oid, 'pg_type'), format_type(oid, NULL) FROM pg_type WHERE typname IN ('int4', 'numeric', 'bpchar') ORDER BY 1",
}

// sweepCall is a statement of the sweep and the text values of its
// parameters, separated by commas ("" when it has none).
type sweepCall struct {
	sql, params string
}

// sweepCalls returns the SELECT statements of the sweep.
func sweepCalls() []sweepCall {
	var names []string
	for n := range sysFuncs {
		if !sweepSkipped[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var calls []sweepCall
	seen := map[sweepCall]bool{}
	add := func(name string, args []string, from bool, params ...string) {
		call := name + "(" + strings.Join(args, ", ") + ")"
		sql := "SELECT " + call
		if sweepValuesDiffer[name] {
			sql = "SELECT " + call + " IS NULL AND false"
		}
		if from {
			sql += " FROM sweep_args"
		}
		c := sweepCall{sql, strings.Join(params, ",")}
		if !seen[c] {
			seen[c] = true
			calls = append(calls, c)
		}
	}
	for _, name := range names {
		for _, f := range sysFuncs[name] {
			// Literals: every combination.
			combos := [][]string{nil}
			for _, a := range f.args {
				var next [][]string
				for _, c := range combos {
					for _, lit := range sweepLiterals[a.Oid] {
						next = append(next, append(append([]string(nil), c...), lit))
					}
				}
				combos = next
			}
			for _, c := range combos {
				add(name, c, false)
			}
			if len(f.args) == 0 {
				continue
			}
			// Typed columns, then NULL in each position.
			cols := make([]string, len(f.args))
			for i, a := range f.args {
				cols[i] = "c_" + a.Name()
			}
			add(name, cols, true)
			// Parameters, whose types the call's signatures decide.
			placeholders, params := make([]string, len(f.args)), make([]string, len(f.args))
			for i, a := range f.args {
				placeholders[i], params[i] = fmt.Sprintf("$%d", i+1), sweepParams[a.Oid]
			}
			// A tid's text holds a comma, which parameter lists are split
			// on: a call taking one is made with literals alone.
			if !slices.ContainsFunc(params, func(p string) bool { return strings.Contains(p, ",") }) {
				add(name, placeholders, false, params...)
			}
			for i := range f.args {
				args := make([]string, len(f.args))
				for j, a := range f.args {
					args[j] = sweepLiterals[a.Oid][0]
				}
				args[i] = "NULL"
				add(name, args, false)
			}
		}
	}
	return calls
}

// TestSysFuncsSweepNeverFailsInternally: no call of the sweep answers XX000
// (a Go type assertion, a missing case) on fickle.
func TestSysFuncsSweepNeverFailsInternally(t *testing.T) {
	for name, a := range sysFuncs {
		if sweepSkipped[name] {
			continue
		}
		for _, f := range a {
			for _, arg := range f.args {
				if len(sweepLiterals[arg.Oid]) == 0 || sweepParams[arg.Oid] == "" {
					t.Fatalf("the sweep has no literal of type %s: add it to sweepLiterals, sweepParams and sweepSchema", arg.Name())
				}
			}
		}
	}
	ss := sweepSession(t)
	calls := sweepCalls()
	for _, c := range calls {
		if out := runSQL(ss, c.sql, c.params); strings.HasPrefix(out, "ERROR XX000") {
			t.Errorf("%s: %s", c.sql, strings.TrimSpace(out))
		}
	}
	if len(calls) < 500 {
		t.Errorf("the sweep made %d calls; expected every signature with several arguments", len(calls))
	}
}

// TestSysFuncsSweepMatchesPostgres runs the sweep on fickle and on
// PostgreSQL 15 (FICKLE_TEST_PG, as TestScriptsAgainstPostgres) and requires
// the same rows or the same SQLSTATE for every call.
func TestSysFuncsSweepMatchesPostgres(t *testing.T) {
	dsn := testpg.DSN(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	const db = "sqlexec_diff_sysfuncs_sweep"
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	cfg := admin.Config().Copy()
	cfg.Database = db
	pg, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	if out := pgOutput(ctx, pg, sweepSchema); strings.HasPrefix(out, "ERROR") {
		t.Fatal(out)
	}
	ss := sweepSession(t)
	differ := 0
	calls := sweepCalls()
	for _, sql := range sweepCatalogCalls {
		calls = append(calls, sweepCall{sql: sql})
	}
	for _, c := range calls {
		mine, theirs := runSQL(ss, c.sql, c.params), pgOutputParams(ctx, pg, c.sql, c.params)
		if normalizeDiff(mine) != normalizeDiff(theirs) && sweepKnownDifference(c.sql, mine) == "" {
			differ++
			t.Errorf("%s\n  fickle: %s\n  postgres: %s", c.sql, strings.ReplaceAll(strings.TrimSpace(mine), "\n", " / "), strings.ReplaceAll(strings.TrimSpace(theirs), "\n", " / "))
		}
	}
	t.Logf("%d calls, %d differ", len(calls), differ)
}

// sweepSession is a session on a fresh engine holding sweepSchema, as user
// postgres (the bootstrap superuser, like the PostgreSQL side's).
func sweepSession(t *testing.T) *scriptSession {
	t.Helper()
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	ss := &scriptSession{s: eng.NewSession(SessionInfo{ProcessID: 1, User: "postgres", Database: "fickle"})}
	t.Cleanup(ss.s.Close)
	if out := runSQL(ss, sweepSchema, ""); strings.HasPrefix(out, "ERROR") {
		t.Fatal(fmt.Sprint(out))
	}
	return ss
}
