package sqlexec

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Dependencies on user routines, as PostgreSQL's pg_depend records them:
// a trigger or event trigger depends on its function, an aggregate on its support
// functions, and a stored expression (a column
// default, a CHECK constraint, a view's query, a trigger's WHEN, a
// BEGIN ATOMIC body) on the routines it calls; a partitioned table as a
// whole on the routines its partition key calls. DROP FUNCTION refuses
// (2BP01) while such objects exist, or drops them too under CASCADE.
// fickle keeps stored expressions as parse trees, so a call is matched to
// a routine by name, schema and argument count, which names the same
// routine as PostgreSQL's binding unless overloads differ only in their
// argument types (then both count as used).

// routineDependent is an object that depends on a routine.
type routineDependent struct {
	// what is the object as PostgreSQL's DETAIL and NOTICE name it.
	what string
	// drop removes the object (or the expression) from the DDL's catalog;
	// nil for an object CASCADE cannot drop in fickle (a generated column),
	// which refuses it.
	drop func(d *ddl)
	// byName says the object calls the routine by its name (a stored
	// expression), not by its OID (a trigger's function).
	byName bool
}

// routineDependents lists the objects that depend on f, ignoring the
// routines in dropping.
func (d *ddl) routineDependents(f *funcDesc, dropping map[*funcDesc]bool) []routineDependent {
	var out []routineDependent
	calls := func(n *pg_query.Node) bool { return d.callsRoutine(n, f) }
	for _, t := range sortedTables(d.cat) {
		if t.part != nil && slices.ContainsFunc(t.part.exprs, calls) {
			out = append(out, routineDependent{what: "table " + t.name, byName: true, drop: func(d *ddl) {
				_ = d.dropTables([]*tableDesc{d.cat.tables[t.oid]}, true)
			}})
			continue
		}
		for _, tr := range t.triggers {
			if tr.parent != 0 {
				continue // a clone, which goes with the trigger it clones
			}
			if tr.fn == f.oid || calls(tr.when) {
				out = append(out, routineDependent{what: fmt.Sprintf("trigger %s on table %s", tr.name, t.name), byName: tr.fn != f.oid,
					drop: func(d *ddl) {
						if cur := d.cat.tables[t.oid]; cur != nil {
							d.dropTriggerClones(cur, tr.oid)
						}
						d.editTable(t.oid, func(nt *tableDesc) { nt.triggers = removeTrigger(nt.triggers, tr.name) })
					}})
			}
		}
		for i, col := range t.cols {
			if calls(col.generated) {
				out = append(out, routineDependent{what: fmt.Sprintf("column %s of table %s", col.name, t.name), byName: true})
			}
			if calls(col.def) {
				out = append(out, routineDependent{what: fmt.Sprintf("default value for column %s of table %s", col.name, t.name), byName: true,
					drop: func(d *ddl) {
						d.editTable(t.oid, func(nt *tableDesc) { c := *nt.cols[i]; c.def = nil; nt.cols[i] = &c })
					}})
			}
		}
		for _, ck := range t.checks {
			if calls(ck.expr) {
				out = append(out, routineDependent{what: fmt.Sprintf("constraint %s on table %s", ck.name, t.name), byName: true,
					drop: func(d *ddl) {
						d.editTable(t.oid, func(nt *tableDesc) {
							nt.checks = slices.DeleteFunc(slices.Clone(nt.checks), func(c *checkDesc) bool { return c.name == ck.name })
						})
					}})
			}
		}
	}
	for _, v := range sortedViews(d.cat) {
		for _, tr := range v.triggers {
			if tr.fn == f.oid {
				out = append(out, routineDependent{what: fmt.Sprintf("trigger %s on view %s", tr.name, v.name), drop: func(d *ddl) {
					if cur := d.cat.schemas[v.schema].views[v.name]; cur != nil {
						d.setTriggers(viewTable(cur), cur, removeTrigger(cur.triggers, tr.name))
					}
				}})
			}
		}
		if calls(v.query) {
			out = append(out, routineDependent{what: "view " + v.name, byName: true, drop: func(d *ddl) {
				// Views reading the view go with it, as under DROP VIEW ... CASCADE.
				_ = d.dropDependentViews("view", []uint32{v.oid}, true, func() { d.dropView(v) })
			}})
		}
	}
	for _, et := range d.cat.eventTriggersOf(f.oid) {
		out = append(out, routineDependent{what: "event trigger " + et.name, drop: func(d *ddl) {
			if cur := d.cat.eventTriggers[et.name]; cur != nil {
				d.removeEventTrigger(cur)
			}
		}})
	}
	for _, sc := range sortedSchemas(d.cat) {
		for _, name := range slices.Sorted(maps.Keys(sc.funcs)) {
			for _, g := range sc.funcs[name] {
				body := slices.ContainsFunc(g.sqlBody, calls)
				if g == f || dropping[g] || !body && !g.agg.usesSupport(f.oid) {
					continue
				}
				out = append(out, routineDependent{what: g.kindName() + " " + g.objectSignature(), byName: body, drop: func(d *ddl) {
					dropping[g] = true
					_ = d.checkRoutineDependents(g, dropping, true)
					d.removeRoutine(g)
				}})
			}
		}
	}
	out = append(out, d.memberOwnerDependents(true, f.oid)...)
	return append(out, d.operatorDependents(f)...)
}

// callsRoutine reports whether expression n calls f: a call of f's name,
// qualified with its schema or unqualified with f's schema on the search
// path (and not behind pg_catalog's function of the name without
// parameters), whose argument count f accepts.
func (d *ddl) callsRoutine(n *pg_query.Node, f *funcDesc) bool {
	found := false
	walk(n, func(m *pg_query.Node) bool {
		fc := m.GetFuncCall()
		if found || fc == nil {
			return !found
		}
		names := strs(fc.Funcname)
		if names[len(names)-1] != f.name {
			return true
		}
		if len(names) > 1 && names[len(names)-2] != f.schema || len(names) == 1 && !slices.Contains(d.s.searchPath(), f.schema) {
			return true
		}
		nargs := len(fc.Args)
		if len(names) == 1 && nargs == 0 && len(f.in) == 0 && builtinWithoutParams(f.name) && d.s.catalogBefore(f.schema) {
			return true // the built-in function of the name, as the call resolves
		}
		found = nargs <= len(f.in) && nargs >= len(f.in)-f.nDefaults
		return !found
	})
	return found
}

// checkRoutineDependents refuses to drop f while objects depend on it
// (2BP01), or under cascade drops them with PostgreSQL's notices.
func (d *ddl) checkRoutineDependents(f *funcDesc, dropping map[*funcDesc]bool, cascade bool) error {
	return d.dropDependents(f.kindName()+" "+f.objectSignature(), d.routineDependents(f, dropping), cascade)
}

// dropDependents refuses to drop the object described by what while deps
// depend on it (2BP01), or under cascade drops them with PostgreSQL's
// notices.
func (d *ddl) dropDependents(what string, deps []routineDependent, cascade bool) error {
	if len(deps) == 0 {
		return nil
	}
	if !cascade {
		return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", what).
			WithDetail("%s depends on %s", deps[0].what, what).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	if err := refuseUndroppable(deps); err != nil {
		return err
	}
	for _, dep := range deps {
		d.notice(pgerror.SuccessfulCompletion, "drop cascades to %s", dep.what)
	}
	for _, dep := range deps {
		dep.drop(d)
	}
	return nil
}

// refuseUndroppable refuses a CASCADE that would drop an object fickle
// cannot drop that way (a generated column using the routine).
func refuseUndroppable(deps []routineDependent) error {
	for _, dep := range deps {
		if dep.drop == nil {
			return pgerror.Unsupported("DROP ... CASCADE of a routine that a generated column's expression calls (" + dep.what + ")")
		}
	}
	return nil
}

// editTable replaces the table with a clone that edit changed.
func (d *ddl) editTable(oid uint32, edit func(*tableDesc)) {
	t := d.cat.tables[oid]
	if t == nil {
		return
	}
	nt := t.clone()
	edit(nt)
	d.cat.putTable(nt)
}

func removeTrigger(trs []*triggerDesc, name string) []*triggerDesc {
	return slices.DeleteFunc(slices.Clone(trs), func(tr *triggerDesc) bool { return tr.name == name })
}

// builtinRoutineFirst checks an unqualified DROP (or ALTER) of a routine
// against the built-in functions, which pg_catalog holds before the search
// path's other schemas unless the path lists it later: a built-in that
// the name and argument types (argTypes, nil when unspecified) reach first
// cannot be dropped (2BP01), and a name without arguments that reaches a
// built-in and another routine is ambiguous (42725). user are the user
// routines matching the statement; other statements than DROP (ALTER,
// COMMENT) are refused with 0A000 when they reach a built-in.
func (d *ddl) builtinRoutineFirst(name string, argTypes []types.Type, unspecified bool, user []*funcDesc, drop bool) error {
	path := d.s.searchPath()
	catalogAt := slices.Index(path, "pg_catalog")
	before := func(f *funcDesc) bool { return slices.Index(path, f.schema) < catalogAt }
	var builtins []*builtinProc
	for _, p := range builtinIndex().procsByName[name] {
		if p.namespace != oidPgCatalog {
			continue
		}
		if !unspecified && !sameOids(p.args, argTypes) {
			continue
		}
		if slices.ContainsFunc(user, func(f *funcDesc) bool { return before(f) && sameOids(p.args, f.in) }) {
			continue // hidden by a routine earlier on the path
		}
		builtins = append(builtins, p)
	}
	if len(builtins) == 0 {
		return nil
	}
	visibleUser := 0
	for _, f := range user {
		if before(f) || !slices.ContainsFunc(builtins, func(p *builtinProc) bool { return sameOids(p.args, f.in) }) {
			visibleUser++
		}
	}
	if unspecified && len(builtins)+visibleUser > 1 {
		return pgerror.Newf(pgerror.AmbiguousFunction, "function name \"%s\" is not unique", name).
			WithHint("Specify the argument list to select the function unambiguously.")
	}
	if !unspecified && slices.ContainsFunc(user, before) {
		return nil
	}
	ts := make([]string, len(builtins[0].args))
	for i, a := range builtins[0].args {
		ts[i], _ = catalogNames{s: d.s, cat: d.cat}.typeName(a, -1)
	}
	if !drop {
		return pgerror.Unsupported("changing the built-in function " + name + "(" + strings.Join(ts, ", ") + ")")
	}
	return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop function %s(%s) because it is required by the database system",
		name, strings.Join(ts, ", "))
}

// sameOids reports whether a built-in's argument type OIDs are ts's.
func sameOids(oids []uint32, ts []types.Type) bool {
	return slices.Equal(oids, typeOids(ts))
}

func typeOids(ts []types.Type) []uint32 {
	out := make([]uint32, len(ts))
	for i, t := range ts {
		out[i] = uint32(t.Oid)
	}
	return out
}

// renameRoutine runs ALTER FUNCTION, PROCEDURE or ROUTINE ... RENAME TO.
// Objects that call the routine by name (stored expressions, which
// PostgreSQL binds to its OID) would lose it, so such a rename is refused.
func (d *ddl) renameRoutine(rs *pg_query.RenameStmt) error {
	f, err := d.findRoutine(rs.Object.GetObjectWithArgs(), rs.RenameType, rs.MissingOk, false)
	if err != nil || f == nil {
		return err
	}
	if err := d.requireRoutineOwner(f); err != nil {
		return err
	}
	if err := d.requireSchemaCreate(f.schema); err != nil {
		return err
	}
	for _, g := range d.cat.schemas[f.schema].funcs[rs.Newname] {
		if sameTypes(g.inputTypes(), f.inputTypes()) {
			return pgerror.Newf(pgerror.DuplicateFunction, "%s %s(%s) already exists in schema \"%s\"", g.kindName(), rs.Newname, f.inputTypeNames(), f.schema)
		}
	}
	for _, dep := range d.routineDependents(f, nil) {
		if dep.byName {
			return pgerror.Unsupported("renaming a routine that " + dep.what + " calls")
		}
	}
	nf := *f
	nf.name = rs.Newname
	d.unlistRoutine(f)
	sc := d.cat.schemas[f.schema]
	sc.funcs[nf.name] = append(slices.Clone(sc.funcs[nf.name]), &nf)
	return nil
}

// setRoutineSchema runs ALTER FUNCTION, PROCEDURE or ROUTINE ... SET
// SCHEMA: the routine moves to the schema, keeping its OID, so that
// triggers, comments and grants keep following it.
func (d *ddl) setRoutineSchema(as *pg_query.AlterObjectSchemaStmt) error {
	f, err := d.findRoutine(as.Object.GetObjectWithArgs(), as.ObjectType, as.MissingOk, false)
	if err != nil || f == nil {
		return err
	}
	target := d.cat.schemas[as.Newschema]
	if target == nil {
		return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", as.Newschema)
	}
	if as.Newschema == f.schema {
		return nil
	}
	if err := d.requireRoutineOwner(f); err != nil {
		return err
	}
	if err := d.requireSchemaCreate(as.Newschema); err != nil {
		return err
	}
	for _, g := range target.funcs[f.name] {
		if sameTypes(g.inputTypes(), f.inputTypes()) {
			return pgerror.Newf(pgerror.DuplicateFunction, "%s %s already exists in schema \"%s\"", g.kindName(), f.signature(), as.Newschema)
		}
	}
	for _, dep := range d.routineDependents(f, nil) {
		if dep.byName {
			return pgerror.Unsupported("moving a routine that " + dep.what + " calls to another schema")
		}
	}
	nf := *f
	nf.schema = as.Newschema
	d.unlistRoutine(f)
	target.funcs[nf.name] = append(slices.Clone(target.funcs[nf.name]), &nf)
	return nil
}
