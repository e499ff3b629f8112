package integration

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fickle-db/fickle/history"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A scenario script is a data file (testdata/anomalies, testdata/hermitage)
// that drives several connections through one fixed interleaving, issued
// from one goroutine so that a run is reproducible. Lines:
//
//	# comment
//	setup SQL                 run once on a fresh database before the steps
//	c1 begin                  BEGIN at the run's level (see beginStatements)
//	c1 SQL [-> name]          run SQL on connection c1; name its outcome
//	c2& SQL [-> name]         start SQL on c2 without waiting: it may block
//	c2 wait                   wait for c2's pending statement
//	<kind> ARGS               a line the file's own runner reads (allowed,
//	                          anomaly, expect, allow, ...)
//
// A statement's outcome is its rows (each row's columns joined by ",", rows
// sorted and joined by " ", "()" when empty), its command tag when it
// returns no rows, or "error CODE". A statement started with & that was
// still running after blockWait has "blocked " in front of its outcome.
type script struct {
	file  string
	setup []string
	steps []step
	// extra holds the other lines by their first word, in file order.
	extra map[string][]string
}

// step is one connection's statement in a script.
type step struct {
	line    int
	conn    string
	sql     string // "begin" starts a transaction at the run's level; "wait" joins
	async   bool
	capture string
}

// parseScript reads a scenario file.
func parseScript(path string) (*script, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := &script{file: path, extra: map[string][]string{}}
	in := bufio.NewScanner(f)
	for n := 1; in.Scan(); n++ {
		line := strings.TrimSpace(in.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		head, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch {
		case head == "setup":
			sc.setup = append(sc.setup, rest)
		case len(head) >= 2 && head[0] == 'c' && head[1] >= '0' && head[1] <= '9':
			st := step{line: n, conn: strings.TrimSuffix(head, "&"), async: strings.HasSuffix(head, "&")}
			if sql, name, ok := strings.Cut(rest, "->"); ok {
				rest, st.capture = strings.TrimSpace(sql), strings.TrimSpace(name)
			}
			if rest == "" {
				return nil, fmt.Errorf("%s:%d: no statement", path, n)
			}
			st.sql = rest
			sc.steps = append(sc.steps, st)
		default:
			sc.extra[head] = append(sc.extra[head], rest)
		}
	}
	if err := in.Err(); err != nil {
		return nil, err
	}
	if len(sc.steps) == 0 {
		return nil, fmt.Errorf("%s: no steps", path)
	}
	return sc, nil
}

// conns returns the script's connection names in order of first use.
func (sc *script) conns() []string {
	var names []string
	for _, st := range sc.steps {
		if !slices.Contains(names, st.conn) {
			names = append(names, st.conn)
		}
	}
	return names
}

// beginStatements returns the statements that start a transaction at
// level: PostgreSQL's BEGIN ISOLATION LEVEL for the levels it names, and
// BEGIN plus SET LOCAL fickle.isolation for fickle's own.
func beginStatements(level history.Level) []string {
	switch level {
	case history.ReadCommitted:
		return []string{"BEGIN ISOLATION LEVEL READ COMMITTED"}
	case history.Snapshot:
		return []string{"BEGIN ISOLATION LEVEL REPEATABLE READ"}
	case history.Serializable:
		return []string{"BEGIN ISOLATION LEVEL SERIALIZABLE"}
	}
	return []string{"BEGIN", fmt.Sprintf("SET LOCAL fickle.isolation = '%s'", level)}
}

// blockWait is how long a statement started with & may take before it
// counts as blocked, and how long the runner lets it reach the server
// before issuing the next step.
const blockWait = 150 * time.Millisecond

// stmtTimeout bounds every statement: a scenario that hangs fails.
const stmtTimeout = 10 * time.Second

// runOutcome is what one run of a script observed.
type runOutcome struct {
	// obs maps capture names to outcomes.
	obs map[string]string
	// aborted is the SQLSTATE of the first error of the run ("" if none).
	aborted string
	// rolledBack says some COMMIT answered ROLLBACK (its transaction had
	// failed).
	rolledBack bool
}

// pending is a statement running in the background.
type pending struct {
	st   step
	done chan string
	// blocked says it was still running after blockWait.
	blocked bool
}

// runScript runs sc's setup on a fresh connection to dsn, calls afterSetup
// (nil for none), then its steps with begin at level, and returns what they
// observed. stopOnError ends the run at the first error (the anomaly
// runner: a 40001 means the anomaly was not produced); otherwise errors are
// outcomes and the run goes on (Hermitage). Errors of the harness itself
// (connecting, timeouts) fail the test.
func runScript(t testing.TB, dsn string, sc *script, level history.Level, stopOnError bool, afterSetup func()) runOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	connect := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("%s: connect: %v", sc.file, err)
		}
		return c
	}
	if len(sc.setup) > 0 {
		c := connect()
		for _, q := range sc.setup {
			if _, err := c.Exec(ctx, q, pgx.QueryExecModeSimpleProtocol); err != nil {
				t.Fatalf("%s: setup %q: %v", sc.file, q, err)
			}
		}
		c.Close(ctx)
	}
	if afterSetup != nil {
		afterSetup()
	}
	conns := map[string]*pgx.Conn{}
	for _, name := range sc.conns() {
		conns[name] = connect()
	}
	defer func() {
		for _, c := range conns {
			c.Close(context.Background())
		}
	}()
	out := runOutcome{obs: map[string]string{}}
	waiting := map[string]*pending{}
	record := func(p *pending, res string) {
		if p.blocked {
			res = "blocked " + res
		}
		if p.st.capture != "" {
			out.obs[p.st.capture] = res
		}
		if code, ok := strings.CutPrefix(res, "error "); ok && out.aborted == "" {
			out.aborted = code
		}
		if strings.HasSuffix(res, "ROLLBACK") && strings.EqualFold(p.st.sql, "commit") {
			out.rolledBack = true
		}
	}
	join := func(name string) {
		p := waiting[name]
		if p == nil {
			return
		}
		delete(waiting, name)
		select {
		case res := <-p.done:
			record(p, res)
		case <-time.After(stmtTimeout):
			t.Fatalf("%s:%d: %s did not finish within %v", sc.file, p.st.line, p.st.sql, stmtTimeout)
		}
	}
	defer func() {
		for name := range waiting {
			join(name)
		}
	}()
	for _, st := range sc.steps {
		if stopOnError && (out.aborted != "" || out.rolledBack) {
			break
		}
		join(st.conn)
		if st.sql == "wait" {
			continue
		}
		c := conns[st.conn]
		stmts := []string{st.sql}
		if st.sql == "begin" {
			stmts = beginStatements(level)
		}
		p := &pending{st: st, done: make(chan string, 1)}
		go func() {
			var res string
			for _, q := range stmts {
				res = execOutcome(ctx, c, q)
				if strings.HasPrefix(res, "error ") {
					break
				}
			}
			p.done <- res
		}()
		if !st.async {
			select {
			case res := <-p.done:
				record(p, res)
			case <-time.After(stmtTimeout):
				t.Fatalf("%s:%d: %s did not finish within %v", sc.file, st.line, st.sql, stmtTimeout)
			}
			continue
		}
		select {
		case res := <-p.done:
			record(p, res)
		case <-time.After(blockWait):
			p.blocked = true
			waiting[st.conn] = p
		}
	}
	return out
}

// execOutcome runs one statement and renders its outcome.
func execOutcome(ctx context.Context, c *pgx.Conn, q string) string {
	sctx, cancel := context.WithTimeout(ctx, stmtTimeout)
	defer cancel()
	rows, err := c.Query(sctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return errOutcome(err)
	}
	var lines []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			rows.Close()
			return errOutcome(err)
		}
		cols := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				cols[i] = "NULL"
			} else {
				cols[i] = fmt.Sprint(v)
			}
		}
		lines = append(lines, strings.Join(cols, ","))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return errOutcome(err)
	}
	if len(rows.FieldDescriptions()) == 0 {
		return rows.CommandTag().String()
	}
	if len(lines) == 0 {
		return "()"
	}
	sort.Strings(lines)
	return strings.Join(lines, " ")
}

// errOutcome renders an error as "error SQLSTATE"; an error without one
// (a broken connection) as "error ?: message".
func errOutcome(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return "error " + pe.Code
	}
	return "error ?: " + err.Error()
}

// parseLevels reads a list of level names (fickle's or PostgreSQL's).
func parseLevels(fields []string) ([]history.Level, error) {
	var out []history.Level
	for _, f := range fields {
		l, err := history.ParseLevel(f)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// parseObservations reads "name=value ..." pairs.
func parseObservations(s string) (map[string]string, error) {
	m := map[string]string{}
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("observation %q is not name=value", f)
		}
		m[k] = v
	}
	return m, nil
}
