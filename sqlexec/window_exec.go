package sqlexec

import (
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// compute fills, for every row (the query level's rows before projection),
// the value of every window call. It also returns the order PostgreSQL's
// executor would emit the rows in: sorted for the window evaluated last,
// which a query without its own ORDER BY keeps. Windows are evaluated in
// the planner's order, each sorting the rows as the one before left them
// with PostgreSQL's own quicksort, so that peers come out in PostgreSQL's
// order: frames of ROWS, first_value, row_number and the like show it.
func (ws *winScope) compute(x *execCtx, rows [][]any) ([][]any, []int, error) {
	vals := make([][]any, len(rows))
	for i := range vals {
		vals[i] = make([]any, len(ws.calls))
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	for _, d := range ws.evalOrder() {
		parts, keys, err := d.partitions(x, rows, order)
		if err != nil {
			return nil, nil, err
		}
		for ci, c := range ws.calls {
			if c.win != d {
				continue
			}
			var offs frameOffsets
			for pi, idx := range parts {
				if pi == 0 {
					if offs, err = c.win.frame.offsets(x, rows[idx[0]]); err != nil {
						return nil, nil, err
					}
				}
				p := &winPartition{x: x, rows: rows, idx: idx, keys: keys, win: c.win, offs: offs}
				p.peerGroups()
				if err := c.fill(p, vals, ci); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	return vals, order, nil
}

// evalOrder lists the windows that calls use in the order PostgreSQL's
// planner evaluates them (select_active_windows): sorted by their sort
// keys, compared by sort group reference, later references first, with a
// window whose keys are a prefix of another's after it.
func (ws *winScope) evalOrder() []*winDef {
	refs := map[string]int{}
	ref := func(e string) int {
		if _, ok := refs[e]; !ok {
			refs[e] = len(refs) + 1
		}
		return refs[e]
	}
	for _, e := range ws.leading {
		ref(e)
	}
	for _, d := range ws.defs {
		// PostgreSQL binds a window's ORDER BY before its PARTITION BY.
		for _, k := range append(slices.Clip(d.keys[len(d.partition):]), d.keys[:len(d.partition)]...) {
			ref(k.expr)
		}
	}
	var active []*winDef
	for _, d := range ws.defs {
		for _, c := range ws.calls {
			if c.win == d {
				active = append(active, d)
				break
			}
		}
	}
	unique := func(d *winDef) []winKey {
		var out []winKey
		for i, k := range d.keys {
			if i < len(d.partition) || !slices.Contains(d.keys[:len(d.partition)], k) {
				out = append(out, k)
			}
		}
		return out
	}
	flag := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	types.PGQsort(active, func(a, b *winDef) int {
		ka, kb := unique(a), unique(b)
		for i := 0; i < len(ka) && i < len(kb); i++ {
			if c := ref(kb[i].expr) - ref(ka[i].expr); c != 0 {
				return c
			}
			if c := flag(kb[i].desc) - flag(ka[i].desc); c != 0 {
				return c
			}
			if c := flag(kb[i].nullsFirst) - flag(ka[i].nullsFirst); c != 0 {
				return c
			}
		}
		return len(kb) - len(ka)
	})
	return active
}

// partitions sorts order, the rows as the previous window left them, by
// the window's PARTITION BY (ascending, NULLs last, as PostgreSQL sorts
// partitions) and ORDER BY, and splits it into partitions; keys holds each
// row's ORDER BY values.
func (d *winDef) partitions(x *execCtx, rows [][]any, order []int) ([][]int, [][]any, error) {
	np := len(d.partition)
	all := make([][]any, len(rows))
	keys := make([][]any, len(rows))
	exprs := append(slices.Clip(d.partition), d.orderBy...)
	for i, r := range rows {
		if i%1024 == 0 {
			if err := x.checkCancel(); err != nil {
				return nil, nil, err
			}
		}
		x.row = r
		k := make([]any, np+len(d.orderBy))
		for j, e := range exprs {
			v, err := e.eval(x)
			if err != nil {
				return nil, nil, err
			}
			k[j] = v
		}
		all[i], keys[i] = k, k[np:]
	}
	sortKeys := make([]sortKey, 0, np+len(d.order))
	for j, p := range d.partition {
		sortKeys = append(sortKeys, sortKey{col: j, typ: p.typ})
	}
	for _, k := range d.order {
		k.col += np
		sortKeys = append(sortKeys, k)
	}
	if len(sortKeys) > 0 {
		types.PGQsort(order, func(a, b int) int { return compareKeys(all[a], all[b], sortKeys) })
	}
	var out [][]int
	for i, r := range order {
		if i == 0 || compareKeys(all[order[i-1]], all[r], sortKeys[:np]) != 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], r)
	}
	return out, keys, nil
}

// frameOffsets are a frame's offsets, evaluated once per statement as
// PostgreSQL does when the first partition begins.
type frameOffsets struct{ start, end any }

func (f *winFrame) offsets(x *execCtx, row []any) (frameOffsets, error) {
	var o frameOffsets
	x.row = row
	for _, b := range []struct {
		e    *scalar
		v    *any
		name string
	}{{f.start, &o.start, "starting"}, {f.end, &o.end, "ending"}} {
		if b.e == nil {
			continue
		}
		v, err := b.e.eval(x)
		if err != nil {
			return o, err
		}
		if v == nil {
			return o, pgerror.Newf(pgerror.NullValueNotAllowed, "frame %s offset must not be null", b.name)
		}
		if f.options&frameRange == 0 && v.(int64) < 0 {
			return o, pgerror.Newf(pgerror.InvalidPrecedingOrFollowingSize, "frame %s offset must not be negative", b.name)
		}
		*b.v = v
	}
	return o, nil
}

// winPartition is one partition of a window, sorted: idx lists its rows'
// indexes in rows; positions below are indexes into idx.
type winPartition struct {
	x    *execCtx
	rows [][]any
	idx  []int
	keys [][]any
	win  *winDef
	offs frameOffsets
	// group is each position's peer group; groupStart[g] the first
	// position of group g, with len(idx) appended.
	group      []int
	groupStart []int
}

// peerGroups numbers the runs of rows that the ORDER BY does not tell
// apart; without ORDER BY the whole partition is one group.
func (p *winPartition) peerGroups() {
	n := len(p.idx)
	p.group = make([]int, n)
	p.groupStart = append(p.groupStart[:0], 0)
	for i := 1; i < n; i++ {
		g := p.group[i-1]
		if len(p.win.order) > 0 && compareKeys(p.keys[p.idx[i-1]], p.keys[p.idx[i]], p.win.order) != 0 {
			g++
			p.groupStart = append(p.groupStart, i)
		}
		p.group[i] = g
	}
	p.groupStart = append(p.groupStart, n)
}

func (p *winPartition) groupEnd(i int) int { return p.groupStart[p.group[i]+1] }

// eval evaluates e on the row at position i.
func (p *winPartition) eval(e *scalar, i int) (any, error) {
	p.x.row = p.rows[p.idx[i]]
	return e.eval(p.x)
}

// frameState walks the frames of a partition's rows in order: RANGE
// bounds with offsets only move forward, as in PostgreSQL's executor.
type frameState struct {
	head, tail int
}

// bounds returns the frame of the row at position i as positions [lo, hi),
// before exclusion.
func (p *winPartition) bounds(fs *frameState, i int) (lo, hi int, err error) {
	n, opts := len(p.idx), p.win.frame.options
	g := p.group[i]
	groupAt := func(k int) int { // the start of group k, clamped
		switch {
		case k < 0:
			return 0
		case k >= len(p.groupStart)-1:
			return n
		}
		return p.groupStart[k]
	}
	// Start.
	switch {
	case opts&frameStartUnboundedPreceding != 0:
		lo = 0
	case opts&frameStartCurrentRow != 0:
		lo = i
		if opts&frameRows == 0 {
			lo = p.groupStart[g]
		}
	case opts&frameRows != 0:
		lo = clampAdd(i, p.offs.start.(int64), opts&frameStartOffsetPreceding != 0, n)
	case opts&frameGroups != 0:
		lo = groupAt(clampAdd(g, p.offs.start.(int64), opts&frameStartOffsetPreceding != 0, len(p.groupStart)))
	default:
		sub, less := opts&frameStartOffsetPreceding != 0, false
		for fs.head < n {
			in, err := p.rangeBound(fs.head, i, p.offs.start, sub, less, true)
			if err != nil {
				return 0, 0, err
			}
			if in {
				break
			}
			fs.head++
		}
		lo = fs.head
	}
	// End.
	switch {
	case opts&frameEndUnboundedFollowing != 0:
		hi = n
	case opts&frameEndCurrentRow != 0:
		hi = i + 1
		if opts&frameRows == 0 {
			hi = p.groupEnd(i)
		}
	case opts&frameRows != 0:
		hi = clampAdd(i, p.offs.end.(int64), opts&frameEndOffsetPreceding != 0, n) + 1
		if opts&frameEndOffsetPreceding != 0 && p.offs.end.(int64) > int64(i) {
			hi = 0
		}
		hi = min(hi, n)
	case opts&frameGroups != 0:
		k := clampAdd(g, p.offs.end.(int64), opts&frameEndOffsetPreceding != 0, len(p.groupStart))
		if opts&frameEndOffsetPreceding != 0 && p.offs.end.(int64) > int64(g) {
			hi = 0
		} else {
			hi = groupAt(k + 1)
		}
	default:
		sub, less := opts&frameEndOffsetPreceding != 0, true
		for fs.tail < n {
			in, err := p.rangeBound(fs.tail, i, p.offs.end, sub, less, false)
			if err != nil {
				return 0, 0, err
			}
			if !in {
				break
			}
			fs.tail++
		}
		hi = fs.tail
	}
	return lo, max(hi, lo), nil
}

// clampAdd is i - off (sub) or i + off, clamped to [0, limit].
func clampAdd(i int, off int64, sub bool, limit int) int {
	if sub {
		if off > int64(i) {
			return 0
		}
		return i - int(off)
	}
	if off > int64(limit-i) {
		return limit
	}
	return i + int(off)
}

// rangeBound decides, for a RANGE frame with an offset, whether the row at
// position at is past the frame's start (head) or still inside its end
// (tail) for the current row cur: PostgreSQL's in_range test, with NULLs
// placed by NULLS FIRST / LAST and a descending order flipping the test.
func (p *winPartition) rangeBound(at, cur int, offset any, sub, less, head bool) (bool, error) {
	k := p.win.order[0]
	v, c := p.keys[p.idx[at]][0], p.keys[p.idx[cur]][0]
	if v == nil || c == nil {
		if head {
			// The head stops at the first row not ordered before every
			// row the current one could be a peer of.
			if k.nullsFirst {
				return v != nil || c == nil, nil
			}
			return v == nil || c != nil, nil
		}
		if k.nullsFirst {
			return v == nil, nil
		}
		return c == nil, nil
	}
	if k.desc {
		sub, less = !sub, !less
	}
	t := k.typ
	if t.Oid == types.OidVarchar || t.Oid == types.OidBpchar || t.Oid == types.OidName {
		t = types.Text
	}
	return types.InRange(p.x.env, t, v, c, offset, sub, less)
}

// excluded returns the positions EXCLUDE takes out of the row at i's
// frame: [a, b) except keep.
func (p *winPartition) excluded(i int) (a, b, keep int) {
	opts := p.win.frame.options
	switch {
	case opts&frameExcludeCurrentRow != 0:
		return i, i + 1, -1
	case opts&frameExcludeGroup != 0:
		return p.groupStart[p.group[i]], p.groupEnd(i), -1
	case opts&frameExcludeTies != 0:
		return p.groupStart[p.group[i]], p.groupEnd(i), i
	}
	return 0, 0, -1
}
