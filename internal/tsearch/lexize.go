package tsearch

// The normalization of a text's tokens as ts_parse.c's LexizeExec runs
// it: each token through its type's dictionaries, a filtering dictionary
// passing its lexeme on, and a dictionary that asks for the next tokens
// (a thesaurus, which matches phrases) reading on until it gives a result
// for all of them or gives up, when the tokens are normalized again from
// the first with the dictionaries after it.

// The flags of a lexeme (TSLexeme.flags).
const (
	lexAddPos = 1 << iota // TSL_ADDPOS: the lexeme takes the next position
	lexPrefix             // TSL_PREFIX: it matches as a prefix in a tsquery
	lexFilter             // TSL_FILTER: it replaces the token for the next dictionary
)

// tsLex is a TSLexeme: a lexeme, its variant among a token's
// alternatives and its flags.
type tsLex struct {
	word     string
	nvariant uint16
	flags    uint8
}

// dictState is DictSubState: what a dictionary reading several tokens is
// told (isEnd: the text ended) and tells (getNext: it wants the next
// token), and the state it keeps between them.
type dictState struct {
	isEnd, getNext bool
	private        []*thEntry
}

// lexemes is the dictionary's lexize: nil when it does not recognize the
// token, empty for a stopword. st is nil where no phrase can follow (a
// thesaurus's subdictionary).
func (d *Dictionary) lexemes(word string, st *dictState) []tsLex {
	if d.thesaurus != nil {
		return d.thesaurus.lexize(word, st)
	}
	lex, prefix := d.lexize(word)
	if lex == nil {
		return nil
	}
	out := make([]tsLex, len(lex))
	for i, w := range lex {
		out[i].word = w
		if prefix {
			out[i].flags |= lexPrefix
		}
		if d.Filter {
			out[i].flags |= lexFilter
		}
	}
	return out
}

// parsedLex is a token waiting to be normalized; type 0 marks the text's
// end.
type parsedLex struct {
	typ  TokenType
	lemm string
	next *parsedLex
}

type lexList struct{ head, tail *parsedLex }

func (l *lexList) addTail(p *parsedLex) {
	if l.tail != nil {
		l.tail.next = p
		l.tail = p
	} else {
		l.head, l.tail = p, p
	}
	p.next = nil
}

func (l *lexList) removeHead() *parsedLex {
	p := l.head
	if l.head != nil {
		l.head = l.head.next
	}
	if l.head == nil {
		l.tail = nil
	}
	return p
}

// lexizer is LexizeData.
type lexizer struct {
	cfg *Config
	// curDict is the dictionary reading several tokens, nil in the usual
	// mode; posDict is the next dictionary to try on the first token.
	curDict *Dictionary
	posDict int
	state   dictState
	// curSub is the next token for curDict; towork the tokens not yet
	// normalized, waste those done.
	curSub        *parsedLex
	towork, waste lexList
	// tmpRes is curDict's last result, for the tokens up to lastRes.
	lastRes *parsedLex
	tmpRes  []tsLex
}

// add is LexizeAddLemm.
func (ld *lexizer) add(typ TokenType, lemm string) {
	ld.towork.addTail(&parsedLex{typ: typ, lemm: lemm})
	ld.curSub = ld.towork.tail
}

func (ld *lexizer) removeHead() {
	ld.waste.addTail(ld.towork.removeHead())
	ld.posDict = 0
}

func (ld *lexizer) moveToWaste(stop *parsedLex) {
	for ld.towork.head != nil {
		if ld.towork.head == stop {
			ld.curSub = stop.next
			ld.removeHead()
			return
		}
		ld.removeHead()
	}
}

func (ld *lexizer) setNewTmpRes(lex *parsedLex, res []tsLex) {
	ld.tmpRes, ld.lastRes = res, lex
}

// hasDict reports whether the dictionaries include d.
func hasDict(dicts []*Dictionary, d *Dictionary) bool {
	for _, x := range dicts {
		if x == d || x.OID == d.OID && d.OID != 0 {
			return true
		}
	}
	return false
}

// exec is LexizeExec: the lexemes of the next normalized token (or
// phrase), nil when it needs more tokens or has none left.
func (ld *lexizer) exec() []tsLex {
	if ld.curDict == nil {
		for ld.towork.head != nil {
			cur := ld.towork.head
			word := cur.lemm
			var dicts []*Dictionary
			if cur.typ > 0 && cur.typ <= LastTokenType {
				dicts = ld.cfg.Map[cur.typ]
			}
			if len(dicts) == 0 {
				ld.removeHead()
				continue
			}
			for i := ld.posDict; i < len(dicts); i++ {
				ld.state = dictState{}
				res := dicts[i].lexemes(word, &ld.state)
				if ld.state.getNext {
					ld.curDict, ld.posDict, ld.curSub = dicts[i], i+1, cur.next
					if res != nil {
						ld.setNewTmpRes(cur, res)
					}
					return ld.exec()
				}
				if res == nil {
					continue
				}
				if len(res) > 0 && res[0].flags&lexFilter != 0 {
					word = res[0].word
					continue
				}
				ld.removeHead()
				ld.waste = lexList{}
				return res
			}
			ld.removeHead()
		}
	} else {
		d := ld.curDict
		for ld.curSub != nil {
			cur := ld.curSub
			if cur.typ != 0 {
				var dicts []*Dictionary
				if cur.typ <= LastTokenType {
					dicts = ld.cfg.Map[cur.typ]
				}
				if len(dicts) == 0 {
					ld.curSub = cur.next
					continue
				}
				if !hasDict(dicts, d) {
					ld.curDict = nil
					return ld.exec()
				}
			}
			ld.state.isEnd, ld.state.getNext = cur.typ == 0, false
			res := d.lexemes(cur.lemm, &ld.state)
			if ld.state.getNext {
				ld.curSub = cur.next
				if res != nil {
					ld.setNewTmpRes(cur, res)
				}
				continue
			}
			if res != nil || ld.tmpRes != nil {
				if res != nil {
					ld.moveToWaste(ld.curSub)
				} else {
					res = ld.tmpRes
					ld.moveToWaste(ld.lastRes)
				}
				ld.curDict, ld.posDict, ld.lastRes, ld.tmpRes = nil, 0, nil, nil
				ld.waste = lexList{}
				return res
			}
			ld.curDict = nil
			return ld.exec()
		}
	}
	ld.waste = lexList{}
	return nil
}

// hasPhrases reports whether a dictionary of cfg reads phrases (a
// thesaurus).
func (cfg *Config) hasPhrases() bool {
	for _, dicts := range cfg.Map {
		for _, d := range dicts {
			if d.thesaurus != nil {
				return true
			}
		}
	}
	return false
}
