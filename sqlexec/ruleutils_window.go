package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// Window functions and WINDOW clauses as ruleutils prints them: the call,
// OVER and the window's name or its specification (get_rule_windowspec):
// a base window's name, PARTITION BY and ORDER BY keys as sort keys are
// printed, and a frame clause when it is not the default one. Frames with
// offsets or exclusions are not printed.

// windowResults are the result types of the window functions that are
// not aggregates; 0 marks those that return their first argument's.
var windowResults = map[string]types.Type{
	"row_number": types.Int8, "rank": types.Int8, "dense_rank": types.Int8, "percent_rank": types.Float8,
	"cume_dist": types.Float8, "ntile": types.Int4, "lag": {}, "lead": {}, "first_value": {}, "last_value": {},
	"nth_value": {},
}

// windowCall analyzes a call with OVER: an aggregate used as a window
// function, or one of the window functions.
func (d *deparser) windowCall(fc *pg_query.FuncCall) (*dnode, error) {
	if fc.AggDistinct || fc.FuncVariadic || len(fc.AggOrder) > 0 || fc.AggFilter != nil {
		return nil, errNotDeparsed
	}
	over, err := d.windowSpec(fc.Over, true)
	if err != nil {
		return nil, err
	}
	call := shallowCopy(fc).(*pg_query.FuncCall)
	call.Over = nil
	name := strings.ToLower(lastName(fc.Funcname))
	var out *dnode
	if result, ok := windowResults[name]; ok && len(fc.Funcname) == 1 {
		out = &dnode{kind: dFunc, op: name, typ: result}
		for _, a := range fc.Args {
			e, err := d.analyze(a)
			if err != nil {
				return nil, err
			}
			out.args = append(out.args, e)
		}
		if result.Oid == 0 {
			if len(out.args) == 0 {
				return nil, errNotDeparsed
			}
			out.typ = out.args[0].typ
		}
	} else if types.IsAggregate(name) {
		if out, err = d.aggregate(call, name); err != nil {
			return nil, err
		}
	} else {
		return nil, errNotDeparsed
	}
	out.over = over
	return out, nil
}

// windowSpec prints a window: in an OVER clause (call) a bare reference to
// a named window is its name.
func (d *deparser) windowSpec(w *pg_query.WindowDef, call bool) (string, error) {
	if call && w.Name != "" {
		return types.QuoteIdent(w.Name), nil
	}
	var parts []string
	if w.Refname != "" {
		parts = append(parts, types.QuoteIdent(w.Refname))
	}
	if len(w.PartitionClause) > 0 {
		keys, err := d.sortGroupKeys(w.PartitionClause, d.pretty)
		if err != nil {
			return "", err
		}
		parts = append(parts, "PARTITION BY "+keys)
	}
	if len(w.OrderClause) > 0 {
		keys, err := d.orderKeys(w.OrderClause, d.pretty)
		if err != nil {
			return "", err
		}
		parts = append(parts, "ORDER BY "+keys)
	}
	if frame, err := windowFrame(w.FrameOptions); err != nil {
		return "", err
	} else if frame != "" {
		parts = append(parts, frame)
	}
	return "(" + strings.Join(parts, " ") + ")", nil
}

// windowFrame prints a frame clause from its FRAMEOPTION_* bits, "" for
// the default frame.
func windowFrame(opts int32) (string, error) {
	if opts&frameNonDefault == 0 {
		return "", nil
	}
	if opts&(frameStartOffset|frameEndOffset|frameExclusion) != 0 {
		return "", errNotDeparsed
	}
	var kind string
	switch {
	case opts&frameRows != 0:
		kind = "ROWS "
	case opts&frameGroups != 0:
		kind = "GROUPS "
	default:
		kind = "RANGE "
	}
	bound := func(unboundedPreceding, currentRow, unboundedFollowing int32) string {
		switch {
		case opts&unboundedPreceding != 0:
			return "UNBOUNDED PRECEDING"
		case opts&currentRow != 0:
			return "CURRENT ROW"
		case opts&unboundedFollowing != 0:
			return "UNBOUNDED FOLLOWING"
		}
		return ""
	}
	start := bound(frameStartUnboundedPreceding, frameStartCurrentRow, frameStartUnboundedFollowing)
	if opts&frameBetween == 0 {
		return kind + start, nil
	}
	end := bound(frameEndUnboundedPreceding, frameEndCurrentRow, frameEndUnboundedFollowing)
	return kind + "BETWEEN " + start + " AND " + end, nil
}

// windowClause prints a query's WINDOW clause: its named windows.
func (d *deparser) windowClause(defs []*pg_query.Node) (string, error) {
	var out []string
	for _, n := range defs {
		w := n.GetWindowDef()
		if w == nil || w.Name == "" {
			return "", errNotDeparsed
		}
		spec, err := d.windowSpec(w, false)
		if err != nil {
			return "", err
		}
		out = append(out, types.QuoteIdent(w.Name)+" AS "+spec)
	}
	return "WINDOW " + strings.Join(out, ", "), nil
}
