package sqlexec

import (
	"fmt"
	"slices"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The catalogs pg_largeobject_metadata and pg_largeobject show the rows of
// the large objects' store tables (largeobject.go) as the statement's
// transaction reads them; pg_largeobject is readable by superusers only,
// as initdb leaves it.
func init() {
	textArray, _ := types.ArrayOf(types.Text)
	scan := func(x *execCtx, pages bool, row func(r []any) []any) ([][]any, error) {
		l, err := newLoCtx(x)
		if err != nil {
			return nil, err
		}
		table := l.meta
		if pages {
			table = l.pages
		}
		var out [][]any
		err = l.txn.Scan(x.ctx, table, isolation.Span{}, isolation.ReadOptions{AsOf: x.asOf}, func(_ []byte, r []any) (bool, error) {
			out = append(out, row(r))
			return true, nil
		})
		return out, err
	}
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_largeobject_metadata",
		cols: []vcol{{"oid", types.OidType}, {"lomowner", types.OidType}, {"lomacl", textArray}},
		read: func(x *execCtx) ([][]any, error) {
			return scan(x, false, func(r []any) []any {
				m := loMetaOf(r)
				var acl any
				if m.acl != nil {
					acl = formatACL(x.s, m.acl)
				}
				return []any{int64(m.oid), int64(m.owner), acl}
			})
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_largeobject",
		cols: []vcol{{"loid", types.OidType}, {"pageno", types.Int4}, {"data", types.Bytea}},
		read: func(x *execCtx) ([][]any, error) {
			return scan(x, true, func(r []any) []any { return []any{r[0], r[1], r[2]} })
		}})
}

// oidPgLargeobject is pg_largeobject's OID, the classoid of a large
// object's comment in pg_description.
const oidPgLargeobject = 2613

func init() {
	privilegeLetters[aclLargeObject] = map[string]byte{"SELECT": 'r', "UPDATE": 'w'}
	allPrivileges[aclLargeObject] = "rw"
	aclKindNoun[aclLargeObject] = "large object"
}

// largeObjectOID reads the OID a statement names a large object by (an
// integer, or a float node for one past int32's range).
func largeObjectOID(n *pg_query.Node) (uint32, error) {
	if i := n.GetInteger(); i != nil {
		return uint32(i.Ival), nil
	}
	s := n.GetFloat().GetFval()
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type oid: \"%s\"", s)
	}
	return uint32(v), nil
}

// loCtx is a large-object context for a DDL statement.
func (d *ddl) loCtx() (*loCtx, error) {
	x := d.x
	if x == nil {
		x = &execCtx{ctx: bgctx, s: d.s}
	}
	return newLoCtx(x)
}

// grantLargeObjects runs GRANT or REVOKE ON LARGE OBJECT as PostgreSQL's
// ExecGrant_Largeobject: the list lives in the object's metadata row.
func (d *ddl) grantLargeObjects(gs *pg_query.GrantStmt) error {
	letters, _, err := d.privilegeLetters(gs, aclLargeObject)
	if err != nil {
		return err
	}
	role := d.s.currentRole()
	if err := d.checkGrantor(gs); err != nil {
		return err
	}
	grantees, err := d.grantees(gs)
	if err != nil {
		return err
	}
	l, err := d.loCtx()
	if err != nil {
		return err
	}
	oids := make([]uint32, len(gs.Objects))
	for i, n := range gs.Objects {
		if oids[i], err = largeObjectOID(n); err != nil {
			return err
		}
		if _, err := l.existing(oids[i], isolation.ReadOptions{}); err != nil {
			return err
		}
	}
	for _, oid := range oids {
		err := l.updateMeta(oid, func(m loMeta) (loMeta, error) {
			acl := m.acl
			if acl == nil {
				acl = defaultACL(aclLargeObject, m.owner)
			}
			grantor, granted, err := d.loGrantable(gs, m, acl, role, letters)
			if err != nil {
				return m, err
			}
			acl = slices.Clone(acl)
			for _, g := range grantees {
				before := grantOptions(acl, g, grantor)
				acl = editACL(acl, g, grantor, granted, gs.IsGrant, gs.GrantOption)
				if lost := withoutLetters(before, grantOptions(acl, g, grantor)); !gs.IsGrant && g != 0 && lost != "" {
					if acl, err = d.revokeDependent(acl, g, lost, m.owner, gs.Behavior == pg_query.DropBehavior_DROP_CASCADE); err != nil {
						return m, err
					}
				}
			}
			m.acl = acl
			return m, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// loGrantable is grantableLetters for a large object: the grantor and the
// letters it may grant of those asked for, with PostgreSQL's warnings.
func (d *ddl) loGrantable(gs *pg_query.GrantStmt, m loMeta, acl []aclItem, role uint32, letters string) (uint32, string, error) {
	return d.restrictGrant(gs, m.owner, acl, role, letters, fmt.Sprintf("large object %d", m.oid),
		func() bool { return aclHolds(acl, d.s.memberOf(role), []byte("rw")) },
		func() error {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for large object %d", m.oid)
		})
}

// alterLargeObjectOwner runs ALTER LARGE OBJECT ... OWNER TO: its owner
// (or a superuser) that belongs to the new role gives it away, the
// object's list following the owner as aclnewowner makes it.
func (d *ddl) alterLargeObjectOwner(ao *pg_query.AlterOwnerStmt) error {
	oid, err := largeObjectOID(ao.Object)
	if err != nil {
		return err
	}
	name := d.s.roleSpecName(ao.Newowner.Roletype.String(), ao.Newowner.Rolename)
	r := d.s.roleNamed(name)
	if r == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", name)
	}
	l, err := d.loCtx()
	if err != nil {
		return err
	}
	return l.updateMeta(oid, func(m loMeta) (loMeta, error) {
		if m.owner == r.oid {
			return m, nil
		}
		if role := d.s.currentRole(); !d.s.isSuperuser(role) {
			if !d.s.memberOf(role)[m.owner] {
				return m, pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of large object %d", oid)
			}
			if !d.s.belongsTo(role, r.oid) {
				return m, pgerror.Newf(pgerror.InsufficientPrivilege, "must be member of role \"%s\"", r.name)
			}
		}
		if m.acl != nil {
			m.acl = aclNewOwner(m.acl, m.owner, r.oid)
		}
		m.owner = r.oid
		return m, nil
	})
}

// commentOnLargeObject runs COMMENT ON LARGE OBJECT, which its owner may.
func (d *ddl) commentOnLargeObject(cs *pg_query.CommentStmt) error {
	oid, err := largeObjectOID(cs.Object)
	if err != nil {
		return err
	}
	l, err := d.loCtx()
	if err != nil {
		return err
	}
	m, err := l.existing(oid, isolation.ReadOptions{})
	if err != nil {
		return err
	}
	if !l.owns(m) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of large object %d", oid)
	}
	d.cat.setComment(commentKey{classOID: oidPgLargeobject, objOID: oid}, cs.Comment)
	return nil
}

// dropLargeObjectComment removes the comment of large object oid, which
// lo_unlink drops, through the transaction's catalog.
func (s *Session) dropLargeObjectComment(x *execCtx, oid uint32) error {
	key := commentKey{classOID: oidPgLargeobject, objOID: oid}
	if c, _ := s.catalog(); c.comments[key] == "" {
		return nil
	}
	_, err := s.runDDL(x, func(d *ddl) error {
		d.cat.setComment(key, "")
		return nil
	})
	return err
}

// loDependent is a large object that keeps a role from being dropped.
type loDependent struct {
	oid  uint32
	what string
}

// largeObjectDependents are the current database's large objects that role
// owns or has privileges on, which DROP ROLE reports as PostgreSQL's
// shared dependencies do. Nothing is read when the database never used a
// large object.
func (s *Session) largeObjectDependents(role uint32) []loDependent {
	e := s.engine
	e.lo.mu.Lock()
	created := e.lo.created
	e.lo.mu.Unlock()
	if !created {
		return nil
	}
	var txn *isolation.Txn
	var err error
	if s.txn != nil {
		txn, err = s.kvTxn(bgctx)
	} else {
		// Role statements run outside the store's transactions.
		txn, err = s.kv.Begin(isolation.TxnOptions{Level: s.defaultLevel(), ReadOnly: true, Strategy: s.strategy()})
		if err == nil {
			defer func() { _ = txn.Rollback() }()
		}
	}
	if err != nil {
		return nil
	}
	var out []loDependent
	_ = txn.Scan(bgctx, e.lo.meta, isolation.Span{}, isolation.ReadOptions{}, func(_ []byte, r []any) (bool, error) {
		m := loMetaOf(r)
		name := fmt.Sprintf("large object %d", m.oid)
		switch {
		case m.owner == role:
			out = append(out, loDependent{m.oid, "owner of " + name})
		case slices.ContainsFunc(m.acl, func(item aclItem) bool { return item.grantee == role || item.grantor == role }):
			out = append(out, loDependent{m.oid, "privileges for " + name})
		}
		return true, nil
	})
	return out
}

// usedLargeObjects returns the large-object context of a DDL statement,
// nil when the database never used a large object.
func (d *ddl) usedLargeObjects() (*loCtx, error) {
	d.s.engine.lo.mu.Lock()
	created := d.s.engine.lo.created
	d.s.engine.lo.mu.Unlock()
	if !created {
		return nil, nil
	}
	return d.loCtx()
}

// eachLargeObject calls fn on the metadata of every large object the
// statement's transaction sees.
func (l *loCtx) eachLargeObject(fn func(m loMeta)) error {
	return l.txn.Scan(l.ctx, l.meta, isolation.Span{}, isolation.ReadOptions{}, func(_ []byte, r []any) (bool, error) {
		fn(loMetaOf(r))
		return true, nil
	})
}

// reassignLargeObjects gives the large objects role old owns to role to,
// for REASSIGN OWNED.
func (d *ddl) reassignLargeObjects(old, to uint32) error {
	l, err := d.usedLargeObjects()
	if l == nil || err != nil {
		return err
	}
	var oids []uint32
	if err := l.eachLargeObject(func(m loMeta) {
		if m.owner == old {
			oids = append(oids, m.oid)
		}
	}); err != nil {
		return err
	}
	for _, oid := range oids {
		err := l.updateMeta(oid, func(m loMeta) (loMeta, error) {
			if m.acl != nil {
				m.acl = aclNewOwner(m.acl, m.owner, to)
			}
			m.owner = to
			return m, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// dropOwnedLargeObjects is DROP OWNED's part for large objects: the roles'
// privileges on them are revoked (and what they granted with them), and
// those they own are unlinked.
func (d *ddl) dropOwnedLargeObjects(roles []*roleDesc) error {
	l, err := d.usedLargeObjects()
	if l == nil || err != nil {
		return err
	}
	ids := map[uint32]bool{}
	for _, r := range roles {
		ids[r.oid] = true
	}
	var owned, granted []uint32
	if err := l.eachLargeObject(func(m loMeta) {
		switch {
		case ids[m.owner]:
			owned = append(owned, m.oid)
		case slices.ContainsFunc(m.acl, func(item aclItem) bool { return ids[item.grantee] }):
			granted = append(granted, m.oid)
		}
	}); err != nil {
		return err
	}
	for _, oid := range granted {
		err := l.updateMeta(oid, func(m loMeta) (loMeta, error) {
			acl := slices.Clone(m.acl)
			for _, r := range roles {
				for _, item := range slices.Clone(acl) {
					if item.grantee != r.oid {
						continue
					}
					before := grantOptions(acl, r.oid, item.grantor)
					acl = editACL(acl, r.oid, item.grantor, allPrivileges[aclLargeObject], false, false)
					var err error
					if acl, err = d.revokeDependent(acl, r.oid, before, m.owner, true); err != nil {
						return m, err
					}
				}
			}
			m.acl = acl
			return m, nil
		})
		if err != nil {
			return err
		}
	}
	for _, oid := range owned {
		err := l.unlink(oid, func() error {
			d.cat.setComment(commentKey{classOID: oidPgLargeobject, objOID: oid}, "")
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
