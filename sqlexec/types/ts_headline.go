package types

import (
	"context"
	"math"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// ts_headline: the headline framework of ts_parse.c (hlparsetext's
// matching of words to query operands, generateHeadline) and the default
// parser's headline selector (wparser_def.c's prsd_headline with
// hlCover, mark_hl_words and mark_hl_fragments), over the tokens package
// tsearch gives, with deserialize_deflist reading the options.

// HeadlineWord is one token of the text a headline is made of, as the
// parser and the configuration's dictionaries left it.
type HeadlineWord struct {
	Text string
	// Pos is the token's position (LIMITPOS applies); Lexemes its
	// lexemes, nil or empty when it has none.
	Pos     int
	Lexemes []string
	// The parser's classification: NonWord tokens do not count as words
	// (NONWORDTOKEN), a headline avoids ending at NoEnd ones
	// (NOENDTOKEN), Replace ones show as a space (HLIDREPLACE) and Skip
	// ones not at all (HLIDSKIP).
	NonWord, NoEnd, Replace, Skip bool
}

// HeadlineOption is one name = value of ts_headline's options text.
type HeadlineOption struct {
	Name, Value string
}

// ParseHeadlineOptions is deserialize_deflist: a list of name = value,
// separated by commas or white space, names bare or double-quoted, values
// bare, 'single-quoted' (or E'...') or double-quoted.
func ParseHeadlineOptions(s string) ([]HeadlineOption, error) {
	const (
		waitKey = iota
		inKey
		inQKey
		waitEq
		waitValue
		inSQValue
		inDQValue
		inWValue
	)
	var out []HeadlineOption
	var key, val []byte
	state := waitKey
	bad := func() error {
		return pgerror.Newf(pgerror.SyntaxError, "invalid parameter list format: \"%s\"", s)
	}
	emit := func() {
		out = append(out, HeadlineOption{Name: string(key), Value: string(val)})
		key, val = nil, nil
		state = waitKey
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch state {
		case waitKey:
			if isSpace(c) || c == ',' {
				continue
			}
			if c == '"' {
				state = inQKey
			} else {
				key = append(key, c)
				state = inKey
			}
		case inKey:
			switch {
			case isSpace(c):
				state = waitEq
			case c == '=':
				state = waitValue
			default:
				key = append(key, c)
			}
		case inQKey:
			switch {
			case c == '"' && i+1 < len(s) && s[i+1] == '"':
				key = append(key, c)
				i++
			case c == '"':
				state = waitEq
			default:
				key = append(key, c)
			}
		case waitEq:
			if c == '=' {
				state = waitValue
			} else if !isSpace(c) {
				return nil, bad()
			}
		case waitValue:
			switch {
			case c == '\'':
				state = inSQValue
			case c == 'E' && i+1 < len(s) && s[i+1] == '\'':
				i++
				state = inSQValue
			case c == '"':
				state = inDQValue
			case !isSpace(c):
				val = append(val, c)
				state = inWValue
			}
		case inSQValue:
			switch {
			case c == '\'' && i+1 < len(s) && s[i+1] == '\'':
				val = append(val, c)
				i++
			case c == '\'':
				emit()
			case c == '\\' && i+1 < len(s) && s[i+1] == '\\':
				val = append(val, c)
				i++
			default:
				val = append(val, c)
			}
		case inDQValue:
			switch {
			case c == '"' && i+1 < len(s) && s[i+1] == '"':
				val = append(val, c)
				i++
			case c == '"':
				emit()
			default:
				val = append(val, c)
			}
		case inWValue:
			if c == ',' || isSpace(c) {
				emit()
			} else {
				val = append(val, c)
			}
		}
	}
	switch state {
	case inWValue:
		emit()
	case waitKey:
	default:
		return nil, bad()
	}
	return out, nil
}

// headlineConfig is prsd_headline's options.
type headlineConfig struct {
	minWords, maxWords, shortWord, maxFragments int32
	highlightAll                                bool
	startSel, stopSel, fragDelim                string
	maxCover                                    int32
}

// pgStrtoint32 is PostgreSQL 15's pg_strtoint32: optional white space
// and sign around decimal digits.
func pgStrtoint32(s string) (int32, error) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	syntax := pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type integer: \"%s\"", s)
	if i >= len(s) || s[i] < '0' || s[i] > '9' {
		return 0, syntax
	}
	var v int64
	for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		v = v*10 - int64(s[i]-'0')
		if v < math.MinInt32 {
			return 0, pgerror.Newf(pgerror.NumericValueOutOfRange, "value \"%s\" is out of range for type integer", s)
		}
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) {
		return 0, syntax
	}
	if !neg {
		if v == math.MinInt32 {
			return 0, pgerror.Newf(pgerror.NumericValueOutOfRange, "value \"%s\" is out of range for type integer", s)
		}
		v = -v
	}
	return int32(v), nil
}

// newHeadlineConfig reads the options as prsd_headline does, with its
// defaults and checks.
func newHeadlineConfig(opts []HeadlineOption) (headlineConfig, error) {
	c := headlineConfig{minWords: 15, maxWords: 35, shortWord: 3,
		startSel: "<b>", stopSel: "</b>", fragDelim: " ... "}
	for _, o := range opts {
		var n *int32
		switch asciiLower(o.Name) {
		case "maxwords":
			n = &c.maxWords
		case "minwords":
			n = &c.minWords
		case "shortword":
			n = &c.shortWord
		case "maxfragments":
			n = &c.maxFragments
		case "startsel":
			c.startSel = o.Value
		case "stopsel":
			c.stopSel = o.Value
		case "fragmentdelimiter":
			c.fragDelim = o.Value
		case "highlightall":
			switch asciiLower(o.Value) {
			case "1", "on", "true", "t", "y", "yes":
				c.highlightAll = true
			default:
				c.highlightAll = false
			}
		default:
			return c, pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized headline parameter: \"%s\"", o.Name)
		}
		if n != nil {
			v, err := pgStrtoint32(o.Value)
			if err != nil {
				return c, err
			}
			*n = v
		}
	}
	// int arithmetic wraps as PostgreSQL's (built with -fwrapv) does.
	c.maxCover = max(c.maxWords*10, 100)
	if c.maxFragments > 0 {
		c.maxCover *= c.maxFragments
	}
	if !c.highlightAll {
		switch {
		case c.minWords >= c.maxWords:
			return c, pgerror.New(pgerror.InvalidParameterValue, "MinWords should be less than MaxWords")
		case c.minWords <= 0:
			return c, pgerror.New(pgerror.InvalidParameterValue, "MinWords should be positive")
		case c.shortWord < 0:
			return c, pgerror.New(pgerror.InvalidParameterValue, "ShortWord should be >= 0")
		case c.maxFragments < 0:
			return c, pgerror.New(pgerror.InvalidParameterValue, "MaxFragments should be >= 0")
		}
	}
	// The lengths of the strings a headline adds are int16s.
	for _, o := range []struct{ name, val string }{{"StartSel", c.startSel}, {"StopSel", c.stopSel},
		{"FragmentDelimiter", c.fragDelim}} {
		if len(o.val) > math.MaxInt16 {
			return c, pgerror.Newf(pgerror.InvalidParameterValue, "value for \"%s\" is too long", o.name)
		}
	}
	return c, nil
}

// hlWord is HeadlineWordEntry: a token, or a repeat of one for another
// query operand its lexeme matches.
type hlWord struct {
	w        *HeadlineWord
	item     *tsqNode
	pos      uint16
	repeated bool
	selected bool
	in       bool
	replace  bool
	skip     bool
}

// hlText is HeadlineParsedText with the options the selectors read.
type hlText struct {
	ctx   context.Context
	words []hlWord
	query TSQuery
	cfg   headlineConfig
	steps int
}

// TSHeadline is ts_headline over a parsed text: the headline of words
// for query q with the options opts.
func TSHeadline(ctx context.Context, words []HeadlineWord, q TSQuery, opts []HeadlineOption) (string, error) {
	cfg, err := newHeadlineConfig(opts)
	if err != nil {
		return "", err
	}
	h := &hlText{ctx: ctx, query: q, cfg: cfg}
	h.parse(words)
	if cfg.maxFragments == 0 {
		err = h.markWords()
	} else {
		err = h.markFragments()
	}
	if err != nil {
		return "", err
	}
	return h.generate(), nil
}

// parse is hlparsetext's part after the parser: each token becomes a word
// and each of its lexemes is matched against the query's operands
// (hlfinditem), in the query's polish order; a lexeme matching a second
// operand adds a repeated word for it.
func (h *hlText) parse(words []HeadlineWord) {
	items := tsqueryItems(h.query)
	for i := range words {
		w := &words[i]
		h.words = append(h.words, hlWord{w: w})
		for _, lex := range w.Lexemes {
			last := len(h.words) - 1
			h.words[last].pos = uint16(limitPos(int32(min(w.Pos, math.MaxInt32))))
			for _, it := range items {
				if it.kind != qiVal || !hlMatches(it, lex) {
					continue
				}
				if h.words[last].item != nil {
					rep := h.words[last]
					rep.item, rep.repeated = it, true
					h.words = append(h.words, rep)
				} else {
					h.words[last].item = it
				}
			}
		}
	}
}

// hlMatches is hlfinditem's tsCompareString: a prefix operand matches
// every lexeme it begins.
func hlMatches(op *tsqNode, lex string) bool {
	if op.prefix {
		return strings.HasPrefix(lex, op.word)
	}
	return op.word == lex
}

func (h *hlText) nonWord(i int) bool { return h.words[i].w.NonWord }

// interesting is INTERESTINGWORD: a word matching an operand, not a
// repeat.
func (h *hlText) interesting(i int) bool { return h.words[i].item != nil && !h.words[i].repeated }

// badEndpoint is BADENDPOINT: a non-word or short word, unless
// interesting.
func (h *hlText) badEndpoint(i int) bool {
	w := h.words[i]
	return (w.w.NoEnd || len(w.w.Text) <= int(h.cfg.shortWord)) && !h.interesting(i)
}

// firstIndex is hlFirstIndex: the first word from pos on that matches an
// operand, -1 when none does.
func (h *hlText) firstIndex(pos int) int {
	for i := pos; i < len(h.words); i++ {
		if h.words[i].item != nil {
			return i
		}
	}
	return -1
}

// satisfies is TS_execute of the query over words pmin..pmax with
// checkcondition_HL: an operand is there when one of those words matches
// it, at the positions of those words.
func (h *hlText) satisfies(pmin, pmax int) bool {
	check := func(op *tsqNode, data *phraseData) tsTernary {
		for i := pmin; i <= pmax; i++ {
			w := h.words[i]
			if w.item != op {
				continue
			}
			if data == nil {
				return tsYes
			}
			if len(data.pos) == 0 || data.pos[len(data.pos)-1] < w.pos {
				data.pos = append(data.pos, w.pos)
			}
		}
		if data != nil && len(data.pos) > 0 {
			return tsYes
		}
		return tsNo
	}
	return tsExecuteRecurse(h.query.root, check) != tsNo
}

// cover is hlCover: the earliest, shortest run of words from p on that
// satisfies the query, both ends matching operands and at most maxCover
// words apart.
func (h *hlText) cover(p int) (int, int, bool, error) {
	pmin := h.firstIndex(p)
	for pmin >= 0 {
		nextpmin := -1
		pmax := pmin
		for {
			if h.steps++; h.steps%1024 == 0 {
				if err := h.ctx.Err(); err != nil {
					return 0, 0, false, err
				}
			}
			if h.satisfies(pmin, pmax) {
				return pmin, pmax, true, nil
			}
			nextpmax := h.firstIndex(pmax + 1)
			if pmax == pmin {
				nextpmin = nextpmax
			}
			pmax = nextpmax
			if pmax < 0 || pmax-pmin >= int(h.cfg.maxCover) {
				break
			}
		}
		pmin = nextpmin
	}
	return 0, 0, false, nil
}

// markFragment is mark_fragment: words start..end go into the headline.
func (h *hlText) markFragment(start, end int) {
	for i := max(start, 0); i <= end && i < len(h.words); i++ {
		w := &h.words[i]
		if w.item != nil {
			w.selected = true
		}
		if !h.cfg.highlightAll {
			if w.w.Replace {
				w.replace = true
			} else if w.w.Skip {
				w.skip = true
			}
		} else if w.w.Skip {
			w.skip = true
		}
		w.in = !w.repeated
	}
}

// nextFragment is get_next_fragment: the next piece of a cover of at most
// maxWords words, starting and (when cut) ending at interesting words,
// with its length in words and interesting words.
func (h *hlText) nextFragment(start, end int) (int, int, int32, int32) {
	maxWords := h.cfg.maxWords
	var i int
	for i = start; i <= end; i++ {
		start = i
		if h.interesting(i) {
			break
		}
	}
	var curlen, poslen int32
	for i = start; i <= end && curlen < maxWords; i++ {
		if !h.nonWord(i) {
			curlen++
		}
		if h.interesting(i) {
			poslen++
		}
	}
	if end > i {
		end = i
		for i = end; i >= start; i-- {
			end = i
			if h.interesting(i) {
				break
			}
			if !h.nonWord(i) {
				curlen--
			}
		}
	}
	return start, end, curlen, poslen
}

// hlCoverPos is CoverPos: one fragment mark_hl_fragments may choose.
type hlCoverPos struct {
	start, end       int
	poslen, curlen   int32
	chosen, excluded bool
}

// markFragments is mark_hl_fragments, the selector when MaxFragments > 0:
// the covers cut into fragments of at most MaxWords words, the best
// MaxFragments of them (most interesting words, then fewest words)
// stretched towards MaxWords.
func (h *hlText) markFragments() error {
	c := h.cfg
	var covers []hlCoverPos
	p := 0
	for {
		cp, cq, ok, err := h.cover(p)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		p = cp
		start, end := cp, cq
		for start <= end {
			var curlen, poslen int32
			start, end, curlen, poslen = h.nextFragment(start, end)
			covers = append(covers, hlCoverPos{start: start, end: end, curlen: curlen, poslen: poslen})
			start, end = end+1, cq
		}
		p++
	}
	numF := 0
	for f := int32(0); f < c.maxFragments; f++ {
		var maxItems int32
		minWords := int32(math.MaxInt32)
		minI := -1
		for i, cv := range covers {
			if !cv.chosen && !cv.excluded && (maxItems < cv.poslen || (maxItems == cv.poslen && minWords > cv.curlen)) {
				maxItems, minWords, minI = cv.poslen, cv.curlen, i
			}
		}
		if minI < 0 {
			break
		}
		covers[minI].chosen = true
		start, end, curlen := covers[minI].start, covers[minI].end, covers[minI].curlen
		if curlen < c.maxWords {
			maxStretch := (c.maxWords - curlen) / 2
			// Stretch the start back at most maxStretch words, not into
			// an already chosen fragment, then forward again past bad
			// end points.
			var stretch int32
			marker := start
			i := start - 1
			for ; i >= 0 && stretch < maxStretch && !h.words[i].in; i-- {
				if !h.nonWord(i) {
					curlen++
					stretch++
				}
				marker = i
			}
			for i = marker; i < start && h.badEndpoint(i); i++ {
				if !h.nonWord(i) {
					curlen--
				}
			}
			start = i
			// Stretch the end as far as MaxWords allows, then back past
			// bad end points.
			marker = end
			for i = end + 1; i < len(h.words) && curlen < c.maxWords && !h.words[i].in; i++ {
				if !h.nonWord(i) {
					curlen++
				}
				marker = i
			}
			for i = marker; i > end && h.badEndpoint(i); i-- {
				if !h.nonWord(i) {
					curlen--
				}
			}
			end = i
		}
		covers[minI].start, covers[minI].end, covers[minI].curlen = start, end, curlen
		h.markFragment(start, end)
		numF++
		for i := range covers {
			cv := &covers[i]
			if i != minI && ((cv.start >= start && cv.start <= end) || (cv.end >= start && cv.end <= end) ||
				(cv.start < start && cv.end > end)) {
				cv.excluded = true
			}
		}
	}
	if numF <= 0 {
		h.markFragment(0, h.firstWords(-1))
	}
	return nil
}

// firstWords is the index of the last token of the text's first MinWords
// words (or of its last token), what a headline without a cover shows;
// end when the text has no token or MinWords is not positive.
func (h *hlText) firstWords(end int) int {
	var curlen int32
	for i := 0; i < len(h.words) && curlen < h.cfg.minWords; i++ {
		if !h.nonWord(i) {
			curlen++
		}
		end = i
	}
	return end
}

// markWords is mark_hl_words, the selector when MaxFragments is 0: of the
// headlines grown from each cover to between MinWords and MaxWords words,
// the one that keeps its whole cover, then has the most interesting
// words, then ends well.
func (h *hlText) markWords() error {
	c := h.cfg
	if c.highlightAll {
		h.markFragment(0, len(h.words)-1)
		return nil
	}
	bestb, beste := -1, -1
	var bestlen int32 = -1
	bestcover := false
	p := 0
	for {
		cp, q, ok, err := h.cover(p)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		p = cp
		var curlen, poslen int32
		posb, pose := p, p
		i := p
		for ; i <= q && curlen < c.maxWords; i++ {
			if !h.nonWord(i) {
				curlen++
			}
			if h.interesting(i) {
				poslen++
			}
			pose = i
		}
		if curlen < c.maxWords {
			// Room to lengthen: forward until full or at a good stop.
			for i = i - 1; i < len(h.words) && curlen < c.maxWords; i++ {
				if i > q {
					if !h.nonWord(i) {
						curlen++
					}
					if h.interesting(i) {
						poslen++
					}
				}
				pose = i
				if h.badEndpoint(i) {
					continue
				}
				if curlen >= c.minWords {
					break
				}
			}
			if curlen < c.minWords {
				// At the end of the text and still short: extend left.
				for i = p - 1; i >= 0; i-- {
					if !h.nonWord(i) {
						curlen++
					}
					if h.interesting(i) {
						poslen++
					}
					if curlen >= c.maxWords {
						break
					}
					if h.badEndpoint(i) {
						continue
					}
					if curlen >= c.minWords {
						break
					}
				}
				posb = max(i, 0)
			}
		} else {
			// Full: shorten to avoid a bad end point if MinWords allows.
			if i > q {
				i = q
			}
			for ; curlen > c.minWords && i >= 0; i-- {
				if !h.badEndpoint(i) {
					break
				}
				if !h.nonWord(i) {
					curlen--
				}
				if h.interesting(i) {
					poslen--
				}
				pose = i - 1
			}
		}
		poscover := posb <= p && pose >= q
		if (poscover && !bestcover) || (poscover == bestcover && poslen > bestlen) ||
			(poscover == bestcover && poslen == bestlen && !h.badEndpoint(pose) && beste >= 0 && h.badEndpoint(beste)) {
			bestb, beste, bestlen, bestcover = posb, pose, poslen, poscover
		}
		p++
	}
	if bestlen < 0 {
		bestb, beste = 0, h.firstWords(0)
	}
	h.markFragment(bestb, beste)
	return nil
}

// generate is generateHeadline: the words in the headline, selected ones
// between StartSel and StopSel, fragments joined by FragmentDelimiter.
func (h *hlText) generate() string {
	var sb strings.Builder
	infrag := false
	fragments := 0
	for _, w := range h.words {
		switch {
		case w.in && !w.repeated:
			if !infrag {
				infrag = true
				if fragments++; fragments > 1 {
					sb.WriteString(h.cfg.fragDelim)
				}
			}
			switch {
			case w.replace:
				sb.WriteByte(' ')
			case !w.skip:
				if w.selected {
					sb.WriteString(h.cfg.startSel)
				}
				sb.WriteString(w.w.Text)
				if w.selected {
					sb.WriteString(h.cfg.stopSel)
				}
			}
		case !w.repeated:
			infrag = false
		}
	}
	return sb.String()
}
