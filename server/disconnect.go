package server

import (
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
// watcher with one timer for all its statements, so that a statement costs
// a timer reset and stop instead of a new timer, channel and raw
// connection. It only peeks, so the bytes a pipelining client sent are
// left for the protocol to read.
type clientWatcher struct {
	rc    syscall.RawConn
	timer *time.Timer
	mu    sync.Mutex
	gone  func() // the running statement's cancel; nil between statements
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

// watch calls gone once the peer has closed the connection, checking every
// clientGoneInterval until stop is called.
func (w *clientWatcher) watch(gone func()) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.gone = gone
	w.mu.Unlock()
	w.timer.Reset(clientGoneInterval)
}

// stop ends the watch of the statement that watch started.
func (w *clientWatcher) stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.gone = nil
	w.mu.Unlock()
	w.timer.Stop()
}

// check runs on the timer: it cancels the watched statement if the peer is
// gone and otherwise looks again after clientGoneInterval.
func (w *clientWatcher) check() {
	w.mu.Lock()
	gone := w.gone
	w.mu.Unlock()
	if gone == nil {
		return
	}
	if peerClosed(w.rc) {
		gone()
		return
	}
	w.mu.Lock()
	if w.gone != nil {
		w.timer.Reset(clientGoneInterval)
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
