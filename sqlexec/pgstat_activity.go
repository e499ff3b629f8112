package sqlexec

import (
	"net/netip"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// pg_stat_activity, one row per open session of the server, and the
// functions that signal a session by its pid (pg_cancel_backend,
// pg_terminate_backend). A session publishes what the view shows in its
// activity under a lock, so that other sessions read it safely.

// activity is what pg_stat_activity shows of a session.
type activity struct {
	mu           sync.Mutex
	backendStart time.Time
	xactStart    time.Time // zero outside a transaction
	queryStart   time.Time
	stateChange  time.Time
	state        string
	query        string
	user         string
	role         uint32
	appName      string
	// backendID and lxid make the session's virtual transaction id
	// (pg_locks): lxid numbers its transactions, 0 outside one.
	backendID   int
	lxid, lxids uint32
	// waitSeq and waitStart are the store's number for the session's
	// latest lock wait and when it began (pg_locks.waitstart).
	waitSeq   uint64
	waitStart time.Time
}

// WaitStarted notes that the session's lock wait seq begins now
// (isolation.WaitRecorder).
func (a *activity) WaitStarted(seq uint64) {
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.waitSeq, a.waitStart = seq, now
}

// waitStartOf returns when the session's lock wait seq began, if it knows.
func (a *activity) waitStartOf(seq uint64) (time.Time, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.waitStart, a.waitSeq == seq
}

// start records the session's start, idle.
func (a *activity) start(now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.backendStart, a.stateChange, a.state = now, now, "idle"
}

// beginQuery records that the session runs query, as user.
func (a *activity) beginQuery(s *Session, query string) {
	now := time.Now()
	user, role := s.sessionUser(), s.currentRole()
	app, _ := s.settings.get("application_name")
	a.mu.Lock()
	defer a.mu.Unlock()
	a.query, a.queryStart, a.state, a.stateChange = query, now, "active", now
	a.user, a.role, a.appName = user, role, app
}

// endQuery records that the session waits for its client, inside an
// explicit transaction (aborted, when the statement failed) or not.
func (a *activity) endQuery(inTxn, failed bool) {
	state := "idle"
	switch {
	case inTxn && failed:
		state = "idle in transaction (aborted)"
	case inTxn:
		state = "idle in transaction"
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.state, a.stateChange = state, time.Now()
}

// txn records the start (or, zero, the end) of a transaction; BEGIN
// leaves the session idle in it.
func (a *activity) txn(start time.Time, explicit bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.xactStart = start
	a.lxid = 0
	if !start.IsZero() {
		a.lxids++
		a.lxid = a.lxids
	}
	switch {
	case a.state == "active":
	case start.IsZero():
		a.state, a.stateChange = "idle", time.Now()
	case explicit:
		a.state, a.stateChange = "idle in transaction", time.Now()
	}
}

// tracked runs a statement of p as pg_stat_activity shows it: active from
// its start until it (or the stream of its rows) ends.
func (s *Session) tracked(p *Prepared, run func() (*Result, error)) (*Result, error) {
	switch {
	case p != nil && p.bound != nil:
		s.act.beginQuery(s, p.bound.sql) // the text the client sent, not the literal cache's
	case p != nil && p.Statement != nil:
		s.act.beginQuery(s, p.Statement.SQL())
	}
	res, err := run()
	if err == nil && res != nil && res.Stream != nil {
		stream := res.Stream
		res.Stream = func(send func(row []any) error) (tag string, err error) {
			defer func() { s.act.endQuery(s.txn != nil && s.txn.explicit, err != nil) }()
			return stream(send)
		}
		return res, nil
	}
	s.act.endQuery(s.txn != nil && s.txn.explicit, err != nil)
	return res, err
}

// row is the session's pg_stat_activity row.
func (a *activity) row(s *Session, db *Engine, waits map[uint32]string) []any {
	a.mu.Lock()
	defer a.mu.Unlock()
	ts := func(t time.Time) any {
		if t.IsZero() {
			return nil
		}
		return t.UTC()
	}
	var port any = int64(-1)
	addr := endpointInet(s.info.ClientAddr)
	if addr != nil {
		port = int64(s.info.ClientPort)
	}
	user := any(a.user)
	if a.user == "" {
		user = s.info.User
	}
	var waitType, wait any
	if w, ok := waits[s.info.ProcessID]; ok {
		waitType, wait = "Lock", w
	} else if strings.HasPrefix(a.state, "idle") {
		waitType, wait = "Client", "ClientRead" // it waits for its client's next message
	}
	return []any{int64(db.oid), db.Name(), int64(s.info.ProcessID), nil, int64(a.role), user, a.appName, addr, nil, port,
		a.backendStart.UTC(), ts(a.xactStart), ts(a.queryStart), ts(a.stateChange), waitType, wait, a.state, nil, nil, nil,
		a.query, "client backend"}
}

// allSessions lists the open sessions of every database of the cluster,
// with their database, ordered by pid.
func (c *cluster) allSessions() []sessionOf {
	var out []sessionOf
	for _, e := range c.databases() {
		for _, s := range e.otherSessions(nil) {
			out = append(out, sessionOf{s, e})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].s.info.ProcessID < out[j].s.info.ProcessID })
	return out
}

// oidPgSignalBackend is the predefined role pg_signal_backend.
const oidPgSignalBackend = 4200

type sessionOf struct {
	s  *Session
	db *Engine
}

// signalBackend is pg_cancel_backend and pg_terminate_backend: the session
// whose pid is given, if the caller may signal it (PostgreSQL's rules: a
// superuser's only by a superuser, another role's only by its members or
// pg_signal_backend's); a pid that is no session's warns and answers false.
func signalBackend(x *execCtx, pid int64, terminate bool) (any, error) {
	for _, so := range x.s.engine.cluster.allSessions() {
		if int64(so.s.info.ProcessID) != pid {
			continue
		}
		so.s.act.mu.Lock()
		target := so.s.act.role
		so.s.act.mu.Unlock()
		me := x.s.currentRole()
		if x.s.isSuperuser(target) && !x.s.isSuperuser(me) {
			return nil, pgerror.Newf(pgerror.InsufficientPrivilege, "must be a superuser to %s", map[bool]string{true: "terminate superuser process", false: "cancel superuser query"}[terminate])
		}
		if !x.s.isSuperuser(me) && !x.s.memberOf(me)[target] && !x.s.memberOf(me)[oidPgSignalBackend] {
			return nil, pgerror.Newf(pgerror.InsufficientPrivilege, "must be a member of the role whose %s or member of pg_signal_backend",
				map[bool]string{true: "process is being terminated", false: "query is being canceled"}[terminate])
		}
		if terminate {
			so.s.terminate()
		} else if so.s.info.Cancel != nil {
			so.s.info.Cancel()
		}
		return true, nil
	}
	x.s.warn(pgerror.Newf(pgerror.SuccessfulCompletion, "PID %d is not a PostgreSQL backend process", pid))
	return false, nil
}

func init() {
	oid, name, text, i4, tz := types.OidType, types.Name, types.Text, types.Int4, types.Timestamptz
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_stat_activity",
		cols: []vcol{{"datid", oid}, {"datname", name}, {"pid", i4}, {"leader_pid", i4}, {"usesysid", oid}, {"usename", name},
			{"application_name", text}, {"client_addr", types.InetType}, {"client_hostname", text}, {"client_port", i4},
			{"backend_start", tz}, {"xact_start", tz}, {"query_start", tz}, {"state_change", tz}, {"wait_event_type", text},
			{"wait_event", text}, {"state", text}, {"backend_xid", types.Type{Oid: types.OidXID, Typmod: -1}},
			{"backend_xmin", types.Type{Oid: types.OidXID, Typmod: -1}}, {"query_id", types.Int8}, {"query", text}, {"backend_type", text}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			waits := s.lockWaits()
			for _, so := range s.engine.cluster.allSessions() {
				out = append(out, so.s.act.row(so.s, so.db, waits))
			}
			return out
		}})
	for _, fn := range []struct {
		name      string
		terminate bool
	}{{"pg_cancel_backend", false}, {"pg_terminate_backend", true}} {
		addSysFunc(fn.name, sysFunc{args: []types.Type{i4}, result: types.Bool, volatile: true,
			eval: func(x *execCtx, a []any) (any, error) { return signalBackend(x, a[0].(int64), fn.terminate) }})
	}
}

// endpointInet is a TCP endpoint's address as an inet value, nil for a
// Unix-socket connection (no address).
func endpointInet(addr string) any {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return nil
	}
	v, _ := types.ParseText(types.InetType, ip.Unmap().String())
	return v
}
