package types

import "github.com/fickle-db/fickle/internal/pgerror"

// ts_rewrite(query, target, substitute) (tsquery_rewrite.c) over
// PostgreSQL's QTNode trees: AND and OR flattened to any number of
// children and sorted, so that a target matches a subset of them.

func init() {
	addFunc("ts_rewrite", Immutable, TSQueryType, func(_ *Env, a []any) (any, error) {
		return tsqueryRewrite(a[0].(TSQuery), a[1].(TSQuery), a[2].(TSQuery)), nil
	}, TSQueryType, TSQueryType, TSQueryType)
	addFunc("ts_rewrite", Immutable, TSQueryType, func(_ *Env, _ []any) (any, error) {
		return nil, pgerror.Unsupported("ts_rewrite(tsquery, text), which runs a query")
	}, TSQueryType, Text)
}

// qtn is a QTNode: an operand or an operator with its children, the first
// being a binary operator's right operand.
type qtn struct {
	item     *tsqNode // the operand, or the operator's kind, op and distance
	child    []*qtn
	sign     uint32
	noChange bool
}

func toQTN(n *tsqNode) *qtn {
	q := &qtn{item: n}
	if n.kind == qiVal {
		q.sign = 1 << (uint32(n.crc) % 32)
		return q
	}
	q.child = append(q.child, toQTN(n.right))
	if n.op != opNot {
		q.child = append(q.child, toQTN(n.left))
	}
	for _, c := range q.child {
		q.sign |= c.sign
	}
	return q
}

// fromQTN converts a binary QTNode tree back.
func fromQTN(q *qtn) *tsqNode {
	if q.item.kind == qiVal {
		return q.item
	}
	n := &tsqNode{kind: qiOpr, op: q.item.op, distance: q.item.distance}
	n.right = fromQTN(q.child[0])
	if len(q.child) > 1 {
		n.left = fromQTN(q.child[1])
	}
	return n
}

// compareQTN is QTNodeCompare on flattened trees.
func compareQTN(a, b *qtn) int {
	if a.item.kind != b.item.kind {
		return descending(int(a.item.kind), int(b.item.kind))
	}
	if a.item.kind == qiVal {
		if a.item.crc != b.item.crc {
			return descending(int(a.item.crc), int(b.item.crc))
		}
		return compareLexemes(a.item.word, b.item.word)
	}
	if a.item.op != b.item.op {
		return descending(int(a.item.op), int(b.item.op))
	}
	if len(a.child) != len(b.child) {
		return descending(len(a.child), len(b.child))
	}
	for i := range a.child {
		if c := compareQTN(a.child[i], b.child[i]); c != 0 {
			return c
		}
	}
	if a.item.op == opPhrase && a.item.distance != b.item.distance {
		return descending(int(a.item.distance), int(b.item.distance))
	}
	return 0
}

// ternary is QTNTernary: nested ANDs (ORs) become one AND (OR).
func (q *qtn) ternary() {
	if q.item.kind != qiOpr {
		return
	}
	for _, c := range q.child {
		c.ternary()
	}
	if q.item.op != opAnd && q.item.op != opOr {
		return
	}
	var out []*qtn
	for _, c := range q.child {
		if c.item.kind == qiOpr && c.item.op == q.item.op {
			out = append(out, c.child...)
		} else {
			out = append(out, c)
		}
	}
	q.child = out
}

// sort is QTNSort: the children of every operator but a phrase in
// QTNodeCompare's order.
func (q *qtn) sort() {
	if q.item.kind != qiOpr {
		return
	}
	for _, c := range q.child {
		c.sort()
	}
	if len(q.child) > 1 && q.item.op != opPhrase {
		PGQsort(q.child, compareQTN)
	}
}

// binary is QTNBinary: an operator of more than two children becomes a
// left-deep chain of binary ones.
func (q *qtn) binary() {
	if q.item.kind != qiOpr {
		return
	}
	for _, c := range q.child {
		c.binary()
	}
	for len(q.child) > 2 {
		nn := &qtn{item: &tsqNode{kind: qiOpr, op: q.item.op}, child: []*qtn{q.child[0], q.child[1]}}
		nn.sign = q.child[0].sign | q.child[1].sign
		q.child[0] = nn
		q.child[1] = q.child[len(q.child)-1]
		q.child = q.child[:len(q.child)-1]
	}
}

func (q *qtn) copy() *qtn {
	c := &qtn{item: q.item, sign: q.sign, noChange: q.noChange}
	for _, ch := range q.child {
		c.child = append(c.child, ch.copy())
	}
	return c
}

// qtnEq is QTNEq.
func qtnEq(a, b *qtn) bool {
	s := a.sign & b.sign
	return s == a.sign && s == b.sign && compareQTN(a, b) == 0
}

// replaced is a fresh copy of subs, marked so that it is not searched.
func replaced(subs *qtn) *qtn {
	if subs == nil {
		return nil
	}
	c := subs.copy()
	c.noChange = true
	return c
}

// findEq is findeq: node replaced by subs when it matches ex, or the
// children of an AND or OR that match ex's replaced.
func findEq(node, ex, subs *qtn) *qtn {
	if node.sign&ex.sign != ex.sign || node.item.kind != ex.item.kind || node.noChange {
		return node
	}
	if node.item.kind == qiVal {
		if node.item.crc == ex.item.crc && qtnEq(node, ex) {
			return replaced(subs)
		}
		return node
	}
	if node.item.op != ex.item.op {
		return node
	}
	if len(node.child) == len(ex.child) {
		if qtnEq(node, ex) {
			return replaced(subs)
		}
		return node
	}
	if len(node.child) > len(ex.child) && len(ex.child) > 0 {
		matched := make([]bool, len(node.child))
		nmatched, i, j := 0, 0, 0
		for i < len(node.child) && j < len(ex.child) {
			c := compareQTN(node.child[i], ex.child[j])
			if c == 0 {
				matched[i] = true
				nmatched++
				i++
				j++
			} else if c < 0 {
				i++
			} else {
				break
			}
		}
		if nmatched == len(ex.child) {
			var kept []*qtn
			for i, c := range node.child {
				if !matched[i] {
					kept = append(kept, c)
				}
			}
			if subs != nil {
				kept = append(kept, replaced(subs))
			}
			node.child = kept
			node.sort()
		}
	}
	return node
}

// findSubquery is dofindsubquery.
func findSubquery(root, ex, subs *qtn) *qtn {
	root = findEq(root, ex, subs)
	if root == nil || root.noChange || root.item.kind != qiOpr {
		return root
	}
	var kept []*qtn
	for _, c := range root.child {
		if r := findSubquery(c, ex, subs); r != nil {
			kept = append(kept, r)
		}
	}
	root.child = kept
	switch {
	case len(kept) == 0:
		return nil
	case len(kept) == 1 && root.item.op != opNot:
		return kept[0]
	}
	return root
}

// tsqueryRewrite is tsquery_rewrite: q with every occurrence of target
// replaced by substitute.
func tsqueryRewrite(q, target, substitute TSQuery) TSQuery {
	if q.root == nil || target.root == nil {
		return q
	}
	tree := toQTN(q.root)
	tree.ternary()
	tree.sort()
	ex := toQTN(target.root)
	ex.ternary()
	ex.sort()
	var subs *qtn
	if substitute.root != nil {
		subs = toQTN(substitute.root)
	}
	tree = findSubquery(tree, ex, subs)
	if tree == nil {
		return TSQuery{}
	}
	tree.binary()
	return TSQuery{root: fromQTN(tree)}
}
