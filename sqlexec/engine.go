package sqlexec

import (
	"sync"

	"github.com/fickle-db/fickle/isolation"
)

// Engine is one database: its catalog, its sequences and the store that
// holds its rows. It is safe for concurrent use by many sessions.
type Engine struct {
	store  *isolation.Store
	cfg    Config
	parsed parseCache
	cat    catalogHolder

	// ddlMu serialises DDL statements: each builds the next catalog from the
	// current one and the store's tables, then publishes it.
	ddlMu sync.Mutex
	// roles are the roles CREATE ROLE made, shared by every session.
	roles roleCatalog
}

func newEngine(cfg Config) (*Engine, error) {
	if cfg.Store == nil {
		return nil, errNoStore
	}
	e := &Engine{store: cfg.Store, cfg: cfg}
	e.cat.publish(newCatalog())
	return e, nil
}
