package sqlexec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/internal/testpg"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// TestScriptsAgainstPostgres runs the sql blocks of testdata/scripts one
// statement at a time on the engine and on a real PostgreSQL 15 and reports
// statements whose SQLSTATE or rows differ. It needs a server: set
// FICKLE_TEST_PG to a DSN of a database it may drop and create tables in
// (for example postgres://postgres@localhost:55434/postgres). Known,
// intended differences are listed in testdata/pg_differences.txt.
func TestScriptsAgainstPostgres(t *testing.T) {
	dsn := testpg.DSN(t)
	files, err := filepath.Glob("testdata/scripts/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	known := knownLines(t, "testdata/pg_differences.txt")
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		t.Run(name, func(t *testing.T) {
			db := "sqlexec_diff_" + name
			if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
				t.Fatal(err)
			}
			if _, err := admin.Exec(ctx, "CREATE DATABASE "+db); err != nil {
				t.Fatal(err)
			}
			// A full run would leave a database a script (gigabytes); a
			// failed script's stays for a look.
			t.Cleanup(func() {
				if !t.Failed() {
					admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
				}
			})
			cfg := admin.Config().Copy()
			cfg.Database = db
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
			eng, err := NewEngine(Config{Store: store, Database: db})
			if err != nil {
				t.Fatal(err)
			}
			conns := map[string]*pgx.Conn{}
			sessions := map[string]*scriptSession{}
			blocks := parseScript(t, string(data))
			skipWithoutTextSearchData(t, blocks)
			for _, b := range blocks {
				if b.directive != "sql" || b.args["params"] != "" {
					continue
				}
				sn := b.args["session"]
				if conns[sn] == nil {
					c, err := pgx.ConnectConfig(ctx, cfg)
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close(ctx)
					conns[sn] = c
					sessions[sn] = &scriptSession{s: eng.NewSession(SessionInfo{User: "postgres", Database: db})}
				}
				ss := sessions[sn]
				sts, err := ss.s.Parse(b.input)
				if err != nil {
					// A block fickle cannot parse must be one PostgreSQL
					// refuses with the same SQLSTATE.
					mine := errText(err)
					if theirs := pgOutput(ctx, conns[sn], b.input); normalizeDiff(mine) != normalizeDiff(theirs) {
						t.Errorf("%s\n  fickle: %s\n  postgres: %s", b.input, strings.TrimSpace(mine), strings.TrimSpace(theirs))
					}
					continue
				}
				for _, st := range sts {
					mine := runSQL(ss, st.SQL(), "")
					theirs := pgOutput(ctx, conns[sn], st.SQL())
					if known[st.SQL()] || bothPlans(mine, theirs) {
						continue
					}
					if normalizeDiff(mine) != normalizeDiff(theirs) {
						t.Errorf("%s\n  fickle: %s\n  postgres: %s", st.SQL(), strings.ReplaceAll(strings.TrimSpace(mine), "\n", " / "), strings.ReplaceAll(strings.TrimSpace(theirs), "\n", " / "))
					}
				}
			}
		})
	}
}

// knownLines reads a list of statements, one a line, # starting a comment.
func knownLines(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			known[l] = true
		}
	}
	return known
}

// bothPlans reports whether both servers answered with an EXPLAIN plan:
// plans need not match, fickle prints the operators its planner chose
// (explain.txt holds them as golden output).
func bothPlans(mine, theirs string) bool {
	return strings.HasPrefix(mine, "QUERY PLAN:") && strings.HasPrefix(theirs, "QUERY PLAN:")
}

// normalizeDiff keeps what both sides must agree on: the SQLSTATE of an
// error, or the rows and the command tag.
func normalizeDiff(s string) string {
	var out []string
	headers := 0
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		switch {
		case strings.HasPrefix(l, "ERROR "):
			out = append(out, l[:11])
		case strings.HasPrefix(l, "NOTICE "), strings.HasPrefix(l, "WARNING "), strings.HasPrefix(l, "INFO "),
			strings.HasPrefix(l, "DEBUG "), strings.HasPrefix(l, "LOG "), strings.HasPrefix(l, "params:"):
		case strings.Contains(l, ":") && strings.Contains(l, " | ") || !strings.Contains(l, " ") && strings.Contains(l, ":"):
			// A header: compare the column names, not the types.
			var names []string
			for _, c := range strings.Split(l, " | ") {
				n, _, _ := strings.Cut(c, ":")
				names = append(names, n)
			}
			out = append(out, strings.Join(names, " | "))
			headers++
		default:
			out = append(out, l)
		}
	}
	// An empty result's column header is not compared (pgconn drops it).
	switch {
	case len(out) == 2 && (strings.HasSuffix(out[1], " 0") || out[1] == ""):
		out = out[1:]
	case len(out) == 1 && headers == 1:
		out = []string{"SELECT 0"}
	}
	return strings.Join(out, "\n")
}

// pgOutputParams is pgOutput of one statement with parameters given as
// text, separated by commas, whose types PostgreSQL infers.
func pgOutputParams(ctx context.Context, c *pgx.Conn, sql, params string) string {
	if params == "" {
		return pgOutput(ctx, c, sql)
	}
	var vals [][]byte
	for _, p := range strings.Split(params, ",") {
		vals = append(vals, []byte(p))
	}
	r := c.PgConn().ExecParams(ctx, sql, vals, nil, nil, nil).Read()
	if r.Err != nil {
		var pe *pgconn.PgError
		if errors.As(r.Err, &pe) {
			return fmt.Sprintf("ERROR %s: %s\n", pe.Code, pe.Message)
		}
		return "ERROR ?: " + r.Err.Error() + "\n"
	}
	var out strings.Builder
	writePgRows(&out, r.FieldDescriptions, r.Rows)
	return out.String()
}

// writePgRows writes a result's header (names and types) and rows as the
// scripts print them.
func writePgRows(out *strings.Builder, fields []pgconn.FieldDescription, rows [][][]byte) {
	var names []string
	for _, f := range fields {
		t, _ := types.TypeByOid(types.Oid(f.DataTypeOID))
		names = append(names, f.Name+":"+t.Name())
	}
	out.WriteString(strings.Join(names, " | ") + "\n")
	for _, row := range rows {
		vals := make([]string, len(row))
		for i, v := range row {
			switch {
			case v == nil:
				vals[i] = "NULL"
			case len(v) == 0:
				vals[i] = "''"
			default:
				vals[i] = string(v)
			}
		}
		out.WriteString(strings.Join(vals, " | ") + "\n")
	}
}

func pgOutput(ctx context.Context, c *pgx.Conn, sql string) string {
	results, err := c.PgConn().Exec(ctx, sql).ReadAll()
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Sprintf("ERROR %s: %s\n", pe.Code, pe.Message)
	}
	if err != nil {
		return "ERROR ?: " + err.Error() + "\n"
	}
	var out strings.Builder
	for _, r := range results {
		if r.Err != nil {
			return errText(pgerror.New(pgerror.Code(r.Err.(*pgconn.PgError).Code), r.Err.Error()))
		}
		tag := r.CommandTag.String()
		if len(r.FieldDescriptions) > 0 {
			writePgRows(&out, r.FieldDescriptions, r.Rows)
			if strings.HasPrefix(tag, "SELECT") || tag == "SHOW" {
				continue
			}
		}
		out.WriteString(tag + "\n")
	}
	return out.String()
}
