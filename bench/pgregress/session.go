package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// session is one side's connection to the file's database, and the psql
// variables it has set.
type session struct {
	dsn     string
	conn    *pgconn.PgConn
	vars    map[string]string
	timeout time.Duration
}

// result is what one result of a statement showed the client.
type result struct {
	tag  string
	cols []string
	rows []string   // each row's values joined, for comparing and listing
	vals [][]string // each row's values (<NULL> for NULL)
}

// outcome is everything a statement showed the client.
type outcome struct {
	results  []result
	code     string // the error's SQLSTATE, "" without error
	message  string
	lost     bool // the connection was lost (a crash of the backend)
	timedOut bool
	// inFailedTxn: the statement ran in a transaction an earlier error had
	// aborted (ReadyForQuery 'E'), where COMMIT answers ROLLBACK.
	inFailedTxn bool
}

func (o outcome) failed() bool { return o.code != "" || o.lost || o.timedOut }

// connect opens the session's connection with the settings pg_regress gives
// its database: time zone PST8PDT and DateStyle "Postgres, MDY".
func (s *session) connect(ctx context.Context) error {
	cfg, err := pgconn.ParseConfig(s.dsn)
	if err != nil {
		return err
	}
	cfg.RuntimeParams["TimeZone"] = "PST8PDT"
	cfg.RuntimeParams["DateStyle"] = "Postgres, MDY"
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 2 * time.Second}
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s.conn, err = pgconn.ConnectConfig(cctx, cfg)
	return err
}

func (s *session) close() {
	if s.conn != nil {
		_ = s.conn.Close(context.Background())
	}
}

var (
	copyFromStdinRE = regexp.MustCompile(`(?is)^\s*copy\s.*\sfrom\s+stdin\b`)
	copyToStdoutRE  = regexp.MustCompile(`(?is)^\s*copy\s.*\sto\s+stdout\b`)
	copyFromFileRE  = regexp.MustCompile(`(?is)^(\s*copy\s.*?\sfrom\s+)'([^']*)'(.*)$`)
)

func isCopyFromStdin(sql string) bool { return copyFromStdinRE.MatchString(sql) }

// run sends one statement through the simple protocol and collects what it
// answered. COPY FROM a file is sent as COPY FROM STDIN with the file's rows,
// as psql's \copy would, so that neither server needs to read the file.
func (s *session) run(ctx context.Context, it item) outcome {
	sql := interpolate(it.sql, s.vars)
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	o := outcome{inFailedTxn: s.conn.TxStatus() == 'E'}
	var err error
	switch {
	case copyFromFileRE.MatchString(sql) && !isCopyFromStdin(sql):
		m := copyFromFileRE.FindStringSubmatch(sql)
		data, rerr := os.ReadFile(m[2])
		if rerr != nil {
			return outcome{code: "58P01", message: rerr.Error()}
		}
		var tag pgconn.CommandTag
		tag, err = s.conn.CopyFrom(ctx, bytes.NewReader(data), m[1]+"STDIN"+m[3])
		o.results = []result{{tag: tag.String()}}
	case isCopyFromStdin(sql):
		var tag pgconn.CommandTag
		tag, err = s.conn.CopyFrom(ctx, strings.NewReader(it.copyData), sql)
		o.results = []result{{tag: tag.String()}}
	case copyToStdoutRE.MatchString(sql):
		var out bytes.Buffer
		var tag pgconn.CommandTag
		tag, err = s.conn.CopyTo(ctx, &out, sql)
		o.results = []result{{tag: tag.String(), rows: strings.Split(out.String(), "\n")}}
	default:
		var rs []*pgconn.Result
		rs, err = s.conn.Exec(ctx, sql).ReadAll()
		for _, r := range rs {
			o.results = append(o.results, convert(r))
			if r.Err != nil && err == nil {
				err = r.Err
			}
		}
	}
	if err != nil {
		var pgErr *pgconn.PgError
		switch {
		case errors.As(err, &pgErr):
			o.code, o.message = pgErr.Code, pgErr.Message
		case ctx.Err() != nil:
			o.timedOut, o.message = true, "timed out"
		default:
			o.lost, o.message = true, err.Error()
		}
		if pgErr != nil && pgErr.Code == "57014" && ctx.Err() != nil {
			o.timedOut, o.code = true, ""
		}
	}
	if s.conn.IsClosed() && !o.timedOut {
		o.lost = true
	}
	return o
}

// convert renders a result's rows as text, NULL as a marker no text equals.
func convert(r *pgconn.Result) result {
	out := result{tag: r.CommandTag.String()}
	for _, f := range r.FieldDescriptions {
		out.cols = append(out.cols, f.Name)
	}
	for _, row := range r.Rows {
		vals := make([]string, len(row))
		for i, v := range row {
			vals[i] = "<NULL>"
			if v != nil {
				vals[i] = string(v)
			}
		}
		out.vals = append(out.vals, vals)
		out.rows = append(out.rows, strings.Join(vals, " | "))
	}
	return out
}

// String renders an outcome for the -wrong listing.
func (o outcome) String() string {
	var b strings.Builder
	for _, r := range o.results {
		if len(r.cols) > 0 {
			fmt.Fprintf(&b, "  [%s]\n", strings.Join(r.cols, " | "))
		}
		for i, row := range r.rows {
			if i == 20 {
				fmt.Fprintf(&b, "  ... %d rows in all\n", len(r.rows))
				break
			}
			fmt.Fprintf(&b, "  %s\n", row)
		}
		fmt.Fprintf(&b, "  %s\n", r.tag)
	}
	switch {
	case o.timedOut:
		b.WriteString("  TIMED OUT\n")
	case o.lost:
		fmt.Fprintf(&b, "  CONNECTION LOST: %s\n", o.message)
	case o.code != "":
		fmt.Fprintf(&b, "  ERROR %s: %s\n", o.code, o.message)
	}
	return b.String()
}
