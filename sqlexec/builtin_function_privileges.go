package sqlexec

import (
	"slices"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Built-in functions have the EXECUTE privileges PostgreSQL 15's initdb
// gives them: PUBLIC holds it on most, whose proacl is NULL; on the ones
// system_functions.sql revokes it from PUBLIC (pg_read_file, pg_stat_reset,
// pg_ls_waldir, ...) only the bootstrap superuser and the predefined roles
// granted it do, as pg_init_privs lists. GRANT and REVOKE edit those lists
// as a user routine's, but a change that takes EXECUTE from PUBLIC is
// refused: PostgreSQL would then check it on every operator, cast and
// implicit call of the function, which fickle does not track.

// builtinFunctionACLs are pg_init_privs' lists of built-in functions, by
// function OID.
var builtinFunctionACLs = sync.OnceValue(func() map[uint32][]aclItem {
	roles := map[string]uint32{"postgres": oidBootstrapSuperuser}
	for _, r := range predefinedRoles() {
		roles[r.name] = r.oid
	}
	out := map[uint32][]aclItem{}
	eachRow(pgdata.Load(pgdata.PgInitPrivs), func(get func(string) string) {
		if atou(get("classoid")) != oidPgProc || get("objsubid") != "0" {
			return
		}
		var acl []aclItem
		for _, item := range strings.Split(strings.Trim(get("initprivs"), "{}"), ",") {
			grantee, rest, _ := strings.Cut(item, "=")
			privs, grantor, _ := strings.Cut(rest, "/")
			acl = append(acl, aclItem{grantee: roles[grantee], grantor: roles[grantor], privs: privs})
		}
		out[atou(get("objoid"))] = acl
	})
	return out
})

// builtinProcACL is the list a built-in function has before any GRANT:
// initdb's, or none (ok false: PUBLIC's EXECUTE by default).
func builtinProcACL(oid uint32) ([]aclItem, bool) {
	acl, ok := builtinFunctionACLs()[oid]
	return acl, ok
}

// grantBuiltinRoutine resolves the object of a GRANT or REVOKE ON FUNCTION
// | ROUTINE to a built-in function or aggregate of pg_catalog when the
// name reaches one before any routine of the user's (nil otherwise).
func (d *ddl) grantBuiltinRoutine(gs *pg_query.GrantStmt, owa *pg_query.ObjectWithArgs) *builtinProc {
	if gs.Objtype != pg_query.ObjectType_OBJECT_FUNCTION && gs.Objtype != pg_query.ObjectType_OBJECT_ROUTINE {
		return nil
	}
	names := strs(owa.Objname)
	if len(names) == 2 && names[0] != "pg_catalog" || len(names) > 2 {
		return nil
	}
	name := names[len(names)-1]
	var argTypes []types.Type
	if !owa.ArgsUnspecified {
		for _, a := range owa.Objargs {
			t, err := d.binder("").routineTypeName(a.GetTypeName())
			if err != nil {
				return nil // findRoutine reports it
			}
			argTypes = append(argTypes, d.binder("").routineDomainOf(a.GetTypeName()).sigType(t))
		}
	}
	var found *builtinProc
	for _, p := range builtinIndex().procsByName[name] {
		if p.namespace != oidPgCatalog || p.kind != 'f' && p.kind != 'a' || !owa.ArgsUnspecified && !sameOids(p.args, argTypes) {
			continue
		}
		if found != nil {
			return nil // several: findRoutine reports the ambiguity
		}
		found = p
	}
	if found == nil {
		return nil
	}
	if len(names) == 1 {
		path := d.s.searchPath()
		catalogAt := slices.Index(path, "pg_catalog")
		for _, f := range d.s.lookupFuncs(d.cat, names) {
			if slices.Index(path, f.schema) < catalogAt && (owa.ArgsUnspecified || sameOids(found.args, f.in)) {
				return nil // a user routine earlier on the path
			}
		}
	}
	return found
}

// requireBuiltinPublicExecute refuses a GRANT or REVOKE that would take
// EXECUTE on built-in function oid away from PUBLIC, which holds it by
// default (see above). The functions initdb keeps from PUBLIC are called
// only by name, where fickle checks EXECUTE: their lists may change freely.
func requireBuiltinPublicExecute(oid uint32, before, after []aclItem) error {
	if _, restricted := builtinProcACL(oid); restricted {
		return nil
	}
	public := map[uint32]bool{}
	if aclHolds(before, public, []byte("X")) && !aclHolds(after, public, []byte("X")) {
		return pgerror.Unsupported("revoking EXECUTE on the built-in function " + builtinIndex().procs[oid].name + " from PUBLIC")
	}
	return nil
}

// builtinCallAllowed reports whether the current role may call built-in
// function oid, which fickle does not implement: PostgreSQL checks EXECUTE
// before it runs the function, so a role without it gets 42501 rather than
// the refusal.
func (b *binder) builtinCallAllowed(oid uint32) bool {
	return b.s.hasPrivilege(b.s.currentRole(), aclFunction, oid, []byte("X"))
}

// withBuiltinProcACLs is pg_proc's built-in rows with proacl, the last
// column, set where a built-in function has a list: initdb's or GRANT's.
// rows are shared; the rows it changes are copies.
func withBuiltinProcACLs(s *Session, c *catalog, rows [][]any) [][]any {
	out := slices.Clone(rows)
	for i, row := range out {
		oid := uint32(row[0].(int64))
		if _, initial := builtinFunctionACLs()[oid]; !initial && c.acls[aclKey{kind: aclFunction, oid: oid}] == nil {
			continue
		}
		row = slices.Clone(row)
		row[len(row)-1] = aclText(s, c, aclFunction, oid)
		out[i] = row
	}
	return out
}

// lackedBuiltinAt is lackedBuiltin for a call at loc: its refusal points
// at the call, its 42501, an error of the executor's in PostgreSQL, does
// not.
func (b *binder) lackedBuiltinAt(name string, args []types.Type, err error, loc int32) error {
	err = lackedBuiltin(name, args, err, b.builtinCallAllowed)
	if pgerror.GetCode(err) == pgerror.InsufficientPrivilege {
		return err
	}
	return b.withPos(err, loc)
}
