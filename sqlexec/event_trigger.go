package sqlexec

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Event triggers (PostgreSQL's event_trigger.c): CREATE, ALTER, DROP and
// COMMENT ON EVENT TRIGGER, and the catalog pg_event_trigger. They live
// in the transactional catalog like the other objects of a database.
// Firing them around DDL is event_trigger_fire.go.

// oidPgEventTrigger is pg_event_trigger's OID, the class of its objects.
const oidPgEventTrigger = 3466

// eventTrigDesc is one event trigger, a row of pg_event_trigger. It is
// never changed once in a catalog: ALTER puts a changed copy.
type eventTrigDesc struct {
	oid   uint32
	name  string
	event string // evtevent: ddl_command_start, ddl_command_end, sql_drop, table_rewrite
	owner uint32
	fn    uint32
	// enabled is evtenabled: 'O' (fires unless session_replication_role
	// is replica), 'R' (only when it is), 'A' (always) or 'D' (never).
	enabled byte
	// tags are WHEN TAG IN's command tags in upper case, nil for none.
	tags []string
}

// eventTriggerEvents are the events an event trigger can be defined on.
var eventTriggerEvents = []string{"ddl_command_start", "ddl_command_end", "sql_drop", "table_rewrite"}

// eventTriggerTags are the command tags PostgreSQL 15 knows
// (cmdtaglist.h), mapped to whether event triggers support them
// (event_trigger_ok). Tags fickle never produces are listed too: WHEN
// TAG IN accepts every tag PostgreSQL does.
var eventTriggerTags = func() map[string]bool {
	ok := []string{"ALTER ACCESS METHOD", "ALTER AGGREGATE", "ALTER CAST", "ALTER COLLATION", "ALTER CONSTRAINT",
		"ALTER CONVERSION", "ALTER DEFAULT PRIVILEGES", "ALTER DOMAIN", "ALTER EXTENSION", "ALTER FOREIGN DATA WRAPPER",
		"ALTER FOREIGN TABLE", "ALTER FUNCTION", "ALTER INDEX", "ALTER LANGUAGE", "ALTER LARGE OBJECT",
		"ALTER MATERIALIZED VIEW", "ALTER OPERATOR", "ALTER OPERATOR CLASS", "ALTER OPERATOR FAMILY", "ALTER POLICY",
		"ALTER PROCEDURE", "ALTER PUBLICATION", "ALTER ROUTINE", "ALTER RULE", "ALTER SCHEMA", "ALTER SEQUENCE",
		"ALTER SERVER", "ALTER STATISTICS", "ALTER SUBSCRIPTION", "ALTER TABLE", "ALTER TEXT SEARCH CONFIGURATION",
		"ALTER TEXT SEARCH DICTIONARY", "ALTER TEXT SEARCH PARSER", "ALTER TEXT SEARCH TEMPLATE", "ALTER TRANSFORM",
		"ALTER TRIGGER", "ALTER TYPE", "ALTER USER MAPPING", "ALTER VIEW", "COMMENT", "CREATE ACCESS METHOD",
		"CREATE AGGREGATE", "CREATE CAST", "CREATE COLLATION", "CREATE CONSTRAINT", "CREATE CONVERSION", "CREATE DOMAIN",
		"CREATE EXTENSION", "CREATE FOREIGN DATA WRAPPER", "CREATE FOREIGN TABLE", "CREATE FUNCTION", "CREATE INDEX",
		"CREATE LANGUAGE", "CREATE MATERIALIZED VIEW", "CREATE OPERATOR", "CREATE OPERATOR CLASS",
		"CREATE OPERATOR FAMILY", "CREATE POLICY", "CREATE PROCEDURE", "CREATE PUBLICATION", "CREATE ROUTINE",
		"CREATE RULE", "CREATE SCHEMA", "CREATE SEQUENCE", "CREATE SERVER", "CREATE STATISTICS", "CREATE SUBSCRIPTION",
		"CREATE TABLE", "CREATE TABLE AS", "CREATE TEXT SEARCH CONFIGURATION", "CREATE TEXT SEARCH DICTIONARY",
		"CREATE TEXT SEARCH PARSER", "CREATE TEXT SEARCH TEMPLATE", "CREATE TRANSFORM", "CREATE TRIGGER", "CREATE TYPE",
		"CREATE USER MAPPING", "CREATE VIEW", "DROP ACCESS METHOD", "DROP AGGREGATE", "DROP CAST", "DROP COLLATION",
		"DROP CONSTRAINT", "DROP CONVERSION", "DROP DOMAIN", "DROP EXTENSION", "DROP FOREIGN DATA WRAPPER",
		"DROP FOREIGN TABLE", "DROP FUNCTION", "DROP INDEX", "DROP LANGUAGE", "DROP MATERIALIZED VIEW", "DROP OPERATOR",
		"DROP OPERATOR CLASS", "DROP OPERATOR FAMILY", "DROP OWNED", "DROP POLICY", "DROP PROCEDURE", "DROP PUBLICATION",
		"DROP ROUTINE", "DROP RULE", "DROP SCHEMA", "DROP SEQUENCE", "DROP SERVER", "DROP STATISTICS",
		"DROP SUBSCRIPTION", "DROP TABLE", "DROP TEXT SEARCH CONFIGURATION", "DROP TEXT SEARCH DICTIONARY",
		"DROP TEXT SEARCH PARSER", "DROP TEXT SEARCH TEMPLATE", "DROP TRANSFORM", "DROP TRIGGER", "DROP TYPE",
		"DROP USER MAPPING", "DROP VIEW", "GRANT", "IMPORT FOREIGN SCHEMA", "REFRESH MATERIALIZED VIEW", "REVOKE",
		"SECURITY LABEL", "SELECT INTO"}
	not := []string{"???", "ALTER DATABASE", "ALTER EVENT TRIGGER", "ALTER ROLE", "ALTER SYSTEM", "ALTER TABLESPACE",
		"ANALYZE", "BEGIN", "CALL", "CHECKPOINT", "CLOSE", "CLOSE CURSOR", "CLOSE CURSOR ALL", "CLUSTER", "COMMIT",
		"COMMIT PREPARED", "COPY", "COPY FROM", "CREATE DATABASE", "CREATE EVENT TRIGGER", "CREATE ROLE",
		"CREATE TABLESPACE", "DEALLOCATE", "DEALLOCATE ALL", "DECLARE CURSOR", "DELETE", "DISCARD", "DISCARD ALL",
		"DISCARD PLANS", "DISCARD SEQUENCES", "DISCARD TEMP", "DO", "DROP DATABASE", "DROP EVENT TRIGGER",
		"DROP REPLICATION SLOT", "DROP ROLE", "DROP TABLESPACE", "EXECUTE", "EXPLAIN", "FETCH", "GRANT ROLE", "INSERT",
		"LISTEN", "LOAD", "LOCK TABLE", "MERGE", "MOVE", "NOTIFY", "PREPARE", "PREPARE TRANSACTION", "REASSIGN OWNED",
		"REINDEX", "RELEASE", "RESET", "REVOKE ROLE", "ROLLBACK", "ROLLBACK PREPARED", "SAVEPOINT", "SELECT",
		"SELECT FOR KEY SHARE", "SELECT FOR NO KEY UPDATE", "SELECT FOR SHARE", "SELECT FOR UPDATE", "SET",
		"SET CONSTRAINTS", "SHOW", "START TRANSACTION", "TRUNCATE TABLE", "UNLISTEN", "UPDATE", "VACUUM",
		"CREATE_REPLICATION_SLOT", "DROP_REPLICATION_SLOT", "BASE_BACKUP", "IDENTIFY_SYSTEM", "READ_REPLICATION_SLOT",
		"START_REPLICATION", "TIMELINE_HISTORY"}
	m := map[string]bool{}
	for _, t := range ok {
		m[t] = true
	}
	for _, t := range not {
		m[t] = false
	}
	return m
}()

// tableRewriteTags are the tags a table_rewrite event trigger may name
// (table_rewrite_ok).
var tableRewriteTags = []string{"ALTER MATERIALIZED VIEW", "ALTER TABLE", "ALTER TYPE"}

// createEventTrigger runs CREATE EVENT TRIGGER, with CreateEventTrigger's
// checks in its order.
func (d *ddl) createEventTrigger(st *pg_query.CreateEventTrigStmt) error {
	if !d.s.isSuperuser(d.s.currentRole()) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to create event trigger \"%s\"", st.Trigname).
			WithHint("Must be superuser to create an event trigger.")
	}
	if !slices.Contains(eventTriggerEvents, st.Eventname) {
		return pgerror.Newf(pgerror.SyntaxError, "unrecognized event name \"%s\"", st.Eventname)
	}
	var tags []string
	seen := false
	for _, n := range st.Whenclause {
		de := n.GetDefElem()
		if de.Defname != "tag" {
			return pgerror.Newf(pgerror.SyntaxError, "unrecognized filter variable \"%s\"", de.Defname)
		}
		if seen {
			return pgerror.Newf(pgerror.SyntaxError, "filter variable \"%s\" specified more than once", de.Defname)
		}
		seen = true
		for _, v := range strs(de.Arg.GetList().GetItems()) {
			tags = append(tags, v)
		}
	}
	for i, v := range tags {
		tag := asciiUpper(v)
		ok, known := eventTriggerTags[tag]
		if !known {
			return pgerror.Newf(pgerror.SyntaxError, "filter value \"%s\" not recognized for filter variable \"tag\"", v)
		}
		if st.Eventname == "table_rewrite" && !slices.Contains(tableRewriteTags, tag) || !ok {
			return pgerror.Newf(pgerror.FeatureNotSupported, "event triggers are not supported for %s", v)
		}
		tags[i] = tag
	}
	if d.cat.eventTriggers[st.Trigname] != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "event trigger \"%s\" already exists", st.Trigname)
	}
	fn, err := d.eventTriggerFunction(strs(st.Funcname))
	if err != nil {
		return err
	}
	et := &eventTrigDesc{oid: d.cat.newOID(), name: st.Trigname, event: st.Eventname, owner: d.s.currentRole(), fn: fn,
		enabled: 'O', tags: tags}
	d.putEventTrigger(et)
	return nil
}

// eventTriggerFunction finds the function without arguments names
// calls, which must return event_trigger.
func (d *ddl) eventTriggerFunction(names []string) (uint32, error) {
	for _, f := range d.s.lookupFuncs(d.cat, names) {
		if len(f.in) == 0 && f.kind == 'f' {
			if f.result.Oid != types.OidEventTrigger {
				return 0, pgerror.Newf(pgerror.InvalidObjectDefinition, "function %s must return type event_trigger", strings.Join(names, "."))
			}
			return f.oid, nil
		}
	}
	if len(names) == 1 || names[0] == "pg_catalog" {
		for _, p := range builtinIndex().procsByName[names[len(names)-1]] {
			if len(p.args) == 0 && p.kind == 'f' {
				return 0, pgerror.Newf(pgerror.InvalidObjectDefinition, "function %s must return type event_trigger", strings.Join(names, "."))
			}
		}
	}
	return 0, pgerror.Newf(pgerror.UndefinedFunction, "function %s() does not exist", strings.Join(names, "."))
}

// asciiUpper upper-cases the ASCII letters of s, as pg_strtoupper does.
func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func (d *ddl) putEventTrigger(et *eventTrigDesc) {
	putEntry(&d.cat.eventTriggers, et.name, et)
}

// lookupEventTrigger is the event trigger named name, which must exist.
func (d *ddl) lookupEventTrigger(name string) (*eventTrigDesc, error) {
	et := d.cat.eventTriggers[name]
	if et == nil {
		return nil, pgerror.Newf(pgerror.UndefinedObject, "event trigger \"%s\" does not exist", name)
	}
	return et, nil
}

// ownedEventTrigger is the event trigger named name, which the current
// role must own.
func (d *ddl) ownedEventTrigger(name string) (*eventTrigDesc, error) {
	et, err := d.lookupEventTrigger(name)
	if err != nil {
		return nil, err
	}
	if err := d.s.requireOwner(et.owner, "event trigger", et.name); err != nil {
		return nil, err
	}
	return et, nil
}

// alterEventTrigger runs ALTER EVENT TRIGGER ... ENABLE [REPLICA | ALWAYS]
// and DISABLE.
func (d *ddl) alterEventTrigger(st *pg_query.AlterEventTrigStmt) error {
	old, err := d.ownedEventTrigger(st.Trigname)
	if err != nil {
		return err
	}
	et := *old
	et.enabled = st.Tgenabled[0]
	d.putEventTrigger(&et)
	return nil
}

// renameEventTrigger runs ALTER EVENT TRIGGER ... RENAME TO.
func (d *ddl) renameEventTrigger(rs *pg_query.RenameStmt) error {
	old, err := d.lookupEventTrigger(rs.Object.GetString_().GetSval())
	if err != nil {
		return err
	}
	if d.cat.eventTriggers[rs.Newname] != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "event trigger \"%s\" already exists", rs.Newname)
	}
	if err := d.s.requireOwner(old.owner, "event trigger", old.name); err != nil {
		return err
	}
	et := *old
	et.name = rs.Newname
	delete(d.cat.eventTriggers, old.name)
	d.putEventTrigger(&et)
	return nil
}

// alterEventTriggerOwner runs ALTER EVENT TRIGGER ... OWNER TO: the new
// owner must be a superuser.
func (d *ddl) alterEventTriggerOwner(ao *pg_query.AlterOwnerStmt) error {
	old, err := d.lookupEventTrigger(ao.Object.GetString_().GetSval())
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
	if err := d.s.requireOwner(old.owner, "event trigger", old.name); err != nil {
		return err
	}
	return d.giveEventTrigger(old, r.oid)
}

// giveEventTrigger makes role the owner of event trigger old, which only a
// superuser may own (ALTER EVENT TRIGGER ... OWNER TO, REASSIGN OWNED).
func (d *ddl) giveEventTrigger(old *eventTrigDesc, role uint32) error {
	if !d.s.isSuperuser(role) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to change owner of event trigger \"%s\"", old.name).
			WithHint("The owner of an event trigger must be a superuser.")
	}
	et := *old
	et.owner = role
	d.putEventTrigger(&et)
	return nil
}

// dropEventTriggers runs DROP EVENT TRIGGER [IF EXISTS]; nothing depends
// on an event trigger, so CASCADE changes nothing.
func (d *ddl) dropEventTriggers(ds *pg_query.DropStmt) error {
	for _, o := range ds.Objects {
		name := o.GetString_().GetSval()
		if d.cat.eventTriggers[name] == nil && ds.MissingOk {
			d.notice(pgerror.SuccessfulCompletion, "event trigger \"%s\" does not exist, skipping", name)
			continue
		}
		et, err := d.ownedEventTrigger(name)
		if err != nil {
			return err
		}
		d.removeEventTrigger(et)
	}
	return nil
}

// removeEventTrigger drops event trigger et with its comment.
func (d *ddl) removeEventTrigger(et *eventTrigDesc) {
	delete(d.cat.eventTriggers, et.name)
	delete(d.cat.comments, commentKey{classOID: oidPgEventTrigger, objOID: et.oid})
}

// commentOnEventTrigger runs COMMENT ON EVENT TRIGGER.
func (d *ddl) commentOnEventTrigger(cs *pg_query.CommentStmt) error {
	et, err := d.ownedEventTrigger(cs.Object.GetString_().GetSval())
	if err != nil {
		return err
	}
	d.cat.setComment(commentKey{classOID: oidPgEventTrigger, objOID: et.oid}, cs.Comment)
	return nil
}

// eventTriggersOf are the event triggers that run fn, in name order.
func (c *catalog) eventTriggersOf(fn uint32) []*eventTrigDesc {
	var out []*eventTrigDesc
	for _, et := range c.sortedEventTriggers() {
		if et.fn == fn {
			out = append(out, et)
		}
	}
	return out
}

// sortedEventTriggers are the event triggers in name order, the order
// PostgreSQL fires them in.
func (c *catalog) sortedEventTriggers() []*eventTrigDesc {
	out := make([]*eventTrigDesc, 0, len(c.eventTriggers))
	for _, et := range c.eventTriggers {
		out = append(out, et)
	}
	slices.SortFunc(out, func(a, b *eventTrigDesc) int { return strings.Compare(a.name, b.name) })
	return out
}

func init() {
	oid, name, ch := types.OidType, types.Name, types.Char
	textArray, _ := types.ArrayOf(types.Text)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_event_trigger", cols: []vcol{{"oid", oid}, {"evtname", name},
		{"evtevent", name}, {"evtowner", oid}, {"evtfoid", oid}, {"evtenabled", ch}, {"evttags", textArray}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, et := range c.sortedEventTriggers() {
				var tags any
				if len(et.tags) > 0 {
					vals := make([]any, len(et.tags))
					for i, t := range et.tags {
						vals[i] = t
					}
					tags = pgarray.Make([]int{len(vals)}, []int{1}, vals)
				}
				out = append(out, []any{int64(et.oid), et.name, et.event, int64(et.owner), int64(et.fn), string(rune(et.enabled)), tags})
			}
			return out
		}})
}

// eventTriggerFunctionError is PL/pgSQL's refusal of an event trigger
// function with parameters, which its validator reports.
func eventTriggerFunctionError(f *funcDesc) error {
	if f.result.Oid != types.OidEventTrigger || len(f.params) == 0 {
		return nil
	}
	return withContext(pgerror.New(pgerror.InvalidFunctionDefinition, "event trigger functions cannot have declared arguments"),
		"compilation of PL/pgSQL function \""+f.name+"\" near line 1")
}
