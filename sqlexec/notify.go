package sqlexec

import (
	"slices"
	"sync"
	"sync/atomic"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// LISTEN, UNLISTEN and NOTIFY, as PostgreSQL's async.c defines them. A
// transaction's NOTIFYs (identical channel and payload sent once) and its
// LISTEN / UNLISTEN actions wait in its txnState and take effect when it
// commits, in commit order: the database's notifier is held across the
// commit, so every session listening on a channel then receives the
// transaction's notifications after those of earlier commits, its own
// included. A rolled-back transaction or savepoint drops them. The server
// hands a session's notifications to its client when the session is idle
// outside a transaction, as PostgreSQL does.

// maxNotifyPayload is the longest payload PostgreSQL accepts (NOTIFY_PAYLOAD_MAX_LENGTH).
const maxNotifyPayload = 7999

// Notification is a NOTIFY a listening session receives: its channel, its
// payload and the process ID of the session whose transaction sent it.
type Notification struct {
	PID     uint32
	Channel string
	Payload string
}

// listenAction is a LISTEN (listen), UNLISTEN of a channel, or UNLISTEN *
// (all) waiting for its transaction's commit.
type listenAction struct {
	channel     string
	listen, all bool
}

// pendingNotify is what a transaction's LISTEN, UNLISTEN and NOTIFY
// statements leave for its commit.
type pendingNotify struct {
	actions []listenAction
	notes   []Notification
}

// notifyMark is the length of a transaction's pending lists at a savepoint,
// to which a rollback to it truncates them.
type notifyMark struct{ actions, notes int }

func (p *pendingNotify) mark() notifyMark { return notifyMark{len(p.actions), len(p.notes)} }

func (p *pendingNotify) rollbackTo(m notifyMark) {
	p.actions, p.notes = p.actions[:m.actions], p.notes[:m.notes]
}

// notifier is a database's set of listening sessions. Its mutex orders
// the commits of transactions that notify or change what they listen to.
type notifier struct {
	sync.Mutex
	listeners map[*Session]struct{}
}

// sessionInbox is a session's side of LISTEN: the channels it listens to,
// in the order it began to, and the notifications waiting for its client.
// channels and inbox are guarded by the engine's notifier; waiting says
// inbox is not empty, so that a ReadyForQuery checks it without the lock,
// and ready receives a token when notifications arrive.
type sessionInbox struct {
	channels []string
	inbox    []Notification
	waiting  atomic.Bool
	ready    chan struct{}
}

// Notified returns a channel that receives a value when notifications wait
// for TakeNotifications.
func (s *Session) Notified() <-chan struct{} { return s.listen.ready }

// TakeNotifications returns the notifications received since the last call.
func (s *Session) TakeNotifications() []Notification {
	if !s.listen.waiting.Load() {
		return nil
	}
	n := &s.engine.notify
	n.Lock()
	defer n.Unlock()
	out := s.listen.inbox
	s.listen.inbox = nil
	s.listen.waiting.Store(false)
	return out
}

// commitNotifying runs commit, the store's commit of the session's
// transaction t, and then applies t's listen actions and delivers its
// notifications, under the notifier so that they follow the commit order.
func (s *Session) commitNotifying(t *txnState, commit func() error) error {
	p := t.notify
	if len(p.actions) == 0 && len(p.notes) == 0 {
		return commit()
	}
	n := &s.engine.notify
	n.Lock()
	defer n.Unlock()
	if err := commit(); err != nil {
		return err
	}
	for _, a := range p.actions {
		s.applyListen(a)
	}
	for l := range n.listeners {
		l.deliver(p.notes)
	}
	return nil
}

// applyListen applies a committed listen action; the caller holds the
// notifier.
func (s *Session) applyListen(a listenAction) {
	n := &s.engine.notify
	in := &s.listen
	switch {
	case a.all:
		in.channels = nil
	case a.listen:
		if !slices.Contains(in.channels, a.channel) {
			in.channels = append(in.channels, a.channel)
		}
	default:
		in.channels = slices.DeleteFunc(in.channels, func(c string) bool { return c == a.channel })
	}
	if len(in.channels) == 0 {
		delete(n.listeners, s)
		return
	}
	if n.listeners == nil {
		n.listeners = map[*Session]struct{}{}
	}
	n.listeners[s] = struct{}{}
}

// deliver queues the notifications on the session's channels; the caller
// holds the notifier.
func (s *Session) deliver(notes []Notification) {
	in := &s.listen
	added := false
	for _, nt := range notes {
		if slices.Contains(in.channels, nt.Channel) {
			in.inbox = append(in.inbox, nt)
			added = true
		}
	}
	if added {
		in.waiting.Store(true)
		select {
		case in.ready <- struct{}{}:
		default:
		}
	}
}

// unlistenAll stops the session listening at once (DISCARD ALL, the
// session's end).
func (s *Session) unlistenAll() {
	n := &s.engine.notify
	n.Lock()
	defer n.Unlock()
	s.applyListen(listenAction{all: true})
}

// queueListen records a LISTEN or UNLISTEN for the transaction's commit.
func (s *Session) queueListen(a listenAction) {
	s.txn.notify.actions = append(s.txn.notify.actions, a)
}

// queueNotify records a NOTIFY for the transaction's commit, checking the
// channel and payload as PostgreSQL's Async_Notify does.
func (s *Session) queueNotify(channel, payload string) error {
	switch {
	case channel == "":
		return pgerror.New(pgerror.InvalidParameterValue, "channel name cannot be empty")
	case len(channel) >= nameMaxBytes:
		return pgerror.New(pgerror.InvalidParameterValue, "channel name too long")
	case len(payload) > maxNotifyPayload:
		return pgerror.New(pgerror.InvalidParameterValue, "payload string too long")
	}
	nt := Notification{PID: s.info.ProcessID, Channel: channel, Payload: payload}
	p := &s.txn.notify
	if !slices.Contains(p.notes, nt) {
		p.notes = append(p.notes, nt)
	}
	return nil
}

// listenPlan runs LISTEN channel.
func (b *binder) listenPlan(ls *pg_query.ListenStmt) *stmtPlan {
	return &stmtPlan{exec: func(x *execCtx) (*Result, error) {
		x.s.queueListen(listenAction{channel: ls.Conditionname, listen: true})
		return &Result{Tag: "LISTEN"}, nil
	}}
}

// unlistenPlan runs UNLISTEN channel and UNLISTEN *.
func (b *binder) unlistenPlan(us *pg_query.UnlistenStmt) *stmtPlan {
	return &stmtPlan{exec: func(x *execCtx) (*Result, error) {
		x.s.queueListen(listenAction{channel: us.Conditionname, all: us.Conditionname == ""})
		return &Result{Tag: "UNLISTEN"}, nil
	}}
}

// notifyPlan runs NOTIFY channel [, payload].
func (b *binder) notifyPlan(ns *pg_query.NotifyStmt) *stmtPlan {
	return &stmtPlan{exec: func(x *execCtx) (*Result, error) {
		return &Result{Tag: "NOTIFY"}, x.s.queueNotify(ns.Conditionname, ns.Payload)
	}}
}

func init() {
	addSysFunc("pg_notify", sysFunc{args: []types.Type{types.Text, types.Text}, result: types.Void, volatile: true, nullable: true,
		eval: func(x *execCtx, args []any) (any, error) {
			channel, _ := args[0].(string)
			payload, _ := args[1].(string)
			return "", x.s.queueNotify(channel, payload) // void's value, which is not NULL
		}})
	addSysFunc("pg_notification_queue_usage", sysFunc{result: types.Float8, volatile: true,
		eval: func(*execCtx, []any) (any, error) { return float64(0), nil }})
}

// bindListeningChannels binds pg_listening_channels(), the channels the
// session listens to, in the order it began to.
func bindListeningChannels(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	if len(args) != 0 {
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function pg_listening_channels with %d arguments does not exist", len(args)), loc)
	}
	return []types.Field{{Name: "pg_listening_channels", Type: types.Text}}, nil
}

func listeningChannelRows(x *execCtx, _ []any) ([][]any, error) {
	n := &x.s.engine.notify
	n.Lock()
	defer n.Unlock()
	out := make([][]any, len(x.s.listen.channels))
	for i, c := range x.s.listen.channels {
		out[i] = []any{c}
	}
	return out, nil
}
