package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// Window functions and WINDOW clauses as ruleutils prints them: the call,
// OVER and the window's name or its specification (get_rule_windowspec):
// a base window's name, PARTITION BY and ORDER BY keys as sort keys are
// printed, and a frame clause when it is not the default one, with its
// offsets as the frame takes them (ROWS and GROUPS as bigint, RANGE as
// the in_range type chosen for the ORDER BY key) and its exclusion.

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
	if fc.AggDistinct || fc.FuncVariadic || len(fc.AggOrder) > 0 {
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
	} else if fc.AggFilter != nil {
		return nil, errNotDeparsed // FILTER is for aggregates
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
	if frame, err := d.windowFrame(w); err != nil {
		return "", err
	} else if frame != "" {
		parts = append(parts, frame)
	}
	return "(" + strings.Join(parts, " ") + ")", nil
}

// windowFrame prints w's frame clause from its FRAMEOPTION_* bits and
// offsets, "" for the default frame.
func (d *deparser) windowFrame(w *pg_query.WindowDef) (string, error) {
	opts := w.FrameOptions
	if opts&frameNonDefault == 0 {
		return "", nil
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
	offset := func(n *pg_query.Node) (string, error) {
		off, err := d.analyze(n)
		if err != nil {
			return "", err
		}
		to := types.Int8
		if kind == "RANGE " {
			if len(w.OrderClause) != 1 {
				return "", errNotDeparsed
			}
			key, err := d.analyze(w.OrderClause[0].GetSortBy().Node)
			if err != nil {
				return "", err
			}
			from := off.typ
			if off.literal {
				from = types.Unknown
			}
			chosen, perr := rangeOffsetType(key.typ, from)
			if perr != nil {
				return "", perr
			}
			to = chosen
		}
		return d.print(d.coerce(off, to), nil, d.pretty, false), nil
	}
	bound := func(unboundedPreceding, currentRow, unboundedFollowing, offsetPreceding, offsetFollowing int32, n *pg_query.Node) (string, error) {
		switch {
		case opts&unboundedPreceding != 0:
			return "UNBOUNDED PRECEDING", nil
		case opts&currentRow != 0:
			return "CURRENT ROW", nil
		case opts&unboundedFollowing != 0:
			return "UNBOUNDED FOLLOWING", nil
		case opts&(offsetPreceding|offsetFollowing) != 0:
			off, err := offset(n)
			if opts&offsetPreceding != 0 {
				return off + " PRECEDING", err
			}
			return off + " FOLLOWING", err
		}
		return "", errNotDeparsed
	}
	frame, err := bound(frameStartUnboundedPreceding, frameStartCurrentRow, frameStartUnboundedFollowing,
		frameStartOffsetPreceding, frameStartOffsetFollowing, w.StartOffset)
	if err != nil {
		return "", err
	}
	if opts&frameBetween != 0 {
		end, err := bound(frameEndUnboundedPreceding, frameEndCurrentRow, frameEndUnboundedFollowing,
			frameEndOffsetPreceding, frameEndOffsetFollowing, w.EndOffset)
		if err != nil {
			return "", err
		}
		frame = "BETWEEN " + frame + " AND " + end
	}
	switch {
	case opts&frameExcludeCurrentRow != 0:
		frame += " EXCLUDE CURRENT ROW"
	case opts&frameExcludeGroup != 0:
		frame += " EXCLUDE GROUP"
	case opts&frameExcludeTies != 0:
		frame += " EXCLUDE TIES"
	}
	return kind + frame, nil
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
