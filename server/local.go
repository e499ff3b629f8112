package server

import (
	"github.com/fickle-db/fickle/isolation"
)

// StartLocal starts a server over a fresh in-memory database (an isolation
// store with storeCfg and a sqlexec engine) on a free loopback port, for
// tests and the integration suite: connect with DSN, stop with Shutdown.
// cfg.Engine must be nil; the store is returned so that callers can check
// its history.
func StartLocal(cfg Config, storeCfg isolation.Config) (*Server, *isolation.Store, error) {
	engine, store, err := NewMemoryEngine(storeCfg)
	if err != nil {
		return nil, nil, err
	}
	cfg.Engine = engine
	srv, err := New(cfg)
	if err != nil {
		return nil, nil, err
	}
	if _, err := srv.Start("127.0.0.1:0"); err != nil {
		return nil, nil, err
	}
	return srv, store, nil
}
