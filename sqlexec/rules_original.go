package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The original statement a rewrite keeps when no unconditional INSTEAD
// rule replaces it: unchanged, or restricted to the rows no conditional
// INSTEAD rule takes (UPDATE and DELETE by their WHERE clause, INSERT one
// row at a time).

// originalRun is the original statement a rewrite keeps.
type originalRun struct {
	plan *stmtPlan
	// rows, for INSERT restricted by conditional INSTEAD rules, are the
	// rows plan (INSERT of one row given as parameters) runs for, each
	// where none of conds holds. A condition sees the defaults of the
	// columns it reads (condCols), and the row inserted its own, as
	// PostgreSQL evaluates a default once in each place NEW names it.
	rows     *insertRows
	conds    []*stmtPlan
	condCols [][]int
}

// originalRun plans the statement the rules keep: unchanged, or for
// conditional INSTEAD rules restricted to the rows none of them takes.
func (b *binder) originalRun(t *tableDesc, rv *pg_query.RangeVar, stmt *pg_query.Node, rows *insertRows, qualified []*ruleDesc, stack []ruleEvent) (*originalRun, error) {
	if ins := stmt.GetInsertStmt(); ins != nil && len(qualified) > 0 {
		return b.insertPerRow(t, ins, rows, qualified, stack)
	}
	node := stmt
	if len(qualified) > 0 {
		var err error
		if node, err = withInvertedQuals(stmt, rv, qualified); err != nil {
			return nil, err
		}
	}
	b.plainTarget = t.oid
	p, err := b.statement(&Statement{node: node})
	b.plainTarget = 0
	if err != nil {
		return nil, err
	}
	return &originalRun{plan: p}, nil
}

// insertPerRow plans INSERT into t, kept for the NEW rows that no
// conditional INSTEAD rule takes: one row at a time, its values (defaults
// filled in) given as parameters.
func (b *binder) insertPerRow(t *tableDesc, ins *pg_query.InsertStmt, rows *insertRows, qualified []*ruleDesc, stack []ruleEvent) (*originalRun, error) {
	run := &originalRun{rows: rows}
	for _, r := range qualified {
		cond, _, err := b.ruleCond(t, r.event, r.where, stack)
		if err != nil {
			return nil, err
		}
		run.conds = append(run.conds, cond)
		run.condCols = append(run.condCols, newColumns(t, r.where))
	}
	row := &pg_query.List{}
	for i := range t.cols {
		row.Items = append(row.Items, &pg_query.Node{Node: &pg_query.Node_ParamRef{ParamRef: &pg_query.ParamRef{Number: int32(i + 1)}}})
	}
	one := &pg_query.InsertStmt{Relation: proto.Clone(ins.Relation).(*pg_query.RangeVar), Override: pg_query.OverridingKind_OVERRIDING_SYSTEM_VALUE,
		SelectStmt: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: &pg_query.SelectStmt{ValuesLists: []*pg_query.Node{{Node: &pg_query.Node_List{List: row}}},
			Op: pg_query.SetOperation_SETOP_NONE, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT}}},
		ReturningList: ins.ReturningList}
	ib := b.ruleBinder(t, stack)
	ib.vars, ib.plainTarget = nil, t.oid
	p, err := ib.statement(&Statement{node: &pg_query.Node{Node: &pg_query.Node_InsertStmt{InsertStmt: one}}})
	if err != nil {
		return nil, err
	}
	p.locks, p.perms = ib.locks, ib.perms
	run.plan = p
	return run, nil
}

// run runs the original statement.
func (o *originalRun) run(x *execCtx) (*Result, error) {
	if o.rows == nil {
		return o.plan.exec(stepCtx(x))
	}
	type pending struct {
		row   []any
		given []bool
	}
	var all []pending
	cx := stepCtx(x)
	if err := o.rows.each(cx, func(row []any, given []bool) error { all = append(all, pending{row, given}); return nil }); err != nil {
		return nil, err
	}
	s := x.s
	var n int64
	var rows [][]any
	for _, p := range all {
		taken := false
		for i, c := range o.conds {
			vals, given := slices.Clone(p.row), slices.Clone(p.given)
			for k := range given {
				given[k] = given[k] || !slices.Contains(o.condCols[i], k)
			}
			if err := o.rows.fill(cx, vals, given); err != nil {
				return nil, err
			}
			res, err := s.runRoutineStatement(x, c, vals, "")
			if err != nil {
				return nil, err
			}
			if taken = len(res.Rows) == 1 && res.Rows[0][0] == true; taken {
				break
			}
		}
		if taken {
			continue
		}
		if err := o.rows.fill(cx, p.row, p.given); err != nil {
			return nil, err
		}
		res, err := s.runRoutineStatement(x, o.plan, p.row[:o.rows.n], "")
		if err != nil {
			return nil, err
		}
		n += rowCount(res)
		rows = append(rows, res.Rows...)
	}
	res := &Result{Tag: commandTag(pg_query.CmdType_CMD_INSERT, n)}
	if o.plan.cols != nil {
		res.Rows = rows
	}
	return res, nil
}

// newColumns lists the columns of t that NEW.col references in n name.
func newColumns(t *tableDesc, n *pg_query.Node) []int {
	var cols []int
	walk(n, func(m *pg_query.Node) bool {
		if cr := m.GetColumnRef(); cr != nil && len(cr.Fields) == 2 && cr.Fields[0].GetString_().GetSval() == "new" {
			if i := t.colIndex(cr.Fields[1].GetString_().GetSval()); i >= 0 {
				cols = append(cols, i)
			}
		}
		return true
	})
	return cols
}

// withInvertedQuals returns UPDATE or DELETE stmt restricted to the rows
// for which none of the conditional INSTEAD rules' conditions is true:
// their OLD is the target row, NEW (UPDATE) the row with the SET list
// applied.
func withInvertedQuals(stmt *pg_query.Node, rv *pg_query.RangeVar, rules []*ruleDesc) (*pg_query.Node, error) {
	n := proto.Clone(stmt).(*pg_query.Node)
	target := rv.Relname
	if rv.Alias != nil {
		target = rv.Alias.Aliasname
	}
	sets := map[string]*pg_query.Node{}
	var where **pg_query.Node
	switch s := n.Node.(type) {
	case *pg_query.Node_UpdateStmt:
		for _, it := range s.UpdateStmt.TargetList {
			rt := it.GetResTarget()
			if len(rt.Indirection) > 0 || rt.Val.GetMultiAssignRef() != nil || rt.Val.GetSetToDefault() != nil {
				return nil, pgerror.Unsupported("UPDATE with subscripted, multiple-column or DEFAULT assignments under conditional DO INSTEAD rules")
			}
			sets[rt.Name] = rt.Val
		}
		where = &s.UpdateStmt.WhereClause
	case *pg_query.Node_DeleteStmt:
		where = &s.DeleteStmt.WhereClause
	}
	for _, r := range rules {
		q := proto.Clone(r.where).(*pg_query.Node)
		walk(q, func(m *pg_query.Node) bool {
			cr := m.GetColumnRef()
			if cr == nil || len(cr.Fields) != 2 {
				return true
			}
			rel, col := cr.Fields[0].GetString_().GetSval(), cr.Fields[1].GetString_().GetSval()
			if rel == "new" {
				if e, ok := sets[col]; ok {
					m.Node = proto.Clone(e).(*pg_query.Node).Node
					return false
				}
			}
			if rel == "new" || rel == "old" {
				cr.Fields[0] = pg_query.MakeStrNode(target)
			}
			return false
		})
		notTrue := &pg_query.Node{Node: &pg_query.Node_BooleanTest{BooleanTest: &pg_query.BooleanTest{Arg: q, Booltesttype: pg_query.BoolTestType_IS_NOT_TRUE, Location: -1}}}
		if *where == nil {
			*where = notTrue
		} else {
			*where = pg_query.MakeBoolExprNode(pg_query.BoolExprType_AND_EXPR, []*pg_query.Node{*where, notTrue}, -1)
		}
	}
	return n, nil
}
