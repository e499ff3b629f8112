package sqlexec

import (
	"sync"
	"sync/atomic"

	"github.com/fickle-db/fickle/isolation"
)

// Engine is one database: its catalog and its sequences, over the store
// its cluster shares. It is safe for concurrent use by many sessions.
type Engine struct {
	cluster *cluster
	store   *isolation.Store
	cfg     Config
	parsed  parseCache
	cat     catalogHolder
	// sysRows keeps system tables' rows for the sessions that see the
	// same catalog with the same settings (catalog_rows_cache.go).
	sysRows sharedSystemRows

	// oid is pg_database.oid; name its datname (ALTER DATABASE ... RENAME
	// changes it).
	oid  uint32
	name atomic.Pointer[string]
	// main marks the server's main database (Config.Database), where
	// --load runs; allowConn is pg_database.datallowconn (false for
	// template0); dropped is set once DROP DATABASE removed it.
	main      bool
	allowConn bool
	dropped   atomic.Bool
	// dba and acl are pg_database.datdba and datacl (database_owner.go).
	dba atomic.Uint32
	acl atomic.Pointer[[]aclItem]

	sessions struct {
		sync.Mutex
		open map[*Session]struct{}
	}
	// notify holds the sessions that LISTEN (notify.go).
	notify notifier
	// lo are the store tables of the large objects (largeobject.go).
	lo largeObjectTables
}

func newEngine(cfg Config) (*Engine, error) { return newCluster(cfg) }

// Name returns the database's name.
func (e *Engine) Name() string { return *e.name.Load() }
