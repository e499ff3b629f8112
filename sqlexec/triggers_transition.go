package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Transition tables (CREATE TRIGGER ... AFTER ... REFERENCING OLD TABLE AS
// o NEW TABLE AS n): an AFTER trigger's function reads the rows its
// statement deleted or replaced (OLD) and inserted or wrote (NEW) as
// relations of those names, row and statement triggers alike, all the
// rows of the statement in either case. The rows are the statement's own
// writes, kept in memory like PostgreSQL's tuplestores: reading them is
// not a read of the store. A statement on a partitioned table or an
// inheritance parent keeps the rows written in its members too (routed,
// moved or reached), in the named table's column order; row triggers with
// transition tables are PostgreSQL's errors on partitioned tables,
// partitions and inheritance children.

// transitionTable is one transition relation of a running trigger.
type transitionTable struct {
	name string
	t    *tableDesc
	rows [][]any
}

// transitionTables checks CREATE TRIGGER's REFERENCING clause against
// the trigger as PostgreSQL does and records its names in tr.
func (d *ddl) transitionTables(tr *triggerDesc, ct *pg_query.CreateTrigStmt, t *tableDesc) error {
	if len(ct.TransitionRels) == 0 {
		return nil
	}
	if t.foreign != nil && ct.TransitionRels[0].GetTriggerTransition().IsTable {
		return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is a foreign table", t.name).
			WithDetail("Triggers on foreign tables cannot have transition tables.")
	}
	switch {
	case ct.Row && t.part != nil:
		return pgerror.Newf(pgerror.FeatureNotSupported, "\"%s\" is a partitioned table", t.name).
			WithDetail("ROW triggers with transition tables are not supported on partitioned tables.")
	case ct.Row && t.bound != nil:
		return pgerror.New(pgerror.FeatureNotSupported, "ROW triggers with transition tables are not supported on partitions")
	case ct.Row && len(t.parents) > 0:
		return pgerror.New(pgerror.FeatureNotSupported, "ROW triggers with transition tables are not supported on inheritance children")
	}
	events := 0
	for _, e := range []int{tgInsert, tgUpdate, tgDelete, tgTruncate} {
		if tr.tgtype&e != 0 {
			events++
		}
	}
	for _, n := range ct.TransitionRels {
		tt := n.GetTriggerTransition()
		switch {
		case !tt.IsTable:
			return pgerror.New(pgerror.FeatureNotSupported, "ROW variable naming in the REFERENCING clause is not supported").
				WithHint("Use OLD TABLE or NEW TABLE for naming transition tables.")
		case tr.tgtype&(tgBefore|tgInstead) != 0:
			return pgerror.New(pgerror.InvalidObjectDefinition, "transition table name can only be specified for an AFTER trigger")
		case tr.tgtype&tgTruncate != 0:
			return pgerror.New(pgerror.FeatureNotSupported, "TRUNCATE triggers with transition tables are not supported")
		case events > 1:
			return pgerror.New(pgerror.FeatureNotSupported, "transition tables cannot be specified for triggers with more than one event")
		case len(tr.cols) > 0:
			return pgerror.New(pgerror.FeatureNotSupported, "transition tables cannot be specified for triggers with column lists")
		case tt.IsNew && tr.tgtype&(tgInsert|tgUpdate) == 0:
			return pgerror.New(pgerror.InvalidObjectDefinition, "NEW TABLE can only be specified for an INSERT or UPDATE trigger")
		case tt.IsNew && tr.newTable != "":
			return pgerror.New(pgerror.InvalidObjectDefinition, "NEW TABLE cannot be specified multiple times")
		case !tt.IsNew && tr.tgtype&(tgDelete|tgUpdate) == 0:
			return pgerror.New(pgerror.InvalidObjectDefinition, "OLD TABLE can only be specified for a DELETE or UPDATE trigger")
		case !tt.IsNew && tr.oldTable != "":
			return pgerror.New(pgerror.InvalidObjectDefinition, "OLD TABLE cannot be specified multiple times")
		case tt.IsNew:
			tr.newTable = tt.Name
		default:
			tr.oldTable = tt.Name
		}
	}
	if tr.oldTable != "" && tr.oldTable == tr.newTable {
		return pgerror.New(pgerror.InvalidObjectDefinition, "OLD TABLE name and NEW TABLE name cannot be the same")
	}
	return nil
}

// transitionRows splits a statement's queued row changes into the old
// rows and the new ones.
func transitionRows(queued [][2][]any) (old, new [][]any) {
	old, new = [][]any{}, [][]any{}
	for _, ev := range queued {
		if ev[0] != nil {
			old = append(old, ev[0])
		}
		if ev[1] != nil {
			new = append(new, ev[1])
		}
	}
	return old, new
}

// transitionTables are the relations tr's function reads, given the
// statement's old and new rows on t; nil when it names none.
func (tr *triggerDesc) transitionTables(t *tableDesc, old, new [][]any) []*transitionTable {
	var out []*transitionTable
	if tr.oldTable != "" {
		out = append(out, &transitionTable{name: tr.oldTable, t: t, rows: old})
	}
	if tr.newTable != "" {
		out = append(out, &transitionTable{name: tr.newTable, t: t, rows: new})
	}
	return out
}

// transitionTable returns the running trigger's transition table of the
// name, nil for none.
func (s *Session) transitionTable(name string) *transitionTable {
	for _, tt := range s.transitions {
		if tt.name == name {
			return tt
		}
	}
	return nil
}

// transitionNames lists the running trigger's transition tables, for the
// plans that resolved names among them.
func (s *Session) transitionNames() string {
	var names []string
	for _, tt := range s.transitions {
		names = append(names, tt.name)
	}
	return strings.Join(names, "\x00")
}

// transitionItem compiles a FROM item reading a transition table: the
// rows of the trigger running when the plan runs, in the shape of tt's
// table.
func (b *binder) transitionItem(tt *transitionTable, alias string, a *pg_query.Alias) (*fromItem, []scopeCol, error) {
	cols := make([]scopeCol, len(tt.t.cols))
	for i, c := range tt.t.cols {
		cols[i] = scopeCol{rel: alias, name: c.name, typ: c.typ}
	}
	if err := applyColAliases(cols, a); err != nil {
		return nil, nil, err
	}
	name, width := tt.name, len(cols)
	sub := func(x *execCtx) ([][]any, error) {
		cur := x.s.transitionTable(name)
		if cur == nil || len(cur.t.cols) != width {
			return nil, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", name)
		}
		return cur.rows, nil
	}
	return &fromItem{name: alias, sub: sub, source: name}, cols, nil
}

// nullIfEmpty is s, or NULL for "".
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
