package sqlexec

import (
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// fill computes call ci's value for every row of the partition p into
// vals, as PostgreSQL's window functions (windowfuncs.c) and aggregates over
// frames do.
func (c *winCall) fill(p *winPartition, vals [][]any, ci int) error {
	n := len(p.idx)
	set := func(i int, v any) { vals[p.idx[i]][ci] = v }
	switch c.fn {
	case winRowNumber:
		for i := range n {
			set(i, int64(i+1))
		}
		return nil
	case winRank:
		for i := range n {
			set(i, int64(p.groupStart[p.group[i]]+1))
		}
		return nil
	case winDenseRank:
		for i := range n {
			set(i, int64(p.group[i]+1))
		}
		return nil
	case winPercentRank:
		for i := range n {
			v := 0.0
			if n > 1 {
				v = float64(p.groupStart[p.group[i]]) / float64(n-1)
			}
			set(i, v)
		}
		return nil
	case winCumeDist:
		for i := range n {
			set(i, float64(p.groupEnd(i))/float64(n))
		}
		return nil
	case winNtile:
		return c.ntile(p, set)
	case winLag, winLead:
		return c.shift(p, set)
	}
	return c.overFrames(p, set)
}

// ntile divides the partition into the number of buckets its argument
// gives at the partition's first row, the first buckets one row larger
// when they do not divide evenly.
func (c *winCall) ntile(p *winPartition, set func(int, any)) error {
	v, err := p.eval(c.args[0], 0)
	if err != nil || v == nil {
		return err // a NULL bucket count makes every row NULL
	}
	buckets := v.(int64)
	if buckets <= 0 {
		return pgerror.New(pgerror.InvalidArgumentForNtileFunction, "argument of ntile must be greater than zero")
	}
	n := int64(len(p.idx))
	per, extra := n/buckets, n%buckets
	bucket, inBucket := int64(1), int64(0)
	for i := range len(p.idx) {
		size := per
		if bucket <= extra {
			size++
		}
		if inBucket == size {
			bucket, inBucket = bucket+1, 0
		}
		inBucket++
		set(i, bucket)
	}
	return nil
}

// shift is lag and lead: the value at the row offset rows before (lag) or
// after (lead) in the partition, or the default outside it. The offset and
// default are evaluated at the current row.
func (c *winCall) shift(p *winPartition, set func(int, any)) error {
	for i := range len(p.idx) {
		if i%1024 == 0 {
			if err := p.x.checkCancel(); err != nil {
				return err
			}
		}
		off := int64(1)
		if len(c.args) > 1 {
			v, err := p.eval(c.args[1], i)
			if err != nil {
				return err
			}
			if v == nil {
				set(i, nil)
				continue
			}
			off = v.(int64)
		}
		if c.fn == winLag {
			off = -off
		}
		if t := int64(i) + off; t >= 0 && t < int64(len(p.idx)) {
			v, err := p.eval(c.args[0], int(t))
			if err != nil {
				return err
			}
			set(i, v)
			continue
		}
		var v any
		if len(c.args) > 2 {
			var err error
			if v, err = p.eval(c.args[2], i); err != nil {
				return err
			}
		}
		set(i, v)
	}
	return nil
}

// overFrames computes the functions that look at each row's frame:
// aggregates, first_value, last_value and nth_value.
func (c *winCall) overFrames(p *winPartition, set func(int, any)) error {
	n := len(p.idx)
	// The arguments (and FILTER) of every row, evaluated once.
	args := make([][]any, n)
	skip := make([]bool, n)
	for i := range n {
		if i%1024 == 0 {
			if err := p.x.checkCancel(); err != nil {
				return err
			}
		}
		p.x.row = p.rows[p.idx[i]]
		if c.filter != nil {
			v, err := c.filter.eval(p.x)
			if err != nil {
				return err
			}
			skip[i] = v != true
		}
		k := len(c.args)
		if c.fn == winNthValue {
			k = 1 // the position argument is read at the current row
		}
		a := make([]any, k)
		for j := range k {
			v, err := c.args[j].eval(p.x)
			if err != nil {
				return err
			}
			a[j] = v
		}
		args[i] = a
	}
	opts := p.win.frame.options
	// With the frame's head fixed and nothing excluded, an aggregate
	// accumulates as the frame's end advances.
	running := c.fn == winAggregate && opts&frameStartUnboundedPreceding != 0 && opts&frameExclusion == 0
	var acc types.Accumulator
	if running {
		acc = c.agg.New(p.x.env)
		p.bindUserAcc(acc)
	}
	var fs frameState
	// mark is where PostgreSQL's WindowObject for the call keeps its mark:
	// rows before it can no longer be fetched.
	mark := int64(-1)
	added, lastLo, lastHi := 0, -1, -1
	var last any
	for i := range n {
		if err := p.x.checkCancel(); err != nil {
			return err
		}
		lo, hi, err := p.bounds(&fs, i)
		if err != nil {
			return err
		}
		exA, exB, keep := p.excluded(i)
		if opts&frameExclusion == 0 && c.fn != winNthValue && lo == lastLo && hi == lastHi {
			set(i, last) // peers share their frame
			continue
		}
		var v any
		switch {
		case running:
			for ; added < hi; added++ {
				if !skip[added] {
					if err := acc.Add(args[added]); err != nil {
						return err
					}
				}
			}
			if v, err = acc.Result(); err != nil {
				return err
			}
		case c.fn == winAggregate:
			a := c.agg.New(p.x.env)
			p.bindUserAcc(a)
			for k := lo; k < hi; k++ {
				if k >= exA && k < exB && k != keep || skip[k] {
					continue
				}
				if err := a.Add(args[k]); err != nil {
					return err
				}
			}
			if v, err = a.Result(); err != nil {
				return err
			}
		default:
			if v, err = c.frameValue(p, i, lo, hi, exA, exB, keep, args, &mark); err != nil {
				return err
			}
		}
		set(i, v)
		last, lastLo, lastHi = v, lo, hi
	}
	return nil
}

// frameValue is first_value, last_value or nth_value of the row at i over
// its frame [lo, hi) less the excluded positions [exA, exB) but keep. It
// finds the row as PostgreSQL's WinGetFuncArgInFrame does: by position
// from the frame's head or tail, stepping over the excluded rows as if
// they were all inside the frame, then checking the row found is in the
// frame. Where the current row lies outside its own frame, EXCLUDE TIES
// makes that arithmetic land on the current row, and PostgreSQL answers
// NULL, as this does; and where that row is before the mark an earlier
// row's fetch set, PostgreSQL fails, as this does.
func (c *winCall) frameValue(p *winPartition, i, lo, hi, exA, exB, keep int, args [][]any, mark *int64) (any, error) {
	relpos, tail, setMark := int64(0), c.fn == winLastValue, true
	if c.fn == winNthValue {
		// nth_value moves the mark only when its position is a constant.
		setMark = c.args[1].refs == 0 && !c.args[1].volatile
		nv, err := p.eval(c.args[1], i)
		if err != nil || nv == nil {
			return nil, err
		}
		if relpos = nv.(int64) - 1; relpos < 0 {
			return nil, pgerror.New(pgerror.InvalidArgumentForNthValueFunction, "argument of nth_value must be greater than zero")
		}
	}
	opts := p.win.frame.options
	cur, gh, gt := int64(i), int64(p.groupStart[p.group[i]]), int64(p.groupEnd(i))
	head, end := int64(lo), int64(hi)
	var pos, markPos int64
	if !tail {
		pos = head + relpos
		markPos = pos
		switch {
		case opts&frameExcludeCurrentRow != 0:
			if pos >= cur && cur >= head {
				pos++
			}
		case opts&frameExcludeGroup != 0:
			if pos >= gh && gt > head {
				pos += gt - max(gh, head)
			}
		case opts&frameExcludeTies != 0:
			if pos >= gh && gt > head {
				if start := max(gh, head); pos == start {
					pos = cur
				} else {
					pos += gt - start - 1
				}
			}
		}
	} else {
		pos = end - 1
		markPos = head
		if opts&frameExclusion == 0 {
			markPos = pos
		}
		switch {
		case opts&frameExcludeCurrentRow != 0:
			if pos <= cur && cur < end {
				pos--
			}
		case opts&frameExcludeGroup != 0:
			if pos < gt && gh < end {
				pos -= min(gt, end) - gh
			}
		case opts&frameExcludeTies != 0:
			if pos < gt && gh < end {
				if stop := min(gt, end); pos == stop-1 {
					pos = cur
				} else {
					pos -= stop - 1 - gh
				}
			}
		}
		if opts&frameExclusion != 0 && pos < head {
			return nil, nil
		}
	}
	if pos < 0 || pos >= int64(len(p.idx)) {
		return nil, nil
	}
	if pos < *mark {
		return nil, pgerror.New(pgerror.InternalError, "cannot fetch row before WindowObject's mark position")
	}
	if pos < head || pos >= end || pos >= int64(exA) && pos < int64(exB) && pos != int64(keep) {
		return nil, nil
	}
	if setMark {
		*mark = markPos
	}
	return args[pos][0], nil
}

// bindUserAcc gives the accumulator of a user aggregate the partition's
// context, in which it evaluates its support functions.
func (p *winPartition) bindUserAcc(acc types.Accumulator) {
	if ua, ok := acc.(*userAcc); ok {
		ua.run = func() *execCtx { return p.x }
	}
}
