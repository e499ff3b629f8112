package server

import (
	"errors"
	"math"
	"net"
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

// watchClient calls gone once raw's peer has closed the connection,
// checking every clientGoneInterval until the returned stop is called.
// It only peeks, so the bytes a pipelining client sent are left for the
// protocol to read.
func watchClient(raw net.Conn, gone func()) (stop func()) {
	sc, ok := raw.(syscall.Conn)
	if !ok {
		return func() {}
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return func() {}
	}
	done := make(chan struct{})
	var t *time.Timer
	t = time.AfterFunc(math.MaxInt64, func() {
		select {
		case <-done:
			return
		default:
		}
		if peerClosed(rc) {
			gone()
			return
		}
		t.Reset(clientGoneInterval)
	})
	t.Reset(clientGoneInterval) // after t is set: the function reads it
	return func() {
		close(done)
		t.Stop()
	}
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
