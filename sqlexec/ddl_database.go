package sqlexec

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// This file runs CREATE DATABASE, DROP DATABASE and ALTER DATABASE ...
// RENAME. Like PostgreSQL, fickle refuses them inside a transaction block
// (25001): a database is not transactional.

// databasePlan compiles CREATE DATABASE, DROP DATABASE and ALTER DATABASE
// ... RENAME TO.
func (b *binder) databasePlan(n *pg_query.Node) (*stmtPlan, error) {
	var tag string
	var run func(x *execCtx) (*pgerror.Error, error)
	switch v := n.Node.(type) {
	case *pg_query.Node_CreatedbStmt:
		tag = "CREATE DATABASE"
		template, owner, err := createDatabaseOptions(v.CreatedbStmt.Options)
		if err != nil {
			return nil, err
		}
		name := v.CreatedbStmt.Dbname
		run = func(x *execCtx) (*pgerror.Error, error) { return nil, x.s.createDatabase(name, template, owner) }
	case *pg_query.Node_DropdbStmt:
		tag = "DROP DATABASE"
		ds := v.DropdbStmt
		force := false
		for _, o := range ds.Options {
			if de := o.GetDefElem(); de != nil && de.Defname == "force" {
				force = true
			} else {
				return nil, pgerror.Newf(pgerror.SyntaxError, "unrecognized DROP DATABASE option \"%s\"", de.GetDefname())
			}
		}
		run = func(x *execCtx) (*pgerror.Error, error) { return x.s.dropDatabase(ds.Dbname, ds.MissingOk, force) }
	case *pg_query.Node_RenameStmt:
		tag = "ALTER DATABASE"
		rs := v.RenameStmt
		run = func(x *execCtx) (*pgerror.Error, error) { return nil, x.s.renameDatabase(rs.Subname, rs.Newname) }
	default:
		return nil, pgerror.Unsupported("statement " + nodeKind(n))
	}
	return &stmtPlan{noTxn: true, exec: func(x *execCtx) (*Result, error) {
		if x.s.txn != nil && x.s.txn.explicit {
			return nil, pgerror.Newf(pgerror.ActiveSqlTransaction, "%s cannot run inside a transaction block", tag)
		}
		notice, err := run(x)
		if err != nil {
			return nil, err
		}
		res := &Result{Tag: tag}
		if notice != nil {
			res.Notices = append(res.Notices, notice)
		}
		return res, nil
	}}, nil
}

// createDatabaseOptions checks CREATE DATABASE's options and returns the
// template and the owner ("" for either when not named, or named DEFAULT).
// fickle's databases are UTF8 with the C collation, so other encodings and
// locales are refused rather than ignored.
func createDatabaseOptions(opts []*pg_query.Node) (template, owner string, err error) {
	for _, o := range opts {
		de := o.GetDefElem()
		if de == nil {
			continue
		}
		val := defElemText(de)
		switch de.Defname {
		case "template":
			template = val
		case "owner":
			owner = val
		case "tablespace", "connection_limit", "strategy", "oid":
			// No tablespaces or connection limits to honour; the strategy
			// only changes how PostgreSQL copies files.
		case "encoding":
			if e := strings.ToUpper(strings.ReplaceAll(val, "-", "")); e != "UTF8" && e != "UNICODE" && e != "6" {
				return "", "", pgerror.Unsupported("CREATE DATABASE ... ENCODING " + val + " (fickle's databases are UTF8)")
			}
		case "locale", "lc_collate", "lc_ctype":
			if val != "C" && val != "POSIX" && !strings.EqualFold(val, "C.UTF-8") && !strings.EqualFold(val, "C.UTF8") {
				return "", "", pgerror.Unsupported("CREATE DATABASE ... " + strings.ToUpper(de.Defname) + " " + val + " (fickle's databases use the C collation)")
			}
		case "locale_provider":
			if !strings.EqualFold(val, "libc") {
				return "", "", pgerror.Unsupported("CREATE DATABASE ... LOCALE_PROVIDER " + val)
			}
		default:
			return "", "", pgerror.Unsupported("CREATE DATABASE ... " + strings.ToUpper(de.Defname))
		}
	}
	return template, owner, nil
}

// defElemText returns an option's value as text (a name, a string or a
// number).
func defElemText(de *pg_query.DefElem) string {
	switch a := de.Arg.GetNode().(type) {
	case *pg_query.Node_String_:
		return a.String_.Sval
	case *pg_query.Node_Integer:
		return fmt.Sprint(a.Integer.Ival)
	case *pg_query.Node_TypeName:
		return strings.Join(strs(a.TypeName.Names), ".")
	}
	return ""
}

// createDatabase runs CREATE DATABASE name: a copy of the template
// (template1 unless named), objects and rows (ddl_database_copy.go),
// owned by the role named (the current one unless named), with
// PostgreSQL's checks in its order: CREATEDB, membership in the owner, the
// template, the right to copy a database that is not a template (its
// owner's), the name. Its grants are the default ones: the template's are
// not copied.
func (s *Session) createDatabase(name, template, ownerName string) error {
	actor := s.roleActor()
	owner := actor.oid
	if ownerName != "" {
		r := s.roleNamed(ownerName)
		if r == nil {
			return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", ownerName)
		}
		owner = r.oid
	}
	if !actor.createDB {
		return pgerror.New(pgerror.InsufficientPrivilege, "permission denied to create database")
	}
	if !actor.super && !s.belongsTo(actor.oid, owner) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be member of role \"%s\"", roleNameOf(s, owner))
	}
	owns := s.databaseOwnerCheck(actor.oid)
	c := s.engine.cluster
	if template == "" {
		template = "template1"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	tmpl := c.mu.dbs[template]
	if tmpl == nil {
		return pgerror.Newf(pgerror.InvalidCatalogName, "template database \"%s\" does not exist", template)
	}
	if !isTemplateDatabase(tmpl) && !owns(tmpl) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to copy database \"%s\"", template)
	}
	if c.mu.dbs[name] != nil {
		return pgerror.Newf(pgerror.DuplicateDatabase, "database \"%s\" already exists", name)
	}
	if n := len(tmpl.otherSessions(s)); n > 0 || tmpl == s.engine {
		return pgerror.Newf(pgerror.ObjectInUse, "source database \"%s\" is being accessed by other users", template).
			WithDetail("%s", otherSessionsDetail(n+boolInt(tmpl == s.engine)))
	}
	e := c.addDatabase(name, c.newOID(), true)
	e.dba.Store(owner)
	if cat, _ := tmpl.published(); !cat.isEmpty() {
		if err := copyDatabase(e, tmpl); err != nil {
			delete(c.mu.dbs, name)
			return err
		}
	}
	return nil
}

// isTemplateDatabase is pg_database.datistemplate: template0 and template1.
func isTemplateDatabase(e *Engine) bool { return e.oid == oidTemplate0 || e.oid == oidTemplate1 }

// roleNameOf names role oid, its OID when no role has it.
func roleNameOf(s *Session, oid uint32) string {
	for _, r := range s.roles() {
		if r.oid == oid {
			return r.name
		}
	}
	return fmt.Sprint(oid)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func otherSessionsDetail(n int) string {
	if n == 1 {
		return "There is 1 other session using the database."
	}
	return fmt.Sprintf("There are %d other sessions using the database.", n)
}

// dropDatabase runs DROP DATABASE [IF EXISTS] name [WITH (FORCE)]. Its
// tables leave the store and the database's name may be taken again.
// Without force a database others are connected to is refused (55006);
// with it their connections end with FATAL 57P01, as PostgreSQL's
// pg_terminate_backend ends them.
func (s *Session) dropDatabase(name string, missingOK, force bool) (*pgerror.Error, error) {
	owns := s.databaseOwnerCheck(s.currentRole())
	c := s.engine.cluster
	c.mu.Lock()
	e := c.mu.dbs[name]
	if e == nil {
		c.mu.Unlock()
		if missingOK {
			n := pgerror.Newf(pgerror.SuccessfulCompletion, "database \"%s\" does not exist, skipping", name)
			n.Severity = "NOTICE"
			return n, nil
		}
		return nil, pgerror.Newf(pgerror.InvalidCatalogName, "database \"%s\" does not exist", name)
	}
	switch {
	case !owns(e):
		c.mu.Unlock()
		return nil, pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of database %s", name)
	case isTemplateDatabase(e):
		c.mu.Unlock()
		return nil, pgerror.New(pgerror.WrongObjectType, "cannot drop a template database")
	case e == s.engine:
		c.mu.Unlock()
		return nil, pgerror.New(pgerror.ObjectInUse, "cannot drop the currently open database")
	}
	others := e.otherSessions(nil)
	if len(others) > 0 && !force {
		c.mu.Unlock()
		return nil, pgerror.Newf(pgerror.ObjectInUse, "database \"%s\" is being accessed by other users", name).
			WithDetail("%s", otherSessionsDetail(len(others)))
	}
	delete(c.mu.dbs, name)
	e.dropped.Store(true)
	c.mu.Unlock()
	// A connection that registered since ends here too; one that
	// registers later sees dropped (cluster.connect).
	for _, o := range e.otherSessions(nil) {
		o.terminate()
	}
	cat, _ := e.published()
	for _, t := range cat.tables {
		_ = c.store.DropTable(t.id)
	}
	return nil, nil
}

// renameDatabase runs ALTER DATABASE name RENAME TO newName, which its
// owner may run if it may create databases.
func (s *Session) renameDatabase(name, newName string) error {
	actor := s.roleActor()
	owns := s.databaseOwnerCheck(actor.oid)
	c := s.engine.cluster
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.mu.dbs[name]
	if e == nil {
		return pgerror.Newf(pgerror.InvalidCatalogName, "database \"%s\" does not exist", name)
	}
	if !owns(e) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of database %s", name)
	}
	if !actor.createDB {
		return pgerror.New(pgerror.InsufficientPrivilege, "permission denied to rename database")
	}
	if c.mu.dbs[newName] != nil {
		return pgerror.Newf(pgerror.DuplicateDatabase, "database \"%s\" already exists", newName)
	}
	if e == s.engine {
		return pgerror.New(pgerror.FeatureNotSupported, "current database cannot be renamed")
	}
	if n := len(e.otherSessions(nil)); n > 0 {
		return pgerror.Newf(pgerror.ObjectInUse, "database \"%s\" is being accessed by other users", name).
			WithDetail("%s", otherSessionsDetail(n))
	}
	delete(c.mu.dbs, name)
	e.name.Store(&newName)
	c.mu.dbs[newName] = e
	return nil
}
