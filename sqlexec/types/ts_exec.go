package types

import (
	"math"
	"slices"
	"strings"
)

// TS_execute and its phrase machinery (tsvector_op.c): whether a tsvector
// matches a tsquery, with the positions phrase operators need.

// tsTernary is TSTernaryValue.
type tsTernary uint8

const (
	tsNo tsTernary = iota
	tsYes
	tsMaybe
)

// phraseData is ExecPhraseData: the positions a subquery matches at (or,
// with negate, all positions but those), and its width less one.
type phraseData struct {
	pos    []uint16
	negate bool
	width  int
}

// tsvectorFind is the binary search of checkcondition_str: the index of
// the first lexeme not below word.
func tsvectorFind(v TSVector, word string) (int, bool) {
	return slices.BinarySearchFunc(v, word, func(e TSLexeme, w string) int { return compareLexemes(e.Word, w) })
}

// checkClass is checkclass_str: the operand's weights against a lexeme's
// positions, filling data (when wanted) with the matching positions.
func checkClass(e TSLexeme, op *tsqNode, data *phraseData) tsTernary {
	if e.Pos == nil {
		// Stripped lexemes match whatever the weights; without positions a
		// phrase can only maybe match.
		if data != nil {
			return tsMaybe
		}
		return tsYes
	}
	switch {
	case op.weight != 0 && data != nil:
		var ps []uint16
		for _, p := range e.Pos {
			if op.weight&(1<<wepWeight(p)) != 0 {
				ps = append(ps, uint16(wepPos(p)))
			}
		}
		if len(ps) == 0 {
			return tsNo
		}
		data.pos = ps
		return tsYes
	case op.weight != 0:
		for _, p := range e.Pos {
			if op.weight&(1<<wepWeight(p)) != 0 {
				return tsYes
			}
		}
		return tsNo
	case data != nil:
		data.pos = e.Pos
	}
	return tsYes
}

// checkCondition is checkcondition_str: whether v has the operand, with a
// prefix operand matching every lexeme it begins.
func checkCondition(v TSVector, op *tsqNode, data *phraseData) tsTernary {
	res := tsNo
	i, found := tsvectorFind(v, op.word)
	if found {
		res = checkClass(v[i], op, data)
	}
	if !op.prefix || (res == tsYes && data == nil) {
		return res
	}
	if data != nil {
		data.pos = nil
	}
	res = tsNo
	var all []uint16
	for ; (res != tsYes || data != nil) && i < len(v) && strings.HasPrefix(v[i].Word, op.word); i++ {
		var sub tsTernary
		if data != nil {
			var d phraseData
			sub = checkClass(v[i], op, &d)
			if sub == tsMaybe {
				return tsMaybe
			}
			if sub == tsYes {
				all = append(all, d.pos...)
			}
			continue
		}
		sub = checkClass(v[i], op, nil)
		if sub == tsYes || (sub != tsNo && res == tsNo) {
			res = sub
		}
	}
	if data != nil && len(all) > 0 {
		slices.SortFunc(all, func(a, b uint16) int { return wepPos(a) - wepPos(b) })
		all = slices.CompactFunc(all, func(a, b uint16) bool { return wepPos(a) == wepPos(b) })
		data.pos = all
		return tsYes
	}
	return res
}

// tsCheck is TS_execute's callback: whether an operand is present, with
// its positions in data when data is not nil.
type tsCheck func(op *tsqNode, data *phraseData) tsTernary

// tsExecute is ts_match_vq: whether v matches q. The empty query matches
// nothing.
func tsExecute(v TSVector, q TSQuery) bool {
	if q.root == nil {
		return false
	}
	return tsExecuteRecurse(q.root, func(op *tsqNode, data *phraseData) tsTernary { return checkCondition(v, op, data) }) != tsNo
}

// tsExecuteRecurse is TS_execute_recurse without flags.
func tsExecuteRecurse(n *tsqNode, check tsCheck) tsTernary {
	if n.kind == qiVal {
		return check(n, nil)
	}
	switch n.op {
	case opNot:
		switch tsExecuteRecurse(n.right, check) {
		case tsNo:
			return tsYes
		case tsYes:
			return tsNo
		}
		return tsMaybe
	case opAnd:
		l := tsExecuteRecurse(n.left, check)
		if l == tsNo {
			return tsNo
		}
		switch tsExecuteRecurse(n.right, check) {
		case tsNo:
			return tsNo
		case tsYes:
			return l
		}
		return tsMaybe
	case opOr:
		l := tsExecuteRecurse(n.left, check)
		if l == tsYes {
			return tsYes
		}
		switch tsExecuteRecurse(n.right, check) {
		case tsNo:
			return l
		case tsYes:
			return tsYes
		}
		return tsMaybe
	}
	// A phrase whose positions are unknown does not match.
	if tsPhraseExecute(n, check, nil) == tsYes {
		return tsYes
	}
	return tsNo
}

// The emit flags of TS_phrase_output.
const (
	tspoLOnly = 1 << iota
	tspoROnly
	tspoBoth
)

// tsPhraseOutput is TS_phrase_output: it merges the positions of the two
// sides (shifted by their offsets) and keeps those emit asks for.
func tsPhraseOutput(data, l, r *phraseData, emit, loff, roff int) tsTernary {
	li, ri := 0, 0
	for li < len(l.pos) || ri < len(r.pos) {
		var lp, rp int
		if li < len(l.pos) {
			lp = wepPos(l.pos[li]) + loff
		} else {
			if emit&tspoROnly == 0 {
				break
			}
			lp = math.MaxInt32
		}
		if ri < len(r.pos) {
			rp = wepPos(r.pos[ri]) + roff
		} else {
			if emit&tspoLOnly == 0 {
				break
			}
			rp = math.MaxInt32
		}
		out := 0
		switch {
		case lp < rp:
			if emit&tspoLOnly != 0 {
				out = lp
			}
			li++
		case lp == rp:
			if emit&tspoBoth != 0 {
				out = rp
			}
			li++
			ri++
		default:
			if emit&tspoROnly != 0 {
				out = rp
			}
			ri++
		}
		if out > 0 {
			if data == nil {
				return tsYes
			}
			data.pos = append(data.pos, uint16(out))
		}
	}
	if data != nil && len(data.pos) > 0 {
		return tsYes
	}
	return tsNo
}

// tsPhraseExecute is TS_phrase_execute: the match of n with its positions
// in data (nil when the caller needs only the answer, at a phrase
// operator).
func tsPhraseExecute(n *tsqNode, check tsCheck, data *phraseData) tsTernary {
	if n.kind == qiVal {
		return check(n, data)
	}
	switch n.op {
	case opNot:
		switch tsPhraseExecute(n.right, check, data) {
		case tsNo:
			data.negate = true
			return tsYes
		case tsYes:
			if len(data.pos) > 0 {
				data.negate = !data.negate
				return tsYes
			}
			if data.negate {
				data.negate = false
				return tsNo
			}
			return tsNo
		}
		return tsMaybe
	case opPhrase, opAnd:
		var ld, rd phraseData
		lm := tsPhraseExecute(n.left, check, &ld)
		if lm == tsNo {
			return tsNo
		}
		rm := tsPhraseExecute(n.right, check, &rd)
		if rm == tsNo {
			return tsNo
		}
		if lm == tsMaybe || rm == tsMaybe {
			return tsMaybe
		}
		var loff, roff int
		if n.op == opPhrase {
			loff = int(n.distance) + rd.width
			if data != nil {
				data.width = int(n.distance) + ld.width + rd.width
			}
		} else {
			w := max(ld.width, rd.width)
			loff, roff = w-ld.width, w-rd.width
			if data != nil {
				data.width = w
			}
		}
		switch {
		case ld.negate && rd.negate:
			tsPhraseOutput(data, &ld, &rd, tspoBoth, loff, roff)
			if data != nil {
				data.negate = true
			}
			return tsYes
		case ld.negate:
			return tsPhraseOutput(data, &ld, &rd, tspoROnly, loff, roff)
		case rd.negate:
			return tsPhraseOutput(data, &ld, &rd, tspoLOnly, loff, roff)
		}
		return tsPhraseOutput(data, &ld, &rd, tspoBoth, loff, roff)
	}
	// OR
	var ld, rd phraseData
	lm := tsPhraseExecute(n.left, check, &ld)
	rm := tsPhraseExecute(n.right, check, &rd)
	if lm == tsNo && rm == tsNo {
		return tsNo
	}
	if lm == tsMaybe || rm == tsMaybe {
		return tsMaybe
	}
	if lm == tsNo {
		ld.width = 0
	}
	if rm == tsNo {
		rd.width = 0
	}
	w := max(ld.width, rd.width)
	loff, roff := w-ld.width, w-rd.width
	data.width = w
	switch {
	case ld.negate && rd.negate:
		tsPhraseOutput(data, &ld, &rd, tspoBoth, loff, roff)
		data.negate = true
		return tsYes
	case ld.negate:
		tsPhraseOutput(data, &ld, &rd, tspoLOnly, loff, roff)
		data.negate = true
		return tsYes
	case rd.negate:
		tsPhraseOutput(data, &ld, &rd, tspoROnly, loff, roff)
		data.negate = true
		return tsYes
	}
	return tsPhraseOutput(data, &ld, &rd, tspoLOnly|tspoROnly|tspoBoth, loff, roff)
}
