package server

import (
	"context"
	"errors"
	"math"
	"net"
	"sync"
	"syscall"
	"time"
)

// clientGoneInterval is how often a running statement checks that its
// client is still connected; statements shorter than that never check.
const clientGoneInterval = 500 * time.Millisecond

// errClientGone cancels the statement of a client that closed its
// connection: nobody is left to read its result, so it stops instead of
// running on (a statement over a billion rows kept the CPU busy after
// psql was killed).
var errClientGone = errors.New("client closed the connection")

// clientWatcher checks, every clientGoneInterval while a statement runs,
// that the connection's peer is still there. A connection keeps one
// watcher with one timer for all its statements. The timer is armed by the
// first statement that finds it idle and stays armed while statements keep
// coming; it lapses at the first tick that finds no statement running. So
// a stream of short statements costs a lock each, not a timer reset and
// stop each (a reset to a deadline earlier than the runtime's next one
// wakes the network poller: a thread wake-up per statement). A statement is
// first checked at most clientGoneInterval after it starts. The watcher
// only peeks, so the bytes a pipelining client sent are left for the
// protocol to read.
type clientWatcher struct {
	rc    syscall.RawConn
	timer *time.Timer
	mu    sync.Mutex
	gone  context.CancelCauseFunc // the running statement's cancel; nil between statements
	armed bool                    // the timer is set to fire
}

// newClientWatcher returns the watcher of raw, or nil when raw has no file
// descriptor to peek at.
func newClientWatcher(raw net.Conn) *clientWatcher {
	sc, ok := raw.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	w := &clientWatcher{rc: rc}
	w.timer = time.AfterFunc(math.MaxInt64, w.check)
	w.timer.Stop()
	return w
}

// watch calls gone with errClientGone once the peer has closed the
// connection, checking every clientGoneInterval until stop is called.
func (w *clientWatcher) watch(gone context.CancelCauseFunc) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.gone = gone
	if !w.armed {
		w.armed = true
		w.timer.Reset(clientGoneInterval)
	}
	w.mu.Unlock()
}

// stop ends the watch of the statement that watch started. The timer stays
// armed for the next statement and lapses at its next tick if none runs.
func (w *clientWatcher) stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.gone = nil
	w.mu.Unlock()
}

// check runs on the timer: it cancels the running statement if the peer is
// gone and otherwise looks again after clientGoneInterval; with no
// statement running it lets the timer lapse. A connection that ends leaves
// its timer to lapse at the next tick.
func (w *clientWatcher) check() {
	w.mu.Lock()
	gone := w.gone
	if gone == nil {
		w.armed = false
	}
	w.mu.Unlock()
	if gone == nil {
		return
	}
	if peerClosed(w.rc) {
		w.mu.Lock()
		w.armed = false
		w.mu.Unlock()
		gone(errClientGone)
		return
	}
	w.mu.Lock()
	if w.gone != nil {
		w.timer.Reset(clientGoneInterval)
	} else {
		w.armed = false
	}
	w.mu.Unlock()
}

// peerClosed reports whether reading the socket would return end of file
// or a reset, without blocking and without consuming data.
func peerClosed(rc syscall.RawConn) bool {
	var closed bool
	buf := make([]byte, 1)
	err := rc.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), buf, syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = n == 0 && err == nil || err != nil && err != syscall.EAGAIN && err != syscall.EWOULDBLOCK && err != syscall.EINTR
		return true
	})
	return closed || err != nil
}
