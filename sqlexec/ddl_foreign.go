package sqlexec

import (
	"cmp"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Foreign-data wrappers, foreign servers and user mappings (CREATE, ALTER
// and DROP FOREIGN DATA WRAPPER, SERVER, USER MAPPING) are catalog objects
// only: fickle connects to no other server. They are kept, checked and
// shown as PostgreSQL 15 keeps them (ddl_foreign_catalog.go), in the
// transactional catalog, so ROLLBACK undoes them. No wrapper can have a
// handler in fickle (no function returns fdw_handler), so reading a foreign
// table fails as PostgreSQL's does for a wrapper without one.

// OIDs of the catalogs of foreign objects (their comments' classoid) and of
// PostgreSQL's one built-in validator.
const (
	oidPgForeignDataWrapper   = 2328
	oidPgForeignServer        = 1417
	oidPgUserMapping          = 1418
	oidPostgresqlFdwValidator = 2316
)

// fdwDesc is a pg_foreign_data_wrapper row. validator is the OID of its
// validator function, 0 for none; options are name=value, nil for NULL.
// A descriptor is never changed once in a catalog.
type fdwDesc struct {
	oid, owner, validator uint32
	name                  string
	options               []string
}

// foreignServerDesc is a pg_foreign_server row; srvType and version are
// strings or nil (NULL).
type foreignServerDesc struct {
	oid, owner, fdw uint32
	name            string
	srvType         any
	version         any
	options         []string
}

// userMappingDesc is a pg_user_mapping row: user 0 is PUBLIC.
type userMappingDesc struct {
	oid, user, server uint32
	options           []string
}

// sortedFDWs are the catalog's wrappers in OID order.
func (c *catalog) sortedFDWs() []*fdwDesc {
	out := make([]*fdwDesc, 0, len(c.fdws))
	for _, f := range c.fdws {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b *fdwDesc) int { return cmp.Compare(a.oid, b.oid) })
	return out
}

// sortedServers are the catalog's foreign servers in OID order.
func (c *catalog) sortedServers() []*foreignServerDesc {
	out := make([]*foreignServerDesc, 0, len(c.servers))
	for _, s := range c.servers {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *foreignServerDesc) int { return cmp.Compare(a.oid, b.oid) })
	return out
}

// sortedUserMappings are the catalog's user mappings in OID order.
func (c *catalog) sortedUserMappings() []*userMappingDesc {
	out := make([]*userMappingDesc, 0, len(c.userMappings))
	for _, m := range c.userMappings {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b *userMappingDesc) int { return cmp.Compare(a.oid, b.oid) })
	return out
}

// fdwByOID is the wrapper of OID oid, nil for none.
func (c *catalog) fdwByOID(oid uint32) *fdwDesc {
	for _, f := range c.fdws {
		if f.oid == oid {
			return f
		}
	}
	return nil
}

// serverByOID is the foreign server of OID oid, nil for none.
func (c *catalog) serverByOID(oid uint32) *foreignServerDesc {
	for _, s := range c.servers {
		if s.oid == oid {
			return s
		}
	}
	return nil
}

// userMapping is the mapping of user (0 for PUBLIC) on server, nil for none.
func (c *catalog) userMapping(user, server uint32) *userMappingDesc {
	for _, m := range c.userMappings {
		if m.user == user && m.server == server {
			return m
		}
	}
	return nil
}

// lookupFDW finds a wrapper a statement names: 42704 when there is none.
func (d *ddl) lookupFDW(name string) (*fdwDesc, error) {
	if f := d.cat.fdws[name]; f != nil {
		return f, nil
	}
	return nil, pgerror.Newf(pgerror.UndefinedObject, "foreign-data wrapper \"%s\" does not exist", name)
}

// lookupServer finds a foreign server a statement names: 42704 when there
// is none.
func (d *ddl) lookupServer(name string) (*foreignServerDesc, error) {
	if s := d.cat.servers[name]; s != nil {
		return s, nil
	}
	return nil, pgerror.Newf(pgerror.UndefinedObject, "server \"%s\" does not exist", name)
}

// transformGenericOptions applies a statement's OPTIONS list to old as
// PostgreSQL's transformGenericOptions does: ADD (or no action) appends a
// new option, SET replaces one and DROP removes one, in the order given;
// the validator, when there is one, then checks the result for the
// catalog catalogOID. An empty result is nil (NULL).
func (d *ddl) transformGenericOptions(catalogOID uint32, old []string, defs []*pg_query.Node, validator uint32) ([]string, error) {
	type option struct{ name, value string }
	var opts []option
	for _, o := range old {
		name, value, _ := strings.Cut(o, "=")
		opts = append(opts, option{name, value})
	}
	for _, n := range defs {
		def := n.GetDefElem()
		i := slices.IndexFunc(opts, func(o option) bool { return o.name == def.Defname })
		switch def.Defaction {
		case pg_query.DefElemAction_DEFELEM_DROP, pg_query.DefElemAction_DEFELEM_SET:
			if i < 0 {
				return nil, pgerror.Newf(pgerror.UndefinedObject, "option \"%s\" not found", def.Defname)
			}
			if def.Defaction == pg_query.DefElemAction_DEFELEM_DROP {
				opts = slices.Delete(opts, i, i+1)
			} else {
				opts[i].value = defElemString(def)
			}
		default:
			if i >= 0 {
				return nil, pgerror.Newf(pgerror.DuplicateObject, "option \"%s\" provided more than once", def.Defname)
			}
			opts = append(opts, option{def.Defname, defElemString(def)})
		}
	}
	var out []string
	for _, o := range opts {
		out = append(out, o.name+"="+o.value)
	}
	if validator == oidPostgresqlFdwValidator {
		names := make([]string, len(opts))
		for i, o := range opts {
			names[i] = o.name
		}
		if err := postgresqlFdwValidator(names, catalogOID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// libpqConninfoOptions are the options postgresql_fdw_validator accepts,
// in its order, with the catalog each belongs to.
var libpqConninfoOptions = []struct {
	name    string
	catalog uint32
}{
	{"authtype", oidPgForeignServer}, {"service", oidPgForeignServer}, {"user", oidPgUserMapping},
	{"password", oidPgUserMapping}, {"connect_timeout", oidPgForeignServer}, {"dbname", oidPgForeignServer},
	{"host", oidPgForeignServer}, {"hostaddr", oidPgForeignServer}, {"port", oidPgForeignServer},
	{"tty", oidPgForeignServer}, {"options", oidPgForeignServer}, {"requiressl", oidPgForeignServer},
	{"sslmode", oidPgForeignServer}, {"gsslib", oidPgForeignServer},
}

// postgresqlFdwValidator is PostgreSQL's postgresql_fdw_validator: each
// option must be a libpq connection option of the catalog's kind.
func postgresqlFdwValidator(names []string, catalogOID uint32) error {
	var valid []string
	for _, o := range libpqConninfoOptions {
		if o.catalog == catalogOID {
			valid = append(valid, o.name)
		}
	}
	for _, n := range names {
		if slices.Contains(valid, n) {
			continue
		}
		err := pgerror.Newf(pgerror.SyntaxError, "invalid option \"%s\"", n)
		if len(valid) == 0 {
			return err.WithHint("There are no valid options in this context.")
		}
		return err.WithHint("Valid options in this context are: %s", strings.Join(valid, ", "))
	}
	return nil
}

// fdwFunctions reads the HANDLER and VALIDATOR clauses of CREATE or ALTER
// FOREIGN DATA WRAPPER as PostgreSQL's parse_func_options does. No
// function can be a handler in fickle: a named one is missing or does not
// return fdw_handler, PostgreSQL's errors either way, so a given handler
// is always NO HANDLER. A validator must take (text[], oid); fickle runs
// postgresql_fdw_validator and refuses any other.
func (d *ddl) fdwFunctions(opts []*pg_query.Node) (handlerGiven, validatorGiven bool, validator uint32, err error) {
	for _, n := range opts {
		def := n.GetDefElem()
		switch def.Defname {
		case "handler":
			if handlerGiven {
				return false, false, 0, d.conflictingOption(def)
			}
			handlerGiven = true
			if def.Arg != nil {
				return false, false, 0, d.fdwHandlerError(strs(def.Arg.GetList().GetItems()))
			}
		case "validator":
			if validatorGiven {
				return false, false, 0, d.conflictingOption(def)
			}
			validatorGiven = true
			if def.Arg != nil {
				if validator, err = d.fdwValidator(strs(def.Arg.GetList().GetItems())); err != nil {
					return false, false, 0, err
				}
			}
		}
	}
	return handlerGiven, validatorGiven, validator, nil
}

// fdwHandlerError is the error HANDLER name gives: the function name()
// is missing, or returns another type than fdw_handler.
func (d *ddl) fdwHandlerError(names []string) error {
	qualified := strings.Join(names, ".")
	found := slices.ContainsFunc(d.s.lookupFuncs(d.cat, names), func(f *funcDesc) bool { return len(f.in) == 0 })
	if len(names) == 1 || names[0] == "pg_catalog" {
		found = found || slices.ContainsFunc(builtinIndex().procsByName[names[len(names)-1]], func(p *builtinProc) bool {
			return p.namespace == oidPgCatalog && len(p.args) == 0
		})
	}
	if !found {
		return pgerror.Newf(pgerror.UndefinedFunction, "function %s() does not exist", qualified)
	}
	return pgerror.Newf(pgerror.WrongObjectType, "function %s must return type fdw_handler", qualified)
}

// fdwValidator resolves VALIDATOR name to the function name(text[], oid):
// 42883 when there is none, 0A000 for one other than
// postgresql_fdw_validator, which fickle would have to run.
func (d *ddl) fdwValidator(names []string) (uint32, error) {
	if len(names) == 1 || names[0] == "pg_catalog" {
		for _, p := range builtinIndex().procsByName[names[len(names)-1]] {
			if p.namespace == oidPgCatalog && slices.Equal(p.args, []uint32{oidTextArray, oidOID}) {
				if p.oid == oidPostgresqlFdwValidator {
					return p.oid, nil
				}
				return 0, pgerror.Unsupported("foreign-data wrapper validator " + p.name)
			}
		}
	}
	for _, f := range d.s.lookupFuncs(d.cat, names) {
		if len(f.in) == 2 && uint32(f.in[0].Oid) == oidTextArray && uint32(f.in[1].Oid) == oidOID {
			return 0, pgerror.Unsupported("a user-defined foreign-data wrapper validator")
		}
	}
	return 0, pgerror.Newf(pgerror.UndefinedFunction, "function %s(text[], oid) does not exist", strings.Join(names, "."))
}

// OIDs of the validator's argument types.
const (
	oidTextArray = 1009
	oidOID       = 26
)

// createFDW runs CREATE FOREIGN DATA WRAPPER.
func (d *ddl) createFDW(cs *pg_query.CreateFdwStmt) error {
	role := d.s.currentRole()
	if !d.s.isSuperuser(role) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to create foreign-data wrapper \"%s\"", cs.Fdwname).
			WithHint("Must be superuser to create a foreign-data wrapper.")
	}
	if d.cat.fdws[cs.Fdwname] != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "foreign-data wrapper \"%s\" already exists", cs.Fdwname)
	}
	_, _, validator, err := d.fdwFunctions(cs.FuncOptions)
	if err != nil {
		return err
	}
	opts, err := d.transformGenericOptions(oidPgForeignDataWrapper, nil, cs.Options, validator)
	if err != nil {
		return err
	}
	d.cat.fdws[cs.Fdwname] = &fdwDesc{oid: d.cat.newOID(), owner: role, validator: validator, name: cs.Fdwname, options: opts}
	return nil
}

// alterFDW runs ALTER FOREIGN DATA WRAPPER ... [NO] HANDLER, [NO]
// VALIDATOR, OPTIONS (...): superusers only; a new validator checks only
// the options the statement gives, with a warning, as in PostgreSQL.
func (d *ddl) alterFDW(as *pg_query.AlterFdwStmt) error {
	if !d.s.isSuperuser(d.s.currentRole()) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to alter foreign-data wrapper \"%s\"", as.Fdwname).
			WithHint("Must be superuser to alter a foreign-data wrapper.")
	}
	old, err := d.lookupFDW(as.Fdwname)
	if err != nil {
		return err
	}
	_, validatorGiven, validator, err := d.fdwFunctions(as.FuncOptions)
	if err != nil {
		return err
	}
	f := *old
	if validatorGiven {
		f.validator = validator
		if validator != 0 {
			d.warning(pgerror.Warning, "changing the foreign-data wrapper validator can cause the options for dependent objects to become invalid")
		}
	}
	if len(as.Options) > 0 {
		if f.options, err = d.transformGenericOptions(oidPgForeignDataWrapper, old.options, as.Options, f.validator); err != nil {
			return err
		}
	}
	d.cat.fdws[f.name] = &f
	return nil
}

// createServer runs CREATE SERVER [IF NOT EXISTS]: its owner needs USAGE
// on the wrapper, whose validator checks the options.
func (d *ddl) createServer(cs *pg_query.CreateForeignServerStmt) error {
	if d.cat.servers[cs.Servername] != nil {
		if cs.IfNotExists {
			d.notice(pgerror.DuplicateObject, "server \"%s\" already exists, skipping", cs.Servername)
			return nil
		}
		return pgerror.Newf(pgerror.DuplicateObject, "server \"%s\" already exists", cs.Servername)
	}
	fdw, err := d.lookupFDW(cs.Fdwname)
	if err != nil {
		return err
	}
	role := d.s.currentRole()
	if !d.s.hasPrivilege(role, aclForeignDataWrapper, fdw.oid, []byte{'U'}) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for foreign-data wrapper %s", fdw.name)
	}
	srv := &foreignServerDesc{owner: role, fdw: fdw.oid, name: cs.Servername}
	if cs.Servertype != "" {
		srv.srvType = cs.Servertype
	}
	if cs.Version != "" {
		srv.version = cs.Version
	}
	if srv.options, err = d.transformGenericOptions(oidPgForeignServer, nil, cs.Options, fdw.validator); err != nil {
		return err
	}
	srv.oid = d.cat.newOID()
	d.cat.servers[srv.name] = srv
	return nil
}

// alterServer runs ALTER SERVER ... VERSION, OPTIONS (...): the owner's.
func (d *ddl) alterServer(as *pg_query.AlterForeignServerStmt) error {
	old, err := d.lookupServer(as.Servername)
	if err != nil {
		return err
	}
	if err := d.s.requireOwner(old.owner, "foreign server", old.name); err != nil {
		return err
	}
	srv := *old
	if as.HasVersion {
		srv.version = nil
		if as.Version != "" {
			srv.version = as.Version
		}
	}
	if len(as.Options) > 0 {
		if srv.options, err = d.transformGenericOptions(oidPgForeignServer, old.options, as.Options, d.cat.fdwByOID(old.fdw).validator); err != nil {
			return err
		}
	}
	d.cat.servers[srv.name] = &srv
	return nil
}

// mappingRole resolves the role of a user mapping statement: 0 for
// PUBLIC, ok false for a missing role when missingOk (else 42704).
func (d *ddl) mappingRole(spec *pg_query.RoleSpec, missingOk bool) (oid uint32, ok bool, err error) {
	if spec.Roletype == pg_query.RoleSpecType_ROLESPEC_PUBLIC {
		return 0, true, nil
	}
	name := d.s.roleSpecName(spec.Roletype.String(), spec.Rolename)
	r := d.s.roleNamed(name)
	if r == nil {
		if missingOk {
			return 0, false, nil
		}
		return 0, false, pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", name)
	}
	return r.oid, true, nil
}

// mappingUserName names a mapping's user as PostgreSQL's MappingUserName.
func (s *Session) mappingUserName(user uint32) string {
	if user == 0 {
		return "public"
	}
	name, _ := catalogNames{s: s}.roleName(user)
	return unquoteIdent(name)
}

// userMappingACLCheck is PostgreSQL's user_mapping_ddl_aclcheck: the
// server's owner may manage any of its mappings, another role only its own
// and only with USAGE on the server.
func (d *ddl) userMappingACLCheck(user uint32, srv *foreignServerDesc) error {
	role := d.s.currentRole()
	if d.s.actsAsOwner(srv.owner) {
		return nil
	}
	if user != role {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of foreign server %s", srv.name)
	}
	if !d.s.hasPrivilege(role, aclForeignServer, srv.oid, []byte{'U'}) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for foreign server %s", srv.name)
	}
	return nil
}

// createUserMapping runs CREATE USER MAPPING [IF NOT EXISTS].
func (d *ddl) createUserMapping(cs *pg_query.CreateUserMappingStmt) error {
	user, _, err := d.mappingRole(cs.User, false)
	if err != nil {
		return err
	}
	srv, err := d.lookupServer(cs.Servername)
	if err != nil {
		return err
	}
	if err := d.userMappingACLCheck(user, srv); err != nil {
		return err
	}
	if d.cat.userMapping(user, srv.oid) != nil {
		if cs.IfNotExists {
			d.notice(pgerror.DuplicateObject, "user mapping for \"%s\" already exists for server \"%s\", skipping", d.s.mappingUserName(user), srv.name)
			return nil
		}
		return pgerror.Newf(pgerror.DuplicateObject, "user mapping for \"%s\" already exists for server \"%s\"", d.s.mappingUserName(user), srv.name)
	}
	opts, err := d.transformGenericOptions(oidPgUserMapping, nil, cs.Options, d.cat.fdwByOID(srv.fdw).validator)
	if err != nil {
		return err
	}
	m := &userMappingDesc{oid: d.cat.newOID(), user: user, server: srv.oid, options: opts}
	d.cat.userMappings[m.oid] = m
	return nil
}

// alterUserMapping runs ALTER USER MAPPING ... OPTIONS (...).
func (d *ddl) alterUserMapping(as *pg_query.AlterUserMappingStmt) error {
	user, _, err := d.mappingRole(as.User, false)
	if err != nil {
		return err
	}
	srv, err := d.lookupServer(as.Servername)
	if err != nil {
		return err
	}
	old := d.cat.userMapping(user, srv.oid)
	if old == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "user mapping for \"%s\" does not exist for server \"%s\"", d.s.mappingUserName(user), srv.name)
	}
	if err := d.userMappingACLCheck(user, srv); err != nil {
		return err
	}
	m := *old
	if len(as.Options) > 0 {
		if m.options, err = d.transformGenericOptions(oidPgUserMapping, old.options, as.Options, d.cat.fdwByOID(srv.fdw).validator); err != nil {
			return err
		}
	}
	d.cat.userMappings[m.oid] = &m
	return nil
}

// dropUserMapping runs DROP USER MAPPING [IF EXISTS].
func (d *ddl) dropUserMapping(ds *pg_query.DropUserMappingStmt) error {
	user, ok, err := d.mappingRole(ds.User, ds.MissingOk)
	if err != nil {
		return err
	}
	if !ok {
		d.notice(pgerror.SuccessfulCompletion, "role \"%s\" does not exist, skipping", ds.User.Rolename)
		return nil
	}
	srv := d.cat.servers[ds.Servername]
	if srv == nil {
		if !ds.MissingOk {
			return pgerror.Newf(pgerror.UndefinedObject, "server \"%s\" does not exist", ds.Servername)
		}
		d.notice(pgerror.SuccessfulCompletion, "server \"%s\" does not exist, skipping", ds.Servername)
		return nil
	}
	m := d.cat.userMapping(user, srv.oid)
	if m == nil {
		if !ds.MissingOk {
			return pgerror.Newf(pgerror.UndefinedObject, "user mapping for \"%s\" does not exist for server \"%s\"", d.s.mappingUserName(user), srv.name)
		}
		d.notice(pgerror.SuccessfulCompletion, "user mapping for \"%s\" does not exist for server \"%s\", skipping", d.s.mappingUserName(user), srv.name)
		return nil
	}
	if err := d.userMappingACLCheck(user, srv); err != nil {
		return err
	}
	delete(d.cat.userMappings, m.oid)
	return nil
}

// foreignDependent is an object a DROP of a wrapper or server reaches: a
// server, a user mapping or a foreign table, with what it depends on, as
// PostgreSQL's dependency messages name both; readers are the lines of
// the views that read a foreign table, which RESTRICT lists after it.
type foreignDependent struct {
	what, on string
	readers  []string
	drop     func() error
}

// serverDependents are the user mappings and foreign tables of srv, in
// OID order.
func (d *ddl) serverDependents(srv *foreignServerDesc) []foreignDependent {
	type entry struct {
		oid uint32
		dep foreignDependent
	}
	on := "server " + srv.name
	var out []entry
	for _, m := range d.cat.sortedUserMappings() {
		if m.server == srv.oid {
			out = append(out, entry{m.oid, foreignDependent{what: "user mapping for " + d.s.mappingUserName(m.user) + " on server " + srv.name, on: on,
				drop: func() error { delete(d.cat.userMappings, m.oid); return nil }}})
		}
	}
	for _, t := range d.serverTables(srv) {
		what := "foreign table " + d.s.visibleName(t.schema, t.name)
		var readers []string
		for _, v := range sortedViews(d.cat) {
			if slices.Contains(v.deps, t.oid) {
				readers = append(readers, "view "+d.s.visibleName(v.schema, v.name)+" depends on "+what)
			}
		}
		out = append(out, entry{t.oid, foreignDependent{what: what, on: on, readers: readers,
			drop: func() error {
				if cur := d.cat.tables[t.oid]; cur != nil {
					return d.dropTables([]*tableDesc{cur}, true)
				}
				return nil
			}}})
	}
	slices.SortFunc(out, func(a, b entry) int { return cmp.Compare(a.oid, b.oid) })
	deps := make([]foreignDependent, len(out))
	for i, e := range out {
		deps[i] = e.dep
	}
	return deps
}

// dropWithDependents finishes a DROP of an object whose dependents deps
// are: RESTRICT fails listing them, CASCADE drops them with PostgreSQL's
// notice.
func (d *ddl) dropWithDependents(noun string, deps []foreignDependent, cascade bool) error {
	if len(deps) == 0 {
		return nil
	}
	if !cascade {
		var lines []string
		for _, dep := range deps {
			lines = append(lines, dep.what+" depends on "+dep.on)
			lines = append(lines, dep.readers...)
		}
		return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", noun).
			WithDetail("%s", strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	// A foreign table's drop cascades further (to the views that read
	// it); its notices join this one, as PostgreSQL reports one drop.
	var lines []string
	var others []*pgerror.Error
	for _, dep := range deps {
		mark := len(d.notices)
		if err := dep.drop(); err != nil {
			return err
		}
		lines = append(lines, dep.what)
		for _, n := range d.notices[mark:] {
			switch more, ok := cascadedObjects(n); {
			case ok:
				lines = append(lines, more...)
			default:
				others = append(others, n)
			}
		}
		d.notices = d.notices[:mark]
	}
	d.cascadeNotice(lines)
	d.notices = append(d.notices, others...)
	return nil
}

// dropFDWs runs DROP FOREIGN DATA WRAPPER: the owner's; its servers, and
// theirs, go with CASCADE.
func (d *ddl) dropFDWs(ds *pg_query.DropStmt) error {
	cascade := ds.Behavior == pg_query.DropBehavior_DROP_CASCADE
	for _, o := range ds.Objects {
		name := o.GetString_().GetSval()
		f := d.cat.fdws[name]
		if f == nil {
			if ds.MissingOk {
				d.notice(pgerror.SuccessfulCompletion, "foreign-data wrapper \"%s\" does not exist, skipping", name)
				continue
			}
			return pgerror.Newf(pgerror.UndefinedObject, "foreign-data wrapper \"%s\" does not exist", name)
		}
		if err := d.s.requireOwner(f.owner, "foreign-data wrapper", f.name); err != nil {
			return err
		}
		var deps []foreignDependent
		for _, srv := range d.cat.sortedServers() {
			if srv.fdw != f.oid {
				continue
			}
			deps = append(deps, foreignDependent{what: "server " + srv.name, on: "foreign-data wrapper " + f.name, drop: func() error { d.removeServer(srv); return nil }})
			deps = append(deps, d.serverDependents(srv)...)
		}
		if err := d.dropWithDependents("foreign-data wrapper "+f.name, deps, cascade); err != nil {
			return err
		}
		delete(d.cat.fdws, f.name)
		d.forgetForeignObject(aclForeignDataWrapper, oidPgForeignDataWrapper, f.oid)
	}
	return nil
}

// dropServers runs DROP SERVER: the owner's; its user mappings and
// foreign tables go with CASCADE.
func (d *ddl) dropServers(ds *pg_query.DropStmt) error {
	cascade := ds.Behavior == pg_query.DropBehavior_DROP_CASCADE
	for _, o := range ds.Objects {
		name := o.GetString_().GetSval()
		srv := d.cat.servers[name]
		if srv == nil {
			if ds.MissingOk {
				d.notice(pgerror.SuccessfulCompletion, "server \"%s\" does not exist, skipping", name)
				continue
			}
			return pgerror.Newf(pgerror.UndefinedObject, "server \"%s\" does not exist", name)
		}
		if err := d.s.requireOwner(srv.owner, "foreign server", srv.name); err != nil {
			return err
		}
		if err := d.dropWithDependents("server "+srv.name, d.serverDependents(srv), cascade); err != nil {
			return err
		}
		d.removeServer(srv)
	}
	return nil
}

// removeServer takes srv, and what is left of its mappings, out of the
// catalog.
func (d *ddl) removeServer(srv *foreignServerDesc) {
	for oid, m := range d.cat.userMappings {
		if m.server == srv.oid {
			delete(d.cat.userMappings, oid)
		}
	}
	delete(d.cat.servers, srv.name)
	d.forgetForeignObject(aclForeignServer, oidPgForeignServer, srv.oid)
}

// forgetForeignObject drops the grants on and comment of a dropped wrapper
// or server.
func (d *ddl) forgetForeignObject(kind aclKind, class, oid uint32) {
	delete(d.cat.acls, aclKey{kind: kind, oid: oid})
	delete(d.cat.comments, commentKey{classOID: class, objOID: oid})
}

// renameFDW runs ALTER FOREIGN DATA WRAPPER ... RENAME TO.
func (d *ddl) renameFDW(rs *pg_query.RenameStmt) error {
	old, err := d.lookupFDW(rs.Object.GetString_().GetSval())
	if err != nil {
		return err
	}
	if d.cat.fdws[rs.Newname] != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "foreign-data wrapper \"%s\" already exists", rs.Newname)
	}
	if err := d.s.requireOwner(old.owner, "foreign-data wrapper", old.name); err != nil {
		return err
	}
	f := *old
	f.name = rs.Newname
	delete(d.cat.fdws, old.name)
	d.cat.fdws[f.name] = &f
	return nil
}

// renameServer runs ALTER SERVER ... RENAME TO.
func (d *ddl) renameServer(rs *pg_query.RenameStmt) error {
	old, err := d.lookupServer(rs.Object.GetString_().GetSval())
	if err != nil {
		return err
	}
	if d.cat.servers[rs.Newname] != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "server \"%s\" already exists", rs.Newname)
	}
	if err := d.s.requireOwner(old.owner, "foreign server", old.name); err != nil {
		return err
	}
	srv := *old
	srv.name = rs.Newname
	delete(d.cat.servers, old.name)
	d.cat.servers[srv.name] = &srv
	return nil
}

// alterFDWOwner runs ALTER FOREIGN DATA WRAPPER ... OWNER TO: a superuser
// gives it to a superuser, as PostgreSQL allows.
func (d *ddl) alterFDWOwner(ao *pg_query.AlterOwnerStmt) error {
	old, err := d.lookupFDW(ao.Object.GetString_().GetSval())
	if err != nil {
		return err
	}
	r, err := d.newOwner(ao.Newowner)
	if err != nil {
		return err
	}
	return d.giveFDW(old, r.oid)
}

// giveFDW makes owner the owner of f, grants following.
func (d *ddl) giveFDW(old *fdwDesc, owner uint32) error {
	if !d.s.isSuperuser(d.s.currentRole()) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to change owner of foreign-data wrapper \"%s\"", old.name).
			WithHint("Must be superuser to change owner of a foreign-data wrapper.")
	}
	if !d.s.isSuperuser(owner) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to change owner of foreign-data wrapper \"%s\"", old.name).
			WithHint("The owner of a foreign-data wrapper must be a superuser.")
	}
	if owner == old.owner {
		return nil
	}
	d.transferACL(aclForeignDataWrapper, old.oid, old.owner, owner)
	f := *old
	f.owner = owner
	d.cat.fdws[f.name] = &f
	return nil
}

// alterServerOwner runs ALTER SERVER ... OWNER TO with PostgreSQL's
// checks: but for a superuser, the owner's, to a role it belongs to that
// has USAGE on the wrapper.
func (d *ddl) alterServerOwner(ao *pg_query.AlterOwnerStmt) error {
	old, err := d.lookupServer(ao.Object.GetString_().GetSval())
	if err != nil {
		return err
	}
	r, err := d.newOwner(ao.Newowner)
	if err != nil {
		return err
	}
	if r.oid == old.owner {
		return nil
	}
	err = d.mayGiveTo(r, func() error { return d.s.requireOwner(old.owner, "foreign server", old.name) }, func() error {
		if f := d.cat.fdwByOID(old.fdw); !d.s.hasPrivilege(r.oid, aclForeignDataWrapper, f.oid, []byte{'U'}) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for foreign-data wrapper %s", f.name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.giveServer(old, r.oid)
	return nil
}

// giveServer makes owner the owner of srv, grants following.
func (d *ddl) giveServer(old *foreignServerDesc, owner uint32) {
	d.transferACL(aclForeignServer, old.oid, old.owner, owner)
	srv := *old
	srv.owner = owner
	d.cat.servers[srv.name] = &srv
}

// commentForeign runs COMMENT ON FOREIGN DATA WRAPPER and SERVER.
func (d *ddl) commentForeign(cs *pg_query.CommentStmt) error {
	name := cs.Object.GetString_().GetSval()
	if cs.Objtype == pg_query.ObjectType_OBJECT_FDW {
		f, err := d.lookupFDW(name)
		if err != nil {
			return err
		}
		if err := d.s.requireOwner(f.owner, "foreign-data wrapper", f.name); err != nil {
			return err
		}
		d.cat.setComment(commentKey{classOID: oidPgForeignDataWrapper, objOID: f.oid}, cs.Comment)
		return nil
	}
	srv, err := d.lookupServer(name)
	if err != nil {
		return err
	}
	if err := d.s.requireOwner(srv.owner, "foreign server", srv.name); err != nil {
		return err
	}
	d.cat.setComment(commentKey{classOID: oidPgForeignServer, objOID: srv.oid}, cs.Comment)
	return nil
}

// foreignObjectTag is the command tag of ALTER ... OWNER TO and RENAME of a
// wrapper or server, "" for other objects.
func foreignObjectTag(t pg_query.ObjectType) string {
	switch t {
	case pg_query.ObjectType_OBJECT_FDW:
		return "ALTER FOREIGN DATA WRAPPER"
	case pg_query.ObjectType_OBJECT_FOREIGN_SERVER:
		return "ALTER SERVER"
	}
	return ""
}

// importForeignSchema runs IMPORT FOREIGN SCHEMA as far as PostgreSQL's
// ImportForeignSchema goes for a wrapper without a handler: the server
// and the target schema are checked, then the wrapper's missing handler
// fails the statement.
func (d *ddl) importForeignSchema(is *pg_query.ImportForeignSchemaStmt) error {
	srv, err := d.lookupServer(is.ServerName)
	if err != nil {
		return err
	}
	role := d.s.currentRole()
	if !d.s.hasPrivilege(role, aclForeignServer, srv.oid, []byte{'U'}) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for foreign server %s", srv.name)
	}
	sc := d.cat.schemas[d.s.schemaAlias(is.LocalSchema)]
	if sc == nil {
		return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", is.LocalSchema)
	}
	if !d.s.hasPrivilege(role, aclSchema, sc.oid, []byte{'C'}) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for schema %s", sc.name)
	}
	return noHandlerError(d.cat.fdwByOID(srv.fdw))
}

// noHandlerError is PostgreSQL's error for using a wrapper without a
// handler, which every wrapper in fickle is.
func noHandlerError(f *fdwDesc) error {
	return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "foreign-data wrapper \"%s\" has no handler", f.name)
}

// cascadedObjects are the objects a cascadeNotice names, ok false for
// another notice.
func cascadedObjects(n *pgerror.Error) (objects []string, ok bool) {
	const prefix = "drop cascades to "
	if !strings.HasPrefix(n.Message, prefix) {
		return nil, false
	}
	if n.Detail == "" {
		return []string{strings.TrimPrefix(n.Message, prefix)}, true
	}
	for _, l := range strings.Split(n.Detail, "\n") {
		objects = append(objects, strings.TrimPrefix(l, prefix))
	}
	return objects, true
}
