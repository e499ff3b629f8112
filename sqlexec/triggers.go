package sqlexec

import (
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Triggers (CREATE TRIGGER ... BEFORE | AFTER INSERT | UPDATE [OF cols] |
// DELETE ... FOR EACH ROW | STATEMENT [WHEN (...)] EXECUTE FUNCTION f()).
// A trigger belongs to its table's descriptor; INSERT, UPDATE and DELETE
// plan the triggers of their event (triggerSet) and fire them around each
// row they write and around the statement, in the statement's execution
// context: the trigger function's reads and writes belong to the calling
// statement, in its store transaction. BEFORE ROW triggers fire in name
// order and may change the row (RETURN NEW) or skip it (RETURN NULL);
// AFTER ROW triggers fire once the statement has written every row, then
// AFTER STATEMENT triggers. The other kinds have files of their own:
// INSTEAD OF and statement triggers on views (triggers_views.go),
// constraint triggers (triggers_constraint.go) and transition tables
// (triggers_transition.go); TRUNCATE triggers fire around TRUNCATE
// (truncateTriggers).

// The bits of pg_trigger.tgtype.
const (
	tgRow      = 1
	tgBefore   = 2
	tgInsert   = 4
	tgDelete   = 8
	tgUpdate   = 16
	tgTruncate = 32
	tgInstead  = 64
)

// triggerDesc is a pg_trigger row.
type triggerDesc struct {
	oid   uint32
	name  string
	table uint32
	// fn is the OID of the trigger function.
	fn     uint32
	tgtype int
	// cols are the columns of UPDATE OF.
	cols []int
	when *pg_query.Node
	args []string
	// enabled is pg_trigger.tgenabled: 'O' fires in the origin (and
	// local) session_replication_role, 'R' in replica, 'A' always, 'D'
	// never (firesIn).
	enabled byte
	// constraint says CREATE CONSTRAINT TRIGGER made it: an AFTER ROW
	// trigger that DEFERRABLE and INITIALLY DEFERRED or SET CONSTRAINTS
	// may defer to the end of the transaction (triggers_constraint.go).
	constraint               bool
	deferrable, initDeferred bool
	// constrRel is FROM's table (tgconstrrelid), 0 for none.
	constrRel uint32
	// oldTable and newTable are REFERENCING's transition table names
	// (triggers_transition.go), "" for none.
	oldTable, newTable string
	// parent is pg_trigger.tgparentid: the OID of the trigger of the
	// partitioned table this one is a clone of, 0 for none
	// (triggers_partitions.go).
	parent uint32
}

// enableTriggers runs ALTER TABLE ... ENABLE [REPLICA | ALWAYS] / DISABLE
// TRIGGER name | USER | ALL on t, a clone of the table. ALL and a name
// also reach the internal triggers of the foreign keys t is on either side
// of (ri_triggers.go), which only a superuser may change; a key whose
// triggers do not fire is not enforced. Without ONLY (recurse), a row
// trigger's clones on the partitions of a partitioned table follow.
func (d *ddl) enableTriggers(t *tableDesc, cmd *pg_query.AlterTableCmd, recurse bool) error {
	enabled := byte('O')
	all, system := false, true
	switch cmd.Subtype {
	case pg_query.AlterTableType_AT_DisableTrig:
		enabled = 'D'
	case pg_query.AlterTableType_AT_EnableReplicaTrig:
		enabled = 'R'
	case pg_query.AlterTableType_AT_EnableAlwaysTrig:
		enabled = 'A'
	case pg_query.AlterTableType_AT_EnableTrigUser:
		all, system = true, false
	case pg_query.AlterTableType_AT_DisableTrigUser:
		enabled, all, system = 'D', true, false
	case pg_query.AlterTableType_AT_EnableTrigAll:
		all = true
	case pg_query.AlterTableType_AT_DisableTrigAll:
		enabled, all = 'D', true
	}
	found := false
	for i, tr := range t.triggers {
		if all || tr.name == cmd.Name {
			n := *tr
			n.enabled = enabled
			t.triggers[i] = &n
			found = true
			if recurse && tr.tgtype&tgRow != 0 {
				if err := d.enableTriggerClones(t, tr.oid, enabled); err != nil {
					return err
				}
			}
		}
	}
	if system {
		ri, err := d.enableRITriggers(t, cmd.Name, all, enabled, recurse)
		if err != nil {
			return err
		}
		found = found || ri
	}
	if !found && !all {
		return pgerror.Newf(pgerror.UndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", cmd.Name, t.name)
	}
	return nil
}

// isTriggerToggle reports whether an ALTER TABLE subcommand is one of
// ENABLE / DISABLE TRIGGER's.
func isTriggerToggle(sub pg_query.AlterTableType) bool {
	switch sub {
	case pg_query.AlterTableType_AT_EnableTrig, pg_query.AlterTableType_AT_DisableTrig,
		pg_query.AlterTableType_AT_EnableAlwaysTrig, pg_query.AlterTableType_AT_EnableReplicaTrig,
		pg_query.AlterTableType_AT_EnableTrigUser, pg_query.AlterTableType_AT_DisableTrigUser,
		pg_query.AlterTableType_AT_EnableTrigAll, pg_query.AlterTableType_AT_DisableTrigAll:
		return true
	}
	return false
}

// createTrigger runs CREATE [OR REPLACE] TRIGGER on a table, or on a view
// (INSTEAD OF row triggers and BEFORE / AFTER statement triggers).
func (d *ddl) createTrigger(ct *pg_query.CreateTrigStmt, full string) error {
	switch {
	case ct.Events&tgTruncate != 0 && ct.Row:
		return pgerror.New(pgerror.FeatureNotSupported, "TRUNCATE FOR EACH ROW triggers are not supported")
	}
	t, view, err := d.triggerRelation(ct)
	if err != nil {
		return err
	}
	if err := foreignTriggerError(t, view, ct); err != nil {
		return err
	}
	if err := d.requireTriggerPrivilege(t, view); err != nil {
		return err
	}
	names := strs(ct.Funcname)
	var fn *funcDesc
	for _, f := range d.s.lookupFuncs(d.cat, names) {
		if len(f.in) == 0 && f.kind == 'f' {
			fn = f
			break
		}
	}
	fnOID := uint32(0)
	switch {
	case fn != nil:
		if fn.result.Oid != types.OidTrigger {
			return pgerror.Newf(pgerror.InvalidObjectDefinition, "function %s must return type trigger", fn.name)
		}
		fnOID = fn.oid
	case namesSuppressRedundantUpdates(names):
		fnOID = suppressRedundantUpdatesOID
	case namesBuiltinTrigger(names, "tsvector_update_trigger"):
		fnOID = tsvectorUpdateTriggerOID
	case namesBuiltinTrigger(names, "tsvector_update_trigger_column"):
		fnOID = tsvectorUpdateTriggerColumnOID
	default:
		return pgerror.Newf(pgerror.UndefinedFunction, "function %s() does not exist", strings.Join(names, "."))
	}
	tr := &triggerDesc{name: ct.Trigname, table: t.oid, fn: fnOID, tgtype: int(ct.Timing) | int(ct.Events), enabled: 'O'}
	if ct.Row {
		tr.tgtype |= tgRow
	}
	if ct.Isconstraint {
		if err := d.constraintTrigger(tr, ct); err != nil {
			return err
		}
	}
	for _, c := range strs(ct.Columns) {
		i := t.colIndex(c)
		if i < 0 {
			return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", c, t.name)
		}
		if slices.Contains(tr.cols, i) {
			return pgerror.Newf(pgerror.DuplicateColumn, "column \"%s\" specified more than once", c)
		}
		tr.cols = append(tr.cols, i)
	}
	for _, a := range ct.Args {
		tr.args = append(tr.args, a.GetString_().GetSval())
	}
	if err := d.transitionTables(tr, ct, t); err != nil {
		return err
	}
	if ct.WhenClause != nil {
		if !ct.Row && referencesColumns(ct.WhenClause) {
			return pgerror.New(pgerror.InvalidObjectDefinition, "statement trigger's WHEN condition cannot reference column values")
		}
		tr.when = starRowRefs(proto.Clone(ct.WhenClause).(*pg_query.Node))
		d.s.qualifyCalls(d.cat, tr.when)
		b := d.binder(full)
		if err := whenRowRefError(b, tr); err != nil {
			return err
		}
		if err := whenGeneratedRefError(b, t, tr); err != nil {
			return err
		}
		if _, err := b.triggerWhen(t, tr); err != nil {
			return err
		}
	}
	if ct.Replace && slices.ContainsFunc(t.triggers, func(old *triggerDesc) bool { return old.name == tr.name && old.parent != 0 }) {
		return pgerror.Newf(pgerror.DuplicateObject, "trigger \"%s\" for relation \"%s\" is an internal or a child trigger", tr.name, t.name)
	}
	if view == nil {
		if err := d.lockTable(t, isolation.TableLockShareRowExclusive); err != nil {
			return err
		}
	}
	triggers, err := putNamed(d.cat, t.triggers, tr, ct.Replace, "trigger", t.name)
	if err != nil {
		return err
	}
	d.setTriggers(t, view, triggers)
	if view == nil && ct.Row {
		return d.triggerToPartitions(t, tr, ct.Replace)
	}
	return nil
}

// setTriggers replaces the triggers of a table, or of view when it is not
// nil (t is then its viewTable).
func (d *ddl) setTriggers(t *tableDesc, view *viewDesc, triggers []*triggerDesc) {
	if view != nil {
		nv := *view
		nv.triggers = triggers
		d.cat.schemas[view.schema].views[view.name] = &nv
		return
	}
	nt := t.clone()
	nt.triggers = triggers
	d.cat.putTable(nt)
}

// dropTrigger runs DROP TRIGGER [IF EXISTS] name ON table.
func (d *ddl) dropTrigger(ds *pg_query.DropStmt) error {
	for _, o := range ds.Objects {
		parts := strs(o.GetList().GetItems())
		name := parts[len(parts)-1]
		schema := ""
		if len(parts) == 3 {
			schema = parts[0]
		}
		t, view := d.s.lookupTable(d.cat, schema, parts[len(parts)-2]), (*viewDesc)(nil)
		if t == nil {
			if view = d.s.lookupView(d.cat, schema, parts[len(parts)-2]); view != nil {
				t = viewTable(view)
			}
		}
		if t == nil {
			if ds.MissingOk {
				d.notice(pgerror.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", parts[len(parts)-2])
				continue
			}
			return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", parts[len(parts)-2])
		}
		i := slices.IndexFunc(t.triggers, func(tr *triggerDesc) bool { return tr.name == name })
		if i < 0 {
			if ds.MissingOk {
				d.notice(pgerror.SuccessfulCompletion, "trigger \"%s\" for relation \"%s\" does not exist, skipping", name, t.name)
				continue
			}
			return pgerror.Newf(pgerror.UndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", name, t.name)
		}
		if owner, _ := hostOwner(d.cat, t, view); !d.s.actsAsOwner(owner) {
			return d.s.requireOwner(owner, "relation", t.name)
		}
		if t.triggers[i].parent != 0 {
			return d.cat.cloneDropError(t, t.triggers[i])
		}
		if view == nil {
			if err := d.lockTable(t, isolation.TableLockShareRowExclusive); err != nil {
				return err
			}
			d.dropTriggerClones(t, t.triggers[i].oid)
		}
		d.setTriggers(t, view, slices.Delete(slices.Clone(t.triggers), i, i+1))
	}
	return nil
}

// renameTrigger runs ALTER TRIGGER name ON table RENAME TO new. A
// constraint trigger is refused: PostgreSQL keeps its pg_constraint row's
// old name, which fickle derives from the trigger's.
func (d *ddl) renameTrigger(rs *pg_query.RenameStmt) error {
	rv := rs.Relation
	t, view := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname), (*viewDesc)(nil)
	if t == nil {
		if view = d.s.lookupView(d.cat, rv.Schemaname, rv.Relname); view != nil {
			t = viewTable(view)
		}
	}
	if t == nil {
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
	}
	if owner, noun := hostOwner(d.cat, t, view); !d.s.actsAsOwner(owner) {
		return d.s.requireOwner(owner, noun, t.name)
	}
	i := slices.IndexFunc(t.triggers, func(tr *triggerDesc) bool { return tr.name == rs.Subname })
	if i < 0 {
		return pgerror.Newf(pgerror.UndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", rs.Subname, t.name)
	}
	if slices.ContainsFunc(t.triggers, func(tr *triggerDesc) bool { return tr.name == rs.Newname }) {
		return pgerror.Newf(pgerror.DuplicateObject, "trigger \"%s\" for relation \"%s\" already exists", rs.Newname, t.name)
	}
	if t.triggers[i].constraint {
		return pgerror.Unsupported("ALTER TRIGGER ... RENAME of a constraint trigger")
	}
	if t.triggers[i].parent != 0 {
		p, _ := d.cat.parentTrigger(t, t.triggers[i])
		if p == nil {
			return d.cat.cloneDropError(t, t.triggers[i])
		}
		// PostgreSQL gives this error no SQLSTATE: XX000.
		return pgerror.Newf(pgerror.InternalError, "cannot rename trigger \"%s\" on table \"%s\"", rs.Subname, t.name).
			WithHint("Rename the trigger on the partitioned table \"%s\" instead.", p.name)
	}
	if view == nil {
		if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
			return err
		}
		if err := d.renameTriggerClones(t, t.triggers[i].oid, rs.Newname); err != nil {
			return err
		}
	}
	d.setTriggers(t, view, renamedTrigger(t.triggers, i, rs.Newname))
	return nil
}

// triggersWithoutColumn returns t's triggers as they are once its column
// i is dropped: the positions of UPDATE OF shift past it. A trigger whose
// UPDATE OF or WHEN names the column depends on it, as in PostgreSQL: with
// cascade it is dropped too, without it the column stays (2BP01). A
// partition's clone goes with its parent's trigger, unnamed; the column of
// a partitioned table with partitions is dropped with theirs, several
// objects, which PostgreSQL's error names as such.
func (d *ddl) triggersWithoutColumn(t *tableDesc, i int, cascade bool) ([]*triggerDesc, error) {
	name := t.cols[i].name
	var out []*triggerDesc
	var dependents []string
	for _, tr := range t.triggers {
		if slices.Contains(tr.cols, i) || tr.when != nil && readsColumn(tr.when, name) {
			if tr.parent == 0 {
				dependents = append(dependents, fmt.Sprintf("trigger %s on table %s", tr.name, t.name))
			}
			continue
		}
		n := *tr
		n.cols = nil
		for _, c := range tr.cols {
			if c > i {
				c--
			}
			n.cols = append(n.cols, c)
		}
		out = append(out, &n)
	}
	if len(dependents) > 0 && !cascade {
		lines := make([]string, len(dependents))
		for j, dep := range dependents {
			lines[j] = dep + " depends on column " + name + " of table " + t.name
		}
		if t.part != nil && len(d.cat.children(t.oid)) > 0 {
			return nil, pgerror.New(pgerror.DependentObjectsStillExist, "cannot drop desired object(s) because other objects depend on them").
				WithDetail("%s", strings.Join(lines, "\n")).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		return nil, pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop column %s of table %s because other objects depend on it", name, t.name).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	d.cascadeNotice(dependents)
	return out, nil
}

// funcByOID returns the user routine with the OID.
func (c *catalog) funcByOID(oid uint32) *funcDesc {
	for _, sc := range c.schemas {
		for _, overloads := range sc.funcs {
			for _, f := range overloads {
				if f.oid == oid {
					return f
				}
			}
		}
	}
	return nil
}

// whenRowRefError is PostgreSQL's error for a row trigger's WHEN condition
// that names OLD in an INSERT trigger, NEW in a DELETE trigger or a system
// column of NEW in a BEFORE trigger. Of the system columns fickle has only
// tableoid; WHEN refuses the others.
func whenRowRefError(b *binder, tr *triggerDesc) error {
	var err error
	walk(tr.when, func(n *pg_query.Node) bool {
		cr := n.GetColumnRef()
		if cr == nil || err != nil {
			return err == nil
		}
		rel := cr.Fields[0].GetString_().GetSval()
		switch rel {
		case "old":
			if tr.tgtype&tgInsert != 0 {
				err = b.errAt(pgerror.New(pgerror.InvalidObjectDefinition, "INSERT trigger's WHEN condition cannot reference OLD values"), cr.Location)
			}
		case "new":
			if tr.tgtype&tgDelete != 0 {
				err = b.errAt(pgerror.New(pgerror.InvalidObjectDefinition, "DELETE trigger's WHEN condition cannot reference NEW values"), cr.Location)
			}
		}
		if err != nil || len(cr.Fields) != 2 || rel != "old" && rel != "new" {
			return err == nil
		}
		col := cr.Fields[1].GetString_().GetSval()
		switch {
		case !slices.Contains(systemColumnNames, col):
		case rel == "new" && tr.tgtype&tgBefore != 0:
			err = b.errAt(pgerror.New(pgerror.FeatureNotSupported, "BEFORE trigger's WHEN condition cannot reference NEW system columns"), cr.Location)
		case col != "tableoid":
			err = b.errAt(pgerror.Unsupported("system column \""+col+"\""), cr.Location)
		}
		return err == nil
	})
	return err
}

// starRowRefs writes the whole-row references OLD and NEW of a WHEN
// condition as OLD.* and NEW.*, the form PostgreSQL prints them in.
func starRowRefs(when *pg_query.Node) *pg_query.Node {
	walk(when, func(n *pg_query.Node) bool {
		cr := n.GetColumnRef()
		if cr != nil && len(cr.Fields) == 1 {
			if rel := cr.Fields[0].GetString_().GetSval(); rel == "old" || rel == "new" {
				cr.Fields = append(cr.Fields, &pg_query.Node{Node: &pg_query.Node_AStar{AStar: &pg_query.A_Star{}}})
			}
		}
		return true
	})
	return when
}

// wholeRowWhen returns a copy of a WHEN condition with OLD.* and NEW.*
// written as the whole-row references OLD and NEW: in an expression they
// stand for the row, not its columns.
func wholeRowWhen(when *pg_query.Node) *pg_query.Node {
	when = proto.Clone(when).(*pg_query.Node)
	walk(when, func(n *pg_query.Node) bool {
		cr := n.GetColumnRef()
		if cr != nil && len(cr.Fields) == 2 && cr.Fields[1].GetAStar() != nil {
			if rel := cr.Fields[0].GetString_().GetSval(); rel == "old" || rel == "new" {
				cr.Fields = cr.Fields[:1]
			}
		}
		return true
	})
	return when
}

// triggerWhen compiles a trigger's WHEN condition over OLD and NEW, which
// it reads as the parameters $1 and $2.
func (b *binder) triggerWhen(t *tableDesc, tr *triggerDesc) (*scalar, error) {
	rt := tableRowType(t)
	shape, _ := rt.Fields()
	b.params = []types.Type{rt, rt}
	b.vars = func(b *binder, fields []string, loc int32) (*scalar, bool) {
		if len(fields) == 1 && (fields[0] == "old" || fields[0] == "new") {
			p := 0
			if fields[0] == "new" {
				p = 1
			}
			return &scalar{typ: rt, slot: -1, name: fields[0], eval: func(x *execCtx) (any, error) {
				if r, _ := x.params[p].([]any); r != nil {
					return r, nil
				}
				return nil, nil
			}}, true
		}
		if len(fields) != 2 || fields[0] != "old" && fields[0] != "new" {
			return nil, false
		}
		if fields[0] == "old" && tr.tgtype&tgInsert != 0 {
			return nil, false
		}
		if fields[0] == "new" && tr.tgtype&tgDelete != 0 {
			return nil, false
		}
		p := 0
		if fields[0] == "new" {
			p = 1
		}
		for i, f := range shape {
			if f.Name == fields[1] {
				return &scalar{typ: f.Type, slot: -1, name: f.Name, eval: func(x *execCtx) (any, error) {
					r, _ := x.params[p].([]any)
					if r == nil {
						return nil, nil
					}
					return r[i], nil
				}}, true
			}
		}
		if fields[1] == "tableoid" {
			// The trigger's own table: it fires for rows stored there.
			return &scalar{typ: types.OidType, slot: -1, name: fields[1], eval: constEval(int64(t.oid))}, true
		}
		return nil, false
	}
	e, err := b.expr(nil, wholeRowWhen(tr.when))
	if err != nil {
		return nil, err
	}
	if e.typ.Oid != types.OidBool {
		return nil, pgerror.Newf(pgerror.DatatypeMismatch, "argument of WHEN must be type boolean, not type %s", e.typ)
	}
	return e, nil
}

// referencesColumns reports whether a WHEN condition names a column.
func referencesColumns(n *pg_query.Node) bool {
	found := false
	walk(n, func(n *pg_query.Node) bool {
		found = found || n.GetColumnRef() != nil
		return !found
	})
	return found
}

// tableRowType is the record type of a table's rows.
func tableRowType(t *tableDesc) types.Type {
	fields := make([]types.Field, len(t.cols))
	for i, c := range t.cols {
		fields[i] = types.Field{Name: c.name, Type: c.typ}
	}
	return types.RecordType(fields)
}

// firing is a planned trigger: its function (nil for the built-in
// suppress_redundant_updates_trigger) and compiled WHEN.
type firing struct {
	tr   *triggerDesc
	fn   *funcDesc
	when *scalar
	// ri, for the action trigger of a foreign key that references the
	// table, is the key, riWriter the writer of the table and name the
	// trigger's name (ri_actions.go); tr is nil then.
	ri       *fkRef2
	riWriter *writer
	name     string
}

// firingName is the name of the trigger, which orders a table's triggers.
func (f firing) firingName() string {
	if f.tr == nil {
		return f.name
	}
	return f.tr.name
}

// triggerSet holds the triggers a statement fires for one event on its
// table, and the AFTER ROW events it queued. The methods of a nil set do
// nothing.
type triggerSet struct {
	t                               *tableDesc
	event                           int
	beforeStmt, beforeRow, afterRow []firing
	afterStmt                       []firing
	// insteadRow are the INSTEAD OF triggers of a view.
	insteadRow []firing
	// transitions says an AFTER trigger reads transition tables: the
	// statement keeps the rows it changes.
	transitions bool
	// updated are the columns an UPDATE sets (tg_updatedcols).
	updated []int
	// check is the partition constraint of t when a BEFORE INSERT row
	// trigger is a clone of a partitioned table's, which must leave the
	// row in t (triggers_partitions.go).
	check *partCheck
	// inLevel says the runs' AFTER events join the query level's list,
	// where referential actions run (ri_actions.go).
	inLevel bool
}

// triggerRun is one execution of a statement's triggers: the AFTER ROW
// events it queued. The methods of a nil run do nothing.
type triggerRun struct {
	*triggerSet
	queued [][2][]any
	// members are the rows the statement wrote in the members of its
	// target (partitions, inheritance children), in the target's column
	// order, which its transition tables hold after its own rows
	// (triggers_transition.go).
	members [][2][]any
	// level is the query level whose event list the run's AFTER events
	// join, nil when they fire at afterStatement.
	level *afterLevel
	// transition holds the transition tables' rows once a trigger read
	// them.
	transition *[2][][]any
}

// firesIn reports whether a trigger or rule enabled so (tgenabled,
// ev_enabled) fires in a session whose session_replication_role is
// replica, or is origin or local, as PostgreSQL's TriggerEnabled and
// matchLocks decide.
func firesIn(enabled byte, replica bool) bool {
	switch enabled {
	case 'A':
		return true
	case 'O':
		return !replica
	case 'R':
		return replica
	}
	return false
}

// replica reports whether the session's session_replication_role is
// replica: its triggers, rules and foreign keys' internal triggers that
// fire on origin do not fire (pg_dump --disable-triggers, MikroORM's
// clearDatabase and replication tools set it to load or empty tables in
// any order). Plans depend on it: the plan caches remake a plan made in
// the other role.
func (s *Session) replica() bool {
	v, _ := s.settings.get("session_replication_role")
	return v == "replica"
}

// triggersFor plans the triggers of event on t; updated are the columns an
// UPDATE sets (for UPDATE OF). It returns nil when there are none.
func (b *binder) triggersFor(t *tableDesc, event int, updated []int) (*triggerSet, error) {
	if len(t.triggers) == 0 {
		return nil, nil
	}
	// The parts of a statement with data-modifying WITH queries queue
	// their AFTER events on the statement's list, which fires when all
	// are done, as PostgreSQL's AfterTriggerEndQuery does.
	ts := &triggerSet{t: t, event: event, updated: updated, inLevel: b.topWith != nil}
	for _, tr := range t.triggers {
		if tr.tgtype&event == 0 || !firesIn(tr.enabled, b.s.replica()) {
			continue
		}
		if t.part != nil && tr.tgtype&tgRow != 0 {
			continue // its clones fire, for the rows of the partitions
		}
		if len(tr.cols) > 0 && !slices.ContainsFunc(tr.cols, func(c int) bool { return slices.Contains(updated, c) }) {
			continue
		}
		fn := b.cat.funcByOID(tr.fn)
		if fn == nil && !builtinTriggerFunc(tr.fn) {
			return nil, pgerror.Newf(pgerror.UndefinedFunction, "function of trigger \"%s\" does not exist", tr.name)
		}
		f := firing{tr: tr, fn: fn}
		if tr.parent != 0 && event == tgInsert && tr.tgtype&tgBefore != 0 && ts.check == nil {
			var err error
			if ts.check, err = b.partCheckFor(t); err != nil {
				return nil, err
			}
		}
		ts.transitions = ts.transitions || tr.oldTable != "" || tr.newTable != ""
		if tr.when != nil {
			wb := &binder{s: b.s, cat: b.cat}
			w, err := wb.triggerWhen(t, tr)
			if err != nil {
				return nil, err
			}
			f.when = w
		}
		switch row, before := tr.tgtype&tgRow != 0, tr.tgtype&tgBefore != 0; {
		case tr.tgtype&tgInstead != 0:
			ts.insteadRow = append(ts.insteadRow, f)
		case row && before:
			ts.beforeRow = append(ts.beforeRow, f)
		case row:
			ts.afterRow = append(ts.afterRow, f)
		case before:
			ts.beforeStmt = append(ts.beforeStmt, f)
		default:
			ts.afterStmt = append(ts.afterStmt, f)
		}
	}
	return ts, nil
}

// hasRowTriggers reports whether the set fires per row.
func (ts *triggerSet) hasRowTriggers() bool {
	return ts != nil && (len(ts.beforeRow)+len(ts.afterRow) > 0 || ts.transitions)
}

// start begins an execution of the statement: it fires the BEFORE
// STATEMENT triggers.
func (ts *triggerSet) start(x *execCtx) (*triggerRun, error) {
	if ts == nil {
		return nil, nil
	}
	for _, f := range ts.beforeStmt {
		if ok, err := ts.whenHolds(x, f, nil, nil); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		if _, err := ts.fire(x, f, "BEFORE", "STATEMENT", nil, nil); err != nil {
			return nil, err
		}
	}
	run := &triggerRun{triggerSet: ts}
	if ts.inLevel {
		run.level = x.s.afterEvents()
		run.level.runs[runKey{ts.t.oid, ts.event}] = run
	}
	return run, nil
}

// before fires the BEFORE ROW triggers for a row write: it returns the row
// to write, nil when a trigger skipped it.
func (ts *triggerRun) before(x *execCtx, old, new []any) ([]any, error) {
	row := new
	if new == nil {
		row = old // a DELETE: the row to delete
	}
	if ts == nil {
		return row, nil
	}
	for _, f := range ts.beforeRow {
		newArg := new
		if ts.event != tgDelete {
			newArg = row
		}
		ok, err := ts.whenHolds(x, f, old, newArg)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		out, err := ts.fire(x, f, "BEFORE", "ROW", old, newArg)
		if err != nil {
			return nil, err
		}
		if out == nil {
			return nil, nil
		}
		if ts.event != tgDelete {
			row = out
		}
		if f.tr.parent != 0 && ts.event == tgInsert {
			if ok, err := ts.check.holds(x, row); err != nil || !ok {
				if err == nil {
					err = clonedRowMove(ts.t, f.tr)
				}
				return nil, err
			}
		}
	}
	return row, nil
}

// after queues the AFTER ROW triggers of a row written.
func (ts *triggerRun) after(old, new []any) {
	if ts == nil || len(ts.afterRow) == 0 && !ts.transitions {
		return
	}
	if ts.level != nil {
		ts.level.events = append(ts.level.events, levelEvent{run: ts, old: old, new: new})
		if !ts.transitions {
			return
		}
	}
	ts.queued = append(ts.queued, [2][]any{old, new})
}

// capture keeps, for the statement's transition tables, a row a member of
// its target wrote (old and new in the target's column order), whose row
// triggers are the member's own.
func (ts *triggerRun) capture(old, new []any) {
	if ts == nil || !ts.transitions {
		return
	}
	ts.members = append(ts.members, [2][]any{old, new})
}

// afterStatement fires the queued AFTER ROW triggers, then the AFTER
// STATEMENT ones; a run in a query level's list queues its AFTER
// STATEMENT event there instead.
func (ts *triggerRun) afterStatement(x *execCtx) error {
	if ts == nil {
		return nil
	}
	if ts.level != nil {
		ts.level.queueStatement(ts)
		return nil
	}
	for _, ev := range ts.queued {
		if err := ts.fireAfterRow(x, ev[0], ev[1]); err != nil {
			return err
		}
	}
	err := ts.fireAfterStatement(x)
	ts.queued, ts.members, ts.transition = nil, nil, nil
	return err
}

// transitionTables are the relations trigger f's function reads: the
// statement's old and new rows, made on the first read.
func (ts *triggerRun) transitionTables(f firing) []*transitionTable {
	if f.tr.oldTable == "" && f.tr.newTable == "" {
		return nil
	}
	if ts.transition == nil {
		old, new := transitionRows(append(slices.Clip(ts.queued), ts.members...))
		ts.transition = &[2][][]any{old, new}
	}
	return f.tr.transitionTables(ts.t, ts.transition[0], ts.transition[1])
}

// fireAfterRow fires the AFTER ROW triggers for one row the statement
// wrote: the table's own, and the actions of the foreign keys that
// reference it, in name order.
func (ts *triggerRun) fireAfterRow(x *execCtx, old, new []any) error {
	for _, f := range ts.afterRow {
		if f.ri != nil {
			if err := f.riWriter.applyRef(x, f.ri, old, new, 0, true); err != nil {
				return err
			}
			continue
		}
		ok, err := ts.whenHolds(x, f, old, new)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if ts.deferTrigger(x, f, old, new) {
			continue
		}
		if _, err := ts.fireWith(x, f, "AFTER", "ROW", old, new, ts.transitionTables(f)); err != nil {
			return err
		}
	}
	return nil
}

// fireAfterStatement fires the AFTER STATEMENT triggers.
func (ts *triggerRun) fireAfterStatement(x *execCtx) error {
	for _, f := range ts.afterStmt {
		if ok, err := ts.whenHolds(x, f, nil, nil); err != nil || !ok {
			if err != nil {
				return err
			}
			continue
		}
		if _, err := ts.fireWith(x, f, "AFTER", "STATEMENT", nil, nil, ts.transitionTables(f)); err != nil {
			return err
		}
	}
	return nil
}

func (ts *triggerSet) whenHolds(x *execCtx, f firing, old, new []any) (bool, error) {
	if f.when == nil {
		return true, nil
	}
	cx := &execCtx{ctx: x.ctx, s: x.s, txn: x.txn, env: x.env, params: []any{rowValue(old), rowValue(new)},
		caches: &stmtCaches{}}
	v, err := f.when.eval(cx)
	return v == true, err
}

func rowValue(r []any) any {
	if r == nil {
		return nil
	}
	return r
}

// eventName is TG_OP's value.
func (ts *triggerSet) eventName() string {
	switch ts.event {
	case tgInsert:
		return "INSERT"
	case tgUpdate:
		return "UPDATE"
	case tgTruncate:
		return "TRUNCATE"
	}
	return "DELETE"
}

// fire runs one trigger function and returns the row it returned.
func (ts *triggerSet) fire(x *execCtx, f firing, when, level string, old, new []any) ([]any, error) {
	return ts.fireWith(x, f, when, level, old, new, nil)
}

// fireWith is fire with the transition tables the function reads as
// relations (none for nil: those of an enclosing trigger are hidden).
func (ts *triggerSet) fireWith(x *execCtx, f firing, when, level string, old, new []any, tables []*transitionTable) ([]any, error) {
	if f.fn == nil {
		if f.tr.fn == suppressRedundantUpdatesOID {
			return ts.suppressRedundantUpdate(x, when, level, old, new)
		}
		return ts.tsvectorUpdate(x, f.tr, when, level, new)
	}
	s := x.s
	if s.routineDepth >= maxRoutineDepth {
		return nil, pgerror.New(pgerror.StatementTooComplex, "stack depth limit exceeded")
	}
	s.routineDepth++
	s.routineNames = append(s.routineNames, "trigger "+f.tr.name+" on "+ts.t.name)
	s.triggerTables = append(s.triggerTables, ts.t.oid)
	outer := s.transitions
	s.transitions = tables
	defer func() {
		s.routineDepth--
		s.routineNames = s.routineNames[:len(s.routineNames)-1]
		s.triggerTables = s.triggerTables[:len(s.triggerTables)-1]
		s.transitions = outer
	}()
	leave, err := s.enterRoutine(f.fn)
	if err != nil {
		return nil, err
	}
	defer leave()
	fr, err := s.newFrame(x, f.fn)
	if err != nil {
		return nil, err
	}
	rt := tableRowType(ts.t)
	args := make([]any, len(f.tr.args))
	for i, a := range f.tr.args {
		args[i] = a
	}
	// TG_ARGV counts from 0; it is NULL for a trigger without arguments.
	var argv any
	if len(args) > 0 {
		argv = pgarray.Make([]int{len(args)}, []int{0}, args)
	}
	textArray, _ := types.ArrayOf(types.Text)
	vars := map[string]struct {
		v any
		t types.Type
	}{
		"new": {rowValue(new), rt}, "old": {rowValue(old), rt},
		"tg_op": {ts.eventName(), types.Text}, "tg_name": {f.tr.name, types.Name}, "tg_when": {when, types.Text},
		"tg_level": {level, types.Text}, "tg_table_name": {ts.t.name, types.Name}, "tg_relname": {ts.t.name, types.Name},
		"tg_table_schema": {ts.t.schema, types.Name}, "tg_relid": {int64(ts.t.oid), types.OidType},
		"tg_nargs": {int64(len(args)), types.Int4}, "tg_argv": {argv, textArray},
	}
	for i, d := range fr.pl.datums {
		if v, ok := vars[d.name]; ok && (d.kind == 'r' || strings.HasPrefix(d.name, "tg_")) {
			fr.vals[i], fr.typs[i] = v.v, v.t
			if d.kind == 'r' && v.v == nil {
				if fr.shaped == nil {
					fr.shaped = map[int]bool{}
				}
				fr.shaped[i] = true
			}
		}
	}
	rows, err := fr.run(nil)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 || rows[0][0] == nil {
		return nil, nil
	}
	out := rows[0][0].([]any)
	if len(out) != len(ts.t.cols) {
		return nil, pgerror.New(pgerror.DatatypeMismatch, "returned row structure does not match the structure of the triggering table")
	}
	return out, nil
}

// truncateTriggers plans the TRUNCATE triggers of the tables a TRUNCATE
// empties, nil entries for tables without any.
func (b *binder) truncateTriggers(tables []*tableDesc) ([]*triggerSet, error) {
	sets := make([]*triggerSet, len(tables))
	for i, t := range tables {
		ts, err := b.triggersFor(t, tgTruncate, nil)
		if err != nil {
			return nil, err
		}
		sets[i] = ts
	}
	return sets, nil
}

// fireTruncate runs truncate between the BEFORE TRUNCATE triggers of every
// table and their AFTER TRUNCATE triggers, as PostgreSQL does.
func fireTruncate(x *execCtx, sets []*triggerSet, truncate func() error) error {
	runs := make([]*triggerRun, len(sets))
	for i, ts := range sets {
		run, err := ts.start(x)
		if err != nil {
			return err
		}
		runs[i] = run
	}
	if err := truncate(); err != nil {
		return err
	}
	for _, run := range runs {
		if err := run.afterStatement(x); err != nil {
			return err
		}
	}
	return nil
}

// triggerDatums are the variables PL/pgSQL gives a trigger function besides
// NEW and OLD (which the parser declares itself).
func triggerDatums() []*plDatum {
	textArray, _ := types.ArrayOf(types.Text)
	var out []*plDatum
	for _, v := range []struct {
		name string
		typ  types.Type
	}{{"tg_op", types.Text}, {"tg_name", types.Name}, {"tg_when", types.Text}, {"tg_level", types.Text},
		{"tg_table_name", types.Name}, {"tg_relname", types.Name}, {"tg_table_schema", types.Name},
		{"tg_relid", types.OidType}, {"tg_nargs", types.Int4}, {"tg_argv", textArray}} {
		out = append(out, &plDatum{name: v.name, kind: 'v', typ: v.typ, isConst: true})
	}
	return out
}

// triggerRows are pg_trigger's rows.
func triggerRows(c *catalog) [][]any {
	var out [][]any
	for _, t := range c.triggerRelations() {
		for _, tr := range t.triggers {
			attnums := make([]string, len(tr.cols))
			for i, c := range tr.cols {
				attnums[i] = fmt.Sprint(t.cols[c].attnum)
			}
			out = append(out, []any{int64(tr.oid), int64(t.oid), int64(tr.parent), tr.name, int64(tr.fn), int64(tr.tgtype), string(rune(tr.enabled)), false,
				int64(tr.constrRel), int64(0), int64(triggerConstraintOID(c, t, tr)), tr.deferrable, tr.initDeferred, int64(len(tr.args)),
				parseCatalogText(types.Int2Vector, strings.Join(attnums, " ")), tr.argBytes(), tr.qualText(), nullIfEmpty(tr.oldTable),
				nullIfEmpty(tr.newTable)})
		}
	}
	out = append(out, riTriggerRows(c)...)
	return append(out, uniqueRecheckTriggerRows(c)...)
}

// argBytes is pg_trigger.tgargs: each argument followed by a zero byte.
func (tr *triggerDesc) argBytes() []byte {
	var out []byte
	for _, a := range tr.args {
		out = append(append(out, a...), 0)
	}
	if out == nil {
		out = []byte{}
	}
	return out
}

// qualText is pg_trigger.tgqual: the WHEN condition (PostgreSQL keeps its
// node tree; fickle its text), NULL without one.
func (tr *triggerDesc) qualText() any {
	if tr.when == nil {
		return nil
	}
	return deparseExpr(tr.when)
}

func (tr *triggerDesc) objName() string { return tr.name }
func (tr *triggerDesc) objOID() *uint32 { return &tr.oid }

// relationObject is a catalog object a relation keeps by name in its list:
// a trigger or a rule.
type relationObject interface {
	objName() string
	objOID() *uint32
}

// putNamed returns list with obj added in name order, or, with replace, in
// place of the object of its name, whose OID it keeps; without replace a
// name already there is 42710 ("trigger "x" for relation "t" already
// exists"). A new object gets a new OID.
func putNamed[T relationObject](cat *catalog, list []T, obj T, replace bool, kind, rel string) ([]T, error) {
	var out []T
	for _, old := range list {
		if old.objName() != obj.objName() {
			out = append(out, old)
			continue
		}
		if !replace {
			return nil, pgerror.Newf(pgerror.DuplicateObject, "%s \"%s\" for relation \"%s\" already exists", kind, obj.objName(), rel)
		}
		*obj.objOID() = *old.objOID()
	}
	if *obj.objOID() == 0 {
		*obj.objOID() = cat.newOID()
	}
	out = append(out, obj)
	slices.SortFunc(out, func(a, b T) int { return strings.Compare(a.objName(), b.objName()) })
	return out, nil
}
