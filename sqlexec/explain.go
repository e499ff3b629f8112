package sqlexec

import (
	"strconv"
	"strings"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// EXPLAIN [ANALYZE] prints the plan fickle chose for a statement: the tree
// of planNodes the planner built beside the statement's executable form
// (explain_plan.go). EXPLAIN ANALYZE runs the statement through the
// ordinary path (its reads and writes enter the history, DML really
// writes) with row counting on, and prints what each node produced.

// explainOptions are EXPLAIN's options, as PostgreSQL 15 accepts them.
type explainOptions struct {
	analyze, verbose, costs, timing, summary, buffers, settings, wal bool
	format                                                           string
}

// explainOptionsOf reads the options list, with PostgreSQL's errors: an
// unknown option is a syntax error (42601), a bad value or a combination
// that needs ANALYZE is 22023.
func (b *binder) explainOptionsOf(list []*pg_query.Node) (explainOptions, error) {
	o := explainOptions{costs: true, format: "text"}
	var timingSet, summarySet bool
	for _, n := range list {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		var err error
		switch d.Defname {
		case "analyze":
			o.analyze, err = defBoolean(d)
		case "verbose":
			o.verbose, err = defBoolean(d)
		case "costs":
			o.costs, err = defBoolean(d)
		case "buffers":
			o.buffers, err = defBoolean(d)
		case "wal":
			o.wal, err = defBoolean(d)
		case "settings":
			o.settings, err = defBoolean(d)
		case "timing":
			timingSet = true
			o.timing, err = defBoolean(d)
		case "summary":
			summarySet = true
			o.summary, err = defBoolean(d)
		case "format":
			v := defArgString(d)
			switch v {
			case "text", "json", "yaml", "xml":
				o.format = v
			default:
				err = b.errAt(pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized value for EXPLAIN option \"%s\": \"%s\"", d.Defname, v), d.Location)
			}
		default:
			err = b.errAt(pgerror.Newf(pgerror.SyntaxError, "unrecognized EXPLAIN option \"%s\"", d.Defname), d.Location)
		}
		if err != nil {
			return o, err
		}
	}
	if o.wal && !o.analyze {
		return o, pgerror.New(pgerror.InvalidParameterValue, "EXPLAIN option WAL requires ANALYZE")
	}
	if !timingSet {
		o.timing = o.analyze
	}
	if o.timing && !o.analyze {
		return o, pgerror.New(pgerror.InvalidParameterValue, "EXPLAIN option TIMING requires ANALYZE")
	}
	if !summarySet {
		o.summary = o.analyze
	}
	return o, nil
}

// defArgString is an option's value as text: a word, a string or a
// number as written.
func defArgString(d *pg_query.DefElem) string {
	switch a := d.Arg.GetNode().(type) {
	case *pg_query.Node_String_:
		return a.String_.Sval
	case *pg_query.Node_Integer:
		return strconv.Itoa(int(a.Integer.Ival))
	case *pg_query.Node_Float:
		return a.Float.Fval
	case *pg_query.Node_Boolean:
		return strconv.FormatBool(a.Boolean.Boolval)
	}
	return ""
}

// defBoolean reads a Boolean option as PostgreSQL's defGetBoolean: no
// value means true; 0 and 1, true/false, on/off (any case) are accepted.
func defBoolean(d *pg_query.DefElem) (bool, error) {
	if d.Arg == nil {
		return true, nil
	}
	if i := d.Arg.GetInteger(); i != nil {
		switch i.Ival {
		case 0:
			return false, nil
		case 1:
			return true, nil
		}
	} else {
		switch strings.ToLower(defArgString(d)) {
		case "true", "on":
			return true, nil
		case "false", "off":
			return false, nil
		}
	}
	return false, pgerror.Newf(pgerror.SyntaxError, "%s requires a Boolean value", d.Defname)
}

// explainPlan compiles EXPLAIN: the plan of the statement it explains,
// and an exec that prints it, after running it under ANALYZE.
func (b *binder) explainPlan(st *Statement, es *pg_query.ExplainStmt) (*stmtPlan, error) {
	o, err := b.explainOptionsOf(es.Options)
	if err != nil {
		return nil, err
	}
	if ex := es.Query.GetExecuteStmt(); ex != nil {
		return explainExecutePlan(o, ex, st.full), nil
	}
	query := es.Query
	if dc := query.GetDeclareCursorStmt(); dc != nil {
		// The plan of the cursor's query; PostgreSQL's shows what a SCROLL
		// cursor adds to let it run backwards, which fickle's does not need.
		if o.analyze {
			return nil, pgerror.Unsupported("EXPLAIN ANALYZE DECLARE")
		}
		if _, err := declaredQuery(dc); err != nil {
			return nil, err
		}
		query = dc.Query
	}
	planStart := time.Now()
	mark := len(b.perms)
	inner, err := b.statement(&Statement{sql: st.sql, offset: st.offset, full: st.full, node: query})
	if err != nil {
		return nil, err
	}
	if !o.analyze {
		b.perms = withoutUnpopulatedChecks(b.perms, mark) // a plan that does not run reads no materialized view
	}
	if inner.node == nil && es.Query.GetMergeStmt() != nil {
		return nil, pgerror.Unsupported("EXPLAIN MERGE")
	}
	if inner.node == nil {
		return nil, pgerror.Unsupported("EXPLAIN of " + nodeKind(es.Query))
	}
	planning := time.Since(planStart)
	b.claimSubplans(0, inner.node)
	p := &stmtPlan{cols: explainResultCols(o), noCache: true}
	if o.analyze {
		// The statement runs: it needs what running it needs.
		p.writes, p.table, p.predicate, p.noTxn = inner.writes, inner.table, inner.predicate, inner.noTxn
	}
	p.exec = func(x *execCtx) (*Result, error) {
		if skip := createAsSkipped(x, es.Query.GetCreateTableAsStmt()); skip != nil {
			return skip, nil
		}
		var stats planStats
		var execution time.Duration
		if o.analyze {
			stats = planStats{}
			cx := *x
			cx.stats = stats
			start := time.Now()
			if _, err := inner.exec(&cx); err != nil {
				return nil, err
			}
			execution = time.Since(start)
		}
		doc := explainDoc{opts: o, root: inner.node, stats: stats, planning: planning, execution: execution}
		return doc.result(), nil
	}
	return p, nil
}

// result is EXPLAIN's result: the rendered document.
func (d *explainDoc) result() *Result {
	var rows [][]any
	for _, line := range d.render() {
		rows = append(rows, []any{line})
	}
	return &Result{Rows: rows, Tag: "EXPLAIN"}
}

// explainResultCols is EXPLAIN's result column in format o.
func explainResultCols(o explainOptions) []outCol {
	if o.format == "json" {
		return []outCol{{Name: "QUERY PLAN", typ: types.JSON}}
	}
	return []outCol{{Name: "QUERY PLAN", typ: types.Text}}
}

// explainExecutePlan compiles EXPLAIN EXECUTE, which came in the query
// string full. As PostgreSQL's ExplainExecuteQuery, it finds the prepared
// statement, evaluates the arguments and binds it when it runs (counting
// the plan in pg_prepared_statements), then shows that statement's plan;
// under ANALYZE the statement runs with the arguments.
func explainExecutePlan(o explainOptions, es *pg_query.ExecuteStmt, full string) *stmtPlan {
	p := &stmtPlan{cols: explainResultCols(o), noCache: true}
	p.exec = func(x *execCtx) (*Result, error) {
		planStart := time.Now()
		be, err := x.bindExecute(es, full)
		if err != nil {
			return nil, err
		}
		if be.p == nil || be.p.plan.node == nil {
			kind := "a statement that is not an ordinary one"
			if be.p != nil {
				kind = nodeKind(be.p.Statement.node)
			}
			return nil, pgerror.Unsupported("EXPLAIN EXECUTE of " + kind)
		}
		if err := be.open(x, o.analyze); err != nil {
			return nil, err
		}
		planning := time.Since(planStart)
		var stats planStats
		var execution time.Duration
		if o.analyze {
			stats = planStats{}
			start := time.Now()
			if _, err := be.run(x, stats); err != nil {
				return nil, err
			}
			execution = time.Since(start)
		}
		doc := explainDoc{opts: o, root: be.p.plan.node, stats: stats, planning: planning, execution: execution}
		return doc.result(), nil
	}
	return p
}
