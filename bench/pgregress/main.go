// Command pgregress measures fickle against PostgreSQL's own regression
// suite: it runs files of src/test/regress/sql statement by statement on a
// PostgreSQL 15 it starts and on fickle (--realtime --strategy latest), each
// file in a fresh database after test_setup.sql (without its LANGUAGE C
// functions), and prints per file how many statements gave PostgreSQL's
// output, failed only on fickle, answered differently, crashed or timed out.
//
//	go run ./bench/pgregress -regress /tmp/pgsrc/src/test/regress [-files a,b] [-wrong] [-errors]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// defaultFiles are the regression files issue 11 measures fickle on.
const defaultFiles = "boolean,char,varchar,text,int2,int4,int8,float8,numeric,strings,date,time,timestamp,timestamptz," +
	"interval,select,select_distinct,select_having,case,union,insert,update,delete,transactions,arrays,json,jsonb," +
	"create_table,alter_table,constraints,sequence,namespace"

type options struct {
	regress   string
	files     []string
	timeout   time.Duration
	wrong     bool
	errors    bool
	fickleBin string
	pgBin     string
}

func main() {
	var o options
	var files string
	flag.StringVar(&o.regress, "regress", "", "path of a PostgreSQL 15 source tree's src/test/regress")
	flag.StringVar(&files, "files", defaultFiles, "comma-separated regression files (names without .sql)")
	flag.DurationVar(&o.timeout, "timeout", 5*time.Second, "per-statement time-out")
	flag.BoolVar(&o.wrong, "wrong", false, "list the wrong answers with both outputs")
	flag.BoolVar(&o.errors, "errors", false, "list the statements that fail only on fickle, with the error")
	flag.StringVar(&o.fickleBin, "fickle", "", "fickle binary (default: build ./cmd/fickle)")
	flag.StringVar(&o.pgBin, "pgbin", "/usr/lib/postgresql/15/bin", "PostgreSQL 15 server programs")
	flag.Parse()
	if o.regress == "" {
		fmt.Fprintln(os.Stderr, "pgregress: -regress PATH/src/test/regress is required")
		os.Exit(2)
	}
	o.files = strings.Split(files, ",")
	stopServersOnSignal()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "pgregress:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	tmp, err := os.MkdirTemp("", "pgregress-bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	track(tmp, func() { os.RemoveAll(tmp) })
	if o.fickleBin == "" {
		if o.fickleBin, err = buildFickle(tmp); err != nil {
			return err
		}
	}
	pg, err := startPostgres(o.pgBin)
	if err != nil {
		return err
	}
	defer pg.stop()
	setup, err := readSetup(o.regress)
	if err != nil {
		return err
	}
	started := time.Now()
	var total tally
	var rows []string
	for _, name := range o.files {
		text, err := os.ReadFile(filepath.Join(o.regress, "sql", name+".sql"))
		if err != nil {
			return err
		}
		r := &fileRun{opts: o, pg: pg, fickleBin: o.fickleBin, setup: setup, name: name}
		t, err := r.run(splitScript(string(text)))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		total.add(t)
		rows = append(rows, t.row(name))
		fmt.Fprintf(os.Stderr, "%s\n", t.row(name))
	}
	fmt.Printf("| file | statements | same output | plan differs | ties ordered differently | fickle-only errors | other errors | wrong answers | crashes | time-outs | same |\n")
	fmt.Printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Println(r)
	}
	fmt.Println(total.row("**all**"))
	fmt.Println("\n*plan differs*: EXPLAIN without timings (no ANALYZE, or COSTS or TIMING off) that both servers answered with different plans; plans need not match. *ties ordered differently*: the same rows, sorted alike by ORDER BY keys that are output columns, in another order among rows of equal keys, which SQL leaves open. *same* counts both with *same output*.")
	fmt.Printf("\n%s, %s, load average %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), time.Since(started).Round(time.Second), loadAverage())
	return nil
}

// tally counts the verdicts of one file.
type tally struct {
	statements int
	byVerdict  [tiesDiffer + 1]int
}

func (t *tally) add(u tally) {
	t.statements += u.statements
	for i := range t.byVerdict {
		t.byVerdict[i] += u.byVerdict[i]
	}
}

func (t tally) row(name string) string {
	v := t.byVerdict
	pct := 0.0
	if t.statements > 0 {
		pct = 100 * float64(v[same]+v[planDiffers]+v[tiesDiffer]) / float64(t.statements)
	}
	return fmt.Sprintf("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %.1f%% |", name, t.statements, v[same], v[planDiffers], v[tiesDiffer], v[fickleError],
		v[otherError], v[wrongAnswer]+v[missingError], v[crash], v[timeout], pct)
}

var languageCRE = regexp.MustCompile(`(?i)\blanguage\s+c\b`)

// readSetup reads test_setup.sql without its LANGUAGE C functions (fickle
// loads no shared libraries; nothing else in the file needs them).
func readSetup(regress string) ([]item, error) {
	text, err := os.ReadFile(filepath.Join(regress, "sql", "test_setup.sql"))
	if err != nil {
		return nil, err
	}
	var out []item
	for _, it := range splitScript(string(text)) {
		if it.meta == "" && languageCRE.MatchString(it.sql) {
			continue
		}
		out = append(out, it)
	}
	return out, nil
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// fileRun runs one regression file on both sides.
type fileRun struct {
	opts      options
	pg        *postgresServer
	fickleBin string
	setup     []item
	name      string

	fk        *fickleServer
	pgSess    *session
	fkSess    *session
	vars      map[string]string
	counts    tally
	counting  bool
	replaying bool // rerunning the setup on a restarted fickle only
}

func (r *fileRun) run(items []item) (tally, error) {
	ctx := context.Background()
	if err := r.startFickle(ctx); err != nil {
		return tally{}, err
	}
	defer func() { r.fkSess.close(); r.fk.stop() }()
	admin := &session{dsn: r.pg.dsn("postgres"), timeout: time.Minute, vars: map[string]string{}}
	if err := admin.connect(ctx); err != nil {
		return tally{}, err
	}
	defer admin.close()
	for _, sql := range []string{"DROP DATABASE IF EXISTS regression WITH (FORCE)", "CREATE DATABASE regression TEMPLATE template0"} {
		if o := admin.run(ctx, item{sql: sql}); o.failed() {
			return tally{}, fmt.Errorf("%s: %s", sql, o.message)
		}
	}
	r.pgSess = &session{dsn: r.pg.dsn("regression"), timeout: 4 * r.opts.timeout}
	if err := r.pgSess.connect(ctx); err != nil {
		return tally{}, err
	}
	defer r.pgSess.close()
	r.resetVars()
	r.runItems(ctx, r.setup)
	r.counting = true
	r.resetVars()
	r.runItems(ctx, items)
	return r.counts, nil
}

// startFickle starts a fresh fickle, creates the database regression in it
// and connects.
func (r *fileRun) startFickle(ctx context.Context) error {
	fk, err := startFickle(r.fickleBin)
	if err != nil {
		return err
	}
	r.fk = fk
	admin := &session{dsn: fk.dsn("postgres"), timeout: time.Minute, vars: map[string]string{}}
	if err := admin.connect(ctx); err != nil {
		return err
	}
	defer admin.close()
	if o := admin.run(ctx, item{sql: "CREATE DATABASE regression"}); o.failed() {
		return fmt.Errorf("fickle: CREATE DATABASE: %s", o.message)
	}
	r.fkSess = &session{dsn: fk.dsn("regression"), timeout: r.opts.timeout, vars: r.vars}
	return r.fkSess.connect(ctx)
}

// resetVars gives both sides psql's variables of a pg_regress run.
func (r *fileRun) resetVars() {
	r.vars = map[string]string{}
	if r.pgSess != nil {
		r.pgSess.vars = r.vars
	}
	if r.fkSess != nil {
		r.fkSess.vars = r.vars
	}
}

// env is what \getenv reads: pg_regress's environment.
func (r *fileRun) env(name string) string {
	switch name {
	case "PG_ABS_SRCDIR", "PG_ABS_BUILDDIR":
		return r.opts.regress
	case "PG_LIBDIR":
		return filepath.Join(r.opts.regress, "lib")
	case "PG_DLSUFFIX":
		return ".so"
	}
	return os.Getenv(name)
}

func (r *fileRun) runItems(ctx context.Context, items []item) {
	for i, it := range items {
		switch it.meta {
		case "":
			gexec := i+1 < len(items) && items[i+1].meta == "gexec"
			pgOut := r.statement(ctx, it)
			if gexec {
				for _, res := range pgOut.results {
					for _, row := range res.rows {
						r.statement(ctx, item{sql: row, line: it.line})
					}
				}
			}
		case "set":
			setVariable(it.args, r.vars)
		case "getenv":
			if f := strings.Fields(it.args); len(f) == 2 {
				r.vars[f[0]] = r.env(f[1])
			}
		}
	}
}

// statement runs one statement on both sides, counts its verdict and
// returns PostgreSQL's outcome. A lost fickle connection is reopened (and a
// dead fickle restarted with the setup run again) so the file goes on.
func (r *fileRun) statement(ctx context.Context, it item) outcome {
	if r.replaying {
		return r.fkSess.run(ctx, it)
	}
	pgOut := r.pgSess.run(ctx, it)
	fkOut := r.fkSess.run(ctx, it)
	if pgOut.lost || pgOut.timedOut {
		r.pgSess.close()
		_ = r.pgSess.connect(ctx)
	}
	if fkOut.lost || r.fkSess.conn.IsClosed() {
		r.fkSess.close()
		if !r.fk.alive() {
			if err := r.startFickle(ctx); err == nil {
				r.replaying = true
				r.runItems(ctx, r.setup)
				r.replaying = false
			}
		} else {
			_ = r.fkSess.connect(ctx)
		}
	}
	if !r.counting {
		return pgOut
	}
	v := compare(it.sql, pgOut, fkOut)
	r.counts.statements++
	r.counts.byVerdict[v]++
	show := (r.opts.wrong && (v == wrongAnswer || v == missingError)) ||
		(r.opts.errors && (v == fickleError || v == otherError || v == crash || v == timeout))
	if show {
		fmt.Printf("--- %s.sql:%d %s\n%s\npostgres:\n%sfickle:\n%s\n", r.name, it.line, verdictName[v], oneLine(it.sql), pgOut, fkOut)
	}
	return pgOut
}

var verdictName = map[verdict]string{
	same: "same", fickleError: "fickle-only error", otherError: "other error", missingError: "wrong answer (no error)",
	wrongAnswer: "wrong answer", crash: "crash", timeout: "time-out", planDiffers: "plan differs",
	tiesDiffer: "ties ordered differently",
}
