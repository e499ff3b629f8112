package sqlexec

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/oracle"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// fickleCheckMaxSteps bounds the PC/SI/SER search of fickle_check(), as
// fickle check's default does: past it a row's verdict is "unknown" rather
// than a statement that never ends.
const fickleCheckMaxSteps = 10_000_000

// strategyNames are fickle.strategy's values by store strategy. The
// store's default (StrategyDefault) is latest (isolation.Config.Strategy).
var strategyNames = map[isolation.Strategy]string{
	isolation.StrategyDefault:     "latest",
	isolation.StrategyLatest:      "latest",
	isolation.StrategyRandom:      "random",
	isolation.StrategyOldest:      "oldest",
	isolation.StrategyAdversarial: "adversarial",
}

// settingOverrides returns the engine's defaults that replace the built-in
// ones in every new session (and for RESET), by lower-case setting name:
// fickle.strategy names the store's strategy, and Config.DefaultIsolation
// becomes default_transaction_isolation when PostgreSQL has the level,
// fickle.isolation otherwise (read atomic, causal, prefix).
func (e *Engine) settingOverrides() map[string]string {
	o := map[string]string{"fickle.strategy": strategyNames[e.cfg.Strategy]}
	switch l := e.cfg.DefaultIsolation; l {
	case history.LevelUnknown:
	case history.ReadCommitted, history.Snapshot, history.Serializable:
		o["default_transaction_isolation"] = pgLevelName(l)
	default:
		o["fickle.isolation"] = l.String()
	}
	return o
}

// sessionOverrides are the defaults that replace the built-in ones for a
// session of info: the engine's (settingOverrides) and the server's own
// parameters (SessionInfo.ServerSettings: its port, max_connections, ...).
func (e *Engine) sessionOverrides(info SessionInfo) map[string]string {
	o := e.settingOverrides()
	for k, v := range info.ServerSettings {
		if settingDefs[k] != nil {
			o[k] = v
		}
	}
	return o
}

// followPGDefaultIsolation keeps the session's two defaults in step when
// it sets PostgreSQL's default_transaction_isolation (SET, SET SESSION
// CHARACTERISTICS, set_config): the later one wins, so an application that
// asks for SERIALIZABLE gets it on a server started with --isolation
// causal, whose default lives in fickle.isolation. RESET brings back the
// server's fickle.isolation too.
func (s *Session) followPGDefaultIsolation(reset, local bool) {
	v := ""
	if reset {
		v = s.engine.settingOverrides()["fickle.isolation"]
	}
	_ = s.settings.set("fickle.isolation", v, local)
}

// fickleCheckpoint runs SELECT fickle_checkpoint(): the store folds the
// latest committed state into init and starts a new history (the fixtures
// loaded so far become the initial state). It answers the number of
// transactions that ended in the history it closes (the caller's own,
// still open, moves to the new one), NULL when the store does not record. Like VACUUM it refuses to run inside a transaction block (25001);
// the store refuses while another session's transaction has read or
// written (55006).
func fickleCheckpoint(x *execCtx) (any, error) {
	if x.s.txn != nil && x.s.txn.explicit {
		return nil, pgerror.New(pgerror.ActiveSqlTransaction, "fickle_checkpoint() cannot run inside a transaction block").
			WithHint("Commit or roll back first: the checkpoint starts a new history.")
	}
	ended, err := x.s.engine.store.CheckpointCount()
	if err != nil {
		return nil, err
	}
	if !x.s.engine.cfg.Record {
		return nil, nil
	}
	return int64(ended), nil
}

// fickleCheckColumns are the columns of fickle_check().
var fickleCheckColumns = []string{"level", "verdict", "anomaly", "explanation"}

// fickleCheckItem compiles fickle_check() in FROM: a table of verdicts on
// the history recorded so far (see fickleCheckRows).
func (b *binder) fickleCheckItem(rf *pg_query.RangeFunction, fc *pg_query.FuncCall) (*fromItem, []scopeCol, error) {
	if len(fc.Args) != 0 {
		return nil, nil, b.errAt(pgerror.New(pgerror.UndefinedFunction, "function fickle_check takes no arguments"), fc.Location)
	}
	alias := "fickle_check"
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	cols := make([]scopeCol, len(fickleCheckColumns))
	for i, n := range fickleCheckColumns {
		cols[i] = scopeCol{rel: alias, name: n, typ: types.Text}
	}
	if err := applyColAliases(cols, rf.Alias); err != nil {
		return nil, nil, err
	}
	return &fromItem{name: alias, sub: fickleCheckRows}, cols, nil
}

// fickleCheckRows checks the history recorded so far (transactions still
// open count as pending: their reads are checked, their writes are not
// visible). The first row, level "own", checks every transaction at its
// own level, the guarantee the application asked for; then one row per
// level from RC up checks every transaction at that level, up to the
// first that does not hold, so the last row says how much isolation the
// run actually had. A row's anomaly and explanation are NULL unless its
// verdict is "violation"; "unknown" means the search budget ran out.
func fickleCheckRows(x *execCtx) ([][]any, error) {
	e := x.s.engine
	if !e.cfg.Record {
		return nil, pgerror.New(pgerror.ObjectNotInPrerequisiteState, "fickle_check() needs a recorded history, and this server does not record one").
			WithHint("Start fickle serve with --history FILE or --record.")
	}
	h, err := e.store.ReadHistory()
	if err != nil {
		return nil, pgerror.Newf(pgerror.IoError, "cannot read the history back: %v", err)
	}
	opts := oracle.Options{RealTime: e.cfg.RealTime, MaxSteps: fickleCheckMaxSteps}
	rows := [][]any{checkRow("own", h, oracle.Check(h, opts))}
	if err := x.checkCancel(); err != nil {
		return nil, err
	}
	_, results := oracle.StrongestLevel(h, opts)
	for _, r := range results {
		rows = append(rows, checkRow(r.Level.String(), h, r))
	}
	return rows, nil
}

// checkRow renders one check as a fickle_check() row.
func checkRow(level string, h *history.History, r oracle.Result) []any {
	row := []any{level, r.Verdict.String(), nil, nil}
	switch {
	case r.Explanation != nil:
		row[2] = r.Explanation.Anomaly
		row[3] = strings.TrimRight(r.Explanation.Text(h), "\n")
	case r.Verdict == oracle.Unknown:
		row[3] = fmt.Sprintf("undecided: the search budget of %d steps ran out", fickleCheckMaxSteps)
	}
	return row
}
