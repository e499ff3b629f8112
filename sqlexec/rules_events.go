package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The rows a statement's event hands to rules: for INSERT the rows it
// would insert (columns not given take the relation's defaults, a view's
// own ALTER VIEW ... SET DEFAULT ones), for UPDATE and DELETE the rows of
// the target that match, joined with the FROM / USING items. Each is NEW
// followed by OLD (len(t.cols) values each; the one the event lacks is
// NULL). They are computed again for every rule action, as PostgreSQL
// runs every action as a query of its own that sees the earlier ones'
// writes.

// eventRows yields the NEW and OLD rows of a statement's event.
type eventRows func(x *execCtx, emit func(newOld []any) error) error

// insertRows is the compiled source of INSERT into a relation with
// rules: each row with the columns it gives, before defaults.
type insertRows struct {
	n       int
	target  []int
	assigns []*arrayAssign
	src     insertSource
	w       *writer
}

// insertSourceRows compiles the rows INSERT into t gives.
func (b *binder) insertSourceRows(t *tableDesc, ins *pg_query.InsertStmt) (*insertRows, error) {
	target, assigns, err := b.insertTargets(t, ins)
	if err != nil {
		return nil, err
	}
	var ctes map[string]*ctePlan
	if w := ins.WithClause; w != nil {
		for _, c := range w.Ctes {
			if c.GetCommonTableExpr().GetCtequery().GetSelectStmt() == nil && w != b.topWith {
				return nil, pgerror.Unsupported("data-modifying WITH in INSERT into a relation with rules")
			}
		}
		if ctes, err = b.withClause(nil, w, nil); err != nil {
			return nil, err
		}
	}
	src, _, err := b.insertSourceFor(t, target, assigns, ins.Cols, ins.SelectStmt, ctes)
	if err != nil {
		return nil, err
	}
	w, err := b.writerFor(t, false)
	if err != nil {
		return nil, err
	}
	w.requireDefaults(nil)
	return &insertRows{n: len(t.cols), target: target, assigns: assigns, src: src, w: w}, nil
}

// each yields every row as NEW followed by OLD (NULL), with the columns
// it gives marked in given; the others are NULL until fill.
func (r *insertRows) each(x *execCtx, emit func(row []any, given []bool) error) error {
	return r.src(x, func(vals []any, isDefault []bool) error {
		row, given := make([]any, 2*r.n), make([]bool, r.n)
		if err := placeInserted(x, row, given, r.target, vals, isDefault, r.assigns, nil); err != nil {
			return err
		}
		return emit(row, given)
	})
}

// fill sets the columns of row not given to their defaults.
func (r *insertRows) fill(x *execCtx, row []any, given []bool) error {
	return r.w.fillDefaults(x, row[:r.n], given)
}

// events are the NEW rows, defaults filled in.
func (r *insertRows) events(x *execCtx, emit func([]any) error) error {
	return r.each(x, func(row []any, given []bool) error {
		if err := r.fill(x, row, given); err != nil {
			return err
		}
		return emit(row)
	})
}

// targetMatch is the compiled row source of UPDATE or DELETE: the target
// relation joined with the FROM / USING items, filtered by WHERE.
type targetMatch struct {
	items []*fromItem
	pre   []*conj
	sc    *scope
}

// matchTarget compiles the rows of rv (a table or a view) that UPDATE or
// DELETE with the extra FROM items and WHERE clause touches.
func (b *binder) matchTarget(rv *pg_query.RangeVar, extra []*pg_query.Node, where *pg_query.Node) (*targetMatch, error) {
	from := append([]*pg_query.Node{{Node: &pg_query.Node_RangeVar{RangeVar: rv}}}, extra...)
	items, sc, pending, err := b.buildFrom(nil, from, nil)
	if err != nil {
		return nil, err
	}
	m := &targetMatch{items: items, sc: sc}
	if err := b.placeConds(sc, items, pending, where, &m.pre); err != nil {
		return nil, err
	}
	chooseAccesses(items)
	planJoins(items)
	return m, nil
}

// collect returns the matching rows, each as wide as the scope (the
// target's columns first).
func (m *targetMatch) collect(x *execCtx) ([][]any, error) {
	var matched [][]any
	x.row, x.items = make([]any, len(m.sc.cols)), nil
	ok, err := allHold(x, m.pre, false)
	if err == nil && ok {
		ok, err = allHold(x, m.pre, true)
	}
	if err == nil && ok {
		err = runItems(x, m.items, 0, func() error {
			matched = append(matched, append([]any(nil), x.row...))
			return nil
		})
	}
	return matched, err
}

// modifyEvents compiles the OLD rows (and for UPDATE, setList non-nil,
// the NEW rows) of UPDATE or DELETE of t, named by rv.
func (b *binder) modifyEvents(t *tableDesc, rv *pg_query.RangeVar, extra []*pg_query.Node, where *pg_query.Node, setList []*pg_query.Node) (eventRows, error) {
	m, err := b.matchTarget(rv, extra, where)
	if err != nil {
		return nil, err
	}
	var sets []setTarget
	var w *writer
	if setList != nil {
		if sets, err = b.setTargets(t, m.sc, setList); err != nil {
			return nil, err
		}
		if w, err = b.writerFor(t, false); err != nil {
			return nil, err
		}
		w.requireDefaults(nil)
	}
	n := len(t.cols)
	return func(x *execCtx, emit func([]any) error) error {
		matched, err := m.collect(x)
		if err != nil {
			return err
		}
		for _, full := range matched {
			x.row = full
			row := make([]any, 2*n)
			copy(row[n:], full[:n])
			if sets != nil {
				copy(row, full[:n])
				for _, s := range sets {
					if s.e == nil {
						row[s.col] = nil
						if d := w.defaults[s.col]; d != nil {
							if row[s.col], err = d.eval(x); err != nil {
								return err
							}
						}
						continue
					}
					if row[s.col], err = s.value(x, row[s.col]); err != nil {
						return err
					}
				}
			}
			if err := emit(row); err != nil {
				return err
			}
		}
		return nil
	}, nil
}
