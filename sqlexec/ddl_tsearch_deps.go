package sqlexec

import (
	"cmp"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// What depends on text search objects, for DROP: the configurations
// that map a dictionary, the stored expressions that name a
// configuration, the users' objects made from an extension's dictionary
// or template, and the objects of a schema.

// tsDependent is an object that depends on a dictionary: a user's
// configuration mapping it.
type tsDependent struct {
	what string
	oid  uint32
}

// dictDependents are the users' configurations that map the dictionary
// of the OID, by OID, but those in skip.
func (d *ddl) dictDependents(oid uint32, skip map[uint32]bool) []tsDependent {
	var out []tsDependent
	for _, cfg := range sortedTSConfigs(d.cat) {
		if skip[cfg.oid] {
			continue
		}
		for _, dicts := range cfg.maps {
			if slices.Contains(dicts, oid) {
				out = append(out, tsDependent{what: "text search configuration " + d.s.visibleName(cfg.schema, cfg.name), oid: cfg.oid})
				break
			}
		}
	}
	return out
}

// tsObjectsOfSchema are the OIDs of the users' configurations and
// dictionaries in the schema, configurations first.
func (c *catalog) tsObjectsOfSchema(schema string) []uint32 {
	var out []uint32
	for _, cfg := range sortedTSConfigs(c) {
		if cfg.schema == schema {
			out = append(out, cfg.oid)
		}
	}
	for _, ud := range sortedTSDicts(c) {
		if ud.schema == schema {
			out = append(out, ud.oid)
		}
	}
	return out
}

// dropSchemaTSObjects drops the text search objects of a schema DROP
// SCHEMA ... CASCADE drops, with the configurations elsewhere that map
// its dictionaries.
func (d *ddl) dropSchemaTSObjects(schema string) {
	for _, oid := range d.cat.tsObjectsOfSchema(schema) {
		if d.cat.tsDicts[oid] != nil {
			for _, dep := range d.dictDependents(oid, nil) {
				d.dropTSObject(dep.oid)
			}
		}
		d.dropTSObject(oid)
	}
}

// extensionTSUses are the users' text search objects that use ext's
// dictionaries and templates: configurations mapping a dictionary,
// dictionaries made from a template. DROP EXTENSION needs CASCADE to drop
// them.
func (d *ddl) extensionTSUses(ext *extensionDesc) []memberUse {
	var out []memberUse
	for _, ed := range ext.dictionaries {
		what := "text search dictionary " + d.s.visibleName(ed.schema, ed.def.name)
		for _, dep := range d.dictDependents(ed.oid, nil) {
			oid := dep.oid
			out = append(out, memberUse{member: ed.oid, object: oid, detail: dep.what + " depends on " + what,
				dep: routineDependent{what: dep.what, drop: func(d *ddl) { d.dropTSObject(oid) }}})
		}
		tmpl := "text search template " + d.s.visibleName(ed.schema, ed.def.template)
		for _, ud := range sortedTSDicts(d.cat) {
			if ud.template != ed.templateOID {
				continue
			}
			udWhat := "text search dictionary " + d.s.visibleName(ud.schema, ud.name)
			out = append(out, memberUse{member: ed.templateOID, object: ud.oid, detail: udWhat + " depends on " + tmpl,
				dep: routineDependent{what: udWhat, drop: func(d *ddl) {
					for _, dep := range d.dictDependents(ud.oid, nil) {
						d.dropTSObject(dep.oid)
					}
					d.dropTSObject(ud.oid)
				}}})
		}
	}
	return out
}

// tsConfigArgFuncs are the functions whose first argument is a
// configuration, with the fewest arguments of the signatures that take
// one.
var tsConfigArgFuncs = map[string]int{"to_tsvector": 2, "to_tsquery": 2, "plainto_tsquery": 2, "phraseto_tsquery": 2,
	"websearch_to_tsquery": 2, "ts_headline": 3, "json_to_tsvector": 3, "jsonb_to_tsvector": 3, "ts_debug": 2}

// usesTSConfig reports whether a stored expression names the
// configuration of OID oid: a string given as the configuration of a text
// search function, or cast to regconfig, that finds it. PostgreSQL records
// such a constant as a dependency (find_expr_references_walker).
func (d *ddl) usesTSConfig(n *pg_query.Node, oid uint32) bool {
	found := false
	check := func(arg *pg_query.Node) {
		if tc := arg.GetTypeCast(); tc != nil {
			arg = tc.Arg
		}
		c := arg.GetAConst()
		if c == nil || c.GetSval() == nil {
			return
		}
		parts, err := (catalogNames{s: d.s, cat: d.cat}).qualifiedName(c.GetSval().Sval, "qualified")
		if err != nil {
			return
		}
		if got, _ := d.s.lookupTS(d.cat, tsConfigKind, parts, true); got == oid {
			found = true
		}
	}
	walk(n, func(m *pg_query.Node) bool {
		if fc := m.GetFuncCall(); fc != nil {
			if min, ok := tsConfigArgFuncs[lastName(fc.Funcname)]; ok && len(fc.Args) >= min {
				check(fc.Args[0])
			}
		}
		if tc := m.GetTypeCast(); tc != nil && tc.TypeName != nil && lastName(tc.TypeName.Names) == "regconfig" {
			check(m)
		}
		return !found
	})
	return found
}

// configExprDependents are the stored expressions that name the
// configuration of OID oid (column defaults, generated columns, CHECK
// constraints, views, index keys and predicates), as DROP names them.
func (d *ddl) configExprDependents(oid uint32) []routineDependent {
	uses := func(n *pg_query.Node, _ *tableDesc, _ bool) bool { return d.usesTSConfig(n, oid) }
	found := d.exprDependents(uses)
	for _, t := range sortedTables(d.cat) {
		for _, ix := range t.indexes {
			if ix.pred != nil && uses(ix.pred, t, false) || slices.ContainsFunc(ix.exprs, func(e *pg_query.Node) bool {
				return e != nil && uses(e, t, false)
			}) {
				found = append(found, memberUse{object: ix.oid,
					dep: routineDependent{what: "index " + ix.name, drop: func(d *ddl) { d.dropExtensionIndex(ix) }}})
			}
		}
	}
	slices.SortStableFunc(found, func(a, b memberUse) int { return cmp.Compare(a.object, b.object) })
	out := make([]routineDependent, len(found))
	for i, u := range found {
		out[i] = u.dep
	}
	return out
}

// ownedTSObjects are the users' configurations and dictionaries role
// owns, for DROP OWNED, REASSIGN OWNED and DROP ROLE.
func ownedTSObjects(c *catalog, role uint32) []ownedObject {
	var out []ownedObject
	for _, cfg := range sortedTSConfigs(c) {
		if cfg.owner == role {
			out = append(out, ownedObject{oid: cfg.oid, kind: pg_query.ObjectType_OBJECT_TSCONFIGURATION, schema: cfg.schema, name: cfg.name})
		}
	}
	for _, ud := range sortedTSDicts(c) {
		if ud.owner == role {
			out = append(out, ownedObject{oid: ud.oid, kind: pg_query.ObjectType_OBJECT_TSDICTIONARY, schema: ud.schema, name: ud.name})
		}
	}
	return out
}

// giveTSObject makes role the owner of the user's configuration or
// dictionary of OID oid (REASSIGN OWNED).
func (d *ddl) giveTSObject(oid, role uint32) {
	if cfg := d.cat.tsConfigs[oid]; cfg != nil {
		next := *cfg
		next.owner = role
		d.cat.putTSConfig(&next)
	}
	if ud := d.cat.tsDicts[oid]; ud != nil {
		next := *ud
		next.owner = role
		d.cat.putTSDict(&next)
	}
}

// dropOwnedTSObject drops o for DROP OWNED, unless an earlier drop took
// it already.
func (d *ddl) dropOwnedTSObject(o ownedObject, behavior pg_query.DropBehavior) error {
	if d.cat.tsConfigs[o.oid] == nil && d.cat.tsDicts[o.oid] == nil {
		return nil
	}
	kind, _ := tsObjectKind(o.kind)
	name := pg_query.MakeListNode([]*pg_query.Node{pg_query.MakeStrNode(o.schema), pg_query.MakeStrNode(o.name)})
	return d.dropTSObjects(&pg_query.DropStmt{RemoveType: o.kind, Behavior: behavior, Objects: []*pg_query.Node{name}}, kind)
}
