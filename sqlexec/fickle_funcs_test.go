package sqlexec

import (
	"context"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/oracle"
)

// query runs one statement and returns its rows.
func query(t *testing.T, s *Session, sql string) ([][]any, error) {
	t.Helper()
	sts, err := s.Parse(sql)
	if err != nil {
		return nil, err
	}
	p, err := s.Prepare(sts[0], nil)
	if err != nil {
		return nil, err
	}
	res, err := s.Execute(context.Background(), p, nil)
	if err != nil {
		return nil, err
	}
	return res.Rows, nil
}

func show(t *testing.T, s *Session, name string) string {
	t.Helper()
	rows, err := query(t, s, "SHOW "+name)
	if err != nil {
		t.Fatalf("SHOW %s: %v", name, err)
	}
	return rows[0][0].(string)
}

func newRecordingEngine(t *testing.T, cfg Config, storeCfg isolation.Config) (*Engine, *isolation.Store) {
	t.Helper()
	store := isolation.NewStore(storeCfg)
	cfg.Store = store
	cfg.Strategy, cfg.Record, cfg.RealTime = storeCfg.Strategy, storeCfg.Record, storeCfg.RealTime
	eng, err := NewEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return eng, store
}

// TestSessionDefaultsFollowEngineLevelAndStrategy pins what every session
// starts with under fickle serve --isolation and --strategy: PostgreSQL's
// levels become default_transaction_isolation, fickle's others
// fickle.isolation; SHOW answers in each one's terms; RESET returns to the
// server's default, not the built-in one.
func TestSessionDefaultsFollowEngineLevelAndStrategy(t *testing.T) {
	tests := []struct {
		level    history.Level
		strategy isolation.Strategy
		pg       string // SHOW transaction_isolation
		fickle   string // SHOW fickle.isolation
		strat    string // SHOW fickle.strategy
	}{
		{history.LevelUnknown, isolation.StrategyDefault, "read committed", "RC", "latest"},
		{history.ReadCommitted, isolation.StrategyAdversarial, "read committed", "RC", "adversarial"},
		{history.ReadAtomic, isolation.StrategyRandom, "read committed", "RA", "random"},
		{history.Causal, isolation.StrategyOldest, "read committed", "CC", "oldest"},
		{history.Prefix, isolation.StrategyLatest, "read committed", "PC", "latest"},
		{history.Snapshot, isolation.StrategyAdversarial, "repeatable read", "SI", "adversarial"},
		{history.Serializable, isolation.StrategyAdversarial, "serializable", "SER", "adversarial"},
	}
	for _, tc := range tests {
		t.Run(tc.fickle+"/"+tc.strat, func(t *testing.T) {
			eng, _ := newRecordingEngine(t, Config{DefaultIsolation: tc.level}, isolation.Config{Strategy: tc.strategy})
			s := eng.NewSession(SessionInfo{User: "u"})
			defer s.Close()
			if got := show(t, s, "transaction_isolation"); got != tc.pg {
				t.Errorf("transaction_isolation = %q, want %q", got, tc.pg)
			}
			if got := show(t, s, "fickle.isolation"); got != tc.fickle {
				t.Errorf("fickle.isolation = %q, want %q", got, tc.fickle)
			}
			if got := show(t, s, "fickle.strategy"); got != tc.strat {
				t.Errorf("fickle.strategy = %q, want %q", got, tc.strat)
			}
			mustRun(t, s, "BEGIN; CREATE TABLE t (k int PRIMARY KEY)")
			mustRun(t, s, "SELECT * FROM t")
			want := tc.level
			if want == history.LevelUnknown {
				want = history.ReadCommitted
			}
			if got := s.txn.kv.Level(); got != want {
				t.Errorf("a transaction without a level runs at %v, want %v", got, want)
			}
			mustRun(t, s, "COMMIT")
			mustRun(t, s, "SET fickle.isolation = 'causal'; SET default_transaction_isolation = 'serializable'; SET fickle.strategy = 'oldest'")
			mustRun(t, s, "RESET fickle.isolation; RESET default_transaction_isolation; RESET fickle.strategy")
			if got := show(t, s, "fickle.isolation"); got != tc.fickle {
				t.Errorf("after RESET fickle.isolation = %q, want %q", got, tc.fickle)
			}
			if got := show(t, s, "fickle.strategy"); got != tc.strat {
				t.Errorf("after RESET fickle.strategy = %q, want %q", got, tc.strat)
			}
		})
	}
}

// TestSetStrategyOverridesStoreDefault pins that SET fickle.strategy picks
// the named strategy whatever the server's default: 'adversarial' on a
// server started with --strategy latest is adversarial, not the default.
func TestSetStrategyOverridesStoreDefault(t *testing.T) {
	eng, _ := newRecordingEngine(t, Config{}, isolation.Config{Strategy: isolation.StrategyLatest})
	s := eng.NewSession(SessionInfo{User: "u"})
	defer s.Close()
	want := map[string]isolation.Strategy{"adversarial": isolation.StrategyAdversarial, "latest": isolation.StrategyLatest,
		"random": isolation.StrategyRandom, "oldest": isolation.StrategyOldest}
	for name, st := range want {
		mustRun(t, s, "SET fickle.strategy = '"+name+"'")
		if got := s.strategy(); got != st {
			t.Errorf("SET fickle.strategy = %q gives strategy %v, want %v", name, got, st)
		}
	}
}

// TestFickleCheckReportsOwnLevelAndEachLevel pins fickle_check()'s table:
// the columns, a first row for each transaction's own level, then one row
// per level from RC up to the first that fails (here none: one session
// with the latest strategy is serializable).
func TestFickleCheckReportsOwnLevelAndEachLevel(t *testing.T) {
	eng, _ := newRecordingEngine(t, Config{DefaultIsolation: history.Snapshot}, isolation.Config{Strategy: isolation.StrategyLatest, Record: true})
	s := eng.NewSession(SessionInfo{User: "u"})
	defer s.Close()
	mustRun(t, s, "CREATE TABLE acc (id int PRIMARY KEY, bal int)")
	mustRun(t, s, "INSERT INTO acc VALUES (1, 10), (2, 20)")
	mustRun(t, s, "UPDATE acc SET bal = bal + 1 WHERE id = 1")
	sts, _ := s.Parse("SELECT * FROM fickle_check()")
	p, err := s.Prepare(sts[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range p.Columns {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "level,verdict,anomaly,explanation" {
		t.Errorf("columns %s", got)
	}
	rows, err := query(t, s, "SELECT level, verdict, anomaly, explanation FROM fickle_check()")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"own", "RC", "RA", "CC", "PC", "SI", "SER"}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %v", len(rows), len(want), rows)
	}
	for i, r := range rows {
		if r[0] != want[i] || r[1] != "consistent" || r[2] != nil || r[3] != nil {
			t.Errorf("row %d = %v, want (%s, consistent, NULL, NULL)", i, r, want[i])
		}
	}
	rows, err = query(t, s, "SELECT verdict FROM fickle_check() AS c WHERE c.level = 'own'")
	if err != nil || len(rows) != 1 || rows[0][0] != "consistent" {
		t.Errorf("filtered fickle_check() = %v, %v", rows, err)
	}
	if _, err := query(t, s, "SELECT fickle_check()"); pgerror.GetCode(err) != pgerror.FeatureNotSupported {
		t.Errorf("fickle_check() in the select list: %v, want 0A000", err)
	}
}

// TestFickleCheckWithoutRecordingSaysSo pins 55000 with a hint when the
// store keeps no history.
func TestFickleCheckWithoutRecordingSaysSo(t *testing.T) {
	eng, _ := newRecordingEngine(t, Config{}, isolation.Config{})
	s := eng.NewSession(SessionInfo{User: "u"})
	defer s.Close()
	_, err := query(t, s, "SELECT * FROM fickle_check()")
	if pgerror.GetCode(err) != pgerror.ObjectNotInPrerequisiteState || !strings.Contains(err.Error(), "recorded history") {
		t.Fatalf("got %v, want 55000 about the recorded history", err)
	}
}

// TestCheckRowExplainsViolation pins how a violation reads in a
// fickle_check() row: the anomaly's name and the oracle's text of the
// cycle (a lost update at SI).
func TestCheckRowExplainsViolation(t *testing.T) {
	b := history.NewBuilder()
	x := b.Key("acc", "x")
	b.InitWrite(x, 0)
	s1, s2 := b.Session("s1"), b.Session("s2")
	t1 := b.Txn(s1, history.Snapshot).Table("acc").Read("x", history.Init).Write("x").Commit()
	t2 := b.Txn(s2, history.Snapshot).Table("acc").Read("x", history.Init).Write("x").Commit()
	b.CommitOrder(t1, t2)
	h := b.MustHistory()
	row := checkRow("own", h, oracle.Check(h, oracle.Options{}))
	if row[0] != "own" || row[1] != "violation" {
		t.Fatalf("row %v", row)
	}
	if row[2] != "lost update" {
		t.Errorf("anomaly %v, want lost update", row[2])
	}
	if ex, _ := row[3].(string); !strings.HasPrefix(ex, "violates SI: lost update") {
		t.Errorf("explanation %q", ex)
	}
	if row := checkRow("SER", h, oracle.Result{Verdict: oracle.Unknown}); row[1] != "unknown" || row[3] == nil {
		t.Errorf("undecided row %v", row)
	}
}

// TestFickleCheckpointFoldsStateIntoInit pins SELECT fickle_checkpoint():
// it answers how many transactions the ended history held, the next
// history reads the same rows from init, and it refuses to run inside a
// transaction block (25001) or while another transaction has read (55006).
func TestFickleCheckpointFoldsStateIntoInit(t *testing.T) {
	eng, store := newRecordingEngine(t, Config{}, isolation.Config{Strategy: isolation.StrategyLatest, Record: true})
	s := eng.NewSession(SessionInfo{User: "u"})
	defer s.Close()
	mustRun(t, s, "CREATE TABLE acc (id int PRIMARY KEY, bal int)")
	mustRun(t, s, "INSERT INTO acc VALUES (1, 10), (2, 20)")
	mustRun(t, s, "UPDATE acc SET bal = 11 WHERE id = 1")
	ended := 0
	for _, tx := range store.History().Txns[1:] {
		if tx.Outcome != history.Pending {
			ended++
		}
	}
	rows, err := query(t, s, "SELECT fickle_checkpoint()")
	if err != nil {
		t.Fatal(err)
	}
	if rows[0][0] != int64(ended) {
		t.Errorf("fickle_checkpoint() = %v, want %d", rows[0][0], ended)
	}
	rows, err = query(t, s, "SELECT bal FROM acc ORDER BY id")
	if err != nil || len(rows) != 2 || rows[0][0] != int64(11) || rows[1][0] != int64(20) {
		t.Fatalf("after the checkpoint: %v, %v", rows, err)
	}
	h := store.History()
	reads := 0
	for _, tx := range h.Txns[1:] {
		for _, op := range tx.Ops {
			if op.Kind == history.OpRead {
				reads++
				if op.Writer != history.Init {
					t.Errorf("read of %v from T%d, want init", h.Keys[op.Key], op.Writer)
				}
			}
		}
	}
	if reads != 2 || len(h.Txns[history.Init].Ops) != 2 {
		t.Errorf("new history: %d reads, init writes %d keys; want 2 and 2", reads, len(h.Txns[history.Init].Ops))
	}

	mustRun(t, s, "BEGIN")
	if _, err := query(t, s, "SELECT fickle_checkpoint()"); pgerror.GetCode(err) != pgerror.ActiveSqlTransaction {
		t.Errorf("inside BEGIN: %v, want 25001", err)
	}
	mustRun(t, s, "ROLLBACK")
	other := eng.NewSession(SessionInfo{User: "o"})
	defer other.Close()
	mustRun(t, other, "BEGIN")
	mustRun(t, other, "SELECT * FROM acc")
	if _, err := query(t, s, "SELECT fickle_checkpoint()"); pgerror.GetCode(err) != pgerror.ObjectInUse {
		t.Errorf("with another transaction open: %v, want 55006", err)
	}
	mustRun(t, other, "COMMIT")
	if _, err := query(t, s, "SELECT fickle_checkpoint()"); err != nil {
		t.Errorf("after it ended: %v", err)
	}
}

// TestPGDefaultIsolationOverridesServerFickleLevel pins that on a server
// whose default is one of fickle's own levels (carried by fickle.isolation),
// an application's later choice of PostgreSQL's default wins, by each way
// of making it, and RESET returns to the server's level.
func TestPGDefaultIsolationOverridesServerFickleLevel(t *testing.T) {
	eng, _ := newRecordingEngine(t, Config{DefaultIsolation: history.Causal}, isolation.Config{})
	for _, set := range []string{
		"SET default_transaction_isolation = 'serializable'",
		"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
		"SELECT set_config('default_transaction_isolation', 'serializable', false)",
	} {
		s := eng.NewSession(SessionInfo{User: "u"})
		if got := show(t, s, "fickle.isolation"); got != "CC" {
			t.Fatalf("server default %q, want CC", got)
		}
		mustRun(t, s, set)
		if got := show(t, s, "fickle.isolation"); got != "SER" {
			t.Errorf("after %s: fickle.isolation %q, want SER", set, got)
		}
		mustRun(t, s, "RESET default_transaction_isolation")
		if got := show(t, s, "fickle.isolation"); got != "CC" {
			t.Errorf("after RESET: fickle.isolation %q, want the server's CC", got)
		}
		mustRun(t, s, "SET fickle.isolation = 'prefix'")
		if got := show(t, s, "transaction_isolation"); got != "read committed" {
			t.Errorf("after SET fickle.isolation: transaction_isolation %q", got)
		}
		if got := show(t, s, "fickle.isolation"); got != "PC" {
			t.Errorf("the later SET fickle.isolation: %q, want PC", got)
		}
		s.Close()
	}
	s := eng.NewSession(SessionInfo{User: "u", StartupParams: map[string]string{"default_transaction_isolation": "repeatable read"}})
	defer s.Close()
	if got := show(t, s, "fickle.isolation"); got != "SI" {
		t.Errorf("with default_transaction_isolation in the startup packet: fickle.isolation %q, want SI", got)
	}
}

// TestServerSettingsAndEndpointsReachTheSession pins what a session shows
// of its server and connection: the parameters the server decides (SHOW
// port, max_connections; pg_settings' source command line; not settable,
// 55P02) and the endpoints of inet_server_* and inet_client_*, NULL for a
// connection without TCP endpoints.
func TestServerSettingsAndEndpointsReachTheSession(t *testing.T) {
	eng, _ := newRecordingEngine(t, Config{}, isolation.Config{})
	s := eng.NewSession(SessionInfo{User: "u", ServerSettings: map[string]string{"port": "6543", "max_connections": "9"},
		ServerAddr: "127.0.0.1", ServerPort: 6543, ClientAddr: "::ffff:10.0.0.2", ClientPort: 50000})
	defer s.Close()
	if got := show(t, s, "port"); got != "6543" {
		t.Errorf("SHOW port = %q, want 6543", got)
	}
	rows, err := query(t, s, "SELECT setting, source, boot_val FROM pg_settings WHERE name = 'max_connections'")
	if err != nil || len(rows) != 1 || rows[0][0] != "9" || rows[0][1] != "command line" || rows[0][2] != "100" {
		t.Errorf("pg_settings max_connections = %v, %v; want 9, command line, 100", rows, err)
	}
	if _, err := query(t, s, "SET port = 1"); pgerror.GetCode(err) != pgerror.CantChangeRuntimeParam {
		t.Errorf("SET port: %v, want 55P02", err)
	}
	rows, err = query(t, s, "SELECT inet_server_addr()::text, inet_server_port(), inet_client_addr()::text, inet_client_port()")
	if err != nil || len(rows) != 1 || rows[0][0] != "127.0.0.1/32" || rows[0][1] != int64(6543) || rows[0][2] != "10.0.0.2/32" || rows[0][3] != int64(50000) {
		t.Errorf("endpoints = %v, %v", rows, err)
	}
	local := eng.NewSession(SessionInfo{User: "u"})
	defer local.Close()
	rows, err = query(t, local, "SELECT inet_server_addr(), inet_server_port(), inet_client_addr(), inet_client_port(), current_setting('port')")
	if err != nil || len(rows) != 1 || rows[0][0] != nil || rows[0][1] != nil || rows[0][2] != nil || rows[0][3] != nil || rows[0][4] != "5432" {
		t.Errorf("endpoints of a session without TCP = %v, %v; want NULLs and port 5432", rows, err)
	}
}
