package sqlexec

import (
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// CREATE, ALTER and DROP POLICY, and ALTER TABLE ... ROW LEVEL SECURITY
// (rls.go).

// policyCommand maps CREATE POLICY's FOR clause to pg_policy.polcmd.
var policyCommand = map[string]byte{"all": polAll, "select": polSelect, "insert": polInsert, "update": polUpdate, "delete": polDelete}

// policyTable resolves the table of a policy statement and checks that the
// current role owns it.
func (d *ddl) policyTable(rv *pg_query.RangeVar) (*tableDesc, error) {
	t := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname)
	if t != nil && (t.matview != nil || t.foreign != nil) {
		return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a table", rv.Relname)
	}
	if t == nil {
		if d.s.lookupView(d.cat, rv.Schemaname, rv.Relname) != nil {
			return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a table", rv.Relname)
		}
		return nil, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
	}
	if role := d.s.currentRole(); !d.s.isSuperuser(role) && !d.s.memberOf(role)[relationOwner(d.cat, aclTable, t.oid)] {
		return nil, pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of table %s", t.name)
	}
	return t, d.lockTable(t, isolation.TableLockAccessExclusive)
}

// policyRoles resolves a policy's TO list; PUBLIC is 0.
func (d *ddl) policyRoles(specs []*pg_query.Node) ([]uint32, error) {
	out, err := d.roleOIDs(specs)
	if err != nil {
		return nil, err
	}
	if slices.Contains(out, 0) {
		if len(out) > 1 {
			w := pgerror.New(pgerror.Warning, "ignoring specified roles other than PUBLIC").WithHint("All roles are members of the PUBLIC role.")
			w.Severity = "WARNING"
			d.notices = append(d.notices, w)
		}
		return nil, nil
	}
	return out, nil
}

// checkPolicyExpr compiles a policy expression once against t's columns,
// for its errors: unknown columns, a type other than boolean, aggregates.
func (d *ddl) checkPolicyExpr(t *tableDesc, n *pg_query.Node, full string) error {
	if n == nil {
		return nil
	}
	b := d.binder(full)
	sc := tableScope(t, t.name)
	sc.noAgg = "POLICY"
	_, err := b.cond(sc, n, "POLICY")
	return err
}

func (d *ddl) createPolicy(cp *pg_query.CreatePolicyStmt, full string) error {
	t, err := d.policyTable(cp.Table)
	if err != nil {
		return err
	}
	if t.policy(cp.PolicyName) != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "policy \"%s\" for table \"%s\" already exists", cp.PolicyName, t.name)
	}
	cmd := policyCommand[cp.CmdName]
	switch {
	case cp.WithCheck != nil && (cmd == polSelect || cmd == polDelete):
		return pgerror.New(pgerror.SyntaxError, "WITH CHECK cannot be applied to SELECT or DELETE")
	case cp.Qual != nil && cmd == polInsert:
		return pgerror.New(pgerror.SyntaxError, "only WITH CHECK expression allowed for INSERT")
	}
	roles, err := d.policyRoles(cp.Roles)
	if err != nil {
		return err
	}
	for _, n := range []*pg_query.Node{cp.Qual, cp.WithCheck} {
		if err := d.checkPolicyExpr(t, n, full); err != nil {
			return err
		}
	}
	p := &policyDesc{name: cp.PolicyName, oid: d.cat.newOID(), cmd: cmd, permissive: cp.Permissive, roles: roles,
		using: d.s.qualifiedCalls(d.cat, cp.Qual), check: d.s.qualifiedCalls(d.cat, cp.WithCheck)}
	p.deps = d.policyRelations(p)
	d.setPolicies(t, append(slices.Clone(t.policies), p))
	return nil
}

func (d *ddl) alterPolicy(ap *pg_query.AlterPolicyStmt, full string) error {
	t, err := d.policyTable(ap.Table)
	if err != nil {
		return err
	}
	old := t.policy(ap.PolicyName)
	if old == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "policy \"%s\" for table \"%s\" does not exist", ap.PolicyName, t.name)
	}
	p := *old
	switch {
	case ap.WithCheck != nil && (p.cmd == polSelect || p.cmd == polDelete):
		return pgerror.New(pgerror.SyntaxError, "only USING expression allowed for SELECT, DELETE")
	case ap.Qual != nil && p.cmd == polInsert:
		return pgerror.New(pgerror.SyntaxError, "only WITH CHECK expression allowed for INSERT")
	}
	if ap.Roles != nil {
		if p.roles, err = d.policyRoles(ap.Roles); err != nil {
			return err
		}
	}
	for _, n := range []*pg_query.Node{ap.Qual, ap.WithCheck} {
		if err := d.checkPolicyExpr(t, n, full); err != nil {
			return err
		}
	}
	if ap.Qual != nil {
		p.using = d.s.qualifiedCalls(d.cat, ap.Qual)
	}
	if ap.WithCheck != nil {
		p.check = d.s.qualifiedCalls(d.cat, ap.WithCheck)
	}
	p.deps = d.policyRelations(&p)
	d.replacePolicy(t, old, &p)
	return nil
}

// renamePolicy runs ALTER POLICY name ON table RENAME TO new.
func (d *ddl) renamePolicy(rs *pg_query.RenameStmt) error {
	t, err := d.policyTable(rs.Relation)
	if err != nil {
		return err
	}
	old := t.policy(rs.Subname)
	if old == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "policy \"%s\" for table \"%s\" does not exist", rs.Subname, t.name)
	}
	if t.policy(rs.Newname) != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "policy \"%s\" for table \"%s\" already exists", rs.Newname, t.name)
	}
	p := *old
	p.name = rs.Newname
	d.replacePolicy(t, old, &p)
	return nil
}

func (d *ddl) dropPolicy(ds *pg_query.DropStmt) error {
	for _, o := range ds.Objects {
		parts := strs(o.GetList().GetItems())
		name, rel := parts[len(parts)-1], parts[:len(parts)-1]
		rv := &pg_query.RangeVar{Relname: rel[len(rel)-1]}
		if len(rel) > 1 {
			rv.Schemaname = rel[0]
		}
		if d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname) == nil && ds.MissingOk {
			d.notice(pgerror.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", strings.Join(rel, "."))
			continue
		}
		t, err := d.policyTable(rv)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(t.policies, func(p *policyDesc) bool { return p.name == name })
		if i < 0 {
			if ds.MissingOk {
				d.notice(pgerror.SuccessfulCompletion, "policy \"%s\" for relation \"%s\" does not exist, skipping", name, t.name)
				continue
			}
			return pgerror.Newf(pgerror.UndefinedObject, "policy \"%s\" for table \"%s\" does not exist", name, t.name)
		}
		d.setPolicies(t, slices.Delete(slices.Clone(t.policies), i, i+1))
	}
	return nil
}

func (d *ddl) replacePolicy(t *tableDesc, old, p *policyDesc) {
	ps := slices.Clone(t.policies)
	ps[slices.Index(ps, old)] = p
	d.setPolicies(t, ps)
}

// setPolicies publishes t with policies, kept in name order as pg_policy's
// index returns them.
func (d *ddl) setPolicies(t *tableDesc, policies []*policyDesc) {
	slices.SortFunc(policies, func(a, b *policyDesc) int { return strings.Compare(a.name, b.name) })
	nt := t.clone()
	nt.policies = policies
	d.cat.putTable(nt)
}

// isRowSecurityToggle reports whether an ALTER TABLE command is one of
// ENABLE, DISABLE, FORCE and NO FORCE ROW LEVEL SECURITY, which act on the
// named table alone.
func isRowSecurityToggle(st pg_query.AlterTableType) bool {
	switch st {
	case pg_query.AlterTableType_AT_EnableRowSecurity, pg_query.AlterTableType_AT_DisableRowSecurity,
		pg_query.AlterTableType_AT_ForceRowSecurity, pg_query.AlterTableType_AT_NoForceRowSecurity:
		return true
	}
	return false
}

// toggleRowSecurity applies one isRowSecurityToggle command to t.
func toggleRowSecurity(t *tableDesc, st pg_query.AlterTableType) {
	switch st {
	case pg_query.AlterTableType_AT_EnableRowSecurity:
		t.rowSecurity = true
	case pg_query.AlterTableType_AT_DisableRowSecurity:
		t.rowSecurity = false
	case pg_query.AlterTableType_AT_ForceRowSecurity:
		t.forceRowSecurity = true
	case pg_query.AlterTableType_AT_NoForceRowSecurity:
		t.forceRowSecurity = false
	}
}

// policyRelations are the OIDs of the tables and views p's expressions
// read, found on the search path now (names of the expressions' own WITH
// queries aside), as PostgreSQL records them in pg_depend.
func (d *ddl) policyRelations(p *policyDesc) []uint32 {
	var deps []uint32
	for _, n := range []*pg_query.Node{p.using, p.check} {
		ctes := map[string]bool{}
		walk(n, func(n *pg_query.Node) bool {
			if cte := n.GetCommonTableExpr(); cte != nil {
				ctes[cte.Ctename] = true
			}
			return true
		})
		walk(n, func(n *pg_query.Node) bool {
			rv := n.GetRangeVar()
			if rv == nil || rv.Schemaname == "" && ctes[rv.Relname] {
				return true
			}
			var oid uint32
			if t := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname); t != nil {
				oid = t.oid
			} else if v := d.s.lookupView(d.cat, rv.Schemaname, rv.Relname); v != nil {
				oid = v.oid
			}
			if oid != 0 && !slices.Contains(deps, oid) {
				deps = append(deps, oid)
			}
			return true
		})
	}
	return deps
}

// dropDependentPolicies handles the policies of other tables that read the
// tables about to be dropped (dropping holds their OIDs): without cascade
// the first blocks the drop (2BP01); with it they are dropped, and their
// names returned for the cascade notice.
func (d *ddl) dropDependentPolicies(dropping map[uint32]bool, cascade bool) ([]string, error) {
	var dropped []string
	for _, t := range sortedTables(d.cat) {
		if dropping[t.oid] {
			continue
		}
		kept := t.policies[:0:0]
		for _, p := range t.policies {
			i := slices.IndexFunc(p.deps, func(o uint32) bool { return dropping[o] })
			if i < 0 {
				kept = append(kept, p)
				continue
			}
			if !cascade {
				_, depName, _ := relationByOid(d.cat, int64(p.deps[i]))
				return nil, pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop table %s because other objects depend on it", depName).
					WithDetail("policy %s on table %s depends on table %s", p.name, t.name, depName).
					WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
			dropped = append(dropped, fmt.Sprintf("policy %s on table %s", p.name, t.name))
		}
		if len(kept) < len(t.policies) {
			if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
				return nil, err
			}
			d.setPolicies(d.cat.tables[t.oid], kept)
		}
	}
	return dropped, nil
}
