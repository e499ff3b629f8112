package types

import (
	"math"
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// ts_rank and ts_rank_cd (tsrank.c), in PostgreSQL's mix of float and
// double arithmetic so that the real results agree to the last digit.

// tsDefaultWeights are the weights of D, C, B and A.
var tsDefaultWeights = [4]float32{0.1, 0.2, 0.4, 1.0}

// The normalization flags.
const (
	rankNormLogLength  = 0x01
	rankNormLength     = 0x02
	rankNormExtDist    = 0x04
	rankNormUniq       = 0x08
	rankNormLogUniq    = 0x10
	rankNormRDivRPlus1 = 0x20
)

func init() {
	float4Array, _ := ArrayOf(Float4)
	for _, name := range []string{"ts_rank", "ts_rank_cd"} {
		rank := calcRank
		if name == "ts_rank_cd" {
			rank = calcRankCD
		}
		addFunc(name, Immutable, Float4, func(_ *Env, a []any) (any, error) {
			return float64(rank(tsDefaultWeights, a[0].(TSVector), a[1].(TSQuery), 0)), nil
		}, TSVectorType, TSQueryType)
		addFunc(name, Immutable, Float4, func(_ *Env, a []any) (any, error) {
			return float64(rank(tsDefaultWeights, a[0].(TSVector), a[1].(TSQuery), int(a[2].(int64)))), nil
		}, TSVectorType, TSQueryType, Int4)
		addFunc(name, Immutable, Float4, func(_ *Env, a []any) (any, error) {
			w, err := tsRankWeights(a[0])
			if err != nil {
				return nil, err
			}
			return float64(rank(w, a[1].(TSVector), a[2].(TSQuery), 0)), nil
		}, float4Array, TSVectorType, TSQueryType)
		addFunc(name, Immutable, Float4, func(_ *Env, a []any) (any, error) {
			w, err := tsRankWeights(a[0])
			if err != nil {
				return nil, err
			}
			return float64(rank(w, a[1].(TSVector), a[2].(TSQuery), int(a[3].(int64)))), nil
		}, float4Array, TSVectorType, TSQueryType, Int4)
	}
}

// tsRankWeights is getWeights: a real[] of at least four weights, a
// negative one meaning the default.
func tsRankWeights(arr any) ([4]float32, error) {
	var w [4]float32
	dims, _, _ := ArrayShapeOf(Type{}, arr)
	if len(dims) != 1 {
		return w, pgerror.New(pgerror.ArraySubscriptError, "array of weight must be one-dimensional")
	}
	elems := flatElems(arr)
	if len(elems) < 4 {
		return w, pgerror.New(pgerror.ArraySubscriptError, "array of weight is too short")
	}
	if slices.Contains(elems, nil) {
		return w, pgerror.New(pgerror.NullValueNotAllowed, "array of weight must not contain nulls")
	}
	for i := range w {
		f := float32(elems[i].(float64))
		if f >= 0 {
			w[i] = f
		} else {
			w[i] = tsDefaultWeights[i]
		}
		if w[i] > 1.0 {
			return w, pgerror.New(pgerror.InvalidParameterValue, "weight out of range")
		}
	}
	return w, nil
}

// tsqueryItems are q's items in PostgreSQL's polish order: an operator,
// its right operand, its left operand.
func tsqueryItems(q TSQuery) []*tsqNode {
	var out []*tsqNode
	var walk func(n *tsqNode)
	walk = func(n *tsqNode) {
		out = append(out, n)
		if n.kind == qiOpr {
			walk(n.right)
			if n.op != opNot {
				walk(n.left)
			}
		}
	}
	if q.root != nil {
		walk(q.root)
	}
	return out
}

// sortAndUniqItems is SortAndUniqItems: the operands by text, each text
// once.
func sortAndUniqItems(q TSQuery) []*tsqNode {
	var ops []*tsqNode
	for _, n := range tsqueryItems(q) {
		if n.kind == qiVal {
			ops = append(ops, n)
		}
	}
	if len(ops) < 2 {
		return ops
	}
	PGQsort(ops, func(a, b *tsqNode) int { return compareLexemes(a.word, b.word) })
	return slices.CompactFunc(ops, func(a, b *tsqNode) bool { return a.word == b.word })
}

// findWordEntry is find_wordentry: the index of the first lexeme the
// operand matches and how many it matches (all it begins, for a prefix).
func findWordEntry(t TSVector, op *tsqNode) (int, int) {
	i, found := tsvectorFind(t, op.word)
	n := 0
	if found {
		n = 1
	}
	if op.prefix {
		n = 0
		for j := i; j < len(t) && len(t[j].Word) >= len(op.word) && t[j].Word[:len(op.word)] == op.word; j++ {
			n++
		}
	}
	return i, n
}

// posNull is POSNULL: the one position a lexeme without positions counts
// as, the last with weight D.
var posNull = []uint16{tsMaxEntryPos - 1}

func wordDistance(w int) float32 {
	if w > 100 {
		return 1e-30
	}
	return float32(1.0 / (1.005 + 0.05*math.Exp(float64(float32(w))/1.5-2)))
}

func cntLength(t TSVector) int {
	n := 0
	for _, e := range t {
		if len(e.Pos) == 0 {
			n++
		} else {
			n += len(e.Pos)
		}
	}
	return n
}

func calcRankAnd(w [4]float32, t TSVector, q TSQuery) float32 {
	items := sortAndUniqItems(q)
	if len(items) < 2 {
		return calcRankOr(w, t, q)
	}
	pos := make([][]uint16, len(items))
	isNull := make([]bool, len(items))
	res := float32(-1.0)
	for i, it := range items {
		first, n := findWordEntry(t, it)
		for e := first; e < first+n; e++ {
			if t[e].Pos != nil {
				pos[i], isNull[i] = t[e].Pos, false
			} else {
				pos[i], isNull[i] = posNull, true
			}
			for k := 0; k < i; k++ {
				if pos[k] == nil {
					continue
				}
				for _, pl := range pos[i] {
					for _, pp := range pos[k] {
						dist := wepPos(pl) - wepPos(pp)
						if dist < 0 {
							dist = -dist
						}
						if dist != 0 || isNull[i] || isNull[k] {
							if dist == 0 {
								dist = tsMaxEntryPos
							}
							curw := float32(math.Sqrt(float64(w[wepWeight(pl)] * w[wepWeight(pp)] * wordDistance(dist))))
							if res < 0 {
								res = curw
							} else {
								res = float32(1.0 - (1.0-float64(res))*(1.0-float64(curw)))
							}
						}
					}
				}
			}
		}
	}
	return res
}

func calcRankOr(w [4]float32, t TSVector, q TSQuery) float32 {
	items := sortAndUniqItems(q)
	res := float32(0)
	for _, it := range items {
		first, n := findWordEntry(t, it)
		for e := first; e < first+n; e++ {
			post := t[e].Pos
			if post == nil {
				post = posNull
			}
			resj, wjm, jm := float32(0), float32(-1), 0
			for j, p := range post {
				resj = resj + w[wepWeight(p)]/float32((j+1)*(j+1))
				if w[wepWeight(p)] > wjm {
					wjm, jm = w[wepWeight(p)], j
				}
			}
			res = float32(float64(res) + float64(wjm+resj-wjm/float32((jm+1)*(jm+1)))/1.64493406685)
		}
	}
	if len(items) > 0 {
		res = res / float32(len(items))
	}
	return res
}

// calcRank is calc_rank, ts_rank's computation.
func calcRank(w [4]float32, t TSVector, q TSQuery, method int) float32 {
	if len(t) == 0 || q.root == nil {
		return 0
	}
	var res float32
	if q.root.kind == qiOpr && (q.root.op == opAnd || q.root.op == opPhrase) {
		res = calcRankAnd(w, t, q)
	} else {
		res = calcRankOr(w, t, q)
	}
	if res < 0 {
		res = 1e-20
	}
	if method&rankNormLogLength != 0 {
		res = float32(float64(res) / (math.Log(float64(cntLength(t)+1)) / math.Log(2.0)))
	}
	if method&rankNormLength != 0 {
		if n := cntLength(t); n > 0 {
			res /= float32(n)
		}
	}
	if method&rankNormUniq != 0 {
		res /= float32(len(t))
	}
	if method&rankNormLogUniq != 0 {
		res = float32(float64(res) / (math.Log(float64(len(t)+1)) / math.Log(2.0)))
	}
	if method&rankNormRDivRPlus1 != 0 {
		res /= res + 1
	}
	return res
}

// docRep is DocRepresentation: a position of the document and the query
// operands found there.
type docRep struct {
	pos   uint16
	entry int
	item  *tsqNode
	items []*tsqNode
}

// getDocRep is get_docrep: the positions of the lexemes the query's
// operands match (with the operand's weights), in order.
func getDocRep(t TSVector, q TSQuery) []docRep {
	var doc []docRep
	for _, it := range tsqueryItems(q) {
		if it.kind != qiVal {
			continue
		}
		first, n := findWordEntry(t, it)
		for e := first; e < first+n; e++ {
			if t[e].Pos == nil {
				continue
			}
			for _, p := range t[e].Pos {
				if it.weight == 0 || it.weight&(1<<wepWeight(p)) != 0 {
					doc = append(doc, docRep{pos: p, entry: e, item: it})
				}
			}
		}
	}
	if len(doc) == 0 {
		return nil
	}
	slices.SortStableFunc(doc, func(a, b docRep) int {
		if wepPos(a.pos) != wepPos(b.pos) {
			return wepPos(a.pos) - wepPos(b.pos)
		}
		if wepWeight(a.pos) != wepWeight(b.pos) {
			return wepWeight(a.pos) - wepWeight(b.pos)
		}
		return a.entry - b.entry
	})
	out := []docRep{{pos: doc[0].pos, entry: doc[0].entry, items: []*tsqNode{doc[0].item}}}
	for i := 1; i < len(doc); i++ {
		if doc[i].pos == doc[i-1].pos && doc[i].entry == doc[i-1].entry {
			last := &out[len(out)-1]
			last.items = append(last.items, doc[i].item)
			continue
		}
		out = append(out, docRep{pos: doc[i].pos, entry: doc[i].entry, items: []*tsqNode{doc[i].item}})
	}
	return out
}

// queryRep is QueryRepresentation: which operands a stretch of the
// document has, and where.
type queryRep map[*tsqNode][]uint16

// fill is fillQueryRepresentationData; reverse scans right to left, so
// positions arrive in descending order and are kept ascending.
func (qr queryRep) fill(d docRep, reverse bool) {
	for _, it := range d.items {
		ps, ok := qr[it]
		if !ok || len(ps) == 0 {
			qr[it] = []uint16{d.pos}
			continue
		}
		last := ps[len(ps)-1]
		if reverse {
			last = ps[0]
		}
		if wepPos(last) != wepPos(d.pos) {
			if reverse {
				qr[it] = append([]uint16{d.pos}, ps...)
			} else {
				qr[it] = append(ps, d.pos)
			}
		}
	}
}

func (qr queryRep) check(op *tsqNode, data *phraseData) tsTernary {
	ps, ok := qr[op]
	if !ok {
		return tsNo
	}
	if data != nil {
		data.pos = ps
	}
	return tsYes
}

// coverExt is CoverExt.
type coverExt struct {
	pos, p, q  int
	begin, end int
}

// cover is Cover: the next extent of the document that matches the query.
func cover(doc []docRep, q TSQuery, ext *coverExt) bool {
	for {
		lastpos := ext.pos
		found := false
		qr := queryRep{}
		ext.p, ext.q = math.MaxInt32, 0
		for i := ext.pos; i < len(doc); i++ {
			qr.fill(doc[i], false)
			if tsExecuteRecurse(q.root, qr.check) != tsNo {
				if wepPos(doc[i].pos) > ext.q {
					ext.q, ext.end, lastpos, found = wepPos(doc[i].pos), i, i, true
				}
				break
			}
		}
		if !found {
			return false
		}
		qr = queryRep{}
		i := lastpos
		for ; i >= ext.pos; i-- {
			qr.fill(doc[i], true)
			if tsExecuteRecurse(q.root, qr.check) != tsNo {
				if wepPos(doc[i].pos) < ext.p {
					ext.begin, ext.p = i, wepPos(doc[i].pos)
				}
				break
			}
		}
		if ext.p <= ext.q {
			ext.pos = i + 1
			return true
		}
		ext.pos++
	}
}

// calcRankCD is calc_rank_cd, ts_rank_cd's computation.
func calcRankCD(w [4]float32, t TSVector, q TSQuery, method int) float32 {
	var invws [4]float64
	for i := range invws {
		invws[i] = 1.0 / float64(w[i])
	}
	if q.root == nil {
		return 0
	}
	doc := getDocRep(t, q)
	if doc == nil {
		return 0
	}
	var wdoc, sumDist, prevExtPos float64
	nExtent := 0
	var ext coverExt
	for cover(doc, q, &ext) {
		invSum := 0.0
		for i := ext.begin; i <= ext.end; i++ {
			invSum += invws[wepWeight(doc[i].pos)]
		}
		cpos := float64(ext.end-ext.begin+1) / invSum
		nNoise := (ext.q - ext.p) - (ext.end - ext.begin)
		if nNoise < 0 {
			nNoise = (ext.end - ext.begin) / 2
		}
		wdoc += cpos / float64(1+nNoise)
		curExtPos := float64(ext.q+ext.p) / 2.0
		if nExtent > 0 && curExtPos > prevExtPos {
			sumDist += 1.0 / (curExtPos - prevExtPos)
		}
		prevExtPos = curExtPos
		nExtent++
	}
	if method&rankNormLogLength != 0 && len(t) > 0 {
		wdoc /= math.Log(float64(cntLength(t) + 1))
	}
	if method&rankNormLength != 0 {
		if n := cntLength(t); n > 0 {
			wdoc /= float64(n)
		}
	}
	if method&rankNormExtDist != 0 && nExtent > 0 && sumDist > 0 {
		wdoc /= float64(nExtent) / sumDist
	}
	if method&rankNormUniq != 0 && len(t) > 0 {
		wdoc /= float64(len(t))
	}
	if method&rankNormLogUniq != 0 && len(t) > 0 {
		wdoc /= math.Log(float64(len(t)+1)) / math.Log(2.0)
	}
	if method&rankNormRDivRPlus1 != 0 {
		wdoc /= wdoc + 1
	}
	return float32(wdoc)
}
