package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Comments on shared objects (pg_shdescription): initdb's on the databases
// it creates, and those COMMENT ON ROLE sets, which belong to the server
// as the roles do (and, like theirs, roll back with their transaction).

// Catalogs pg_shdescription's classoid names.
const (
	oidPgAuthid   = 1260
	oidPgDatabase = 1262
)

// initdbDatabaseComments are the descriptions initdb gives the databases
// it creates, by OID.
var initdbDatabaseComments = map[uint32]string{
	oidTemplate1: "default template for new databases",
	oidTemplate0: "unmodifiable empty database",
	oidPostgres:  "default administrative connection database",
}

// commentOnRole runs COMMENT ON ROLE with rc locked: as PostgreSQL, it
// takes CREATEROLE, and superuser rights for a superuser's comment; an
// empty comment removes it.
func (s *Session) commentOnRole(rc *roleCatalog, cs *pg_query.CommentStmt, actor roleActor) error {
	name := cs.Object.GetString_().GetSval()
	r := s.findRole(rc, name)
	switch {
	case r == nil:
		return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", name)
	case r.super && !actor.super:
		return pgerror.New(pgerror.InsufficientPrivilege, "must be superuser")
	case !r.super && !actor.createRole:
		return pgerror.New(pgerror.InsufficientPrivilege, "must have CREATEROLE privilege")
	}
	if cs.Comment == "" {
		delete(rc.comments, r.oid)
		return nil
	}
	if rc.comments == nil {
		rc.comments = map[uint32]string{}
	}
	rc.comments[r.oid] = cs.Comment
	return nil
}

// sharedComments are pg_shdescription's rows (objoid, classoid,
// description): the databases' that exist, then the roles', by OID.
func (s *Session) sharedComments() [][]any {
	var out [][]any
	for _, e := range s.engine.cluster.databases() {
		if text, ok := initdbDatabaseComments[e.oid]; ok {
			out = append(out, []any{int64(e.oid), int64(oidPgDatabase), text})
		}
	}
	rc := &s.engine.cluster.roles
	rc.mu.Lock()
	oids := make([]uint32, 0, len(rc.comments))
	for oid := range rc.comments {
		oids = append(oids, oid)
	}
	slices.Sort(oids)
	for _, oid := range oids {
		out = append(out, []any{int64(oid), int64(oidPgAuthid), rc.comments[oid]})
	}
	rc.mu.Unlock()
	return out
}

// sharedComment answers shobj_description: the comment on shared object
// oid of the catalog named class, nil for none.
func (s *Session) sharedComment(oid int64, class string) any {
	classOID := map[string]int64{"pg_authid": oidPgAuthid, "pg_database": oidPgDatabase}[class]
	for _, r := range s.sharedComments() {
		if r[0] == oid && r[1] == classOID {
			return r[2]
		}
	}
	return nil
}

func init() {
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_shdescription",
		cols: []vcol{{"objoid", types.OidType}, {"classoid", types.OidType}, {"description", types.Text}},
		rows: func(s *Session, _ *catalog) [][]any { return s.sharedComments() }})
}
