package sqlexec

import (
	"github.com/fickle-db/fickle/sqlexec/types"
)

// pg_policy and the pg_policies view: the policies of every table
// (rls.go). polqual and polwithcheck hold the expressions' SQL text, which
// pg_get_expr decompiles, as pg_attrdef.adbin does.

// policyCommandNames are pg_policies.cmd's words for pg_policy.polcmd.
var policyCommandNames = map[byte]string{polAll: "ALL", polSelect: "SELECT", polInsert: "INSERT", polUpdate: "UPDATE", polDelete: "DELETE"}

// policyRoleOIDs is pg_policy.polroles: PUBLIC is the OID 0.
func policyRoleOIDs(p *policyDesc) []any {
	if len(p.roles) == 0 {
		return []any{int64(0)}
	}
	out := make([]any, len(p.roles))
	for i, r := range p.roles {
		out[i] = int64(r)
	}
	return out
}

// storedPolicyExpr is an expression as pg_policy stores it, nil for none.
func storedPolicyExpr(p *policyDesc, withCheck bool) any {
	n := p.using
	if withCheck {
		n = p.check
	}
	if n == nil {
		return nil
	}
	return deparseExpr(n)
}

func init() {
	name, oid, b, text := types.Name, types.OidType, types.Bool, types.Text
	oidArray, _ := types.ArrayOf(types.OidType)
	nameArray, _ := types.ArrayOf(types.Name)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_policy",
		cols: []vcol{{"oid", oid}, {"polname", name}, {"polrelid", oid}, {"polcmd", types.Char}, {"polpermissive", b},
			{"polroles", oidArray}, {"polqual", text}, {"polwithcheck", text}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, t := range sortedTables(c) {
				for _, p := range t.policies {
					out = append(out, []any{int64(p.oid), p.name, int64(t.oid), string(p.cmd), p.permissive,
						policyRoleOIDs(p), storedPolicyExpr(p, false), storedPolicyExpr(p, true)})
				}
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_policies",
		cols: []vcol{{"schemaname", name}, {"tablename", name}, {"policyname", name}, {"permissive", text},
			{"roles", nameArray}, {"cmd", text}, {"qual", text}, {"with_check", text}},
		rows: func(s *Session, c *catalog) [][]any {
			names := catalogNames{s: s}
			var out [][]any
			for _, t := range sortedTables(c) {
				for _, p := range t.policies {
					permissive := "RESTRICTIVE"
					if p.permissive {
						permissive = "PERMISSIVE"
					}
					var roles []any
					for _, r := range p.roles {
						n, _ := names.roleName(r)
						roles = append(roles, unquoteIdent(n))
					}
					if roles == nil {
						roles = []any{"public"}
					}
					row := []any{t.schema, t.name, p.name, permissive, roles, policyCommandNames[p.cmd], nil, nil}
					for i, withCheck := range []bool{false, true} {
						if e, ok := storedPolicyExpr(p, withCheck).(string); ok {
							row[6+i] = decompile(s, c, e, t.oid, false)
						}
					}
					out = append(out, row)
				}
			}
			return out
		}})
}
