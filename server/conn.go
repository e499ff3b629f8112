package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/internal/pgencoding"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/wire"
)

// The errors a statement's context is cancelled with; the statement fails
// with the cause, whatever error the engine returns for the cancellation.
var (
	errQueryCanceled = pgerror.New(pgerror.QueryCanceled, "canceling statement due to user request")
	errTimeout       = pgerror.New(pgerror.QueryCanceled, "canceling statement due to statement timeout")
	errAdminShutdown = func() *pgerror.Error {
		e := pgerror.New(pgerror.AdminShutdown, "terminating connection due to administrator command")
		e.Severity = "FATAL"
		return e
	}()
)

// errTooManyClients refuses a client beyond Config.MaxConnections.
var errTooManyClients = func() *pgerror.Error {
	e := pgerror.New(pgerror.TooManyConnections, "sorry, too many clients already")
	e.Severity = "FATAL"
	return e
}()

// authenticationTimeout bounds startup and authentication, as PostgreSQL's
// authentication_timeout (default 1 min) does.
const authenticationTimeout = time.Minute

// flushThreshold is the amount of buffered output after which rows are
// flushed before the end of a result.
const flushThreshold = 64 << 10

// conn is one client connection: the protocol state (prepared statements,
// portals, the transaction state, error-until-Sync) and its Session. All
// fields but mu and terminating belong to the connection's goroutine.
type conn struct {
	srv *Server
	raw net.Conn // the accepted connection
	// watcher cancels the running statement when the client disconnects.
	watcher *clientWatcher
	nc      net.Conn // raw, or the TLS connection over it
	be      *pgproto3.Backend
	sess    Session
	pid     uint32
	secret  [4]byte
	// enc converts text to and from the client's encoding; nil when the
	// client's is UTF8 or SQL_ASCII (encoding.go).
	enc *pgencoding.Converter
	// changedParameters are the reported parameters the statements since
	// the last ReadyForQuery changed, announced right before the next.
	changedParameters map[string]string

	state      txnState
	blockOpts  TxnOptions // options of the open block, for AND CHAIN
	skipToSync bool
	// fatalSent says a statement failed with a FATAL error, which was sent:
	// the connection ends after the message, without ReadyForQuery.
	fatalSent  bool
	inExtended bool // the message being handled belongs to the extended protocol
	inSync     bool // the message being handled is a Sync
	stmts      map[string]*preparedStmt
	portals    map[string]*portal

	// ctx ends with the connection (Shutdown cancels it).
	ctx       context.Context
	ctxCancel context.CancelCauseFunc

	timeoutSetting string
	timeout        time.Duration
	stmtTimer      *time.Timer // the running statement's statement_timeout, if any

	// The rows of the running statement go out through sink and drainer,
	// kept here so that a statement allocates neither; drainSend is
	// drainer.send, bound once.
	sink      rowSink
	drainer   rowDrain
	drainSend func(row []any) error

	// Scratch buffers for DataRow, reused across rows.
	rowValues  [][]byte
	rowBuf     []byte
	rowOffsets []int
	pending    int // bytes sent since the last flush, roughly

	// Reused outgoing messages: Backend.Send encodes at once, so the hot
	// messages need no allocation per statement.
	out struct {
		ready    pgproto3.ReadyForQuery
		row      pgproto3.DataRow
		complete pgproto3.CommandComplete
	}

	terminating atomic.Bool
	// output is held by the connection's goroutine except while it waits
	// for a message, and by deliverNotifications while it writes: a
	// notification goes out while the client is idle (atReady: the last
	// message sent was ReadyForQuery outside a transaction), as in
	// PostgreSQL, or else just before the next such ReadyForQuery.
	output  sync.Mutex
	atReady bool
	mu      struct {
		sync.Mutex
		stmtCancel context.CancelCauseFunc
	}
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{srv: s, raw: nc, watcher: newClientWatcher(nc)}
	c.useConn(nc)
	c.ctx, c.ctxCancel = context.WithCancelCause(context.Background())
	c.stmts = make(map[string]*preparedStmt)
	c.portals = make(map[string]*portal)
	c.rowBuf = make([]byte, 0, 512)
	c.drainer.c = c
	c.drainSend = c.drainer.send
	return c
}

// useConn makes nc the connection the protocol runs on (the accepted one,
// then the TLS one when the client asks for encryption). Until the client
// is authenticated a message may be at most maxAuthMessage long.
func (c *conn) useConn(nc net.Conn) {
	c.nc, c.be = nc, pgproto3.NewBackend(nc, nc)
	c.be.SetMaxBodyLen(maxAuthMessage)
	if c.srv.cfg.Trace != nil {
		c.be.Trace(c.srv.cfg.Trace, pgproto3.TracerOptions{})
	}
}

// encrypt is wire.Encrypt with the server's TLS configuration: nil when it
// has none, so that clients are told the server has no SSL.
func (c *conn) encrypt() wire.Encrypt {
	if c.srv.cfg.TLS == nil {
		return nil
	}
	return func() (*pgproto3.Backend, io.Writer, error) {
		tc := tls.Server(c.raw, c.srv.cfg.TLS)
		if err := tc.Handshake(); err != nil {
			return nil, nil, err
		}
		c.useConn(tc)
		return c.be, tc, nil
	}
}

// serve runs the connection to its end. A panic outside a statement (which
// is recovered per statement) ends only this connection.
func (c *conn) serve() {
	defer c.nc.Close()
	defer c.srv.unregister(c)
	defer func() {
		if r := recover(); r != nil {
			c.srv.cfg.Logf("connection %d: panic: %v\n%s", c.pid, r, debug.Stack())
		}
	}()
	// PostgreSQL's authentication_timeout: a client gets this long to
	// complete the startup and authentication.
	c.nc.SetDeadline(time.Now().Add(authenticationTimeout))
	st, err := wire.ReadStartup(c.be, c.nc, c.encrypt())
	if err != nil {
		c.sendFatal(err)
		return
	}
	if st.Cancel != nil {
		c.srv.cancel(st.Cancel)
		return
	}
	if !c.srv.admit() {
		c.sendFatal(errTooManyClients)
		return
	}
	err = c.srv.auth.Authenticate(c.be, st.Params)
	if err == nil && !c.srv.register(c) {
		err = errAdminShutdown
	}
	c.srv.release()
	if err != nil {
		c.sendFatal(err)
		return
	}
	c.nc.SetDeadline(time.Time{})
	c.be.SetMaxBodyLen(c.srv.cfg.MaxMessageSize)
	sess, err := c.srv.cfg.Engine.NewSession(SessionInfo{
		ProcessID:       c.pid,
		User:            st.Params["user"],
		Database:        st.Params["database"],
		ApplicationName: st.Params["application_name"],
		StartupParams:   st.Params,
		Terminate:       c.terminate,
		Cancel:          func() { c.cancelStatement(errQueryCanceled) },
		ClientAddr:      clientAddr(c.raw),
		ClientPort:      clientPort(c.raw),
		ServerAddr:      endpointAddr(c.raw.LocalAddr()),
		ServerPort:      endpointPort(c.raw.LocalAddr()),
		ServerSettings:  c.srv.settings(),
	})
	if err != nil {
		c.sendFatal(err)
		return
	}
	c.sess = sess
	if l, ok := sess.(preparedStatementLister); ok {
		l.ListPreparedStatements(c.preparedStatements)
	}
	if f, ok := sess.(preparedStatementFinder); ok {
		f.FindPreparedStatements(c.namedStatement)
	}
	defer c.sess.Close()
	c.sendParameters(c.sess.ReportedParameters())
	c.sess.TakeChangedParameters()
	c.be.Send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret[:]})
	if c.terminating.Load() {
		c.sendFatal(errAdminShutdown)
		return
	}
	c.ready()
	if c.flush() != nil {
		return
	}
	c.loop()
}

// loop reads and handles messages until the client leaves, the connection
// fails or the server shuts down.
func (c *conn) loop() {
	c.output.Lock()
	defer c.output.Unlock()
	done := make(chan struct{})
	defer close(done)
	go c.deliverNotifications(done)
	for {
		c.output.Unlock()
		msg, err := c.be.Receive()
		c.output.Lock()
		c.atReady = false
		if c.terminating.Load() {
			c.sendFatal(errAdminShutdown)
			return
		}
		if err != nil {
			malformedQuery := wire.MalformedQuery(err)
			err = wire.ReceiveError(err)
			var pe *pgerror.Error
			if !errors.As(err, &pe) {
				return // the connection is gone
			}
			switch {
			case pe.Severity == "FATAL":
				c.srv.cfg.Logf("connection %d: %v", c.pid, pe)
				c.sendFatal(pe)
				return
			case malformedQuery && !c.skipToSync:
				c.queryError(pe)
				c.ready()
				if c.flush() != nil {
					return
				}
			default:
				c.extendedError(pe)
			}
			continue
		}
		switch msg.(type) {
		case *pgproto3.Terminate:
			return
		case *pgproto3.PasswordMessage, *pgproto3.SASLInitialResponse, *pgproto3.SASLResponse, *pgproto3.GSSResponse:
			// Authentication is over: like PostgreSQL, a session knows no
			// 'p' message.
			c.sendFatal(pgerror.New(pgerror.ProtocolViolation, "invalid frontend message type 112"))
			return
		}
		c.safely(func() { c.handle(msg) })
		if c.fatalSent {
			c.nc.SetWriteDeadline(time.Now().Add(time.Second))
			c.be.Flush()
			return
		}
		if c.terminating.Load() {
			c.sendFatal(errAdminShutdown)
			return
		}
		// Like PostgreSQL, answer a pipeline in one write: output waits for
		// ReadyForQuery (Query, Sync) or an explicit Flush.
		switch msg.(type) {
		case *pgproto3.Query, *pgproto3.Sync, *pgproto3.Flush, *pgproto3.FunctionCall:
			if c.flush() != nil {
				return
			}
		}
	}
}

// handle dispatches one frontend message.
func (c *conn) handle(msg pgproto3.FrontendMessage) {
	if c.skipToSync {
		if _, ok := msg.(*pgproto3.Sync); !ok {
			return
		}
	}
	// A FunctionCall answers with ReadyForQuery as a Query does.
	_, isQuery := msg.(*pgproto3.Query)
	_, isCall := msg.(*pgproto3.FunctionCall)
	isQuery = isQuery || isCall
	_, isSync := msg.(*pgproto3.Sync)
	c.inExtended, c.inSync = !isQuery, isSync
	if err := c.convertIncoming(msg); err != nil {
		if isQuery {
			c.queryError(err)
			c.ready()
		} else {
			c.extendedError(err)
		}
		return
	}
	switch m := msg.(type) {
	case *pgproto3.Query:
		c.simpleQuery(m.String)
	case *pgproto3.Parse:
		c.parse(m)
	case *pgproto3.Bind:
		c.bind(m)
	case *pgproto3.Describe:
		c.describe(m)
	case *pgproto3.Execute:
		c.execute(m)
	case *pgproto3.Close:
		c.closeObject(m)
	case *pgproto3.Sync:
		c.sync()
	case *pgproto3.Flush:
		// loop flushes after every message.
	case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
		// Left over from a COPY that failed: PostgreSQL drops them too.
	case *pgproto3.FunctionCall:
		c.functionCall(m)
	default:
		c.extendedError(pgerror.Newf(pgerror.ProtocolViolation, "unexpected message %T", msg))
	}
}

// safely runs f, turning a panic into XX000 for the statement that caused
// it: the transaction fails as after any error and the server goes on.
func (c *conn) safely(f func()) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		c.srv.cfg.Logf("connection %d: panic: %v\n%s", c.pid, r, debug.Stack())
		err := pgerror.Newf(pgerror.InternalError, "internal error: %v", r)
		c.fail()
		c.be.Send(c.errorToClient(wire.ErrorResponse(err)))
		if c.inExtended && !c.inSync {
			c.skipToSync = true
		} else {
			// A Query or a Sync owes the client its ReadyForQuery.
			c.skipToSync = false
			c.ready()
		}
	}()
	f()
}

// sendParameters sends ParameterStatus messages in name order.
func (c *conn) sendParameters(params map[string]string) {
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := params[n]
		if n == "client_encoding" {
			c.setClientEncoding(v)
		}
		if converted, err := c.toClient(v); err == nil {
			// A value the client's encoding cannot carry goes out as it is.
			v = converted
		}
		c.be.Send(&pgproto3.ParameterStatus{Name: n, Value: v})
	}
}

// reportChanges sends the notices a statement raised and notes the
// reported parameters it changed, which ReadyForQuery announces, as
// PostgreSQL's ReportChangedGUCOptions does; a new client_encoding applies
// to the next statement's text at once.
func (c *conn) reportChanges() {
	for _, n := range c.sess.TakeNotices() {
		c.sendNotice(n)
	}
	for name, v := range c.sess.TakeChangedParameters() {
		if name == "client_encoding" {
			c.setClientEncoding(v)
		}
		if c.changedParameters == nil {
			c.changedParameters = map[string]string{}
		}
		c.changedParameters[name] = v
	}
}

// ready sends ReadyForQuery with the transaction status, preceded, when
// no transaction is open, by the notifications that wait.
func (c *conn) ready() {
	if c.fatalSent {
		return // the connection ends without one, as PostgreSQL's does
	}
	c.out.ready.TxStatus = c.state.readyStatus()
	c.atReady = c.out.ready.TxStatus == 'I'
	if c.atReady {
		c.sendNotifications()
	}
	if len(c.changedParameters) > 0 {
		c.sendParameters(c.changedParameters)
		clear(c.changedParameters)
	}
	c.be.Send(&c.out.ready)
}

// sendNotifications sends the session's waiting notifications.
func (c *conn) sendNotifications() {
	for _, n := range c.sess.TakeNotifications() {
		channel, payload := n.Channel, n.Payload
		// Text the client's encoding cannot carry goes out as it is.
		if s, err := c.toClient(channel); err == nil {
			channel = s
		}
		if s, err := c.toClient(payload); err == nil {
			payload = s
		}
		c.be.Send(&pgproto3.NotificationResponse{PID: n.PID, Channel: channel, Payload: payload})
	}
}

// deliverNotifications sends notifications to an idle client as they
// arrive, until done is closed.
func (c *conn) deliverNotifications(done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-c.sess.Notified():
		}
		c.output.Lock()
		if c.atReady {
			c.sendNotifications()
			_ = c.flush()
		}
		c.output.Unlock()
	}
}

// complete sends CommandComplete with tag.
func (c *conn) complete(tag string) {
	c.out.complete.CommandTag = append(c.out.complete.CommandTag[:0], tag...)
	c.be.Send(&c.out.complete)
}

func (c *conn) flush() error {
	c.pending = 0
	return c.be.Flush()
}

// sendFatal sends a FATAL error, best effort, before the connection closes.
func (c *conn) sendFatal(err error) {
	if wire.IsIOError(err) {
		return
	}
	c.be.Send(c.errorToClient(wire.ErrorResponse(wire.Fatal(err))))
	c.nc.SetWriteDeadline(time.Now().Add(time.Second))
	c.be.Flush()
}

// terminate is called by Shutdown from another goroutine: it cancels the
// running statement and wakes a Receive blocked on the socket, so that the
// connection's goroutine sends 57P01 and closes.
func (c *conn) terminate() {
	c.terminating.Store(true)
	c.ctxCancel(errAdminShutdown)
	c.cancelStatement(errAdminShutdown)
	c.nc.SetReadDeadline(time.Now())
}

// cancelStatement cancels the running statement, if any, with cause.
func (c *conn) cancelStatement(cause error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.stmtCancel != nil {
		c.mu.stmtCancel(cause)
	}
}

// statementContext returns the context of one statement: cancelled by a
// CancelRequest, by Shutdown, by statement_timeout and when the client
// closes its connection. endStatement must be called with its cancel when
// the statement ends.
func (c *conn) statementContext() (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(c.ctx)
	if d := c.statementTimeout(); d > 0 {
		c.stmtTimer = time.AfterFunc(d, func() { cancel(errTimeout) })
	}
	c.mu.Lock()
	c.mu.stmtCancel = cancel
	c.mu.Unlock()
	c.watcher.watch(cancel)
	return ctx, cancel
}

// endStatement releases what statementContext set up for the statement
// whose context cancel cancels.
func (c *conn) endStatement(cancel context.CancelCauseFunc) {
	c.watcher.stop()
	if c.stmtTimer != nil {
		c.stmtTimer.Stop()
		c.stmtTimer = nil
	}
	c.mu.Lock()
	c.mu.stmtCancel = nil
	c.mu.Unlock()
	cancel(nil)
}

// statementError replaces the error of a cancelled statement with the
// reason it was cancelled (user request, timeout, shutdown). A statement
// whose connection was terminated while it ran (pg_terminate_backend of its
// own backend) fails with the FATAL error even if it finished, as
// PostgreSQL's next interrupt check would end it.
func statementError(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	var pe *pgerror.Error
	if errors.As(context.Cause(ctx), &pe) && (err != nil || pe.Severity == "FATAL") {
		return pe
	}
	return err
}

func (c *conn) String() string { return fmt.Sprintf("conn %d", c.pid) }

// clientAddr is a TCP client's IP address as text, "" for a Unix socket.
func clientAddr(nc net.Conn) string { return endpointAddr(nc.RemoteAddr()) }

// clientPort is a TCP client's port, -1 for a Unix socket.
func clientPort(nc net.Conn) int { return endpointPort(nc.RemoteAddr()) }

// endpointAddr is the IP address of a TCP endpoint, "" for another.
func endpointAddr(a net.Addr) string {
	if a, ok := a.(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return ""
}

// endpointPort is the port of a TCP endpoint, -1 for another.
func endpointPort(a net.Addr) int {
	if a, ok := a.(*net.TCPAddr); ok {
		return a.Port
	}
	return -1
}
