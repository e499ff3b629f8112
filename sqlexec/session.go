package sqlexec

import (
	"context"
	"strings"
	"time"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Session is one client connection's state: its settings, its open
// transaction and its savepoints. A Session is used by one goroutine at a
// time (the connection's).
type Session struct {
	engine   *Engine
	info     SessionInfo
	kv       *isolation.Session
	settings settings
	txn      *txnState
	// listen is what the session listens to and has received (notify.go).
	listen sessionInbox
	act    activity
	// tempID numbers the session's temporary schema, pg_temp_N; 0 until
	// the session first needs it.
	tempID int
	// tempSeen is set once a DDL statement of the session has seen its
	// temporary schema in a catalog newer than the number's last owner's
	// cleanup (tempCreationSchema).
	tempSeen bool
	// schemaBeingCreated is the schema whose CREATE SCHEMA elements are
	// running: the search path starts with it until they end.
	schemaBeingCreated string
	// currval holds the last value nextval returned in this session, by
	// sequence.
	currval map[uint32]int64
	// seqCache holds the values nextval fetched ahead of sequences with a
	// CACHE above 1, by sequence.
	seqCache map[uint32]sessionSeqCache
	// lastval is the OID of the sequence nextval was last called on.
	lastval uint32
	// lo are the open large-object descriptors (largeobject.go).
	lo loDescriptors
	// plans caches the plans of statements prepared without parameter
	// types, and of those the literal cache prepares (literal_cache.go).
	plans map[planKey]cachedPlan
	// tzName and tzLoc cache the location of the TimeZone setting.
	tzName string
	tzLoc  *time.Location
	// cursors are the open SQL cursors by name; cursorCount numbers their
	// declarations (cursor.go); unnamedPortals numbers the cursors PL/pgSQL
	// opens without a name, "<unnamed portal N>" (plpgsql_cursor.go).
	cursors        map[string]*cursor
	cursorCount    int
	unnamedPortals int
	// preparedStatements lists the connection's prepared statements for
	// pg_prepared_statements: the server keeps them (sql_prepare.go).
	preparedStatements func() []PreparedStatementInfo
	// findPrepared finds one of them by name, for the statements that
	// run one (EXPLAIN EXECUTE, CREATE TABLE AS EXECUTE).
	findPrepared func(name string) (NamedStatement, bool)
	// statements numbers the statements the session has executed, so
	// that a cursor sees whether others ran since it last read (cursor.go).
	statements uint64
	// env caches textEnv for settings version envVersion.
	env        *types.Env
	envVersion uint64
	// pathMemo caches planPath (plan_path.go).
	pathMemo pathMemo
	// level caches defaultLevel for settings version levelVersion-1 (0:
	// not computed), so that BEGIN parses no setting's text.
	level        history.Level
	levelVersion uint64
	// routineDepth counts the routine calls in progress; routines caches
	// their compiled bodies; notices collects what RAISE sent during the
	// statement (functions*.go, plpgsql*.go).
	routineDepth int
	// queryLevel is the running statement's list of AFTER events that
	// foreign keys' actions take part in (ri_actions.go), nil when empty.
	queryLevel *afterLevel
	// nonAtomic counts the outermost routine calls that may end the
	// transaction (plpgsql_txn.go).
	nonAtomic int
	routines  map[*funcDesc]*compiledRoutine
	// polyRoutines are the polymorphic routines specialized for the
	// actual types of calls (functions_poly.go).
	polyRoutines map[polyKey]*funcDesc
	notices      []*pgerror.Error
	// writeCount counts the rows UPDATE and DELETE changed; modifying
	// counts the UPDATE and DELETE statements running, the outermost at
	// routine depth outerModifyDepth; routineWrites holds the rows that
	// statements run deeper changed meanwhile (triggered_writes.go).
	writeCount       uint64
	modifying        int
	outerModifyDepth int
	routineWrites    map[rowRef]routineWrite
	// stmt is the client's statement being executed, and routineNames
	// the routines and triggers running inside it, outermost first: the
	// history names a routine's statements with both.
	stmt         history.Statement
	routineNames []string
	// evtStack holds the event trigger states of the commands running,
	// outermost first (event_trigger_fire.go).
	evtStack []*evtState
	// triggerTables are the OIDs of the relations whose triggers are
	// running, outermost first: DDL may not change them (checkNotInUse).
	triggerTables []uint32
	// transitions are the transition tables of the trigger running, which
	// its queries read as relations (triggers_transition.go).
	transitions []*transitionTable
	// definer is the owner of the SECURITY DEFINER routine running, the
	// current_user while it runs; "" outside one.
	definer string
	// sysCache keeps what the session derived from the catalog across
	// statements (catalog_rows_cache.go).
	sysCache systemCache
}

// txnState is the open transaction.
type txnState struct {
	// kv is the store transaction, begun by the first statement.
	kv    *isolation.Txn
	level history.Level
	// uncommitted says the transaction asked for READ UNCOMMITTED, which
	// runs as READ COMMITTED (as in PostgreSQL) but keeps its own name in
	// transaction_isolation.
	uncommitted bool
	readOnly    bool
	deferrable  bool
	explicit    bool
	start       time.Time
	savepoints  []savepoint
	// cat is the transaction's own catalog once it ran DDL.
	cat *txnCatalog
	// deferred holds the deferred constraint checks (deferred.go).
	deferred deferredState
	// stmtUniques are the unique checks queued for the statement's end
	// (deferred_unique.go).
	stmtUniques []uniqueCheck
	// stmtFKs are the NO ACTION foreign-key checks of changed or deleted
	// referenced keys queued for the statement's end (deferred.go).
	stmtFKs []deferredFK
	// cursors is the session's cursorCount when the transaction began.
	cursors int
	// notify holds the LISTEN, UNLISTEN and NOTIFY actions waiting for
	// the commit (notify.go).
	notify pendingNotify
	// usedTemp says a statement of the transaction used a temporary table.
	usedTemp bool
	// fresh maps the store tables the transaction created or truncated to
	// the depth (number of open savepoints) of the subtransaction that did
	// it, which COPY FREEZE requires to be the current one.
	fresh map[isolation.TableID]int
}

// markFresh records that the current subtransaction created or truncated
// the store table id.
func (t *txnState) markFresh(id isolation.TableID) {
	if t.fresh == nil {
		t.fresh = map[isolation.TableID]int{}
	}
	t.fresh[id] = len(t.savepoints)
}

// freshInCurrent says the current subtransaction created or truncated the
// store table id, or a subtransaction it released did.
func (t *txnState) freshInCurrent(id isolation.TableID) bool {
	depth, ok := t.fresh[id]
	return ok && depth == len(t.savepoints)
}

// endSubtransaction hands the fresh tables of the subtransactions deeper
// than depth to the subtransaction at depth (released) or forgets them
// (rolled back), as PostgreSQL moves or resets a relation's new-relfilenode
// subtransaction at a subtransaction's end.
func (t *txnState) endSubtransaction(depth int, committed bool) {
	for id, d := range t.fresh {
		switch {
		case d <= depth:
		case committed:
			t.fresh[id] = depth
		default:
			delete(t.fresh, id)
		}
	}
}

type savepoint struct {
	name string
	// readOnly is the transaction's access mode when the savepoint was
	// made: releasing it or rolling back to it restores the mode, as
	// PostgreSQL restores XactReadOnly at the end of a subtransaction.
	readOnly bool
	sp       isolation.Savepoint
	cat      catalogMark
	deferred deferredState
	cursors  int
	notify   notifyMark
}

func (e *Engine) newSession(info SessionInfo) *Session {
	s := &Session{
		engine:   e,
		info:     info,
		settings: newSettings(info, e.sessionOverrides(info)),
		currval:  make(map[uint32]int64),
		listen:   sessionInbox{ready: make(chan struct{}, 1)},
	}
	if name := info.StartupParams["fickle.session"]; name != "" {
		s.kv = e.store.Session(name)
	} else {
		s.kv = e.store.NewSession()
	}
	s.act.start(time.Now())
	s.act.backendID = e.cluster.backendIDs.take()
	s.kv.RecordWaits(&s.act)
	e.sessions.Lock()
	if e.sessions.open == nil {
		e.sessions.open = make(map[*Session]struct{})
	}
	e.sessions.open[s] = struct{}{}
	e.sessions.Unlock()
	return s
}

func (s *Session) close() {
	if s.txn != nil {
		_ = s.rollback()
	}
	if s.tempID != 0 {
		_ = s.dropTempObjects()
	}
	s.unlistenAll()
	if s.kv.Name() == "" {
		// The connection's advisory locks go with it; a logical session
		// (fickle.session) keeps its own for its other connections.
		s.kv.Close()
	}
	e := s.engine
	e.sessions.Lock()
	delete(e.sessions.open, s)
	e.sessions.Unlock()
	e.cluster.backendIDs.free(s.act.backendID)
}

// terminate ends the session's connection, as pg_terminate_backend does
// (DROP DATABASE ... WITH (FORCE)); a session without a connection
// (SessionInfo.Terminate nil) is left alone.
func (s *Session) terminate() {
	if s.info.Terminate != nil {
		s.info.Terminate()
	}
}

// defaultLevel is the level a transaction gets without an explicit one:
// fickle.isolation if set, else default_transaction_isolation.
func (s *Session) defaultLevel() history.Level {
	if s.levelVersion != s.settings.version+1 {
		s.level, s.levelVersion = s.settingsLevel(), s.settings.version+1
	}
	return s.level
}

// defaultUncommitted says a transaction without an explicit level is READ
// UNCOMMITTED: default_transaction_isolation says so and fickle.isolation
// does not override it.
func (s *Session) defaultUncommitted() bool {
	if v, _ := s.settings.get("fickle.isolation"); v != "" {
		return false
	}
	v, _ := s.settings.get("default_transaction_isolation")
	return isReadUncommitted(v)
}

// isReadUncommitted says an isolation level's text names READ UNCOMMITTED.
func isReadUncommitted(v string) bool {
	return levelWordSeparators.Replace(strings.ToLower(strings.TrimSpace(v))) == "read uncommitted"
}

// levelWordSeparators spells an isolation level's words apart with spaces;
// made once, since every BEGIN asks isReadUncommitted.
var levelWordSeparators = strings.NewReplacer("-", " ", "_", " ")

// settingsLevel parses the settings that defaultLevel caches.
func (s *Session) settingsLevel() history.Level {
	if v, _ := s.settings.get("fickle.isolation"); v != "" {
		if l, err := history.ParseLevel(v); err == nil {
			return l
		}
	}
	v, _ := s.settings.get("default_transaction_isolation")
	l, err := history.ParseLevel(v)
	if err != nil {
		return history.ReadCommitted
	}
	return l
}

func (s *Session) begin(opts TxnOptions, explicit bool) error {
	if s.txn != nil {
		return pgerror.New(pgerror.ActiveSqlTransaction, "there is already a transaction in progress")
	}
	level, uncommitted := s.defaultLevel(), s.defaultUncommitted()
	if opts.Isolation != "" {
		l, err := history.ParseLevel(opts.Isolation)
		if err != nil {
			return pgerror.Newf(pgerror.InvalidParameterValue, "unknown isolation level %q", opts.Isolation)
		}
		level, uncommitted = l, isReadUncommitted(opts.Isolation)
	}
	ro, _ := s.settings.get("default_transaction_read_only")
	readOnly := ro == "on"
	if opts.ReadOnly {
		readOnly = true
	} else if opts.ReadWrite {
		readOnly = false
	}
	def, _ := s.settings.get("default_transaction_deferrable")
	deferrable := (def == "on" || opts.Deferrable) && !opts.NotDeferrable
	s.txn = &txnState{level: level, uncommitted: uncommitted, readOnly: readOnly, deferrable: deferrable, explicit: explicit, start: time.Now().UTC(), cursors: s.cursorCount}
	s.act.txn(s.txn.start, explicit)
	s.settings.beginTxn()
	return nil
}

// strategy maps fickle.strategy (which starts as the store's default, see
// Config.Strategy) to the store's strategy.
func (s *Session) strategy() isolation.Strategy {
	v, _ := s.settings.get("fickle.strategy")
	switch v {
	case "latest":
		return isolation.StrategyLatest
	case "random":
		return isolation.StrategyRandom
	case "oldest":
		return isolation.StrategyOldest
	case "adversarial":
		return isolation.StrategyAdversarial
	}
	return isolation.StrategyDefault
}

func (s *Session) endTxn(committed bool) {
	s.endCursors(committed, s.txn.cursors)
	s.txn = nil
	s.act.txn(time.Time{}, false)
	s.settings.endTxn(committed)
}

func (s *Session) commit() error {
	if s.txn == nil {
		return nil
	}
	t := s.txn
	if t.kv != nil && len(t.deferred.pending)+len(t.deferred.uniques)+len(t.deferred.triggers) > 0 {
		if err := s.runDeferred(t.kv, nil); err != nil {
			_ = s.rollback()
			return err
		}
	}
	if t.kv != nil && s.tempID != 0 {
		if err := s.runOnCommitActions(); err != nil {
			_ = s.rollback()
			return err
		}
	}
	s.endTxn(true)
	return s.commitNotifying(t, func() error {
		switch {
		case t.kv == nil:
			return nil
		case t.cat != nil:
			return s.commitWithCatalog(t)
		}
		return t.kv.Commit(bgctx)
	})
}

func (s *Session) rollback() error {
	if s.txn == nil {
		return nil
	}
	t := s.txn
	s.endTxn(false)
	t.abortCatalog()
	if t.kv == nil {
		return nil
	}
	return t.kv.Rollback()
}

func (s *Session) savepoint(ctx context.Context, name string) error {
	if s.txn == nil {
		return pgerror.New(pgerror.NoActiveSqlTransaction, "SAVEPOINT can only be used in transaction blocks")
	}
	kv, err := s.kvTxn(ctx)
	if err != nil {
		return err
	}
	sp := kv.Savepoint()
	s.txn.savepoints = append(s.txn.savepoints, savepoint{name: name, readOnly: s.txn.readOnly, sp: sp, cat: s.txn.catalogMark(), deferred: s.txn.deferred.mark(), cursors: s.cursorCount,
		notify: s.txn.notify.mark()})
	s.settings.savepoint()
	return nil
}

// findSavepoint returns the index of the innermost savepoint called name.
func (s *Session) findSavepoint(name string) (int, error) {
	if s.txn != nil {
		for i := len(s.txn.savepoints) - 1; i >= 0; i-- {
			if strings.EqualFold(s.txn.savepoints[i].name, name) {
				return i, nil
			}
		}
	}
	return 0, pgerror.Newf(pgerror.InvalidSavepointSpecification, "savepoint \"%s\" does not exist", name)
}

func (s *Session) releaseSavepoint(name string) error {
	i, err := s.findSavepoint(name)
	if err != nil {
		return err
	}
	if err := s.txn.kv.Release(s.txn.savepoints[i].sp); err != nil {
		return err
	}
	s.txn.readOnly = s.txn.savepoints[i].readOnly
	s.txn.savepoints = s.txn.savepoints[:i]
	s.txn.endSubtransaction(i, true)
	s.endLoSubtransaction(i, true)
	s.settings.release(i + 1)
	return nil
}

func (s *Session) rollbackToSavepoint(name string) error {
	i, err := s.findSavepoint(name)
	if err != nil {
		return err
	}
	s.txn.rollbackCatalogTo(s.txn.savepoints[i].cat)
	s.txn.deferred = s.txn.savepoints[i].deferred.mark()
	s.txn.notify.rollbackTo(s.txn.savepoints[i].notify)
	s.rollbackCursors(s.txn.savepoints[i].cursors)
	if err := s.txn.kv.RollbackTo(s.txn.savepoints[i].sp); err != nil {
		return err
	}
	s.txn.readOnly = s.txn.savepoints[i].readOnly
	s.txn.savepoints = s.txn.savepoints[:i+1]
	s.txn.endSubtransaction(i, false)
	s.endLoSubtransaction(i, false)
	s.settings.rollbackTo(i + 1)
	return nil
}

// PrepareTransaction is PREPARE TRANSACTION's failure in the open
// transaction: fickle, like PostgreSQL with max_prepared_transactions = 0,
// prepares nothing (55000); PostgreSQL refuses first a transaction that
// used a temporary table (0A000).
func (s *Session) PrepareTransaction() error {
	if s.txn != nil && s.txn.usedTemp {
		return pgerror.New(pgerror.FeatureNotSupported, "cannot PREPARE a transaction that has operated on temporary objects")
	}
	return pgerror.New(pgerror.ObjectNotInPrerequisiteState, "prepared transactions are disabled").
		WithHint("Set max_prepared_transactions to a nonzero value.")
}

// warn sends a WARNING to the client with the statement's result, unless
// client_min_messages is above it (sentNotices).
func (s *Session) warn(w *pgerror.Error) {
	w.Severity = "WARNING"
	s.notices = append(s.notices, w)
}
