package sqlexec

import (
	"sort"
	"sync"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// oidBootstrapSuperuser is the OID of the role initdb creates, which owns
// every object fickle has.
const oidBootstrapSuperuser = 10

// roleDesc is a role as pg_authid describes it.
type roleDesc struct {
	oid                                                                 uint32
	name                                                                string
	super, inherit, createRole, createDB, login, replication, bypassRLS bool
	connLimit                                                           int64
}

// predefinedRoles are PostgreSQL 15's pg_* roles.
var predefinedRoles = sync.OnceValue(func() []*roleDesc {
	var out []*roleDesc
	eachRow(pgdata.Load(pgdata.PgAuthid), func(get func(string) string) {
		r := &roleDesc{oid: atou(get("oid")), name: get("rolname"), super: get("rolsuper") == "t", inherit: get("rolinherit") == "t",
			createRole: get("rolcreaterole") == "t", createDB: get("rolcreatedb") == "t", login: get("rolcanlogin") == "t",
			replication: get("rolreplication") == "t", bypassRLS: get("rolbypassrls") == "t", connLimit: -1}
		out = append(out, r)
	})
	return out
})

// roles lists the roles session s sees, in OID order: the bootstrap
// superuser, named after the user the session connected as (fickle accepts
// every user and runs it as the superuser that owns everything), and
// PostgreSQL's predefined roles.
func (s *Session) roles() []*roleDesc {
	out := []*roleDesc{{oid: oidBootstrapSuperuser, name: s.user(), super: true, inherit: true, createRole: true, createDB: true,
		login: true, replication: true, bypassRLS: true, connLimit: -1}}
	out = append(out, predefinedRoles()...)
	sort.Slice(out, func(i, j int) bool { return out[i].oid < out[j].oid })
	return out
}

// roleOID is regrolein.
func (n catalogNames) roleOID(text string) (int64, error) {
	parts, err := parseQualifiedName(text)
	if err != nil {
		return 0, err
	}
	if len(parts) != 1 {
		return 0, pgerror.New(pgerror.InvalidName, "invalid name syntax")
	}
	for _, r := range n.s.roles() {
		if r.name == parts[0] {
			return int64(r.oid), nil
		}
	}
	return 0, pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", parts[0])
}

// roleName is regroleout.
func (n catalogNames) roleName(oid uint32) (string, bool) {
	for _, r := range n.s.roles() {
		if r.oid == oid {
			return types.QuoteIdent(r.name), true
		}
	}
	return "", false
}

// currentRole is the OID of the role the session runs as (current_user).
func (s *Session) currentRole() uint32 { return oidBootstrapSuperuser }
