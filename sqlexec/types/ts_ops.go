package types

import (
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The operators and functions of tsvector and tsquery (tsvector_op.c,
// tsquery_op.c, tsquery_cleanup.c).

func init() {
	addComparisons(TSVectorType, TSVectorType, func(_ *Env, a, b any) int { return compareTSVector(a.(TSVector), b.(TSVector)) })
	addComparisons(TSQueryType, TSQueryType, func(_ *Env, a, b any) int { return compareTSQuery(a.(TSQuery), b.(TSQuery)) })
	// The btree support and comparison functions behind the operators.
	for _, t := range []Type{TSVectorType, TSQueryType} {
		name := typeInfoOf(t.Oid).name
		addFunc(name+"_cmp", Immutable, Int4, func(_ *Env, a []any) (any, error) { return int64(compare(t, a[0], a[1])), nil }, t, t)
		for fn, test := range map[string]func(int) bool{"_lt": comparisonOps["<"], "_le": comparisonOps["<="], "_eq": comparisonOps["="],
			"_ne": comparisonOps["<>"], "_ge": comparisonOps[">="], "_gt": comparisonOps[">"]} {
			addFunc(name+fn, Immutable, Bool, func(_ *Env, a []any) (any, error) { return test(compare(t, a[0], a[1])), nil }, t, t)
		}
	}

	match := func(_ *Env, a, b any) (any, error) { return tsExecute(a.(TSVector), b.(TSQuery)), nil }
	matchQV := func(_ *Env, a, b any) (any, error) { return tsExecute(b.(TSVector), a.(TSQuery)), nil }
	// text @@ tsquery is to_tsvector(text) @@ query, text @@ text also
	// plainto_tsquery's of its right side, under default_text_search_config.
	textMatch := func(env *Env, a, b any) (any, error) {
		if env == nil || env.TextSearch == nil {
			return nil, pgerror.Unsupported("text @@ tsquery without a session")
		}
		v, err := env.TextSearch.Document(a.(string))
		if err != nil {
			return nil, err
		}
		q, ok := b.(TSQuery)
		if !ok {
			if q, err = env.TextSearch.PlainQuery(b.(string)); err != nil {
				return nil, err
			}
		}
		return tsExecute(v, q), nil
	}
	for _, op := range []string{"@@", "@@@"} {
		addBinary(op, TSVectorType, TSQueryType, Bool, match)
		addBinary(op, TSQueryType, TSVectorType, Bool, matchQV)
	}
	addBinary("@@", Text, TSQueryType, Bool, textMatch)
	addBinary("@@", Text, Text, Bool, textMatch)
	addFunc("ts_match_tq", Stable, Bool, func(env *Env, a []any) (any, error) { return textMatch(env, a[0], a[1]) }, Text, TSQueryType)
	addFunc("ts_match_tt", Stable, Bool, func(env *Env, a []any) (any, error) { return textMatch(env, a[0], a[1]) }, Text, Text)
	addFunc("ts_match_vq", Immutable, Bool, func(env *Env, a []any) (any, error) { return match(env, a[0], a[1]) }, TSVectorType, TSQueryType)
	addFunc("ts_match_qv", Immutable, Bool, func(env *Env, a []any) (any, error) { return matchQV(env, a[0], a[1]) }, TSQueryType, TSVectorType)

	addBinary("||", TSVectorType, TSVectorType, TSVectorType, func(_ *Env, a, b any) (any, error) {
		return tsvectorConcat(a.(TSVector), b.(TSVector)), nil
	})
	addFunc("tsvector_concat", Immutable, TSVectorType, func(_ *Env, a []any) (any, error) {
		return tsvectorConcat(a[0].(TSVector), a[1].(TSVector)), nil
	}, TSVectorType, TSVectorType)

	addBinary("&&", TSQueryType, TSQueryType, TSQueryType, func(_ *Env, a, b any) (any, error) {
		return tsqueryJoin(a.(TSQuery), b.(TSQuery), opAnd, 0), nil
	})
	addBinary("||", TSQueryType, TSQueryType, TSQueryType, func(_ *Env, a, b any) (any, error) {
		return tsqueryJoin(a.(TSQuery), b.(TSQuery), opOr, 0), nil
	})
	addBinary("<->", TSQueryType, TSQueryType, TSQueryType, func(_ *Env, a, b any) (any, error) {
		return tsqueryJoin(a.(TSQuery), b.(TSQuery), opPhrase, 1), nil
	})
	addUnary("!!", TSQueryType, TSQueryType, func(_ *Env, v any) (any, error) { return tsqueryNot(v.(TSQuery)), nil })
	for name, op := range map[string]uint8{"tsquery_and": opAnd, "tsquery_or": opOr} {
		addFunc(name, Immutable, TSQueryType, func(_ *Env, a []any) (any, error) {
			return tsqueryJoin(a[0].(TSQuery), a[1].(TSQuery), op, 0), nil
		}, TSQueryType, TSQueryType)
	}
	addFunc("tsquery_not", Immutable, TSQueryType, func(_ *Env, a []any) (any, error) { return tsqueryNot(a[0].(TSQuery)), nil }, TSQueryType)
	addFunc("tsquery_phrase", Immutable, TSQueryType, func(_ *Env, a []any) (any, error) {
		return tsqueryJoin(a[0].(TSQuery), a[1].(TSQuery), opPhrase, 1), nil
	}, TSQueryType, TSQueryType)
	addFunc("tsquery_phrase", Immutable, TSQueryType, func(_ *Env, a []any) (any, error) {
		d := a[2].(int64)
		if d < 0 || d > tsMaxEntryPos {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "distance in phrase operator must be an integer value between zero and %d inclusive", tsMaxEntryPos)
		}
		return tsqueryJoin(a[0].(TSQuery), a[1].(TSQuery), opPhrase, int16(d)), nil
	}, TSQueryType, TSQueryType, Int4)

	contains := func(a, b TSQuery) bool {
		have := tsqueryValues(a)
		for _, w := range tsqueryValues(b) {
			if _, ok := slices.BinarySearch(have, w); !ok {
				return false
			}
		}
		return true
	}
	addBinary("@>", TSQueryType, TSQueryType, Bool, func(_ *Env, a, b any) (any, error) { return contains(a.(TSQuery), b.(TSQuery)), nil })
	addBinary("<@", TSQueryType, TSQueryType, Bool, func(_ *Env, a, b any) (any, error) { return contains(b.(TSQuery), a.(TSQuery)), nil })
	addFunc("tsq_mcontains", Immutable, Bool, func(_ *Env, a []any) (any, error) { return contains(a[0].(TSQuery), a[1].(TSQuery)), nil }, TSQueryType, TSQueryType)
	addFunc("tsq_mcontained", Immutable, Bool, func(_ *Env, a []any) (any, error) { return contains(a[1].(TSQuery), a[0].(TSQuery)), nil }, TSQueryType, TSQueryType)

	addFunc("numnode", Immutable, Int4, func(_ *Env, a []any) (any, error) { return int64(a[0].(TSQuery).root.size()), nil }, TSQueryType)
	addFunc("querytree", Immutable, Text, func(_ *Env, a []any) (any, error) { return tsqueryTree(a[0].(TSQuery)), nil }, TSQueryType)

	addFunc("length", Immutable, Int4, func(_ *Env, a []any) (any, error) { return int64(len(a[0].(TSVector))), nil }, TSVectorType)
	addFunc("strip", Immutable, TSVectorType, func(_ *Env, a []any) (any, error) {
		v := a[0].(TSVector)
		out := make(TSVector, len(v))
		for i, e := range v {
			out[i] = TSLexeme{Word: e.Word}
		}
		return out, nil
	}, TSVectorType)
	addFunc("setweight", Immutable, TSVectorType, func(_ *Env, a []any) (any, error) {
		w, err := tsWeightOf(a[1].(string))
		if err != nil {
			return nil, err
		}
		v := a[0].(TSVector)
		out := make(TSVector, len(v))
		for i, e := range v {
			out[i] = TSLexeme{Word: e.Word, Pos: reweigh(e.Pos, w)}
		}
		return out, nil
	}, TSVectorType, Char)
	textArray, _ := ArrayOf(Text)
	charArray, _ := ArrayOf(Char)
	addFunc("setweight", Immutable, TSVectorType, func(_ *Env, a []any) (any, error) {
		w, err := tsWeightOf(a[1].(string))
		if err != nil {
			return nil, err
		}
		words, err := lexemeArray(a[2], "")
		if err != nil {
			return nil, err
		}
		out := slices.Clone(a[0].(TSVector))
		for _, word := range words {
			if i, ok := tsvectorFind(out, word); ok && out[i].Pos != nil {
				out[i].Pos = reweigh(out[i].Pos, w)
			}
		}
		return out, nil
	}, TSVectorType, Char, textArray)
	addFunc("ts_delete", Immutable, TSVectorType, func(_ *Env, a []any) (any, error) {
		return tsvectorDelete(a[0].(TSVector), []string{a[1].(string)}), nil
	}, TSVectorType, Text)
	addFunc("ts_delete", Immutable, TSVectorType, func(_ *Env, a []any) (any, error) {
		words, err := lexemeArray(a[1], "")
		if err != nil {
			return nil, err
		}
		return tsvectorDelete(a[0].(TSVector), words), nil
	}, TSVectorType, textArray)
	addFunc("ts_filter", Immutable, TSVectorType, func(_ *Env, a []any) (any, error) {
		return tsvectorFilter(a[0].(TSVector), a[1])
	}, TSVectorType, charArray)
	addFunc("tsvector_to_array", Immutable, textArray, func(_ *Env, a []any) (any, error) {
		v := a[0].(TSVector)
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = e.Word
		}
		return out, nil
	}, TSVectorType)
	addFunc("array_to_tsvector", Immutable, TSVectorType, func(_ *Env, a []any) (any, error) {
		words, err := lexemeArray(a[0], "lexeme array may not contain nulls")
		if err != nil {
			return nil, err
		}
		v := make(TSVector, 0, len(words))
		for _, w := range words {
			if w == "" {
				return nil, pgerror.New(pgerror.ZeroLengthCharacterString, "lexeme array may not contain empty strings")
			}
			v = append(v, TSLexeme{Word: w})
		}
		return normalizeTSVector(v), nil
	}, textArray)
}

// tsWeightOf reads setweight's weight letter.
func tsWeightOf(c string) (int, error) {
	if c != "" {
		switch c[0] {
		case 'A', 'a':
			return 3, nil
		case 'B', 'b':
			return 2, nil
		case 'C', 'c':
			return 1, nil
		case 'D', 'd':
			return 0, nil
		}
	}
	code := 0
	if c != "" {
		code = int(int8(c[0]))
	}
	return 0, pgerror.Newf(pgerror.InternalError, "unrecognized weight: %d", code)
}

// reweigh gives every position weight w.
func reweigh(ps []uint16, w int) []uint16 {
	if ps == nil {
		return nil
	}
	out := make([]uint16, len(ps))
	for i, p := range ps {
		out[i] = makeWEP(wepPos(p), w)
	}
	return out
}

// lexemeArray reads a text[] argument: NULL elements are refused with
// nullMsg, or skipped when it is empty.
func lexemeArray(arr any, nullMsg string) ([]string, error) {
	elems := flatElems(arr)
	out := make([]string, 0, len(elems))
	for _, e := range elems {
		if e == nil {
			if nullMsg == "" {
				continue
			}
			return nil, pgerror.New(pgerror.NullValueNotAllowed, nullMsg)
		}
		out = append(out, e.(string))
	}
	return out, nil
}

// tsvectorDelete is ts_delete: v without the lexemes words names.
func tsvectorDelete(v TSVector, words []string) TSVector {
	out := make(TSVector, 0, len(v))
	for _, e := range v {
		if !slices.Contains(words, e.Word) {
			out = append(out, e)
		}
	}
	return out
}

// tsvectorFilter is ts_filter: the positions of the weights given, and the
// lexemes left with some.
func tsvectorFilter(v TSVector, weights any) (any, error) {
	mask := 0
	for _, w := range flatElems(weights) {
		if w == nil {
			return nil, pgerror.New(pgerror.NullValueNotAllowed, "weight array may not contain nulls")
		}
		c := w.(string)
		var b byte
		if c != "" {
			b = c[0]
		}
		switch b {
		case 'A', 'a':
			mask |= 8
		case 'B', 'b':
			mask |= 4
		case 'C', 'c':
			mask |= 2
		case 'D', 'd':
			mask |= 1
		default:
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized weight: \"%s\"", string(b))
		}
	}
	out := TSVector{}
	for _, e := range v {
		var ps []uint16
		for _, p := range e.Pos {
			if mask&(1<<wepWeight(p)) != 0 {
				ps = append(ps, p)
			}
		}
		if len(ps) > 0 {
			out = append(out, TSLexeme{Word: e.Word, Pos: ps})
		}
	}
	return out, nil
}

// tsvectorConcat is tsvector_concat: b's positions shift past a's largest.
func tsvectorConcat(a, b TSVector) TSVector {
	maxpos := 0
	for _, e := range a {
		for _, p := range e.Pos {
			maxpos = max(maxpos, wepPos(p))
		}
	}
	// addPos is add_pos: src's positions, shifted, after dst's, within
	// the limits on their number and value.
	addPos := func(dst, src []uint16) []uint16 {
		for _, p := range src {
			if len(dst) >= tsMaxNumPos || (len(dst) > 0 && wepPos(dst[len(dst)-1]) == tsMaxEntryPos-1) {
				break
			}
			dst = append(dst, makeWEP(limitPos(int32(wepPos(p)+maxpos)), wepWeight(p)))
		}
		return dst
	}
	out := make(TSVector, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var c int
		switch {
		case i == len(a):
			c = 1
		case j == len(b):
			c = -1
		default:
			c = compareLexemes(a[i].Word, b[j].Word)
		}
		switch {
		case c < 0:
			out = append(out, a[i])
			i++
		case c > 0:
			e := TSLexeme{Word: b[j].Word}
			if b[j].Pos != nil {
				if ps := addPos(nil, b[j].Pos); len(ps) > 0 {
					e.Pos = ps
				}
			}
			out = append(out, e)
			j++
		default:
			e := TSLexeme{Word: a[i].Word}
			if a[i].Pos != nil || b[j].Pos != nil {
				ps := slices.Clone(a[i].Pos)
				if b[j].Pos != nil {
					ps = addPos(ps, b[j].Pos)
				}
				if len(ps) > 0 {
					e.Pos = ps
				}
			}
			out = append(out, e)
			i++
			j++
		}
	}
	return out
}

// tsqueryJoin is join_tsqueries behind && || and <->: an empty side gives
// the other.
func tsqueryJoin(a, b TSQuery, op uint8, distance int16) TSQuery {
	if a.root == nil {
		return b
	}
	if b.root == nil {
		return a
	}
	return TSQuery{root: &tsqNode{kind: qiOpr, op: op, distance: distance, left: a.root, right: b.root}}
}

// tsqueryNot is tsquery_not.
func tsqueryNot(a TSQuery) TSQuery {
	if a.root == nil {
		return a
	}
	return TSQuery{root: &tsqNode{kind: qiOpr, op: opNot, right: a.root}}
}

// tsqueryValues are the distinct operand texts of q, sorted.
func tsqueryValues(q TSQuery) []string {
	var out []string
	var walk func(n *tsqNode)
	walk = func(n *tsqNode) {
		if n == nil {
			return
		}
		if n.kind == qiVal {
			out = append(out, n.word)
			return
		}
		walk(n.right)
		walk(n.left)
	}
	walk(q.root)
	slices.Sort(out)
	return slices.Compact(out)
}

// tsqueryTree is querytree: the query without its negations, "T" when
// nothing is left.
func tsqueryTree(q TSQuery) string {
	if q.root == nil {
		return ""
	}
	n := cleanNot(q.root)
	if n == nil {
		return "T"
	}
	return string(appendTSQueryInfix(nil, n, -1, false))
}

// cleanNot is clean_NOT_intree.
func cleanNot(n *tsqNode) *tsqNode {
	if n.kind == qiVal {
		return n
	}
	switch n.op {
	case opNot:
		return nil
	case opOr:
		l := cleanNot(n.left)
		if l == nil {
			return nil
		}
		r := cleanNot(n.right)
		if r == nil {
			return nil
		}
		c := *n
		c.left, c.right = l, r
		return &c
	}
	l, r := cleanNot(n.left), cleanNot(n.right)
	switch {
	case l == nil:
		return r
	case r == nil:
		return l
	}
	c := *n
	c.left, c.right = l, r
	return &c
}

// UnnestTSVector is unnest(tsvector)'s rows: each lexeme, its positions
// (int2[]) and their weights (text[]), NULL for a lexeme without
// positions.
func UnnestTSVector(v TSVector) [][]any {
	rows := make([][]any, len(v))
	for i, e := range v {
		row := []any{e.Word, nil, nil}
		if e.Pos != nil {
			ps, ws := make([]any, len(e.Pos)), make([]any, len(e.Pos))
			for j, p := range e.Pos {
				ps[j], ws[j] = int64(wepPos(p)), string("DCBA"[wepWeight(p)])
			}
			row[1], row[2] = ps, ws
		}
		rows[i] = row
	}
	return rows
}
