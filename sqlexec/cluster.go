package sqlexec

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// cluster is the set of databases of one server. They share one store, so
// one history, one seed, one commit order and one checkpoint: a
// transaction only ever touches the database its connection chose, so the
// history is the union of the databases' independent histories, and the
// oracle checks them together. Each database has its own catalog (and so
// its own tables, sequences and schemas).
type cluster struct {
	store *isolation.Store
	cfg   Config
	// oids numbers every new object of every database, as PostgreSQL's
	// one OID counter does.
	oids atomic.Uint32
	// versions numbers catalogs, published and private ones alike, so that
	// a plan made against one catalog is never taken for a plan made
	// against another.
	versions atomic.Uint64
	// roles are the roles CREATE ROLE made: like PostgreSQL's shared
	// catalogs, they belong to the server, not to a database.
	roles roleCatalog
	// backendIDs numbers the open sessions as PostgreSQL's backends
	// (pg_locks' virtual transaction ids).
	backendIDs backendIDs

	mu struct {
		sync.Mutex
		dbs map[string]*Engine
		// storeNames holds the history name of every table ever registered
		// with the store, so that a new table never takes the name of a
		// dropped or renamed one: the history names keys by table name.
		storeNames map[string]bool
	}
}

// The OIDs of the databases initdb creates.
const (
	oidTemplate1 = 1
	oidTemplate0 = 4
	oidPostgres  = 5
)

// DefaultDatabase is the database a server has besides postgres,
// template0 and template1 when Config.Database names none.
const DefaultDatabase = "fickle"

func newCluster(cfg Config) (*Engine, error) {
	if cfg.Store == nil {
		return nil, errNoStore
	}
	if cfg.Database == "" {
		cfg.Database = DefaultDatabase
	}
	c := &cluster{store: cfg.Store, cfg: cfg}
	c.oids.Store(firstUserOID)
	c.mu.dbs = map[string]*Engine{}
	c.mu.storeNames = map[string]bool{}
	for _, db := range []struct {
		name string
		oid  uint32
	}{{"template1", oidTemplate1}, {"template0", oidTemplate0}, {"postgres", oidPostgres}} {
		e := c.addDatabase(db.name, db.oid, db.name != "template0")
		if db.oid != oidPostgres {
			acl := initdbDatabaseACL()
			e.acl.Store(&acl)
		}
	}
	main := c.mu.dbs[cfg.Database]
	if main == nil {
		main = c.addDatabase(cfg.Database, c.newOID(), true)
	}
	main.main = true
	return main, nil
}

// addDatabase creates an empty database; the caller holds c.mu or owns c
// alone.
func (c *cluster) addDatabase(name string, oid uint32, allowConn bool) *Engine {
	e := &Engine{cluster: c, store: c.store, cfg: c.cfg, oid: oid, allowConn: allowConn}
	e.dba.Store(oidBootstrapSuperuser)
	e.name.Store(&name)
	e.cat.publish(newCatalog(&c.oids), c.versions.Add(1))
	c.mu.dbs[name] = e
	return e
}

func (c *cluster) newOID() uint32 { return c.oids.Add(1) - 1 }

// database returns the database called name, nil if there is none.
func (c *cluster) database(name string) *Engine {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.dbs[name]
}

// databaseByOID returns the database with that OID, nil if there is none.
func (c *cluster) databaseByOID(oid uint32) *Engine {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.mu.dbs {
		if e.oid == oid {
			return e
		}
	}
	return nil
}

// databases returns every database in OID order.
func (c *cluster) databases() []*Engine {
	c.mu.Lock()
	out := make([]*Engine, 0, len(c.mu.dbs))
	for _, e := range c.mu.dbs {
		out = append(out, e)
	}
	c.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].oid < out[j].oid })
	return out
}

// storeName returns the name under which the history records the rows of
// a new table of database e: its schema-qualified name in the server's
// main database, database.schema.table in the others, with #2, #3, ...
// appended when a table that no longer has that name used it before.
func (c *cluster) storeName(e *Engine, schema, table string) string {
	base := storeBase(e, schema, table)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.storeNameLocked(base)
}

// storeBase is the history name of a table before any #n suffix.
func storeBase(e *Engine, schema, table string) string {
	base := table
	if schema != "public" {
		base = schema + "." + table
	}
	if !e.main {
		base = e.Name() + "." + schema + "." + table
	}
	return base
}

// storeNameLocked is storeName's choice of a name no table had, with c.mu
// held.
func (c *cluster) storeNameLocked(base string) string {
	name := base
	for i := 2; c.mu.storeNames[name]; i++ {
		name = fmt.Sprintf("%s#%d", base, i)
	}
	c.mu.storeNames[name] = true
	return name
}

// connect opens a session of the database info names (the main database
// when it names none), as a connection's startup message does: 3D000 when
// there is no such database, 55000 when it does not accept connections,
// 28000 or 42501 when the role may not log in or connect to it.
func (c *cluster) connect(info SessionInfo) (*Session, error) {
	name := info.Database
	if name == "" {
		name = info.User
	}
	e := c.database(name)
	if e == nil {
		return nil, pgerror.Newf(pgerror.InvalidCatalogName, "database \"%s\" does not exist", name)
	}
	if !e.allowConn {
		return nil, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "database \"%s\" is not currently accepting connections", name)
	}
	if _, err := startupSettings(info.StartupParams); err != nil {
		return nil, err
	}
	s := e.newSession(info)
	if e.dropped.Load() {
		s.close()
		return nil, pgerror.Newf(pgerror.InvalidCatalogName, "database \"%s\" does not exist", name)
	}
	if err := s.mayConnect(); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// otherSessions returns the open sessions of database e other than self.
func (e *Engine) otherSessions(self *Session) []*Session {
	e.sessions.Lock()
	defer e.sessions.Unlock()
	var out []*Session
	for s := range e.sessions.open {
		if s != self {
			out = append(out, s)
		}
	}
	return out
}

// isEmpty reports whether the catalog holds no object but the public
// schema.
func (c *catalog) isEmpty() bool {
	if len(c.tables) > 0 || len(c.schemas) != 1 {
		return false
	}
	sc := c.schemas["public"]
	return sc != nil && len(sc.seqs) == 0 && len(sc.indexes) == 0
}
