package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fickle-db/fickle/wire"
)

// Server accepts PostgreSQL connections and serves each on its own
// goroutine. It holds no lock while a statement runs: the registry below is
// touched only when a connection starts, ends or is cancelled.
type Server struct {
	cfg  Config
	auth *wire.Authenticator

	nextPID atomic.Uint32
	wg      sync.WaitGroup
	// watching starts the memory watch (MaxMemory) with the first Serve;
	// stopWatch ends it at Shutdown.
	watching  sync.Once
	stopWatch chan struct{}

	mu struct {
		sync.Mutex
		listeners map[net.Listener]struct{}
		conns     map[uint32]*conn
		starting  map[net.Conn]struct{} // connections still in startup or authentication
		admitted  int                   // connections admitted past their startup packet, not yet registered
		addr      net.Addr
		closing   bool
	}
}

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("server: closed")

// New returns a server for cfg.
func New(cfg Config) (*Server, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	auth, err := wire.NewAuthenticator(c.Password, c.AuthMethod)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: c, auth: auth, stopWatch: make(chan struct{})}
	s.mu.listeners = make(map[net.Listener]struct{})
	s.mu.conns = make(map[uint32]*conn)
	s.mu.starting = make(map[net.Conn]struct{})
	return s, nil
}

// Serve accepts connections on ln until Shutdown, serving each on its own
// goroutine. It returns ErrServerClosed after Shutdown, or the accept error.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.mu.closing {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.mu.listeners[ln] = struct{}{}
	if s.mu.addr == nil {
		s.mu.addr = ln.Addr()
	}
	if s.cfg.MaxMemory > 0 {
		s.watching.Do(func() { go s.watchMemory(s.stopWatch) })
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.mu.listeners, ln)
		s.mu.Unlock()
	}()
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closing := s.mu.closing
			s.mu.Unlock()
			if closing || errors.Is(err, net.ErrClosed) {
				return ErrServerClosed
			}
			// Out of file descriptors (EMFILE), a connection reset before
			// it was accepted, ...: keep serving, as PostgreSQL does,
			// after a pause that grows while the errors last.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.cfg.Logf("accept %s: %v; retrying in %v", ln.Addr(), err, backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		if tc, ok := nc.(*net.TCPConn); ok {
			tc.SetNoDelay(true)
		}
		s.mu.Lock()
		s.mu.starting[nc] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			newConn(s, nc).serve()
		}()
	}
}

// Start listens on addr ("127.0.0.1:0" picks a free port) and serves in
// the background until Shutdown; Addr is valid when it returns.
func (s *Server) Start(addr string) (net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.mu.addr == nil {
		s.mu.addr = ln.Addr()
	}
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.Serve(ln); err != nil && err != ErrServerClosed {
			s.cfg.Logf("serve %s: %v", ln.Addr(), err)
		}
	}()
	return ln.Addr(), nil
}

// settings are the server parameters the server's configuration decides,
// as PostgreSQL reports them: its port and listen address (the first
// listener's), max_connections and ssl.
func (s *Server) settings() map[string]string {
	out := map[string]string{"max_connections": strconv.Itoa(s.cfg.MaxConnections), "ssl": "off"}
	if s.cfg.TLS != nil {
		out["ssl"] = "on"
	}
	if a, ok := s.Addr().(*net.TCPAddr); ok {
		out["port"] = strconv.Itoa(a.Port)
		out["listen_addresses"] = a.IP.String()
		if a.IP.IsUnspecified() {
			out["listen_addresses"] = "*"
		}
	}
	return out
}

// Addr returns the address of the first listener Serve was given, or nil.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.addr
}

// DSN returns a connection string for the server's address, as user to
// database (the password, if any, is the configured one).
func (s *Server) DSN(user, database string) string {
	addr, _ := s.Addr().(*net.TCPAddr)
	if addr == nil {
		return ""
	}
	dsn := fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", user, addr.String(), database)
	if s.cfg.Password != "" {
		dsn = fmt.Sprintf("postgres://%s:%s@%s/%s?sslmode=disable", user, s.cfg.Password, addr.String(), database)
	}
	return dsn
}

// Shutdown stops accepting connections, ends every open session with FATAL
// 57P01 (admin_shutdown), cancelling the statement it runs, and waits for
// the connection goroutines to finish or ctx to expire.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.mu.closing {
		close(s.stopWatch)
	}
	s.mu.closing = true
	for ln := range s.mu.listeners {
		ln.Close()
	}
	conns := make([]*conn, 0, len(s.mu.conns))
	for _, c := range s.mu.conns {
		conns = append(conns, c)
	}
	for nc := range s.mu.starting {
		// Not a session yet: nothing to roll back, no key to announce.
		nc.Close()
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.terminate()
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// register assigns a connection its process ID and secret key and makes it
// reachable by CancelRequest and Shutdown. It fails when the server is
// shutting down.
func (s *Server) register(c *conn) bool {
	var secret [4]byte
	rand.Read(secret[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.mu.starting, c.raw)
	if s.mu.closing {
		return false
	}
	for {
		pid := s.nextPID.Add(1)
		if _, taken := s.mu.conns[pid]; pid != 0 && !taken {
			c.pid, c.secret = pid, secret
			s.mu.conns[pid] = c
			return true
		}
	}
}

func (s *Server) unregister(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.mu.starting, c.raw)
	if s.mu.conns[c.pid] == c {
		delete(s.mu.conns, c.pid)
	}
}

// admit reserves one of MaxConnections for a client that sent its startup
// packet; release gives it back once the client is registered or gone.
func (s *Server) admit() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.mu.conns)+s.mu.admitted >= s.cfg.MaxConnections {
		return false
	}
	s.mu.admitted++
	return true
}

func (s *Server) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.admitted--
}

// cancel acts on a CancelRequest: the statement running in the session
// with that key, if any, fails with 57014. A wrong key does nothing, as in
// PostgreSQL, so that keys cannot be probed.
func (s *Server) cancel(key *wire.CancelKey) {
	s.mu.Lock()
	c := s.mu.conns[key.ProcessID]
	s.mu.Unlock()
	if c == nil || subtle.ConstantTimeCompare(c.secret[:], key.SecretKey) != 1 {
		return
	}
	c.cancelStatement(errQueryCanceled)
}
