package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Firing event triggers, as PostgreSQL's ProcessUtilitySlow does around
// a DDL command (event_trigger.c): ddl_command_start before it runs;
// after it, table_rewrite for each table it wrote anew, sql_drop when it
// dropped objects, and ddl_command_end. A command run by a routine fires
// them too; the subcommands of one statement (CREATE SCHEMA's elements)
// do not. What the functions pg_event_trigger_ddl_commands() and
// pg_event_trigger_dropped_objects() report is worked out from the
// catalogs before and after the command (event_trigger_report.go).

// evtState is one running command's event trigger state, PostgreSQL's
// EventTriggerQueryState: the session keeps a stack of them, one per
// command nested in another's event trigger or routine.
type evtState struct {
	tag  string
	node *pg_query.Node
	// before and after are the catalogs the command started and ended
	// with.
	before, after *catalog
	// inSQLDrop is set while the sql_drop triggers run.
	inSQLDrop bool
	// rewriteOID and rewriteReason are the table a table_rewrite trigger
	// runs for and why it is rewritten (AT_REWRITE_* bits).
	rewriteOID    uint32
	rewriteReason int64
	// rewrites are the tables the command rewrote, in order;
	// rewriteUnknown says it may have rewritten tables fickle cannot name
	// (or cannot tell whether PostgreSQL would).
	rewrites       []tableRewrite
	rewriteUnknown string
	// dropped caches the report of the objects the command dropped.
	dropped    [][]any
	droppedErr error
	droppedSet bool
}

// tableRewrite is a table an ALTER wrote anew and the reasons, as
// PostgreSQL's AT_REWRITE_* bits: 1 persistence, 2 a default value, 4 a
// column's type.
type tableRewrite struct {
	oid    uint32
	reason int64
}

// withEventTriggers makes p fire the event triggers of its command tag,
// when it has one event triggers support.
func withEventTriggers(st *Statement, p *stmtPlan) *stmtPlan {
	tag := eventTriggerTag(st.node)
	if tag == "" || p.exec == nil {
		return p
	}
	inner := p.exec
	out := *p
	out.exec = func(x *execCtx) (*Result, error) { return x.s.runWithEventTriggers(x, tag, st.node, inner) }
	return &out
}

// eventTriggerTag is the command tag event triggers see for n, "" for a
// statement they do not fire on (EventTriggerSupportsObjectType: not on
// databases, roles, tablespaces or event triggers themselves).
func eventTriggerTag(n *pg_query.Node) string {
	if n == nil {
		return ""
	}
	var objType pg_query.ObjectType
	tag := ""
	switch v := n.Node.(type) {
	case *pg_query.Node_SelectStmt:
		if v.SelectStmt.IntoClause != nil {
			return "SELECT INTO"
		}
		return ""
	case *pg_query.Node_CreateTableAsStmt:
		if v.CreateTableAsStmt.Objtype == pg_query.ObjectType_OBJECT_MATVIEW {
			return "CREATE MATERIALIZED VIEW"
		}
		return "CREATE TABLE AS"
	case *pg_query.Node_RefreshMatViewStmt:
		return "REFRESH MATERIALIZED VIEW"
	case *pg_query.Node_DropStmt:
		objType = v.DropStmt.RemoveType
	case *pg_query.Node_RenameStmt:
		objType = v.RenameStmt.RenameType
	case *pg_query.Node_AlterOwnerStmt:
		objType = v.AlterOwnerStmt.ObjectType
	case *pg_query.Node_AlterObjectSchemaStmt:
		objType = v.AlterObjectSchemaStmt.ObjectType
	case *pg_query.Node_CommentStmt:
		objType = v.CommentStmt.Objtype
	case *pg_query.Node_GrantStmt:
		objType = v.GrantStmt.Objtype
	case *pg_query.Node_CreatedbStmt, *pg_query.Node_DropdbStmt, *pg_query.Node_CreateRoleStmt, *pg_query.Node_AlterRoleStmt,
		*pg_query.Node_DropRoleStmt, *pg_query.Node_GrantRoleStmt, *pg_query.Node_CreateEventTrigStmt, *pg_query.Node_AlterEventTrigStmt:
		return ""
	}
	switch objType {
	case pg_query.ObjectType_OBJECT_DATABASE, pg_query.ObjectType_OBJECT_TABLESPACE, pg_query.ObjectType_OBJECT_ROLE,
		pg_query.ObjectType_OBJECT_PARAMETER_ACL, pg_query.ObjectType_OBJECT_EVENT_TRIGGER:
		return ""
	}
	tag = ddlTag(n)
	if !eventTriggerTags[tag] {
		return ""
	}
	return tag
}

// runWithEventTriggers runs a command, inner, between its event triggers.
func (s *Session) runWithEventTriggers(x *execCtx, tag string, node *pg_query.Node, inner func(*execCtx) (*Result, error)) (*Result, error) {
	before, _ := s.catalog()
	if len(before.eventTriggers) == 0 {
		return inner(x)
	}
	st := &evtState{tag: tag, node: node, before: before}
	s.evtStack = append(s.evtStack, st)
	defer func() { s.evtStack = s.evtStack[:len(s.evtStack)-1] }()
	if err := s.fireEventTriggers(x, st, "ddl_command_start"); err != nil {
		return nil, err
	}
	res, err := inner(x)
	if err != nil {
		return nil, err
	}
	st.after, _ = s.catalog()
	if len(s.matchingEventTriggers(st.after, "table_rewrite", tag)) > 0 {
		if st.rewriteUnknown != "" {
			return nil, pgerror.Unsupported("a table_rewrite event trigger on " + st.rewriteUnknown)
		}
		for _, rw := range st.rewrites {
			st.rewriteOID, st.rewriteReason = rw.oid, rw.reason
			err := s.fireEventTriggers(x, st, "table_rewrite")
			st.rewriteOID, st.rewriteReason = 0, 0
			if err != nil {
				return nil, err
			}
		}
	}
	if len(s.matchingEventTriggers(st.after, "sql_drop", tag)) > 0 && droppedAnything(st.before, st.after) {
		st.inSQLDrop = true
		err := s.fireEventTriggers(x, st, "sql_drop")
		st.inSQLDrop = false
		if err != nil {
			return nil, err
		}
	}
	if err := s.fireEventTriggers(x, st, "ddl_command_end"); err != nil {
		return nil, err
	}
	return res, nil
}

// currentEvtState is the innermost running command's event trigger
// state, nil outside commands that fire event triggers.
func (s *Session) currentEvtState() *evtState {
	if len(s.evtStack) == 0 {
		return nil
	}
	return s.evtStack[len(s.evtStack)-1]
}

// noteRewrite records that the running command rewrote table oid for
// reason, for its table_rewrite event triggers.
func (s *Session) noteRewrite(oid uint32, reason int64) {
	if st := s.currentEvtState(); st != nil {
		for i, rw := range st.rewrites {
			if rw.oid == oid {
				st.rewrites[i].reason |= reason
				return
			}
		}
		st.rewrites = append(st.rewrites, tableRewrite{oid: oid, reason: reason})
	}
}

// noteRewriteUnknown records that the running command may rewrite tables
// in a way fickle cannot report as PostgreSQL would (what says which).
func (s *Session) noteRewriteUnknown(what string) {
	if st := s.currentEvtState(); st != nil && st.rewriteUnknown == "" {
		st.rewriteUnknown = what
	}
}

// matchingEventTriggers are the event triggers of c that fire on event
// for tag now, in name order: enabled for the session's
// session_replication_role, and naming tag when they name tags.
func (s *Session) matchingEventTriggers(c *catalog, event, tag string) []*eventTrigDesc {
	replica := s.replica()
	var out []*eventTrigDesc
	for _, et := range c.sortedEventTriggers() {
		if et.event != event {
			continue
		}
		switch et.enabled {
		case 'D':
			continue
		case 'O':
			if replica {
				continue
			}
		case 'R':
			if !replica {
				continue
			}
		}
		if len(et.tags) > 0 && !containsString(et.tags, tag) {
			continue
		}
		out = append(out, et)
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// fireEventTriggers runs the functions of the event triggers on event for
// st's command; the first error aborts the command.
func (s *Session) fireEventTriggers(x *execCtx, st *evtState, event string) error {
	cat, _ := s.catalog()
	for _, et := range s.matchingEventTriggers(cat, event, st.tag) {
		fn := cat.funcByOID(et.fn)
		if fn == nil {
			continue
		}
		if err := s.runEventTriggerFunction(x, fn, event, st.tag); err != nil {
			return err
		}
	}
	return nil
}

// runEventTriggerFunction runs the PL/pgSQL function fn of an event
// trigger with TG_EVENT and TG_TAG set.
func (s *Session) runEventTriggerFunction(x *execCtx, fn *funcDesc, event, tag string) error {
	if s.routineDepth >= maxRoutineDepth {
		return pgerror.New(pgerror.StatementTooComplex, "stack depth limit exceeded")
	}
	s.routineDepth++
	s.routineNames = append(s.routineNames, "event trigger function "+fn.name)
	defer func() {
		s.routineDepth--
		s.routineNames = s.routineNames[:len(s.routineNames)-1]
	}()
	leave, err := s.enterRoutine(fn)
	if err != nil {
		return err
	}
	defer leave()
	fr, err := s.newFrame(x.routineCtx(fn), fn)
	if err != nil {
		return err
	}
	vars := map[string]string{"tg_event": event, "tg_tag": tag}
	for i, d := range fr.pl.datums {
		if v, ok := vars[d.name]; ok && d.kind == 'v' {
			fr.vals[i], fr.typs[i] = v, types.Text
		}
	}
	_, err = fr.run(nil)
	return err
}

// eventTriggerDatums are the variables PL/pgSQL gives an event trigger
// function.
func eventTriggerDatums() []*plDatum {
	return []*plDatum{{name: "tg_event", kind: 'v', typ: types.Text, isConst: true},
		{name: "tg_tag", kind: 'v', typ: types.Text, isConst: true}}
}

// eventTriggerProtocolError is the error of an event trigger support
// function called where it has nothing to report.
func eventTriggerProtocolError(fn, where string) error {
	return pgerror.Newf(pgerror.EventTriggerProtocolViolated, "%s can only be called in %s", fn, where)
}

// tracksCommands says whether PostgreSQL keeps an event trigger state for
// the command (EventTriggerBeginCompleteQuery): only when some sql_drop,
// table_rewrite or ddl_command_end trigger exists, whatever its tags.
func (st *evtState) tracksCommands(c *catalog) bool {
	for _, et := range c.eventTriggers {
		if et.event != "ddl_command_start" {
			return true
		}
	}
	return false
}

func init() {
	addSysFunc("pg_event_trigger_table_rewrite_oid", sysFunc{result: types.OidType, volatile: true,
		eval: func(x *execCtx, a []any) (any, error) {
			st := x.s.currentEvtState()
			if st == nil || st.rewriteOID == 0 {
				return nil, eventTriggerProtocolError("pg_event_trigger_table_rewrite_oid()", "a table_rewrite event trigger function")
			}
			return int64(st.rewriteOID), nil
		}})
	addSysFunc("pg_event_trigger_table_rewrite_reason", sysFunc{result: types.Int4, volatile: true,
		eval: func(x *execCtx, a []any) (any, error) {
			st := x.s.currentEvtState()
			if st == nil || st.rewriteOID == 0 {
				return nil, eventTriggerProtocolError("pg_event_trigger_table_rewrite_reason()", "a table_rewrite event trigger function")
			}
			return st.rewriteReason, nil
		}})
}

// rewriteCapable says whether cmd is a kind of ALTER TABLE subcommand
// that may write a table anew.
func rewriteCapable(cmd *pg_query.AlterTableCmd) bool {
	switch cmd.Subtype {
	case pg_query.AlterTableType_AT_AlterColumnType, pg_query.AlterTableType_AT_AddColumn,
		pg_query.AlterTableType_AT_SetLogged, pg_query.AlterTableType_AT_SetUnLogged:
		return true
	}
	return false
}

// timeZoneDependentRewrite says whether the type changes of run include
// one between timestamp and timestamptz, which PostgreSQL does without a
// rewrite when the session's time zone is UTC: fickle rewrites always.
func timeZoneDependentRewrite(before, after *tableDesc, run []*pg_query.AlterTableCmd) bool {
	for _, cmd := range run {
		i, j := before.colIndex(cmd.Name), after.colIndex(cmd.Name)
		if i < 0 || j < 0 {
			continue
		}
		from, to := before.cols[i].typ.Oid, after.cols[j].typ.Oid
		if from == types.OidTimestamp && to == types.OidTimestamptz || from == types.OidTimestamptz && to == types.OidTimestamp {
			return true
		}
	}
	return false
}
