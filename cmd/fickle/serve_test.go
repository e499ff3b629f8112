package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/oracle"
	"github.com/fickle-db/fickle/sqlexec"
)

// TestServeListensAndShutsDownOnSignal starts `fickle serve --listen
// 127.0.0.1:0`, reads the address from its first line, runs a query, then
// sends SIGTERM: the open session receives FATAL 57P01 and serve exits 0.
func TestServeListensAndShutsDownOnSignal(t *testing.T) {
	stdoutR, stdoutW := io.Pipe()
	stop := make(chan os.Signal, 1)
	exit := make(chan int, 1)
	go func() {
		exit <- serve([]string{"--listen", "127.0.0.1:0"}, stdoutW, io.Discard, stop)
		stdoutW.Close()
	}()
	line, err := bufio.NewReader(stdoutR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("first line %q", line)
	}
	go io.Copy(io.Discard, stdoutR)

	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u", "database": "fickle"}})
	fe.Send(&pgproto3.Query{String: "SELECT 1"})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	ready := 0
	for ready < 2 {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch m := msg.(type) {
		case *pgproto3.ReadyForQuery:
			ready++
		case *pgproto3.ErrorResponse:
			t.Fatalf("error %s: %s", m.Code, m.Message)
		}
	}

	stop <- syscall.SIGTERM
	msg, err := fe.Receive()
	if err != nil {
		t.Fatalf("expected 57P01, got %v", err)
	}
	if e, ok := msg.(*pgproto3.ErrorResponse); !ok || e.Code != "57P01" || e.Severity != "FATAL" {
		t.Fatalf("got %#v, want FATAL 57P01", msg)
	}
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("serve exited %d", code)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not exit")
	}
}

// lockedBuffer collects serve's stderr, which connection goroutines write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveRun is a `fickle serve` running in the test process.
type serveRun struct {
	addr, seedLine string
	stop           chan os.Signal
	exit           chan int
	stderr         *lockedBuffer
	stopped        bool
}

// startServe runs serve with args (and --listen 127.0.0.1:0) and reads
// its two start lines; the server is stopped at cleanup if the test did
// not stop it.
func startServe(t *testing.T, args ...string) *serveRun {
	t.Helper()
	stdoutR, stdoutW := io.Pipe()
	r := &serveRun{stop: make(chan os.Signal, 1), exit: make(chan int, 1), stderr: &lockedBuffer{}}
	go func() {
		r.exit <- serve(append([]string{"--listen", "127.0.0.1:0"}, args...), stdoutW, r.stderr, r.stop)
		stdoutW.Close()
	}()
	br := bufio.NewReader(stdoutR)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("serve %q: %v; stderr: %s", args, err, r.stderr)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("first line %q", line)
	}
	r.addr = addr
	if r.seedLine, err = br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, br)
	t.Cleanup(func() {
		if !r.stopped {
			r.shutdown(t)
		}
	})
	return r
}

// shutdown stops the server as SIGTERM would and returns its exit code.
func (r *serveRun) shutdown(t *testing.T) int {
	t.Helper()
	r.stopped = true
	r.stop <- syscall.SIGTERM
	select {
	case code := <-r.exit:
		return code
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not exit")
	}
	return -1
}

func (r *serveRun) connect(t *testing.T) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, "postgres://u@"+r.addr+"/fickle?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func queryString(t *testing.T, c *pgx.Conn, sql string) string {
	t.Helper()
	var s string
	if err := c.QueryRow(context.Background(), sql).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

// TestServeIsolationAndStrategyFlagsSetSessionDefaults pins --isolation,
// --strategy and --profile through SHOW, as a client sees them: the level
// in PostgreSQL's terms and in fickle's, and the strategy every session
// starts with (--profile postgres means latest unless --strategy says
// otherwise).
func TestServeIsolationAndStrategyFlagsSetSessionDefaults(t *testing.T) {
	tests := []struct {
		args                 []string
		pg, fickle, strategy string
	}{
		{nil, "read committed", "RC", "adversarial"},
		{[]string{"--isolation", "read-committed", "--strategy", "random"}, "read committed", "RC", "random"},
		{[]string{"--isolation", "repeatable-read"}, "repeatable read", "SI", "adversarial"},
		{[]string{"--isolation", "serializable", "--strategy", "oldest"}, "serializable", "SER", "oldest"},
		{[]string{"--isolation", "read-atomic"}, "read committed", "RA", "adversarial"},
		{[]string{"--isolation", "causal"}, "read committed", "CC", "adversarial"},
		{[]string{"--isolation", "prefix"}, "read committed", "PC", "adversarial"},
		{[]string{"--isolation", "snapshot", "--strategy", "latest"}, "repeatable read", "SI", "latest"},
		{[]string{"--profile", "postgres", "--isolation", "serializable"}, "serializable", "SER", "latest"},
		{[]string{"--profile", "postgres", "--strategy", "adversarial"}, "read committed", "RC", "adversarial"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			c := startServe(t, tc.args...).connect(t)
			if got := queryString(t, c, "SHOW transaction_isolation"); got != tc.pg {
				t.Errorf("transaction_isolation = %q, want %q", got, tc.pg)
			}
			if got := queryString(t, c, "SHOW fickle.isolation"); got != tc.fickle {
				t.Errorf("fickle.isolation = %q, want %q", got, tc.fickle)
			}
			if got := queryString(t, c, "SHOW fickle.strategy"); got != tc.strategy {
				t.Errorf("fickle.strategy = %q, want %q", got, tc.strategy)
			}
		})
	}
}

// TestServePrintsSeedAndSettings pins the second start line, which holds
// what replays the run.
func TestServePrintsSeedAndSettings(t *testing.T) {
	r := startServe(t, "--seed", "42", "--strategy", "random", "--isolation", "causal", "--realtime")
	want := "seed 42 (--strategy random --isolation causal --profile axiomatic --realtime)\n"
	if r.seedLine != want {
		t.Errorf("start line %q, want %q", r.seedLine, want)
	}
	if code := r.shutdown(t); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestServeLoadHistoryAndCheck runs the whole recording path: --load puts
// a fixture into the initial state, clients run transactions, SELECT *
// FROM fickle_check() judges the history so far, and at shutdown the
// --history file reads back as a history the oracle accepts, whose first
// transactions read the fixture from init (the load is not part of it).
func TestServeLoadHistoryAndCheck(t *testing.T) {
	dir := t.TempDir()
	load := filepath.Join(dir, "fixture.sql")
	if err := os.WriteFile(load, []byte("CREATE TABLE acc (id int PRIMARY KEY, bal int);\n"+
		"BEGIN;\nINSERT INTO acc VALUES (1, 100);\nINSERT INTO acc VALUES (2, 50);\nCOMMIT;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hpath := filepath.Join(dir, "run.jsonl")
	r := startServe(t, "--load", load, "--history", hpath, "--seed", "7", "--isolation", "serializable")
	ctx := context.Background()
	a, b := r.connect(t), r.connect(t)
	var total int
	if err := a.QueryRow(ctx, "SELECT sum(bal) FROM acc").Scan(&total); err != nil || total != 150 {
		t.Fatalf("fixture: sum = %d, %v", total, err)
	}
	for i, c := range []*pgx.Conn{a, b} {
		tx, err := c.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "UPDATE acc SET bal = bal - 10 WHERE id = $1", i+1); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil && !strings.Contains(err.Error(), "40001") {
			t.Fatal(err)
		}
	}
	rows, err := a.Query(ctx, "SELECT level, verdict FROM fickle_check()")
	if err != nil {
		t.Fatal(err)
	}
	var levels []string
	for rows.Next() {
		var level, verdict string
		if err := rows.Scan(&level, &verdict); err != nil {
			t.Fatal(err)
		}
		levels = append(levels, level)
		if level == "own" && verdict != "consistent" {
			t.Errorf("fickle_check(): own level %s", verdict)
		}
	}
	if rows.Err() != nil || len(levels) < 2 || levels[0] != "own" {
		t.Fatalf("fickle_check() rows %v, %v", levels, rows.Err())
	}
	if code := r.shutdown(t); code != 0 {
		t.Fatalf("exit %d: %s", code, r.stderr)
	}

	h, err := history.Import(hpath, history.FormatFickle)
	if err != nil {
		t.Fatal(err)
	}
	if res := oracle.Check(h, oracle.Options{}); res.Verdict != oracle.Consistent {
		t.Fatalf("history file: %v", res.Verdict)
	}
	if n := len(h.Txns[history.Init].Ops); n != 2 {
		t.Errorf("init writes %d keys, want the fixture's 2", n)
	}
	first := h.Txns[1]
	if first.Level != history.Serializable {
		t.Errorf("first transaction at %v, want SER (--isolation serializable)", first.Level)
	}
	for _, op := range first.Ops {
		if op.Kind == history.OpRead && op.Writer != history.Init {
			t.Errorf("the first transaction read %v from T%d, want init", h.Keys[op.Key], op.Writer)
		}
	}
	text, _ := os.ReadFile(hpath)
	if !strings.Contains(strings.SplitN(string(text), "\n", 2)[0], `"seed":"7"`) {
		t.Errorf("header lacks the seed: %s", strings.SplitN(string(text), "\n", 2)[0])
	}
}

// TestServeCheckpointStartsNewHistory pins SELECT fickle_checkpoint() over
// the wire: what was committed before it becomes init's, fickle_check()
// judges only what follows, and the --history file, which holds both
// histories, reads back as the second one.
func TestServeCheckpointStartsNewHistory(t *testing.T) {
	hpath := filepath.Join(t.TempDir(), "run.jsonl")
	r := startServe(t, "--history", hpath)
	c := r.connect(t)
	ctx := context.Background()
	for _, sql := range []string{"CREATE TABLE t (k int PRIMARY KEY, v int)", "INSERT INTO t VALUES (1, 1), (2, 2)", "UPDATE t SET v = 3 WHERE k = 1"} {
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	var ended int64
	if err := c.QueryRow(ctx, "SELECT fickle_checkpoint()").Scan(&ended); err != nil || ended < 2 {
		t.Fatalf("fickle_checkpoint() = %d, %v; want at least the INSERT's and the UPDATE's transactions", ended, err)
	}
	if _, err := c.Exec(ctx, "UPDATE t SET v = v + 1 WHERE k = 2"); err != nil {
		t.Fatal(err)
	}
	if got := queryString(t, c, "SELECT verdict FROM fickle_check() WHERE level = 'own'"); got != "consistent" {
		t.Errorf("after the checkpoint: %s", got)
	}
	if code := r.shutdown(t); code != 0 {
		t.Fatalf("exit %d: %s", code, r.stderr)
	}
	h, err := history.Import(hpath, history.FormatFickle)
	if err != nil {
		t.Fatal(err)
	}
	if res := oracle.Check(h, oracle.Options{}); res.Verdict != oracle.Consistent {
		t.Fatalf("history file: %v", res.Verdict)
	}
	if n := len(h.Txns[history.Init].Ops); n != 2 {
		t.Errorf("init writes %d keys, want 2", n)
	}
	for _, tx := range h.Txns[1:] {
		for _, op := range tx.Ops {
			if op.Kind == history.OpRead && op.Writer != history.Init && op.Writer != tx.ID {
				t.Errorf("T%d read %v from T%d: only init wrote before it", tx.ID, h.Keys[op.Key], op.Writer)
			}
		}
	}
}

// TestServeWithoutRecordingRefusesCheck pins the clear error of
// fickle_check() when neither --history nor --record was given.
func TestServeWithoutRecordingRefusesCheck(t *testing.T) {
	c := startServe(t).connect(t)
	_, err := c.Exec(context.Background(), "SELECT * FROM fickle_check()")
	if err == nil || !strings.Contains(err.Error(), "55000") {
		t.Fatalf("got %v, want 55000", err)
	}
}

// TestServeFlagErrors pins the exit codes and messages of bad flags (2)
// and of unusable --load and --replay files (1).
func TestServeFlagErrors(t *testing.T) {
	dir := t.TempDir()
	badLoad := filepath.Join(dir, "bad.sql")
	if err := os.WriteFile(badLoad, []byte("CREATE TABLE a (k int PRIMARY KEY);\n\nINSERT INTO missing VALUES (1);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	openLoad := filepath.Join(dir, "open.sql")
	if err := os.WriteFile(openLoad, []byte("BEGIN;\nCREATE TABLE a (k int PRIMARY KEY);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--nope"}, 2, "flag provided but not defined"},
		{[]string{"extra"}, 2, "unexpected argument"},
		{[]string{"--isolation", "sometimes"}, 2, "--isolation"},
		{[]string{"--strategy", "nice"}, 2, "--strategy"},
		{[]string{"--profile", "mysql"}, 2, "--profile"},
		{[]string{"--profile", "postgres", "--stale-writes"}, 2, "--stale-writes"},
		{[]string{"--auth", "md5"}, 2, "--auth needs --password"},
		{[]string{"--password", "p", "--auth", "gss"}, 2, "--auth"},
		{[]string{"--tls", "sometimes"}, 2, "--tls"},
		{[]string{"--tls-cert", "a.crt"}, 2, "go together"},
		{[]string{"--tls-cert", filepath.Join(dir, "none.crt"), "--tls-key", filepath.Join(dir, "none.key")}, 2, "--tls-cert"},
		{[]string{"--max-connections", "0"}, 2, "--max-connections"},
		{[]string{"--max-memory", "lots"}, 2, "--max-memory"},
		{[]string{"--max-memory", "2 PB"}, 2, "--max-memory"},
		{[]string{"--max-staleness", "-1"}, 2, "--max-staleness"},
		{[]string{"--huge-pages", "always"}, 2, "--huge-pages"},
		{[]string{"--seed", "-1"}, 2, "invalid value"},
		{[]string{"--load", filepath.Join(dir, "none.sql")}, 1, "--load"},
		{[]string{"--load", badLoad}, 1, "line 3: ERROR 42P01"},
		{[]string{"--load", openLoad}, 1, "transaction block"},
		{[]string{"--replay", filepath.Join(dir, "none.jsonl")}, 1, "--replay"},
		{[]string{"--history", filepath.Join(dir, "no", "such", "dir.jsonl")}, 1, "--history"},
		{[]string{"--listen", "256.0.0.1:99999"}, 1, ""},
	}
	for _, tc := range tests {
		var stderr lockedBuffer
		code := serve(tc.args, io.Discard, &stderr, nil)
		if code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("serve(%q) = %d, %q; want %d and a message with %q", tc.args, code, stderr.String(), tc.code, tc.msg)
		}
	}
}

// replayWorkload runs a fixed sequence on two connections: a writes ten
// versions of one row, then b reads it ten times, each read free (at read
// committed) to return any version from its previous one on. It returns
// what b read.
func replayWorkload(t *testing.T, r *serveRun) []int {
	t.Helper()
	ctx := context.Background()
	a := r.connect(t)
	b := r.connect(t)
	for _, sql := range []string{"CREATE TABLE t (k int PRIMARY KEY, v int)", "INSERT INTO t VALUES (1, 0)"} {
		if _, err := a.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 10; i++ {
		if _, err := a.Exec(ctx, "UPDATE t SET v = $1 WHERE k = 1", i); err != nil {
			t.Fatal(err)
		}
	}
	var got []int
	for i := 0; i < 10; i++ {
		v := -1 // the row may be absent: b may read init's version
		if err := b.QueryRow(ctx, "SELECT v FROM t WHERE k = 1").Scan(&v); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	return got
}

// TestServeReplayReissuesRecordedChoices pins --replay: a run with another
// seed, replaying a recorded history, reads what the recorded run read,
// where without the replay that seed reads otherwise; also when --load
// put a fixture into init first (the file then holds a checkpoint).
func TestServeReplayReissuesRecordedChoices(t *testing.T) {
	fixture := filepath.Join(t.TempDir(), "fixture.sql")
	if err := os.WriteFile(fixture, []byte("CREATE TABLE f (k int PRIMARY KEY);\nINSERT INTO f VALUES (1);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, extra := range map[string][]string{"empty init": nil, "with --load": {"--load", fixture}} {
		t.Run(name, func(t *testing.T) {
			hpath := filepath.Join(t.TempDir(), "run.jsonl")
			r := startServe(t, append([]string{"--strategy", "random", "--seed", "1", "--history", hpath}, extra...)...)
			recorded := replayWorkload(t, r)
			if code := r.shutdown(t); code != 0 {
				t.Fatalf("exit %d: %s", code, r.stderr)
			}
			other := replayWorkload(t, startServe(t, append([]string{"--strategy", "random", "--seed", "2"}, extra...)...))
			if slices.Equal(other, recorded) {
				t.Fatalf("seeds 1 and 2 read the same (%v): the test cannot tell a replay", other)
			}
			replayed := replayWorkload(t, startServe(t, append([]string{"--strategy", "random", "--seed", "2", "--replay", hpath}, extra...)...))
			if !slices.Equal(replayed, recorded) {
				t.Errorf("replay read %v, the recorded run %v", replayed, recorded)
			}
		})
	}
}

// TestServeHistoryFlushedAtCommit pins that a COMMIT the client saw
// acknowledged is in the --history file while the server still runs.
func TestServeHistoryFlushedAtCommit(t *testing.T) {
	hpath := filepath.Join(t.TempDir(), "run.jsonl")
	r := startServe(t, "--history", hpath)
	c := r.connect(t)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TABLE t (k int PRIMARY KEY, v int)"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO t VALUES (1, 1)"); err != nil {
		t.Fatal(err)
	}
	h, err := history.Import(hpath, history.FormatFickle)
	if err != nil {
		t.Fatal(err)
	}
	wrote := false
	for _, tx := range h.Txns[1:] {
		for _, op := range tx.Ops {
			wrote = wrote || (op.Kind == history.OpWrite && tx.Outcome == history.Committed)
		}
	}
	if !wrote {
		t.Errorf("the committed INSERT is not in the history file yet")
	}
}

// TestServeProfilePostgresReadsLatest pins --profile postgres against the
// default profile: a second connection always sees a committed update
// (real time and the latest strategy), where the adversarial default may
// serve a stale row to it (no real time in the axioms).
func TestServeProfilePostgresReadsLatest(t *testing.T) {
	staleReads := func(args ...string) int {
		r := startServe(t, args...)
		ctx := context.Background()
		a, b := r.connect(t), r.connect(t)
		if _, err := a.Exec(ctx, "CREATE TABLE t (k int PRIMARY KEY, v int)"); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Exec(ctx, "INSERT INTO t VALUES (1, 0)"); err != nil {
			t.Fatal(err)
		}
		stale := 0
		for i := 1; i <= 30; i++ {
			if _, err := a.Exec(ctx, "UPDATE t SET v = $1 WHERE k = 1", i); err != nil {
				t.Fatal(err)
			}
			v := -1
			if err := b.QueryRow(ctx, "SELECT v FROM t WHERE k = 1").Scan(&v); err != nil && !errors.Is(err, pgx.ErrNoRows) {
				t.Fatal(err)
			}
			if v != i {
				stale++
			}
		}
		return stale
	}
	if n := staleReads("--profile", "postgres", "--seed", "3"); n != 0 {
		t.Errorf("--profile postgres: %d stale reads of 30, want 0", n)
	}
	if n := staleReads("--seed", "3"); n == 0 {
		t.Errorf("the adversarial default served no stale read in 30: the comparison shows nothing")
	}
}

// TestServeStaleWritesLetUpdatesComputeOnStaleRows pins --stale-writes
// against the default: two connections take turns incrementing a counter
// with UPDATE ... SET v = v + 1 under the adversary. By default every
// UPDATE computes on the row's latest version and no increment is lost;
// with --stale-writes an UPDATE may compute on the stale version its WHERE
// clause read, as the pure axioms allow at READ COMMITTED.
func TestServeStaleWritesLetUpdatesComputeOnStaleRows(t *testing.T) {
	final := func(args ...string) int {
		r := startServe(t, args...)
		ctx := context.Background()
		a, b := r.connect(t), r.connect(t)
		for _, sql := range []string{"CREATE TABLE t (k int PRIMARY KEY, v int)", "INSERT INTO t VALUES (1, 0)"} {
			if _, err := a.Exec(ctx, sql); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 20 {
			if _, err := []*pgx.Conn{a, b}[i%2].Exec(ctx, "UPDATE t SET v = v + 1 WHERE k = 1"); err != nil {
				t.Fatal(err)
			}
		}
		var v int
		if err := a.QueryRow(ctx, "SELECT v FROM t WHERE k = 1 FOR SHARE").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := final("--seed", "3"); v != 20 {
		t.Errorf("default: counter %d after 20 increments, want 20", v)
	}
	if v := final("--seed", "3", "--stale-writes"); v == 20 {
		t.Errorf("--stale-writes: no increment lost in 20: the flag shows nothing")
	}
}

// TestServeLoadCopyFromStdin pins COPY ... FROM STDIN in a --load file, as
// pg_dump writes it: the data lines up to "\." load, NULLs included, and
// the SQL after them runs; bad data fails naming the COPY's line.
func TestServeLoadCopyFromStdin(t *testing.T) {
	dir := t.TempDir()
	load := filepath.Join(dir, "dump.sql")
	if err := os.WriteFile(load, []byte("CREATE TABLE t (k int PRIMARY KEY, name text);\n"+
		"COPY t (k, name) FROM stdin;\n1\tone\n2\t\\N\n3\tthree; not a statement\n\\.\n"+
		"INSERT INTO t VALUES (4, 'four');\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startServe(t, "--load", load).connect(t)
	rows, err := c.Query(context.Background(), "SELECT k::text || ':' || coalesce(name, 'NULL') FROM t ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if got, want := strings.Join(loaded, ","), "1:one,2:NULL,3:three; not a statement,4:four"; err != nil || got != want {
		t.Errorf("loaded %q (%v), want %q", got, err, want)
	}

	bad := filepath.Join(dir, "bad.sql")
	if err := os.WriteFile(bad, []byte("CREATE TABLE t (k int PRIMARY KEY);\n\nCOPY t FROM STDIN;\nx\n\\.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	if code := serve([]string{"--load", bad}, io.Discard, &stderr, nil); code != 1 || !strings.Contains(stderr.String(), "line 3: ERROR 22P02") {
		t.Errorf("bad COPY data: exit %d, %q; want 1 and line 3, 22P02", code, stderr.String())
	}
}

// FuzzLoadText feeds arbitrary --load files to the loader: it must never
// panic or fail inside the engine (XX000), and every error must name a
// line of the file.
func FuzzLoadText(f *testing.F) {
	for _, seed := range []string{
		"CREATE TABLE t (k int PRIMARY KEY, v text);\nINSERT INTO t VALUES (1, 'a');\n",
		"CREATE TABLE t (k int PRIMARY KEY, v text);\nCOPY t FROM stdin;\n1\tx\n2\t\\N\n\\.\nSELECT 1;\n",
		"COPY t FROM STDIN;\n",
		"CREATE TABLE t (k int);\nCOPY t (k) FROM stdin;\n1\n",
		"BEGIN;\nCREATE TABLE t (k int);\n",
		"BEGIN; SAVEPOINT a; ROLLBACK TO a; RELEASE a; COMMIT;",
		"SELEC 1;\n\n",
		"CREATE TABLE t (k int);\nCOPY t TO STDOUT;\n",
		"COPY t FROM stdin; SELECT 1;\n\\.\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		eng, err := sqlexec.NewEngine(sqlexec.Config{Store: isolation.NewStore(isolation.Config{})})
		if err != nil {
			t.Fatal(err)
		}
		err = loadText(eng, text)
		if err == nil {
			return
		}
		var line int
		if _, serr := fmt.Sscanf(err.Error(), "line %d:", &line); serr != nil || line < 1 || line > strings.Count(text, "\n")+1 {
			t.Fatalf("error %q names no line of the text", err)
		}
		if strings.Contains(err.Error(), "XX000") {
			t.Fatalf("internal error: %v", err)
		}
	})
}
