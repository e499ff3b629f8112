package types

import (
	"github.com/fickle-db/fickle/internal/pgerror"
)

// Matching an ARE. Where PostgreSQL runs a DFA over a node's language, this
// engine runs a Pike machine over the node's program (the set of states
// reached, without captures), with every constraint judged against the
// whole string; the dissection of a match through the subexpression tree
// (cdissect and its helpers in regexec.c) is PostgreSQL's, step by step:
// a concatenation tries its split points from the longest first part down
// (from the shortest up when that part is non-greedy), an alternation its
// branches in order, an iteration its sequences of end points in the same
// order as citerdissect, and back references are compared with the text.
//
// Costs: one run of a program is O(n·m) for n characters and m
// instructions; finding a match tries each start and end, so a search is
// O(n²·m) at worst, and dissecting through nested concatenations and
// iterations backtracks like PostgreSQL's (exponentially in the worst
// case for iterations with back references). Every run and dissection step
// counts its work and checks the statement's interruption
// (statement_timeout, cancel) every areInterruptEvery steps.

const (
	iSet = iota
	iSplit
	iJmp
	iAssert
	iLook
	iMatch
)

type areInst struct {
	op   uint8
	as   assertKind
	x, y int
	set  *charSet
	look int
}

// areProg is the compiled language of a node or lookaround.
type areProg struct {
	insts []areInst
}

// maxAREInsts bounds the program of an RE's whole language and its
// lookarounds (bounds multiply them).
const maxAREInsts = 4 << 20

func (v *areParser) compileLang(l *areLang) (*areProg, error) {
	p := &areProg{}
	if !p.emit(l, &v.progSize) {
		return nil, pgerror.Newf(pgerror.InvalidRegularExpression, "invalid regular expression: %s", regETooBig)
	}
	p.insts = append(p.insts, areInst{op: iMatch})
	return p, nil
}

func (p *areProg) add(in areInst, size *int) int {
	p.insts = append(p.insts, in)
	*size++
	return len(p.insts) - 1
}

// emit appends l's instructions; false when the RE grows too large.
func (p *areProg) emit(l *areLang, size *int) bool {
	if *size > maxAREInsts {
		return false
	}
	switch l.kind {
	case langSet:
		p.add(areInst{op: iSet, set: l.set}, size)
	case langAssert:
		p.add(areInst{op: iAssert, as: l.assert}, size)
	case langLook:
		p.add(areInst{op: iLook, look: l.look}, size)
	case langCat:
		for _, s := range l.subs {
			if !p.emit(s, size) {
				return false
			}
		}
	case langAlt:
		var jumps []int
		for i, s := range l.subs {
			if i == len(l.subs)-1 {
				if !p.emit(s, size) {
					return false
				}
				break
			}
			split := p.add(areInst{op: iSplit}, size)
			p.insts[split].x = split + 1
			if !p.emit(s, size) {
				return false
			}
			jumps = append(jumps, p.add(areInst{op: iJmp}, size))
			p.insts[split].y = len(p.insts)
		}
		for _, j := range jumps {
			p.insts[j].x = len(p.insts)
		}
	case langRep:
		body := l.subs[0]
		for i := 0; i < l.min; i++ {
			if !p.emit(body, size) {
				return false
			}
		}
		if l.max == dupInf {
			split := p.add(areInst{op: iSplit}, size)
			p.insts[split].x = split + 1
			if !p.emit(body, size) {
				return false
			}
			p.add(areInst{op: iJmp, x: split}, size)
			p.insts[split].y = len(p.insts)
			break
		}
		var splits []int
		for i := l.min; i < l.max; i++ {
			split := p.add(areInst{op: iSplit}, size)
			p.insts[split].x = split + 1
			splits = append(splits, split)
			if !p.emit(body, size) {
				return false
			}
		}
		for _, s := range splits {
			p.insts[s].y = len(p.insts)
		}
	}
	return true
}

// areInterruptEvery is how many steps of matching pass between two checks
// of the statement's interruption.
const areInterruptEvery = 1 << 14

// areAbort carries an interruption out of a match.
type areAbort struct{ err error }

// areExec is one match of an ARE against a string.
type areExec struct {
	re    *areRegex
	s     []rune
	n     int
	caps  []int
	env   *Env
	steps int
	// lookahead results by lookaround and position: 0 unknown, 1 true,
	// 2 false; lookbehinds advance a search of their own.
	memo [][]int8
	lb   []*lbState
	// scratch keeps two thread lists per program between runs (a run
	// never starts another of the same program).
	scratch map[*areProg]*[2]*threadList
}

// lists returns two empty thread lists for p.
func (x *areExec) lists(p *areProg) (*threadList, *threadList) {
	l, ok := x.scratch[p]
	if !ok {
		l = &[2]*threadList{newThreadList(len(p.insts)), newThreadList(len(p.insts))}
		x.scratch[p] = l
	}
	l[0].n, l[1].n = 0, 0
	return l[0], l[1]
}

type lbState struct {
	pos  int
	list *threadList
}

func newAREExec(env *Env, re *areRegex, s []rune) *areExec {
	x := &areExec{re: re, s: s, n: len(s), env: env}
	x.caps = make([]int, 2*(re.nsub+1))
	x.memo = make([][]int8, len(re.looks))
	x.lb = make([]*lbState, len(re.looks))
	x.scratch = map[*areProg]*[2]*threadList{}
	return x
}

func (x *areExec) tick(k int) {
	x.steps += k
	if x.steps >= areInterruptEvery {
		x.steps = 0
		if err := x.env.Interrupt(); err != nil {
			panic(areAbort{err})
		}
	}
}

// threadList is a set of program counters in order of insertion, each
// with the start of the thread that reached it first.
type threadList struct {
	dense  []int
	starts []int
	sparse []int
	n      int
}

func newThreadList(size int) *threadList {
	return &threadList{dense: make([]int, size), starts: make([]int, size), sparse: make([]int, size)}
}

func (l *threadList) has(pc int) bool {
	i := l.sparse[pc]
	return i < l.n && l.dense[i] == pc
}

func (l *threadList) put(pc, start int) {
	l.sparse[pc] = l.n
	l.dense[l.n] = pc
	l.starts[l.n] = start
	l.n++
}

// add adds pc and what it reaches without consuming a character at pos.
func (x *areExec) add(p *areProg, l *threadList, pc, pos, start int, stack []int) []int {
	stack = append(stack[:0], pc)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if l.has(pc) {
			continue
		}
		l.put(pc, start)
		in := &p.insts[pc]
		switch in.op {
		case iJmp:
			stack = append(stack, in.x)
		case iSplit:
			stack = append(stack, in.y, in.x)
		case iAssert:
			if x.holds(in.as, pos) {
				stack = append(stack, pc+1)
			}
		case iLook:
			if x.lookHolds(in.look, pos) {
				stack = append(stack, pc+1)
			}
		}
	}
	return stack
}

// step moves the threads of cur over the character at pos into next.
func (x *areExec) step(p *areProg, cur, next *threadList, pos int, stack []int) []int {
	next.n = 0
	c := x.s[pos]
	for i := 0; i < cur.n; i++ {
		in := &p.insts[cur.dense[i]]
		if in.op == iSet && in.set.has(c) {
			stack = x.add(p, next, cur.dense[i]+1, pos+1, cur.starts[i], stack)
		}
	}
	x.tick(cur.n + 1)
	return stack
}

func matchIn(p *areProg, l *threadList) (start int, ok bool) {
	last := len(p.insts) - 1
	if l.has(last) {
		return l.starts[l.sparse[last]], true
	}
	return 0, false
}

// run calls found with each position up to limit, in ascending order,
// where a match of p from begin ends, until found returns false.
func (x *areExec) run(p *areProg, begin, limit int, found func(int) bool) {
	cur, next := x.lists(p)
	stack := x.add(p, cur, 0, begin, begin, nil)
	for pos := begin; ; pos++ {
		if _, ok := matchIn(p, cur); ok && !found(pos) {
			return
		}
		if pos >= limit || cur.n == 0 {
			return
		}
		stack = x.step(p, cur, next, pos, stack)
		cur, next = next, cur
	}
}

// ends lists the ends of p's matches from begin up to limit.
func (x *areExec) ends(p *areProg, begin, limit int) []int {
	var out []int
	x.run(p, begin, limit, func(e int) bool { out = append(out, e); return true })
	return out
}

// longest is the end of p's longest match from begin up to limit, or -1.
func (x *areExec) longest(p *areProg, begin, limit int) int {
	e := -1
	x.run(p, begin, limit, func(pos int) bool { e = pos; return true })
	return e
}

// shortest is the first end of a match of p from begin at or after from
// and up to limit, or -1.
func (x *areExec) shortest(p *areProg, begin, from, limit int) int {
	e := -1
	x.run(p, begin, limit, func(pos int) bool {
		if pos >= from {
			e = pos
			return false
		}
		return true
	})
	return e
}

// matchesExactly reports whether p matches the text from begin to end.
func (x *areExec) matchesExactly(p *areProg, begin, end int) bool {
	return x.longest(p, begin, end) == end
}

// leftmost is the first start at or after from where p matches, or -1.
func (x *areExec) leftmost(p *areProg, from int) int {
	cur, next := x.lists(p)
	var stack []int
	best := -1
	for pos := from; ; pos++ {
		if best < 0 {
			stack = x.add(p, cur, 0, pos, pos, stack)
		}
		if s, ok := matchIn(p, cur); ok && (best < 0 || s < best) {
			best = s
		}
		if best >= 0 {
			// threads that started later cannot give an earlier start
			k := 0
			for i := 0; i < cur.n; i++ {
				if cur.starts[i] < best {
					cur.sparse[cur.dense[i]] = k
					cur.dense[k], cur.starts[k] = cur.dense[i], cur.starts[i]
					k++
				}
			}
			cur.n = k
		}
		if pos >= x.n || cur.n == 0 && best >= 0 {
			return best
		}
		stack = x.step(p, cur, next, pos, stack)
		cur, next = next, cur
	}
}

// holds judges a constraint at pos.
func (x *areExec) holds(a assertKind, pos int) bool {
	nl := x.re.opts.nlanch
	wordBefore := pos > 0 && isWordChar(x.s[pos-1])
	wordAfter := pos < x.n && isWordChar(x.s[pos])
	switch a {
	case assertBOL:
		return pos == 0 || nl && x.s[pos-1] == '\n'
	case assertEOL:
		return pos == x.n || nl && x.s[pos] == '\n'
	case assertBOS:
		return pos == 0
	case assertEOS:
		return pos == x.n
	case assertWordStart:
		return !wordBefore && wordAfter
	case assertWordEnd:
		return wordBefore && !wordAfter
	case assertWordBound:
		return wordBefore != wordAfter
	default:
		return wordBefore == wordAfter
	}
}

// lookHolds judges lookaround i at pos: a lookahead holds when its RE
// matches from pos, a lookbehind when it matches up to pos.
func (x *areExec) lookHolds(i, pos int) bool {
	la := x.re.looks[i]
	if x.memo[i] == nil {
		x.memo[i] = make([]int8, x.n+1)
	}
	if m := x.memo[i][pos]; m != 0 {
		return m == 1
	}
	var ok bool
	if la.ahead {
		ok = x.shortest(la.prog, pos, pos, x.n) >= 0
	} else {
		ok = x.matchesUntil(i, la.prog, pos)
	}
	if la.neg {
		ok = !ok
	}
	x.memo[i][pos] = 2
	if ok {
		x.memo[i][pos] = 1
	}
	return ok
}

// matchesUntil reports whether p matches some text ending at pos, by a
// search from the start of the string that lookbehind i keeps between
// calls (as PostgreSQL's matchuntil does).
func (x *areExec) matchesUntil(i int, p *areProg, pos int) bool {
	st := x.lb[i]
	if st == nil || st.pos > pos {
		st = &lbState{list: newThreadList(len(p.insts))}
		x.add(p, st.list, 0, 0, 0, nil)
		x.lb[i] = st
	}
	next := newThreadList(len(p.insts))
	var stack []int
	for st.pos < pos {
		stack = x.step(p, st.list, next, st.pos, stack)
		st.pos++
		stack = x.add(p, next, 0, st.pos, st.pos, stack)
		st.list, next = next, st.list
	}
	_, ok := matchIn(p, st.list)
	return ok
}

// find finds the first match at or after from, as cfindloop does, leaving
// its subexpressions in x.caps (rune positions). It tries the starts up to
// the earliest end of a match of the RE's language, and the next search
// begins after that end; like PostgreSQL's, it gives up once that end
// reaches the last character, which only a back reference that fails to
// match can make it do.
func (x *areExec) find(from int) bool {
	t := x.re.tree
	shorter := t.flags&srShorter != 0
	for search := from; ; {
		close := x.earliestEnd(x.re.progOf(t), search)
		if close < 0 {
			return false
		}
		for begin := search; begin <= close; begin++ {
			if begin = x.leftmost(x.re.progOf(t), begin); begin < 0 || begin > close {
				break
			}
			ends := x.ends(x.re.progOf(t), begin, x.n)
			for i := range ends {
				e := ends[len(ends)-1-i]
				if shorter {
					e = ends[i]
				}
				for j := range x.caps {
					x.caps[j] = -1
				}
				if !x.re.needsDissect || x.dissect(t, begin, e) {
					x.caps[0], x.caps[1] = begin, e
					return true
				}
			}
		}
		search = close + 1
		if search >= x.n {
			return false
		}
	}
}

// earliestEnd is the first position where a match of p starting at or
// after from ends, or -1.
func (x *areExec) earliestEnd(p *areProg, from int) int {
	cur, next := x.lists(p)
	var stack []int
	for pos := from; ; pos++ {
		stack = x.add(p, cur, 0, pos, pos, stack)
		if _, ok := matchIn(p, cur); ok {
			return pos
		}
		if pos >= x.n {
			return -1
		}
		stack = x.step(p, cur, next, pos, stack)
		cur, next = next, cur
	}
}

func (x *areExec) zap(t *subre) {
	if t.capno > 0 {
		x.caps[2*t.capno], x.caps[2*t.capno+1] = -1, -1
	}
	for _, c := range t.children {
		x.zap(c)
	}
}

// dissect is cdissect: it checks back references and sets the
// subexpressions of a match of t from begin to end, which t's language
// matches.
func (x *areExec) dissect(t *subre, begin, end int) bool {
	x.tick(1)
	var ok bool
	switch t.op {
	case '=':
		ok = true
	case 'b':
		ok = x.backrefDissect(t, begin, end)
	case '.':
		ok = x.concatDissect(t, begin, end)
	case '|':
		for _, c := range t.children {
			if x.matchesExactly(x.re.progOf(c), begin, end) && x.dissect(c, begin, end) {
				ok = true
				break
			}
		}
	case '*':
		if t.children[0].flags&srShorter != 0 {
			ok = x.revIterDissect(t, begin, end)
		} else {
			ok = x.iterDissect(t, begin, end)
		}
	case '(':
		ok = x.dissect(t.children[0], begin, end)
	}
	if ok && t.capno > 0 {
		x.caps[2*t.capno], x.caps[2*t.capno+1] = begin, end
	}
	return ok
}

// concatDissect splits a concatenation: the left part as long as it can
// be (as short, when it prefers the shortest match), the right part
// matching the rest.
func (x *areExec) concatDissect(t *subre, begin, end int) bool {
	left, right := t.children[0], t.children[1]
	mids := x.ends(x.re.progOf(left), begin, end)
	shorter := left.flags&srShorter != 0
	for i := range mids {
		mid := mids[len(mids)-1-i]
		if shorter {
			mid = mids[i]
		}
		if !x.matchesExactly(x.re.progOf(right), mid, end) {
			continue
		}
		if x.dissect(left, begin, mid) {
			if x.dissect(right, mid, end) {
				return true
			}
			x.zap(left)
		}
	}
	return false
}

// backrefDissect compares the text with the subexpression referred to,
// repeated min to max times.
func (x *areExec) backrefDissect(t *subre, begin, end int) bool {
	so, eo := x.caps[2*t.backno], x.caps[2*t.backno+1]
	if so < 0 {
		return false
	}
	brlen := eo - so
	if brlen == 0 {
		return begin == end
	}
	if begin == end {
		return t.min == 0
	}
	tlen := end - begin
	if tlen%brlen != 0 {
		return false
	}
	reps := tlen / brlen
	if reps < t.min || t.max != dupInf && reps > t.max {
		return false
	}
	for p := begin; p < end; p += brlen {
		for k := 0; k < brlen; k++ {
			a, b := x.s[so+k], x.s[p+k]
			if a != b && !(x.re.opts.icase && isASCIILetter(a) && a^0x20 == b) {
				return false
			}
		}
	}
	x.tick(tlen)
	return true
}

// iterDissect is citerdissect: it finds end points for the iterations,
// each as far as it can reach, backtracking over them in order.
func (x *areExec) iterDissect(t *subre, begin, end int) bool {
	child := t.children[0]
	minM := max(t.min, 1)
	maxM := end - begin
	if t.max != dupInf && maxM > t.max {
		maxM = t.max
	}
	maxM = max(maxM, minM)
	endpts := make([]int, maxM+1)
	endpts[0] = begin
	cache := map[int][]int{}
	longest := func(from, limit int) int {
		es, ok := cache[from]
		if !ok {
			es = x.ends(x.re.progOf(child), from, end)
			cache[from] = es
		}
		for i := len(es) - 1; i >= 0; i-- {
			if es[i] <= limit {
				return es[i]
			}
		}
		return -1
	}
	nverified, k, limit := 0, 1, end
	for k > 0 {
		back := false
		endpts[k] = longest(endpts[k-1], limit)
		switch {
		case endpts[k] < 0:
			k--
			back = true
		default:
			if nverified >= k {
				nverified = k - 1
			}
			if endpts[k] != end {
				if k >= maxM {
					k--
					back = true
				} else if endpts[k] == endpts[k-1] && (k >= minM || minM-k < end-endpts[k]) {
					back = true
				} else {
					k++
					limit = end
					continue
				}
			} else if k < minM {
				back = true
			} else {
				var ok bool
				if k, nverified, ok = x.verifyIterations(child, endpts, nverified, k); ok {
					return true
				}
				back = true
			}
		}
		if back {
			for k > 0 {
				prev := endpts[k-1]
				if endpts[k] > prev {
					limit = endpts[k] - 1
					if limit > prev || k < minM && minM-k >= end-prev {
						break
					}
				}
				k--
			}
		}
	}
	return t.min == 0 && begin == end
}

// revIterDissect is creviterdissect: citerdissect for a child that prefers
// the shortest match, each iteration as short as it can be.
func (x *areExec) revIterDissect(t *subre, begin, end int) bool {
	child := t.children[0]
	minM := t.min
	if minM <= 0 {
		if begin == end {
			return true
		}
		minM = 1
	}
	maxM := end - begin
	if t.max != dupInf && maxM > t.max {
		maxM = t.max
	}
	maxM = max(maxM, minM)
	endpts := make([]int, maxM+1)
	endpts[0] = begin
	nverified, k, limit := 0, 1, begin
	for k > 0 {
		if limit == endpts[k-1] && limit != end && (k >= minM || minM-k < end-limit) {
			limit++
		}
		if k >= maxM {
			limit = end
		}
		back := false
		endpts[k] = x.shortest(x.re.progOf(child), endpts[k-1], limit, end)
		switch {
		case endpts[k] < 0:
			k--
			back = true
		default:
			if nverified >= k {
				nverified = k - 1
			}
			if endpts[k] != end {
				if k >= maxM {
					k--
					back = true
				} else {
					k++
					limit = endpts[k-1]
					continue
				}
			} else if k < minM {
				back = true
			} else {
				var ok bool
				if k, nverified, ok = x.verifyIterations(child, endpts, nverified, k); ok {
					return true
				}
				back = true
			}
		}
		if back {
			for k > 0 {
				if endpts[k] < end {
					limit = endpts[k] + 1
					break
				}
				k--
			}
		}
	}
	return false
}

// areMatch runs fn, turning an interruption into its error.
func areMatch(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			a, ok := r.(areAbort)
			if !ok {
				panic(r)
			}
			err = a.err
		}
	}()
	fn()
	return nil
}

// verifyIterations dissects the iterations nverified+1..k of child between
// their end points, as citerdissect and creviterdissect do once every
// iteration has a candidate end: ok when all match, else the first that
// does not, to back up from, with the count verified so far.
func (x *areExec) verifyIterations(child *subre, endpts []int, nverified, k int) (first, verified int, ok bool) {
	i := nverified + 1
	for ; i <= k; i++ {
		x.zap(child)
		if !x.dissect(child, endpts[i-1], endpts[i]) {
			break
		}
		nverified = i
	}
	return i, nverified, i > k
}
