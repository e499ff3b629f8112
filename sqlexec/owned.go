package sqlexec

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Ownership changes, and the statements over everything roles own in the
// current database: REASSIGN OWNED gives it to another role, DROP OWNED
// drops it and revokes what was granted to them, as PostgreSQL's
// shdepReassignOwned and shdepDropOwned do (CI scripts reset a test
// database so).

// aclNewOwner is PostgreSQL's aclnewowner: acl with the new owner in place
// of the old wherever the old one is grantor or grantee, the items that
// become duplicates merged.
func aclNewOwner(acl []aclItem, old, owner uint32) []aclItem {
	var out []aclItem
	for _, item := range acl {
		if item.grantor == old {
			item.grantor = owner
		}
		if item.grantee == old {
			item.grantee = owner
		}
		i := slices.IndexFunc(out, func(o aclItem) bool { return o.grantee == item.grantee && o.grantor == item.grantor })
		if i < 0 {
			out = append(out, item)
			continue
		}
		out[i].privs = unionPrivileges(out[i].privs, item.privs)
	}
	return out
}

// unionPrivileges is the privilege letters of a and b, each with the grant
// option when either has it, in PostgreSQL's order.
func unionPrivileges(a, b string) string {
	var sb strings.Builder
	for i := 0; i < len(aclLetters); i++ {
		l := aclLetters[i : i+1]
		ia, ib := strings.Index(a, l), strings.Index(b, l)
		if ia < 0 && ib < 0 {
			continue
		}
		sb.WriteString(l)
		if ia >= 0 && strings.HasPrefix(a[ia+1:], "*") || ib >= 0 && strings.HasPrefix(b[ib+1:], "*") {
			sb.WriteByte('*')
		}
	}
	return sb.String()
}

// transferACL rewrites an object's own access control list, if it has
// one, for its new owner, and those of a relation's columns.
func (d *ddl) transferACL(kind aclKind, oid, old, owner uint32) {
	for k, acl := range d.cat.acls {
		if k.oid == oid && (k.kind == kind || kind == aclTable && k.kind == aclColumn) {
			d.cat.acls[k] = aclNewOwner(acl, old, owner)
		}
	}
}

// giveRelation makes role the owner of the table, view, materialized view
// or sequence oid, as ATExecChangeOwner does once its checks passed: the
// grants follow the owner, and a table's sequences (serial and identity
// columns') go with it.
func (d *ddl) giveRelation(oid, role uint32) {
	if t := d.cat.tables[oid]; t != nil {
		d.transferACL(aclTable, oid, relationOwner(d.cat, aclTable, oid), role)
		nt := t.clone()
		nt.owner = role
		d.cat.putTable(nt)
		for _, sc := range sortedSchemas(d.cat) {
			for _, q := range sc.seqs {
				if q.ownedByTable(oid) {
					d.giveRelation(q.oid, role)
				}
			}
		}
		return
	}
	if v := viewByOid(d.cat, oid); v != nil {
		d.transferACL(aclTable, oid, v.ownerRole(), role)
		nv := *v
		nv.owner = role
		d.cat.schemas[v.schema].views[v.name] = &nv
		return
	}
	if schema, name, ok := relationByOid(d.cat, int64(oid)); ok {
		if q := d.cat.schemas[schema].seqs[name]; q != nil {
			d.transferACL(aclSequence, oid, relationOwner(d.cat, aclSequence, oid), role)
			nq := *q
			nq.role = role
			d.cat.schemas[schema].seqs[name] = &nq
		}
	}
}

// giveSchema makes role the owner of sc, its grants following.
func (d *ddl) giveSchema(sc *schemaDesc, role uint32) {
	d.transferACL(aclSchema, sc.oid, schemaOwner(sc), role)
	sc.owner = role
}

// giveRoutine makes r the owner of f, its grants following.
func (d *ddl) giveRoutine(f *funcDesc, r *roleDesc) {
	if old := d.s.routineOwner(f); old != 0 {
		d.transferACL(aclFunction, f.oid, old, r.oid)
	}
	nf := *f
	nf.owner = r.name
	d.replaceRoutine(f, &nf)
}

// ownedObject is an object a role owns: its OID, what kind of object it
// is, and how to name it in a DROP statement.
type ownedObject struct {
	oid     uint32
	kind    pg_query.ObjectType
	schema  string
	name    string
	routine *funcDesc
	typ     *typeDesc
	op      *operatorDesc
	// method is an operator class's or family's access method.
	method string
}

// ownedObjects lists the objects of c that role owns, in the order they
// were made: schemas, tables, materialized views, views, sequences, types
// and domains, routines (but an extension's), operators, extensions, publications, foreign-data
// wrappers, servers, event triggers and user mappings. It reads no role
// list, so DROP ROLE may call it holding the role catalog's lock.
func ownedObjects(c *catalog, role *roleDesc) []ownedObject {
	var out []ownedObject
	for _, sc := range sortedSchemas(c) {
		if schemaOwner(sc) == role.oid {
			out = append(out, ownedObject{oid: sc.oid, kind: pg_query.ObjectType_OBJECT_SCHEMA, name: sc.name})
		}
		for _, t := range sc.tables {
			if relationOwner(c, aclTable, t.oid) != role.oid {
				continue
			}
			kind := pg_query.ObjectType_OBJECT_TABLE
			if t.matview != nil {
				kind = pg_query.ObjectType_OBJECT_MATVIEW
			}
			if t.foreign != nil {
				kind = pg_query.ObjectType_OBJECT_FOREIGN_TABLE
			}
			out = append(out, ownedObject{oid: t.oid, kind: kind, schema: t.schema, name: t.name})
		}
		for _, v := range sc.views {
			if v.ownerRole() == role.oid {
				out = append(out, ownedObject{oid: v.oid, kind: pg_query.ObjectType_OBJECT_VIEW, schema: v.schema, name: v.name})
			}
		}
		for _, q := range sc.seqs {
			if relationOwner(c, aclSequence, q.oid) == role.oid {
				out = append(out, ownedObject{oid: q.oid, kind: pg_query.ObjectType_OBJECT_SEQUENCE, schema: q.schema, name: q.name})
			}
		}
		for _, t := range sc.types {
			if t.ownerRole() != role.oid || t.extension != 0 {
				continue
			}
			kind := pg_query.ObjectType_OBJECT_TYPE
			if t.domain != nil {
				kind = pg_query.ObjectType_OBJECT_DOMAIN
			}
			out = append(out, ownedObject{oid: t.oid, kind: kind, schema: t.schema, name: t.name, typ: t})
		}
		for _, overloads := range sc.funcs {
			for _, f := range overloads {
				if f.extension == 0 && f.owner == role.name {
					out = append(out, ownedObject{oid: f.oid, kind: pg_query.ObjectType_OBJECT_ROUTINE, schema: f.schema, name: f.name, routine: f})
				}
			}
		}
	}
	for _, op := range allOperators(c) {
		if op.user && op.owner == role.oid {
			out = append(out, ownedObject{oid: op.oid, kind: pg_query.ObjectType_OBJECT_OPERATOR, schema: op.schema, name: op.def.name, op: op})
		}
	}
	out = append(out, ownedOpclasses(c, role.oid)...)
	out = append(out, ownedTSObjects(c, role.oid)...)
	out = append(out, ownedStatsObjects(c, role.oid)...)
	out = append(out, collationsWhere(c, func(coll *collationDesc) bool { return coll.owner == role.oid })...)
	out = append(out, conversionsWhere(c, func(conv *conversionDesc) bool { return conv.owner == role.oid })...)
	for _, ext := range sortedExtensions(c) {
		if ext.owner == role.oid {
			out = append(out, ownedObject{oid: ext.oid, kind: pg_query.ObjectType_OBJECT_EXTENSION, name: ext.name})
		}
	}
	for _, p := range c.sortedPublications() {
		if p.owner == role.oid {
			out = append(out, ownedObject{oid: p.oid, kind: pg_query.ObjectType_OBJECT_PUBLICATION, name: p.name})
		}
	}
	for _, f := range c.sortedFDWs() {
		if f.owner == role.oid {
			out = append(out, ownedObject{oid: f.oid, kind: pg_query.ObjectType_OBJECT_FDW, name: f.name})
		}
	}
	for _, srv := range c.sortedServers() {
		if srv.owner == role.oid {
			out = append(out, ownedObject{oid: srv.oid, kind: pg_query.ObjectType_OBJECT_FOREIGN_SERVER, name: srv.name})
		}
	}
	for _, et := range c.sortedEventTriggers() {
		if et.owner == role.oid {
			out = append(out, ownedObject{oid: et.oid, kind: pg_query.ObjectType_OBJECT_EVENT_TRIGGER, name: et.name})
		}
	}
	for _, m := range c.sortedUserMappings() {
		if srv := c.serverByOID(m.server); m.user == role.oid && srv != nil {
			// A mapping's user is its owner, as PostgreSQL records it.
			out = append(out, ownedObject{oid: m.oid, kind: pg_query.ObjectType_OBJECT_USER_MAPPING, name: "for " + role.name + " on server " + srv.name})
		}
	}
	slices.SortFunc(out, func(a, b ownedObject) int { return cmp.Compare(a.oid, b.oid) })
	return out
}

// description is o as PostgreSQL's object descriptions give it ("table
// t", "function f(integer)"), qualified unless its schema is on s's search
// path.
func (o ownedObject) description(s *Session) string {
	name := o.name
	if o.routine != nil {
		name = o.routine.objectSignature()
	}
	if o.schema != "" {
		name = s.visibleName(o.schema, name)
	}
	if o.op != nil {
		name += o.op.argList()
	}
	if o.method != "" {
		name += " for access method " + o.method
	}
	noun := map[pg_query.ObjectType]string{pg_query.ObjectType_OBJECT_SCHEMA: "schema", pg_query.ObjectType_OBJECT_TABLE: "table",
		pg_query.ObjectType_OBJECT_MATVIEW: "materialized view", pg_query.ObjectType_OBJECT_VIEW: "view",
		pg_query.ObjectType_OBJECT_SEQUENCE: "sequence", pg_query.ObjectType_OBJECT_TYPE: "type", pg_query.ObjectType_OBJECT_DOMAIN: "type",
		pg_query.ObjectType_OBJECT_ROUTINE: "function", pg_query.ObjectType_OBJECT_EXTENSION: "extension",
		pg_query.ObjectType_OBJECT_OPERATOR: "operator", pg_query.ObjectType_OBJECT_PUBLICATION: "publication",
		pg_query.ObjectType_OBJECT_OPCLASS: "operator class", pg_query.ObjectType_OBJECT_OPFAMILY: "operator family",
		pg_query.ObjectType_OBJECT_FDW: "foreign-data wrapper", pg_query.ObjectType_OBJECT_FOREIGN_SERVER: "server",
		pg_query.ObjectType_OBJECT_USER_MAPPING: "user mapping", pg_query.ObjectType_OBJECT_FOREIGN_TABLE: "foreign table",
		pg_query.ObjectType_OBJECT_EVENT_TRIGGER:   "event trigger",
		pg_query.ObjectType_OBJECT_TSCONFIGURATION: "text search configuration",
		pg_query.ObjectType_OBJECT_TSDICTIONARY:    "text search dictionary",
		pg_query.ObjectType_OBJECT_STATISTIC_EXT:   "statistics object",
		pg_query.ObjectType_OBJECT_COLLATION:       "collation",
		pg_query.ObjectType_OBJECT_CONVERSION:      "conversion"}[o.kind]
	return noun + " " + name
}

// ownedBy lists what DROP OWNED and REASSIGN OWNED act on for role: the
// objects it owns, but for the sequences of a table it owns (serial and
// identity columns'), which go with the table.
func (d *ddl) ownedBy(role *roleDesc) []ownedObject {
	return slices.DeleteFunc(ownedObjects(d.cat, role), func(o ownedObject) bool {
		if o.kind != pg_query.ObjectType_OBJECT_SEQUENCE {
			return false
		}
		table, _ := d.cat.schemas[o.schema].seqs[o.name].owner()
		return table != 0 && relationOwner(d.cat, aclTable, table) == role.oid
	})
}

// ownedStatementRoles resolves the roles REASSIGN OWNED or DROP OWNED
// names, which the role running it must hold the privileges of (what
// names the statement's action in the error), refusing the bootstrap
// superuser, whose objects the system needs.
func (d *ddl) ownedStatementRoles(specs []*pg_query.Node, what string) ([]*roleDesc, error) {
	current := d.s.currentRole()
	var out []*roleDesc
	for _, n := range specs {
		r, err := d.ownedStatementRole(n.GetRoleSpec(), current, what)
		if err != nil {
			return nil, err
		}
		if r.oid == oidBootstrapSuperuser {
			verb := map[string]string{"reassign": "reassign ownership of", "drop": "drop"}[what]
			return nil, pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot %s objects owned by role %s because they are required by the database system", verb, r.name)
		}
		out = append(out, r)
	}
	return out, nil
}

// ownedStatementRole resolves one role of REASSIGN OWNED or DROP OWNED.
func (d *ddl) ownedStatementRole(spec *pg_query.RoleSpec, current uint32, what string) (*roleDesc, error) {
	name := d.s.roleSpecName(spec.Roletype.String(), spec.Rolename)
	r := d.s.roleNamed(name)
	if r == nil {
		return nil, pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", name)
	}
	if !d.s.isSuperuser(current) && !d.s.memberOf(current)[r.oid] {
		return nil, pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to %s objects", what)
	}
	return r, nil
}

// reassignOwned runs REASSIGN OWNED BY role, ... TO role: everything the
// roles own in the current database, and the databases they own, goes to
// the new role, grants
// following, as ALTER ... OWNER TO would without its checks. Default
// privileges stay, as in PostgreSQL.
func (d *ddl) reassignOwned(rs *pg_query.ReassignOwnedStmt) error {
	olds, err := d.ownedStatementRoles(rs.Roles, "reassign")
	if err != nil {
		return err
	}
	to, err := d.ownedStatementRole(rs.Newrole, d.s.currentRole(), "reassign")
	if err != nil {
		return err
	}
	for _, old := range olds {
		if old.oid == to.oid {
			continue
		}
		for _, o := range d.ownedBy(old) {
			switch o.kind {
			case pg_query.ObjectType_OBJECT_SCHEMA:
				d.giveSchema(d.cat.schemas[o.name], to.oid)
			case pg_query.ObjectType_OBJECT_TYPE, pg_query.ObjectType_OBJECT_DOMAIN:
				d.transferACL(aclType, o.typ.oid, o.typ.ownerRole(), to.oid)
				nt := *o.typ
				nt.owner = to.oid
				d.cat.schemas[o.schema].types[o.name] = &nt
			case pg_query.ObjectType_OBJECT_ROUTINE:
				d.giveRoutine(o.routine, to)
			case pg_query.ObjectType_OBJECT_OPERATOR:
				if cur := d.cat.operators[o.oid]; cur != nil {
					next := *cur
					next.owner = to.oid
					d.cat.putOperator(&next)
				}
			case pg_query.ObjectType_OBJECT_OPCLASS, pg_query.ObjectType_OBJECT_OPFAMILY:
				d.giveOpclass(o.oid, to.oid)
			case pg_query.ObjectType_OBJECT_EXTENSION:
				ext := *d.cat.extensions[o.name]
				ext.owner = to.oid
				d.cat.extensions[o.name] = &ext
			case pg_query.ObjectType_OBJECT_PUBLICATION:
				p := d.cat.publications[o.name].with()
				p.owner = to.oid
				d.cat.publications[o.name] = p
			case pg_query.ObjectType_OBJECT_FDW:
				if err := d.giveFDW(d.cat.fdws[o.name], to.oid); err != nil {
					return err
				}
			case pg_query.ObjectType_OBJECT_FOREIGN_SERVER:
				d.giveServer(d.cat.servers[o.name], to.oid)
			case pg_query.ObjectType_OBJECT_EVENT_TRIGGER:
				if err := d.giveEventTrigger(d.cat.eventTriggers[o.name], to.oid); err != nil {
					return err
				}
			case pg_query.ObjectType_OBJECT_USER_MAPPING:
				// PostgreSQL's REASSIGN OWNED leaves user mappings alone.
			case pg_query.ObjectType_OBJECT_TSCONFIGURATION, pg_query.ObjectType_OBJECT_TSDICTIONARY:
				d.giveTSObject(o.oid, to.oid)
			case pg_query.ObjectType_OBJECT_STATISTIC_EXT:
				d.giveStatsObject(o.oid, to.oid)
			case pg_query.ObjectType_OBJECT_COLLATION:
				d.giveCollation(o.oid, to.oid)
			case pg_query.ObjectType_OBJECT_CONVERSION:
				d.giveConversion(o.oid, to.oid)
			default:
				d.giveRelation(o.oid, to.oid)
			}
		}
		if err := d.reassignLargeObjects(old.oid, to.oid); err != nil {
			return err
		}
		for _, e := range d.s.engine.cluster.databases() {
			if e.owner() == old.oid {
				d.giveDatabase(e, to.oid)
			}
		}
	}
	return nil
}

// dropOwned runs DROP OWNED BY role, ... [CASCADE | RESTRICT]: the
// privileges granted to the roles on objects of the current database and
// on databases are revoked (and what they granted on with them), the default privileges
// they set or are named in go, and the objects they own are dropped,
// newest first, each as its DROP statement with the behavior given would
// (so RESTRICT fails on an object of another role that depends on one).
func (d *ddl) dropOwned(do *pg_query.DropOwnedStmt) error {
	roles, err := d.ownedStatementRoles(do.Roles, "drop")
	if err != nil {
		return err
	}
	cascade := do.Behavior == pg_query.DropBehavior_DROP_CASCADE
	for _, r := range roles {
		for _, k := range slices.SortedFunc(maps.Keys(d.cat.acls), compareACLKeys) {
			acl := d.cat.acls[k]
			if !slices.ContainsFunc(acl, func(item aclItem) bool { return item.grantee == r.oid }) {
				continue
			}
			if acl, err = d.revokeAllFrom(acl, r.oid, k.kind, d.s.objectOwner(d.cat, k.kind, k.oid)); err != nil {
				return err
			}
			if len(acl) == 0 && k.kind == aclColumn {
				delete(d.cat.acls, k) // a column's emptied list is NULL, as in PostgreSQL
				continue
			}
			d.cat.acls[k] = acl
		}
		for _, e := range d.s.engine.cluster.databases() {
			if acl, ok := e.databaseACL(); ok && slices.ContainsFunc(acl, func(item aclItem) bool { return item.grantee == r.oid }) {
				if acl, err = d.revokeAllFrom(acl, r.oid, aclDatabase, e.owner()); err != nil {
					return err
				}
				d.setDatabaseACL(e, acl)
			}
		}
		for _, key := range sortedDefaultACLKeys(d.cat) {
			e := d.cat.defaultACLs[key]
			switch {
			case key.role == r.oid:
				delete(d.cat.defaultACLs, key)
			case slices.ContainsFunc(e.acl, func(item aclItem) bool { return item.grantee == r.oid }):
				revoke := &pg_query.GrantStmt{}
				d.editDefaultACL(key, revoke, []uint32{r.oid}, allPrivileges[key.kind])
			}
		}
	}
	for _, r := range roles {
		d.removePolicyTarget(r.oid)
	}
	if err := d.dropOwnedLargeObjects(roles); err != nil {
		return err
	}
	var owned []ownedObject
	for _, r := range roles {
		owned = append(owned, d.ownedBy(r)...)
	}
	slices.SortFunc(owned, func(a, b ownedObject) int { return cmp.Compare(b.oid, a.oid) })
	for _, o := range owned {
		if err := d.dropOwnedObject(o, cascade); err != nil {
			if pe, ok := err.(*pgerror.Error); ok && pe.Code == pgerror.DependentObjectsStillExist && !cascade {
				return pgerror.New(pgerror.DependentObjectsStillExist, "cannot drop desired object(s) because other objects depend on them").
					WithDetail("%s", pe.Detail).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
			return err
		}
	}
	return nil
}

// revokeAllFrom is acl, of an object of kind that owner owns, without
// what was granted to role, and what role granted on with it.
func (d *ddl) revokeAllFrom(acl []aclItem, role uint32, kind aclKind, owner uint32) ([]aclItem, error) {
	acl = slices.Clone(acl)
	for _, item := range slices.Clone(acl) {
		if item.grantee != role {
			continue
		}
		before := grantOptions(acl, role, item.grantor)
		acl = editACL(acl, role, item.grantor, allPrivileges[kind], false, false)
		var err error
		if acl, err = d.revokeDependent(acl, role, before, owner, true); err != nil {
			return nil, err
		}
	}
	return acl, nil
}

// dropOwnedObject drops o, unless an earlier drop of DROP OWNED took it
// already, as its DROP statement would.
func (d *ddl) dropOwnedObject(o ownedObject, cascade bool) error {
	behavior := pg_query.DropBehavior_DROP_RESTRICT
	if cascade {
		behavior = pg_query.DropBehavior_DROP_CASCADE
	}
	switch o.kind {
	case pg_query.ObjectType_OBJECT_ROUTINE:
		f := d.cat.funcByOID(o.oid)
		if f == nil {
			return nil
		}
		return d.dropRoutines([]*funcDesc{f}, cascade)
	case pg_query.ObjectType_OBJECT_OPERATOR:
		if cur := d.cat.operators[o.oid]; cur != nil {
			return d.dropOperator(cur, cascade)
		}
		return nil
	case pg_query.ObjectType_OBJECT_OPCLASS:
		if cur := d.cat.opclasses[o.oid]; cur != nil {
			return d.dropOpclass(d.s.opclassDescription(cur), []*userOpclass{cur}, cascade)
		}
		return nil
	case pg_query.ObjectType_OBJECT_OPFAMILY:
		if cur := d.cat.opfamilies[o.oid]; cur != nil {
			return d.dropOpfamily(cur, cascade)
		}
		return nil
	case pg_query.ObjectType_OBJECT_USER_MAPPING:
		delete(d.cat.userMappings, o.oid)
		return nil
	case pg_query.ObjectType_OBJECT_TSCONFIGURATION, pg_query.ObjectType_OBJECT_TSDICTIONARY:
		return d.dropOwnedTSObject(o, behavior)
	case pg_query.ObjectType_OBJECT_STATISTIC_EXT:
		d.dropStatsObject(o.oid)
		return nil
	case pg_query.ObjectType_OBJECT_COLLATION:
		d.dropCollation(o.oid)
		return nil
	case pg_query.ObjectType_OBJECT_CONVERSION:
		d.dropConversion(o.oid)
		return nil
	case pg_query.ObjectType_OBJECT_SCHEMA, pg_query.ObjectType_OBJECT_EXTENSION, pg_query.ObjectType_OBJECT_PUBLICATION,
		pg_query.ObjectType_OBJECT_FDW, pg_query.ObjectType_OBJECT_FOREIGN_SERVER, pg_query.ObjectType_OBJECT_EVENT_TRIGGER:
		if o.kind == pg_query.ObjectType_OBJECT_SCHEMA && d.cat.schemas[o.name] == nil ||
			o.kind == pg_query.ObjectType_OBJECT_EVENT_TRIGGER && d.cat.eventTriggers[o.name] == nil ||
			o.kind == pg_query.ObjectType_OBJECT_EXTENSION && d.cat.extensions[o.name] == nil ||
			o.kind == pg_query.ObjectType_OBJECT_PUBLICATION && d.cat.publications[o.name] == nil ||
			o.kind == pg_query.ObjectType_OBJECT_FDW && d.cat.fdws[o.name] == nil ||
			o.kind == pg_query.ObjectType_OBJECT_FOREIGN_SERVER && d.cat.servers[o.name] == nil {
			return nil
		}
		return d.drop(&pg_query.DropStmt{RemoveType: o.kind, Behavior: behavior, Objects: []*pg_query.Node{pg_query.MakeStrNode(o.name)}})
	case pg_query.ObjectType_OBJECT_TYPE, pg_query.ObjectType_OBJECT_DOMAIN:
		if sc := d.cat.schemas[o.schema]; sc == nil || sc.types[o.name] == nil || sc.types[o.name].oid != o.oid {
			return nil
		}
		tn := &pg_query.TypeName{Names: []*pg_query.Node{pg_query.MakeStrNode(o.schema), pg_query.MakeStrNode(o.name)}}
		return d.drop(&pg_query.DropStmt{RemoveType: o.kind, Behavior: behavior, Objects: []*pg_query.Node{{Node: &pg_query.Node_TypeName{TypeName: tn}}}})
	}
	if schema, name, ok := relationByOid(d.cat, int64(o.oid)); !ok || schema != o.schema || name != o.name {
		return nil
	}
	name := pg_query.MakeListNode([]*pg_query.Node{pg_query.MakeStrNode(o.schema), pg_query.MakeStrNode(o.name)})
	return d.drop(&pg_query.DropStmt{RemoveType: o.kind, Behavior: behavior, Objects: []*pg_query.Node{name}})
}

// compareACLKeys orders access control lists by object, for a statement
// that edits several in turn.
func compareACLKeys(a, b aclKey) int {
	return cmp.Or(cmp.Compare(a.oid, b.oid), cmp.Compare(a.kind, b.kind), cmp.Compare(a.attnum, b.attnum))
}

// removePolicyTarget takes role out of the roles of every policy that
// applies to it, as DROP OWNED does (RemoveRoleFromObjectPolicy): a policy
// left with none is dropped.
func (d *ddl) removePolicyTarget(role uint32) {
	for _, t := range sortedTables(d.cat) {
		if !slices.ContainsFunc(t.policies, func(p *policyDesc) bool { return slices.Contains(p.roles, role) }) {
			continue
		}
		var kept []*policyDesc
		for _, p := range t.policies {
			if !slices.Contains(p.roles, role) {
				kept = append(kept, p)
				continue
			}
			if roles := slices.DeleteFunc(slices.Clone(p.roles), func(r uint32) bool { return r == role }); len(roles) > 0 {
				np := *p
				np.roles = roles
				kept = append(kept, &np)
			}
		}
		d.setPolicies(t, kept)
	}
}
