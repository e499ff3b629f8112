package tsearch

// The default parser's states and their action tables, transcribed from
// PostgreSQL 15's src/backend/tsearch/wparser_def.c. Each state's actions
// are tried in order; the first whose character class matches is taken,
// and the last (classNone) always matches.

type parserState int

const (
	tpsBase parserState = iota
	tpsInNumWord
	tpsInAsciiWord
	tpsInWord
	tpsInUnsignedInt
	tpsInSignedIntFirst
	tpsInSignedInt
	tpsInSpace
	tpsInUDecimalFirst
	tpsInUDecimal
	tpsInDecimalFirst
	tpsInDecimal
	tpsInVerVersion
	tpsInSVerVersion
	tpsInVersionFirst
	tpsInVersion
	tpsInMantissaFirst
	tpsInMantissaSign
	tpsInMantissa
	tpsInXMLEntityFirst
	tpsInXMLEntity
	tpsInXMLEntityNumFirst
	tpsInXMLEntityNum
	tpsInXMLEntityHexNumFirst
	tpsInXMLEntityHexNum
	tpsInXMLEntityEnd
	tpsInTagFirst
	tpsInXMLBegin
	tpsInTagCloseFirst
	tpsInTagName
	tpsInTagBeginEnd
	tpsInTag
	tpsInTagEscapeK
	tpsInTagEscapeKK
	tpsInTagBackSleshed
	tpsInTagEnd
	tpsInCommentFirst
	tpsInCommentLast
	tpsInComment
	tpsInCloseCommentFirst
	tpsInCloseCommentLast
	tpsInCommentEnd
	tpsInHostFirstDomain
	tpsInHostDomainSecond
	tpsInHostDomain
	tpsInPortFirst
	tpsInPort
	tpsInHostFirstAN
	tpsInHost
	tpsInEmail
	tpsInFileFirst
	tpsInFileTwiddle
	tpsInPathFirst
	tpsInPathFirstFirst
	tpsInPathSecond
	tpsInFile
	tpsInFileNext
	tpsInURLPathFirst
	tpsInURLPathStart
	tpsInURLPath
	tpsInFURL
	tpsInProtocolFirst
	tpsInProtocolSecond
	tpsInProtocolEnd
	tpsInHyphenAsciiWordFirst
	tpsInHyphenAsciiWord
	tpsInHyphenWordFirst
	tpsInHyphenWord
	tpsInHyphenNumWordFirst
	tpsInHyphenNumWord
	tpsInHyphenDigitLookahead
	tpsInParseHyphen
	tpsInParseHyphenHyphen
	tpsInHyphenWordPart
	tpsInHyphenAsciiWordPart
	tpsInHyphenNumWordPart
	tpsInHyphenUnsignedInt
	tpsNull
)

type charClass int

const (
	classNone charClass = iota
	classEOF
	classEqC
	classIgnore
	classAscLet
	classAlpha
	classDigit
	classAlnum
	classNotAlnum
	classSpace
	classXDigit
	classSpecial
	classStopHost
	classHost
	classURLPath
	classURLChar
)

type specialFunc int

const (
	specialNone specialFunc = iota
	specialTags
	specialFURL
	specialHyphen
	specialVerVersion
)

const (
	aNext   = 0x0000
	aBingo  = 0x0001
	aPop    = 0x0002
	aPush   = 0x0004
	aRerun  = 0x0008
	aClear  = 0x0010
	aMerge  = 0x0020
	aClrAll = 0x0040
)

type actionItem struct {
	class   charClass
	c       byte
	flags   int
	toState parserState
	typ     TokenType
	special specialFunc
}

// a builds an action without a token type or special handler.
func a(class charClass, c byte, flags int, to parserState) actionItem {
	return actionItem{class: class, c: c, flags: flags, toState: to}
}

// b builds an action that yields a token.
func b(class charClass, flags int, to parserState, typ TokenType) actionItem {
	return actionItem{class: class, flags: flags | aBingo, toState: to, typ: typ}
}

var actions [tpsNull][]actionItem

func init() {
	actions = [tpsNull][]actionItem{
		tpsBase: {
			a(classEOF, 0, aNext, tpsNull),
			a(classEqC, '<', aPush, tpsInTagFirst),
			a(classIgnore, 0, aNext, tpsInSpace),
			a(classAscLet, 0, aNext, tpsInAsciiWord),
			a(classAlpha, 0, aNext, tpsInWord),
			a(classDigit, 0, aNext, tpsInUnsignedInt),
			a(classEqC, '-', aPush, tpsInSignedIntFirst),
			a(classEqC, '+', aPush, tpsInSignedIntFirst),
			a(classEqC, '&', aPush, tpsInXMLEntityFirst),
			a(classEqC, '~', aPush, tpsInFileTwiddle),
			a(classEqC, '/', aPush, tpsInFileFirst),
			a(classEqC, '.', aPush, tpsInPathFirstFirst),
			a(classNone, 0, aNext, tpsInSpace),
		},
		tpsInNumWord: {
			b(classEOF, 0, tpsBase, NumWord),
			a(classAlnum, 0, aNext, tpsInNumWord),
			a(classSpecial, 0, aNext, tpsInNumWord),
			a(classEqC, '@', aPush, tpsInEmail),
			a(classEqC, '/', aPush, tpsInFileFirst),
			a(classEqC, '.', aPush, tpsInFileNext),
			a(classEqC, '-', aPush, tpsInHyphenNumWordFirst),
			b(classNone, 0, tpsBase, NumWord),
		},
		tpsInAsciiWord: {
			b(classEOF, 0, tpsBase, ASCIIWord),
			a(classAscLet, 0, aNext, tpsNull),
			a(classEqC, '.', aPush, tpsInHostFirstDomain),
			a(classEqC, '.', aPush, tpsInFileNext),
			a(classEqC, '-', aPush, tpsInHostFirstAN),
			a(classEqC, '-', aPush, tpsInHyphenAsciiWordFirst),
			a(classEqC, '_', aPush, tpsInHostFirstAN),
			a(classEqC, '@', aPush, tpsInEmail),
			a(classEqC, ':', aPush, tpsInProtocolFirst),
			a(classEqC, '/', aPush, tpsInFileFirst),
			a(classDigit, 0, aPush, tpsInHost),
			a(classDigit, 0, aNext, tpsInNumWord),
			a(classAlpha, 0, aNext, tpsInWord),
			a(classSpecial, 0, aNext, tpsInWord),
			b(classNone, 0, tpsBase, ASCIIWord),
		},
		tpsInWord: {
			b(classEOF, 0, tpsBase, Word),
			a(classAlpha, 0, aNext, tpsNull),
			a(classSpecial, 0, aNext, tpsNull),
			a(classDigit, 0, aNext, tpsInNumWord),
			a(classEqC, '-', aPush, tpsInHyphenWordFirst),
			b(classNone, 0, tpsBase, Word),
		},
		tpsInUnsignedInt: {
			b(classEOF, 0, tpsBase, UInt),
			a(classDigit, 0, aNext, tpsNull),
			a(classEqC, '.', aPush, tpsInHostFirstDomain),
			a(classEqC, '.', aPush, tpsInUDecimalFirst),
			a(classEqC, 'e', aPush, tpsInMantissaFirst),
			a(classEqC, 'E', aPush, tpsInMantissaFirst),
			a(classEqC, '-', aPush, tpsInHostFirstAN),
			a(classEqC, '_', aPush, tpsInHostFirstAN),
			a(classEqC, '@', aPush, tpsInEmail),
			a(classAscLet, 0, aPush, tpsInHost),
			a(classAlpha, 0, aNext, tpsInNumWord),
			a(classSpecial, 0, aNext, tpsInNumWord),
			a(classEqC, '/', aPush, tpsInFileFirst),
			b(classNone, 0, tpsBase, UInt),
		},
		tpsInSignedIntFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classDigit, 0, aNext|aClear, tpsInSignedInt),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInSignedInt: {
			b(classEOF, 0, tpsBase, Int),
			a(classDigit, 0, aNext, tpsNull),
			a(classEqC, '.', aPush, tpsInDecimalFirst),
			a(classEqC, 'e', aPush, tpsInMantissaFirst),
			a(classEqC, 'E', aPush, tpsInMantissaFirst),
			b(classNone, 0, tpsBase, Int),
		},
		tpsInSpace: {
			b(classEOF, 0, tpsBase, Blank),
			{class: classEqC, c: '<', flags: aBingo, toState: tpsBase, typ: Blank},
			a(classIgnore, 0, aNext, tpsNull),
			{class: classEqC, c: '-', flags: aBingo, toState: tpsBase, typ: Blank},
			{class: classEqC, c: '+', flags: aBingo, toState: tpsBase, typ: Blank},
			{class: classEqC, c: '&', flags: aBingo, toState: tpsBase, typ: Blank},
			{class: classEqC, c: '/', flags: aBingo, toState: tpsBase, typ: Blank},
			a(classNotAlnum, 0, aNext, tpsInSpace),
			b(classNone, 0, tpsBase, Blank),
		},
		tpsInUDecimalFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classDigit, 0, aClear, tpsInUDecimal),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInUDecimal: {
			b(classEOF, 0, tpsBase, Float),
			a(classDigit, 0, aNext, tpsInUDecimal),
			a(classEqC, '.', aPush, tpsInVersionFirst),
			a(classEqC, 'e', aPush, tpsInMantissaFirst),
			a(classEqC, 'E', aPush, tpsInMantissaFirst),
			b(classNone, 0, tpsBase, Float),
		},
		tpsInDecimalFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classDigit, 0, aClear, tpsInDecimal),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInDecimal: {
			b(classEOF, 0, tpsBase, Float),
			a(classDigit, 0, aNext, tpsInDecimal),
			a(classEqC, '.', aPush, tpsInVerVersion),
			a(classEqC, 'e', aPush, tpsInMantissaFirst),
			a(classEqC, 'E', aPush, tpsInMantissaFirst),
			b(classNone, 0, tpsBase, Float),
		},
		tpsInVerVersion: {
			a(classEOF, 0, aPop, tpsNull),
			{class: classDigit, flags: aRerun, toState: tpsInSVerVersion, special: specialVerVersion},
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInSVerVersion: {
			a(classEOF, 0, aPop, tpsNull),
			b(classDigit, aClrAll, tpsInUnsignedInt, Blank),
			a(classNone, 0, aNext, tpsNull),
		},
		tpsInVersionFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classDigit, 0, aClear, tpsInVersion),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInVersion: {
			b(classEOF, 0, tpsBase, Version),
			a(classDigit, 0, aNext, tpsInVersion),
			a(classEqC, '.', aPush, tpsInVersionFirst),
			b(classNone, 0, tpsBase, Version),
		},
		tpsInMantissaFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classDigit, 0, aClear, tpsInMantissa),
			a(classEqC, '+', aNext, tpsInMantissaSign),
			a(classEqC, '-', aNext, tpsInMantissaSign),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInMantissaSign: {
			a(classEOF, 0, aPop, tpsNull),
			a(classDigit, 0, aClear, tpsInMantissa),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInMantissa: {
			b(classEOF, 0, tpsBase, SFloat),
			a(classDigit, 0, aNext, tpsInMantissa),
			b(classNone, 0, tpsBase, SFloat),
		},
		tpsInXMLEntityFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, '#', aNext, tpsInXMLEntityNumFirst),
			a(classAscLet, 0, aNext, tpsInXMLEntity),
			a(classEqC, ':', aNext, tpsInXMLEntity),
			a(classEqC, '_', aNext, tpsInXMLEntity),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInXMLEntity: {
			a(classEOF, 0, aPop, tpsNull),
			a(classAlnum, 0, aNext, tpsInXMLEntity),
			a(classEqC, ':', aNext, tpsInXMLEntity),
			a(classEqC, '_', aNext, tpsInXMLEntity),
			a(classEqC, '.', aNext, tpsInXMLEntity),
			a(classEqC, '-', aNext, tpsInXMLEntity),
			a(classEqC, ';', aNext, tpsInXMLEntityEnd),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInXMLEntityNumFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, 'x', aNext, tpsInXMLEntityHexNumFirst),
			a(classEqC, 'X', aNext, tpsInXMLEntityHexNumFirst),
			a(classDigit, 0, aNext, tpsInXMLEntityNum),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInXMLEntityHexNumFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classXDigit, 0, aNext, tpsInXMLEntityHexNum),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInXMLEntityNum: {
			a(classEOF, 0, aPop, tpsNull),
			a(classDigit, 0, aNext, tpsInXMLEntityNum),
			a(classEqC, ';', aNext, tpsInXMLEntityEnd),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInXMLEntityHexNum: {
			a(classEOF, 0, aPop, tpsNull),
			a(classXDigit, 0, aNext, tpsInXMLEntityHexNum),
			a(classEqC, ';', aNext, tpsInXMLEntityEnd),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInXMLEntityEnd: {
			b(classNone, aClear, tpsBase, Entity),
		},
		tpsInTagFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, '/', aPush, tpsInTagCloseFirst),
			a(classEqC, '!', aPush, tpsInCommentFirst),
			a(classEqC, '?', aPush, tpsInXMLBegin),
			a(classAscLet, 0, aPush, tpsInTagName),
			a(classEqC, ':', aPush, tpsInTagName),
			a(classEqC, '_', aPush, tpsInTagName),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInXMLBegin: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, 'x', aNext, tpsInTag),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInTagCloseFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classAscLet, 0, aNext, tpsInTagName),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInTagName: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, '/', aNext, tpsInTagBeginEnd),
			{class: classEqC, c: '>', flags: aNext, toState: tpsInTagEnd, special: specialTags},
			{class: classSpace, flags: aNext, toState: tpsInTag, special: specialTags},
			a(classAlnum, 0, aNext, tpsNull),
			a(classEqC, ':', aNext, tpsNull),
			a(classEqC, '_', aNext, tpsNull),
			a(classEqC, '.', aNext, tpsNull),
			a(classEqC, '-', aNext, tpsNull),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInTagBeginEnd: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, '>', aNext, tpsInTagEnd),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInTag: {
			a(classEOF, 0, aPop, tpsNull),
			{class: classEqC, c: '>', flags: aNext, toState: tpsInTagEnd, special: specialTags},
			a(classEqC, '\'', aNext, tpsInTagEscapeK),
			a(classEqC, '"', aNext, tpsInTagEscapeKK),
			a(classAscLet, 0, aNext, tpsNull),
			a(classDigit, 0, aNext, tpsNull),
			a(classEqC, '=', aNext, tpsNull),
			a(classEqC, '-', aNext, tpsNull),
			a(classEqC, '_', aNext, tpsNull),
			a(classEqC, '#', aNext, tpsNull),
			a(classEqC, '/', aNext, tpsNull),
			a(classEqC, ':', aNext, tpsNull),
			a(classEqC, '.', aNext, tpsNull),
			a(classEqC, '&', aNext, tpsNull),
			a(classEqC, '?', aNext, tpsNull),
			a(classEqC, '%', aNext, tpsNull),
			a(classEqC, '~', aNext, tpsNull),
			{class: classSpace, flags: aNext, toState: tpsNull, special: specialTags},
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInTagEscapeK: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, '\\', aPush, tpsInTagBackSleshed),
			a(classEqC, '\'', aNext, tpsInTag),
			a(classNone, 0, aNext, tpsInTagEscapeK),
		},
		tpsInTagEscapeKK: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, '\\', aPush, tpsInTagBackSleshed),
			a(classEqC, '"', aNext, tpsInTag),
			a(classNone, 0, aNext, tpsInTagEscapeKK),
		},
		tpsInTagBackSleshed: {
			a(classEOF, 0, aPop, tpsNull),
			a(classNone, 0, aMerge, tpsNull),
		},
		tpsInTagEnd: {
			b(classNone, aClrAll, tpsBase, Tag),
		},
		tpsInCommentFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, '-', aNext, tpsInCommentLast),
			a(classEqC, 'D', aNext, tpsInTag),
			a(classEqC, 'd', aNext, tpsInTag),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInCommentLast: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, '-', aNext, tpsInComment),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInComment: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, '-', aNext, tpsInCloseCommentFirst),
			a(classNone, 0, aNext, tpsNull),
		},
		tpsInCloseCommentFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, '-', aNext, tpsInCloseCommentLast),
			a(classNone, 0, aNext, tpsInComment),
		},
		tpsInCloseCommentLast: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, '-', aNext, tpsNull),
			a(classEqC, '>', aNext, tpsInCommentEnd),
			a(classNone, 0, aNext, tpsInComment),
		},
		tpsInCommentEnd: {
			b(classNone, aClrAll, tpsBase, Tag),
		},
		tpsInHostFirstDomain: {
			a(classEOF, 0, aPop, tpsNull),
			a(classAscLet, 0, aNext, tpsInHostDomainSecond),
			a(classDigit, 0, aNext, tpsInHost),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInHostDomainSecond: {
			a(classEOF, 0, aPop, tpsNull),
			a(classAscLet, 0, aNext, tpsInHostDomain),
			a(classDigit, 0, aPush, tpsInHost),
			a(classEqC, '-', aPush, tpsInHostFirstAN),
			a(classEqC, '_', aPush, tpsInHostFirstAN),
			a(classEqC, '.', aPush, tpsInHostFirstDomain),
			a(classEqC, '@', aPush, tpsInEmail),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInHostDomain: {
			b(classEOF, aClrAll, tpsBase, Host),
			a(classAscLet, 0, aNext, tpsInHostDomain),
			a(classDigit, 0, aPush, tpsInHost),
			a(classEqC, ':', aPush, tpsInPortFirst),
			a(classEqC, '-', aPush, tpsInHostFirstAN),
			a(classEqC, '_', aPush, tpsInHostFirstAN),
			a(classEqC, '.', aPush, tpsInHostFirstDomain),
			a(classEqC, '@', aPush, tpsInEmail),
			a(classDigit, 0, aPop, tpsNull),
			b(classStopHost, aClrAll, tpsInURLPathStart, Host),
			a(classEqC, '/', aPush, tpsInFURL),
			b(classNone, aClrAll, tpsBase, Host),
		},
		tpsInPortFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classDigit, 0, aNext, tpsInPort),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInPort: {
			b(classEOF, aClrAll, tpsBase, Host),
			a(classDigit, 0, aNext, tpsInPort),
			b(classStopHost, aClrAll, tpsInURLPathStart, Host),
			a(classEqC, '/', aPush, tpsInFURL),
			b(classNone, aClrAll, tpsBase, Host),
		},
		tpsInHostFirstAN: {
			a(classEOF, 0, aPop, tpsNull),
			a(classDigit, 0, aNext, tpsInHost),
			a(classAscLet, 0, aNext, tpsInHost),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInHost: {
			a(classEOF, 0, aPop, tpsNull),
			a(classDigit, 0, aNext, tpsInHost),
			a(classAscLet, 0, aNext, tpsInHost),
			a(classEqC, '@', aPush, tpsInEmail),
			a(classEqC, '.', aPush, tpsInHostFirstDomain),
			a(classEqC, '-', aPush, tpsInHostFirstAN),
			a(classEqC, '_', aPush, tpsInHostFirstAN),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInEmail: {
			a(classStopHost, 0, aPop, tpsNull),
			b(classHost, aClrAll, tpsBase, Email),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInFileFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classAscLet, 0, aNext, tpsInFile),
			a(classDigit, 0, aNext, tpsInFile),
			a(classEqC, '.', aNext, tpsInPathFirst),
			a(classEqC, '_', aNext, tpsInFile),
			a(classEqC, '~', aPush, tpsInFileTwiddle),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInFileTwiddle: {
			a(classEOF, 0, aPop, tpsNull),
			a(classAscLet, 0, aNext, tpsInFile),
			a(classDigit, 0, aNext, tpsInFile),
			a(classEqC, '_', aNext, tpsInFile),
			a(classEqC, '/', aNext, tpsInFileFirst),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInPathFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classAscLet, 0, aNext, tpsInFile),
			a(classDigit, 0, aNext, tpsInFile),
			a(classEqC, '_', aNext, tpsInFile),
			a(classEqC, '.', aNext, tpsInPathSecond),
			a(classEqC, '/', aNext, tpsInFileFirst),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInPathFirstFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, '.', aNext, tpsInPathSecond),
			a(classEqC, '/', aNext, tpsInFileFirst),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInPathSecond: {
			b(classEOF, aClear, tpsBase, File),
			a(classEqC, '/', aNext|aPush, tpsInFileFirst),
			{class: classEqC, c: '/', flags: aBingo | aClear, toState: tpsBase, typ: File},
			b(classSpace, aClear, tpsBase, File),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInFile: {
			b(classEOF, 0, tpsBase, File),
			a(classAscLet, 0, aNext, tpsInFile),
			a(classDigit, 0, aNext, tpsInFile),
			a(classEqC, '.', aPush, tpsInFileNext),
			a(classEqC, '_', aNext, tpsInFile),
			a(classEqC, '-', aNext, tpsInFile),
			a(classEqC, '/', aPush, tpsInFileFirst),
			b(classNone, 0, tpsBase, File),
		},
		tpsInFileNext: {
			a(classEOF, 0, aPop, tpsNull),
			a(classAscLet, 0, aClear, tpsInFile),
			a(classDigit, 0, aClear, tpsInFile),
			a(classEqC, '_', aClear, tpsInFile),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInURLPathFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classURLChar, 0, aNext, tpsInURLPath),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInURLPathStart: {
			a(classNone, 0, aNext, tpsInURLPath),
		},
		tpsInURLPath: {
			b(classEOF, 0, tpsBase, URLPath),
			a(classURLChar, 0, aNext, tpsInURLPath),
			b(classNone, 0, tpsBase, URLPath),
		},
		tpsInFURL: {
			a(classEOF, 0, aPop, tpsNull),
			{class: classURLPath, flags: aBingo | aClrAll, toState: tpsBase, typ: URL, special: specialFURL},
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInProtocolFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, '/', aNext, tpsInProtocolSecond),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInProtocolSecond: {
			a(classEOF, 0, aPop, tpsNull),
			a(classEqC, '/', aNext, tpsInProtocolEnd),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInProtocolEnd: {
			b(classNone, aClrAll, tpsBase, Protocol),
		},
		tpsInHyphenAsciiWordFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classAscLet, 0, aNext, tpsInHyphenAsciiWord),
			a(classAlpha, 0, aNext, tpsInHyphenWord),
			a(classDigit, 0, aNext, tpsInHyphenDigitLookahead),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInHyphenAsciiWord: {
			{class: classEOF, flags: aBingo | aClrAll, toState: tpsInParseHyphen, typ: ASCIIHWord, special: specialHyphen},
			a(classAscLet, 0, aNext, tpsInHyphenAsciiWord),
			a(classAlpha, 0, aNext, tpsInHyphenWord),
			a(classSpecial, 0, aNext, tpsInHyphenWord),
			a(classDigit, 0, aNext, tpsInHyphenNumWord),
			a(classEqC, '-', aPush, tpsInHyphenAsciiWordFirst),
			{class: classNone, flags: aBingo | aClrAll, toState: tpsInParseHyphen, typ: ASCIIHWord, special: specialHyphen},
		},
		tpsInHyphenWordFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classAlpha, 0, aNext, tpsInHyphenWord),
			a(classDigit, 0, aNext, tpsInHyphenDigitLookahead),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInHyphenWord: {
			{class: classEOF, flags: aBingo | aClrAll, toState: tpsInParseHyphen, typ: HWord, special: specialHyphen},
			a(classAlpha, 0, aNext, tpsInHyphenWord),
			a(classSpecial, 0, aNext, tpsInHyphenWord),
			a(classDigit, 0, aNext, tpsInHyphenNumWord),
			a(classEqC, '-', aPush, tpsInHyphenWordFirst),
			{class: classNone, flags: aBingo | aClrAll, toState: tpsInParseHyphen, typ: HWord, special: specialHyphen},
		},
		tpsInHyphenNumWordFirst: {
			a(classEOF, 0, aPop, tpsNull),
			a(classAlpha, 0, aNext, tpsInHyphenNumWord),
			a(classDigit, 0, aNext, tpsInHyphenDigitLookahead),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInHyphenNumWord: {
			{class: classEOF, flags: aBingo | aClrAll, toState: tpsInParseHyphen, typ: NumHWord, special: specialHyphen},
			a(classAlnum, 0, aNext, tpsInHyphenNumWord),
			a(classSpecial, 0, aNext, tpsInHyphenNumWord),
			a(classEqC, '-', aPush, tpsInHyphenNumWordFirst),
			{class: classNone, flags: aBingo | aClrAll, toState: tpsInParseHyphen, typ: NumHWord, special: specialHyphen},
		},
		tpsInHyphenDigitLookahead: {
			a(classEOF, 0, aPop, tpsNull),
			a(classDigit, 0, aNext, tpsInHyphenDigitLookahead),
			a(classAlpha, 0, aNext, tpsInHyphenNumWord),
			a(classSpecial, 0, aNext, tpsInHyphenNumWord),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInParseHyphen: {
			a(classEOF, 0, aRerun, tpsBase),
			a(classAscLet, 0, aNext, tpsInHyphenAsciiWordPart),
			a(classAlpha, 0, aNext, tpsInHyphenWordPart),
			a(classDigit, 0, aPush, tpsInHyphenUnsignedInt),
			a(classEqC, '-', aPush, tpsInParseHyphenHyphen),
			a(classNone, 0, aRerun, tpsBase),
		},
		tpsInParseHyphenHyphen: {
			a(classEOF, 0, aPop, tpsNull),
			b(classAlnum, aClear, tpsInParseHyphen, Blank),
			b(classSpecial, aClear, tpsInParseHyphen, Blank),
			a(classNone, 0, aPop, tpsNull),
		},
		tpsInHyphenWordPart: {
			b(classEOF, 0, tpsBase, HWordPart),
			a(classAlpha, 0, aNext, tpsInHyphenWordPart),
			a(classSpecial, 0, aNext, tpsInHyphenWordPart),
			a(classDigit, 0, aNext, tpsInHyphenNumWordPart),
			b(classNone, 0, tpsInParseHyphen, HWordPart),
		},
		tpsInHyphenAsciiWordPart: {
			b(classEOF, 0, tpsBase, HWordASCIIPart),
			a(classAscLet, 0, aNext, tpsInHyphenAsciiWordPart),
			a(classAlpha, 0, aNext, tpsInHyphenWordPart),
			a(classSpecial, 0, aNext, tpsInHyphenWordPart),
			a(classDigit, 0, aNext, tpsInHyphenNumWordPart),
			b(classNone, 0, tpsInParseHyphen, HWordASCIIPart),
		},
		tpsInHyphenNumWordPart: {
			b(classEOF, 0, tpsBase, HWordNumPart),
			a(classAlnum, 0, aNext, tpsInHyphenNumWordPart),
			a(classSpecial, 0, aNext, tpsInHyphenNumWordPart),
			b(classNone, 0, tpsInParseHyphen, HWordNumPart),
		},
		tpsInHyphenUnsignedInt: {
			a(classEOF, 0, aPop, tpsNull),
			a(classDigit, 0, aNext, tpsNull),
			a(classAlpha, 0, aClear, tpsInHyphenNumWordPart),
			a(classSpecial, 0, aClear, tpsInHyphenNumWordPart),
			a(classNone, 0, aPop, tpsNull),
		},
	}
}
