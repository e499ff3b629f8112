package types

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/ianaindex"
)

// The well-formedness check behind xml_in, XMLPARSE and IS DOCUMENT: the
// XML 1.0 (fifth edition) grammar as libxml2 applies it to PostgreSQL's
// input. A document is XMLDecl? Misc* (doctypedecl Misc*)? element Misc*;
// content is what libxml2's balanced-chunk parser takes after the XML
// declaration PostgreSQL reads itself (parse_xml_decl): character data,
// elements, references, CDATA sections, comments and processing
// instructions. Namespace errors are not well-formedness errors and pass,
// as PostgreSQL ignores them. The first error is reported the way libxml2
// words it ("line N: message", the line and a caret), which PostgreSQL
// puts in the DETAIL.

// xmlSyntaxError is one well-formedness error of an input.
type xmlSyntaxError struct {
	msg string // libxml2's message
	pos int    // byte offset the parser had reached
}

// xmlSyntaxErrors are the errors libxml2 reports for an input, in order.
type xmlSyntaxErrors []xmlSyntaxError

// detail joins the errors' details as PostgreSQL's DETAIL does.
func (es xmlSyntaxErrors) detail(s string) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.detail(s)
	}
	return strings.Join(parts, "\n")
}

// detail formats e as libxml2's error handler does for input s: the line
// number and message, the line around pos (at most 80 bytes) and a caret
// under pos.
func (e xmlSyntaxError) detail(s string) string {
	pos := min(e.pos, len(s))
	line := 1 + strings.Count(s[:pos], "\n")
	cur := pos
	for cur > 0 && cur < len(s) && (s[cur] == '\n' || s[cur] == '\r') {
		cur--
	}
	n := 0
	for n < 80 && cur > 0 && (cur >= len(s) || (s[cur] != '\n' && s[cur] != '\r')) {
		cur--
		n++
	}
	if n > 0 && cur < len(s) && (s[cur] == '\n' || s[cur] == '\r') {
		cur++
	}
	col := pos - cur
	end := cur
	for end < len(s) && end-cur < 80 && s[end] != '\n' && s[end] != '\r' {
		end++
	}
	content := s[cur:end]
	var caret strings.Builder
	for i := 0; i < col && i < len(content); i++ {
		if content[i] == '\t' {
			caret.WriteByte('\t')
		} else {
			caret.WriteByte(' ')
		}
	}
	caret.WriteByte('^')
	return fmt.Sprintf("line %d: %s\n%s\n%s", line, e.msg, content, caret.String())
}

// xmlParser walks one input. A fatal error stops it (the methods return
// false from then on); errors libxml2 recovers from (bad references, a
// mismatched end tag) are noted and the walk goes on, so that the DETAIL
// lists what libxml2 lists.
type xmlParser struct {
	s     string
	i     int
	errs  xmlSyntaxErrors
	fatal bool
	// entities are the general entities the internal DTD subset declares.
	entities map[string]bool
	// lenientEntities: an external subset or parameter entity references
	// may declare entities the parser cannot see, so an undeclared one is
	// no well-formedness error (unless standalone="yes").
	lenientEntities bool
	standalone      bool
	// values are the internal general entities' values, checked as
	// content where they are referenced; external are the external
	// ones, which content may not reference without a DTD to load.
	values   map[string]string
	external []string
	// expanding are the entities whose values are being checked, to catch
	// a reference to itself.
	expanding map[string]bool
}

// fail records a fatal error and returns false.
func (p *xmlParser) fail(pos int, format string, args ...any) bool {
	if !p.fatal {
		p.note(pos, format, args...)
		p.fatal = true
	}
	return false
}

// note records an error the parse recovers from.
func (p *xmlParser) note(pos int, format string, args ...any) {
	p.errs = append(p.errs, xmlSyntaxError{msg: fmt.Sprintf(format, args...), pos: pos})
}

func (p *xmlParser) eof() bool { return p.i >= len(p.s) }

func (p *xmlParser) has(prefix string) bool { return strings.HasPrefix(p.s[p.i:], prefix) }

// lineAt is the 1-based line of byte offset pos.
func (p *xmlParser) lineAt(pos int) int { return 1 + strings.Count(p.s[:pos], "\n") }

func isXMLBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *xmlParser) skipBlanks() bool {
	start := p.i
	for p.i < len(p.s) && isXMLBlank(p.s[p.i]) {
		p.i++
	}
	return p.i > start
}

// isXMLChar is the Char production.
func isXMLChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD || (r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) ||
		(r >= 0x10000 && r <= 0x10FFFF)
}

// isXMLNameStart is the NameStartChar production.
func isXMLNameStart(r rune) bool {
	switch {
	case r == ':' || r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z'):
		return true
	case r < 0xC0:
		return false
	}
	return (r >= 0xC0 && r <= 0xD6) || (r >= 0xD8 && r <= 0xF6) || (r >= 0xF8 && r <= 0x2FF) ||
		(r >= 0x370 && r <= 0x37D) || (r >= 0x37F && r <= 0x1FFF) || (r >= 0x200C && r <= 0x200D) ||
		(r >= 0x2070 && r <= 0x218F) || (r >= 0x2C00 && r <= 0x2FEF) || (r >= 0x3001 && r <= 0xD7FF) ||
		(r >= 0xF900 && r <= 0xFDCF) || (r >= 0xFDF0 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0xEFFFF)
}

// isXMLNameChar is the NameChar production.
func isXMLNameChar(r rune) bool {
	return isXMLNameStart(r) || r == '-' || r == '.' || (r >= '0' && r <= '9') || r == 0xB7 ||
		(r >= 0x300 && r <= 0x36F) || (r >= 0x203F && r <= 0x2040)
}

// name reads a Name at the current position, "" when there is none.
func (p *xmlParser) name() string {
	start := p.i
	for p.i < len(p.s) {
		r, w := utf8.DecodeRuneInString(p.s[p.i:])
		if p.i == start && !isXMLNameStart(r) || p.i > start && !isXMLNameChar(r) {
			break
		}
		p.i += w
	}
	return p.s[start:p.i]
}

// char reads one character and checks that it is a Char; msg words the
// error (with the character's value).
func (p *xmlParser) char(msg string) bool {
	r, w := utf8.DecodeRuneInString(p.s[p.i:])
	if r == utf8.RuneError && w <= 1 || !isXMLChar(r) {
		return p.fail(p.i, msg, r)
	}
	p.i += w
	return true
}

// checkXMLContent checks s as XML content (after an XML declaration,
// which the caller has removed).
func checkXMLContent(s string) xmlSyntaxErrors {
	p := &xmlParser{s: s}
	if p.content() && !p.eof() {
		// content stops only at an end tag it does not own.
		p.fail(p.i, "chunk is not well balanced")
	}
	return p.errs
}

// checkXMLDocument checks s as an XML document.
func checkXMLDocument(s string) xmlSyntaxErrors {
	p := &xmlParser{s: s}
	p.document()
	return p.errs
}

func (p *xmlParser) document() bool {
	if p.s == "" {
		p.note(0, "switching encoding : no input")
		return p.fail(0, "Document is empty")
	}
	if p.has("<?xml") && len(p.s) > 5 && isXMLBlank(p.s[5]) {
		if !p.xmlDecl() {
			return false
		}
	}
	if !p.misc() {
		return false
	}
	if p.has("<!DOCTYPE") {
		if !p.doctype() || !p.misc() {
			return false
		}
	}
	if p.eof() {
		return p.fail(p.i, "Start tag expected, '<' not found")
	}
	if p.s[p.i] != '<' {
		return p.fail(p.i, "Start tag expected, '<' not found")
	}
	if !p.element() || !p.misc() {
		return false
	}
	if !p.eof() {
		return p.fail(p.i, "Extra content at the end of the document")
	}
	return true
}

// misc skips Misc*: blanks, comments and processing instructions.
func (p *xmlParser) misc() bool {
	for {
		p.skipBlanks()
		switch {
		case p.has("<!--"):
			if !p.comment() {
				return false
			}
		case p.has("<?"):
			if !p.pi() {
				return false
			}
		default:
			return true
		}
	}
}

// xmlDecl reads the XML declaration of a document as libxml2 does.
func (p *xmlParser) xmlDecl() bool {
	p.i += 5
	p.skipBlanks()
	if !p.has("version") {
		return p.fail(p.i, "Malformed declaration expecting version")
	}
	p.i += len("version")
	p.skipBlanks()
	if !p.has("=") {
		return p.fail(p.i, "Malformed declaration expecting version")
	}
	p.i++
	p.skipBlanks()
	version, ok := p.declValue(func(c byte) bool { return c >= '0' && c <= '9' || c == '.' })
	if !ok {
		return p.fail(p.i, "String not started expecting ' or \"")
	}
	// VersionNum as libxml2 reads it: digits, '.', digits; a version
	// other than 1.x is an error, 1.x other than 1.0 a warning.
	if major, minor, ok := strings.Cut(version, "."); !ok || major == "" || strings.Contains(minor, ".") {
		return p.fail(p.i, "String not started expecting ' or \"")
	} else if major != "1" {
		return p.fail(p.i, "Unsupported version '%s'", version)
	}
	if !p.has("?>") {
		if !p.skipBlanks() {
			if p.has("?>") {
				p.i += 2
				return true
			}
			return p.fail(p.i, "Blank needed here")
		}
	}
	if p.has("encoding") {
		p.i += len("encoding")
		p.skipBlanks()
		if !p.has("=") {
			return p.fail(p.i, "Blank needed here")
		}
		p.i++
		p.skipBlanks()
		enc, ok := p.declValue(func(c byte) bool {
			return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		})
		if !ok || enc == "" || !(enc[0] >= 'a' && enc[0] <= 'z' || enc[0] >= 'A' && enc[0] <= 'Z') {
			return p.fail(p.i, "String not started expecting ' or \"")
		}
		if !knownXMLEncoding(enc) {
			return p.fail(p.i, "Unsupported encoding %s", enc)
		}
		p.skipBlanks()
	}
	if p.has("standalone") {
		p.i += len("standalone")
		p.skipBlanks()
		if !p.has("=") {
			return p.fail(p.i, "Blank needed here")
		}
		p.i++
		p.skipBlanks()
		v, ok := p.declValue(func(c byte) bool { return c >= 'a' && c <= 'z' })
		if !ok || v != "yes" && v != "no" {
			return p.fail(p.i, "standalone accepts only 'yes' or 'no'")
		}
		p.standalone = v == "yes"
		p.skipBlanks()
	}
	if !p.has("?>") {
		return p.fail(p.i, "parsing XML declaration: '?>' expected")
	}
	p.i += 2
	return true
}

// declValue reads a quoted value of the XML declaration whose characters
// satisfy ok.
func (p *xmlParser) declValue(ok func(byte) bool) (string, bool) {
	if p.eof() || p.s[p.i] != '"' && p.s[p.i] != '\'' {
		return "", false
	}
	q := p.s[p.i]
	start := p.i + 1
	j := start
	for j < len(p.s) && ok(p.s[j]) {
		j++
	}
	if j >= len(p.s) || p.s[j] != q {
		p.i = j
		return "", false
	}
	p.i = j + 1
	return p.s[start:j], true
}

// doctype reads a document type declaration, recording the general
// entities its internal subset declares.
func (p *xmlParser) doctype() bool {
	p.i += len("<!DOCTYPE")
	p.skipBlanks()
	if p.name() == "" {
		return p.fail(p.i, "xmlParseDocTypeDecl : no DOCTYPE name !")
	}
	p.skipBlanks()
	if p.has("SYSTEM") || p.has("PUBLIC") {
		if !p.externalID(false) {
			return false
		}
		p.lenientEntities = true
	}
	p.skipBlanks()
	if p.has("[") {
		p.i++
		if !p.internalSubset() {
			return false
		}
		p.skipBlanks()
	}
	if !p.has(">") {
		return p.fail(p.i, "DOCTYPE improperly terminated")
	}
	p.i++
	return true
}

// externalID reads SYSTEM SystemLiteral or PUBLIC PubidLiteral
// SystemLiteral; a NOTATION (notation) may omit the system literal.
func (p *xmlParser) externalID(notation bool) bool {
	if p.has("SYSTEM") {
		p.i += len("SYSTEM")
		if !p.skipBlanks() {
			return p.fail(p.i, "Space required after 'SYSTEM'")
		}
		if !p.literal(isXMLChar) {
			return p.fail(p.i, "SystemLiteral \" or ' expected")
		}
		return true
	}
	p.i += len("PUBLIC")
	if !p.skipBlanks() {
		return p.fail(p.i, "Space required after 'PUBLIC'")
	}
	if !p.literal(isPubidChar) {
		return p.fail(p.i, "PubidLiteral \" or ' expected")
	}
	save := p.i
	if !p.skipBlanks() || p.eof() || p.s[p.i] != '"' && p.s[p.i] != '\'' {
		if notation {
			p.i = save
			return true
		}
		return p.fail(p.i, "Space required after the Public Identifier")
	}
	if !p.literal(isXMLChar) {
		return p.fail(p.i, "SystemLiteral \" or ' expected")
	}
	return true
}

// isPubidChar is the PubidChar production.
func isPubidChar(r rune) bool {
	return r == ' ' || r == '\r' || r == '\n' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		strings.ContainsRune("-'()+,./:=?;!*#@$_%", r)
}

// literal reads a quoted literal whose characters satisfy ok.
func (p *xmlParser) literal(ok func(rune) bool) bool {
	if p.eof() || p.s[p.i] != '"' && p.s[p.i] != '\'' {
		return false
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return false
	}
	for _, r := range p.s[p.i+1 : p.i+1+end] {
		if r == utf8.RuneError || !ok(r) {
			return false
		}
	}
	p.i += end + 2
	return true
}

// internalSubset reads the markup declarations up to the closing ']'.
func (p *xmlParser) internalSubset() bool {
	for {
		p.skipBlanks()
		ok := true
		switch {
		case p.eof():
			return p.fail(p.i, "xmlParseInternalSubset: error detected in Markup declaration")
		case p.has("]"):
			p.i++
			return true
		case p.has("<!--"):
			ok = p.comment()
		case p.has("<?"):
			ok = p.pi()
		case p.has("%"):
			// A parameter entity's text is markup fickle does not expand:
			// what it declares is unknown.
			p.i++
			if p.name() == "" || !p.has(";") {
				return p.fail(p.i, "xmlParsePEReference: no name")
			}
			p.i++
			p.lenientEntities = true
		case p.has("<!ENTITY"):
			ok = p.entityDecl()
		case p.has("<!ELEMENT"):
			ok = p.elementDecl()
		case p.has("<!ATTLIST"):
			ok = p.attlistDecl()
		case p.has("<!NOTATION"):
			p.i += len("<!NOTATION")
			ok = p.skipBlanks() && p.name() != "" && p.skipBlanks() && (p.has("SYSTEM") || p.has("PUBLIC")) && p.externalID(true)
			p.skipBlanks()
			ok = ok && p.closeDecl()
		default:
			ok = false
		}
		if !ok {
			return p.fail(p.i, "xmlParseInternalSubset: error detected in Markup declaration")
		}
	}
}

// closeDecl reads the '>' that ends a markup declaration.
func (p *xmlParser) closeDecl() bool {
	if !p.has(">") {
		return false
	}
	p.i++
	return true
}

// entityDecl reads <!ENTITY [%] name (value | external id [NDATA n])>,
// keeping a general entity's literal value for the check of its uses.
func (p *xmlParser) entityDecl() bool {
	p.i += len("<!ENTITY")
	if !p.skipBlanks() {
		return false
	}
	general := true
	if p.has("%") {
		p.i++
		general = false
		if !p.skipBlanks() {
			return false
		}
	}
	n := p.name()
	if n == "" || !p.skipBlanks() {
		return false
	}
	value, internal := "", false
	switch {
	case p.has("SYSTEM"), p.has("PUBLIC"):
		if !p.externalID(false) {
			return false
		}
		save := p.i
		if p.skipBlanks() && p.has("NDATA") {
			if !general {
				return false
			}
			p.i += len("NDATA")
			if !p.skipBlanks() || p.name() == "" {
				return false
			}
		} else {
			p.i = save
		}
	default:
		v, ok := p.entityValue()
		if !ok {
			return false
		}
		value, internal = v, true
	}
	p.skipBlanks()
	if !p.closeDecl() {
		return false
	}
	if general {
		if p.entities == nil {
			p.entities = map[string]bool{}
			p.values = map[string]string{}
		}
		if !p.entities[n] { // the first declaration binds
			p.entities[n] = true
			if internal {
				p.values[n] = value
			} else {
				p.external = append(p.external, n)
			}
		}
	}
	return true
}

// entityValue reads a quoted EntityValue: its references must be
// well-formed, and a parameter entity reference is no markup fickle
// expands in the internal subset (libxml2 refuses it there). The value
// returned has its character references replaced.
func (p *xmlParser) entityValue() (string, bool) {
	if p.eof() || p.s[p.i] != '"' && p.s[p.i] != '\'' {
		return "", false
	}
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for {
		switch {
		case p.eof():
			return "", false
		case p.s[p.i] == q:
			p.i++
			return b.String(), true
		case p.s[p.i] == '%':
			return "", false
		case p.has("&#"):
			start := p.i
			p.i++
			if !p.charRef() {
				return "", false
			}
			b.WriteRune(p.charRefValue(p.s[start:p.i]))
		case p.s[p.i] == '&':
			start := p.i
			p.i++
			if p.name() == "" || !p.has(";") {
				return "", false
			}
			p.i++
			b.WriteString(p.s[start:p.i])
		default:
			r, w := utf8.DecodeRuneInString(p.s[p.i:])
			if r == utf8.RuneError && w <= 1 || !isXMLChar(r) {
				return "", false
			}
			b.WriteString(p.s[p.i : p.i+w])
			p.i += w
		}
	}
}

// charRefValue is the character of a well-formed reference &#N; or &#xH;.
func (p *xmlParser) charRefValue(ref string) rune {
	body := strings.TrimSuffix(strings.TrimPrefix(ref, "&#"), ";")
	base := 10
	if strings.HasPrefix(body, "x") {
		body, base = body[1:], 16
	}
	v, _ := strconv.ParseInt(body, base, 32)
	return rune(v)
}

// elementDecl reads <!ELEMENT name contentspec>.
func (p *xmlParser) elementDecl() bool {
	p.i += len("<!ELEMENT")
	if !p.skipBlanks() || p.name() == "" || !p.skipBlanks() {
		return false
	}
	switch {
	case p.has("EMPTY"):
		p.i += len("EMPTY")
	case p.has("ANY"):
		p.i += len("ANY")
	case p.has("("):
		if !p.contentParticle() {
			return false
		}
	default:
		return false
	}
	p.skipBlanks()
	return p.closeDecl()
}

// contentParticle reads a parenthesized content model (children or
// Mixed) and its occurrence mark.
func (p *xmlParser) contentParticle() bool {
	p.i++
	items, sep := 0, byte(0)
	for {
		p.skipBlanks()
		switch {
		case p.has("#PCDATA") && items == 0:
			p.i += len("#PCDATA")
		case p.has("("):
			if !p.contentParticle() {
				return false
			}
		default:
			if p.name() == "" {
				return false
			}
			if !p.eof() && strings.IndexByte("?*+", p.s[p.i]) >= 0 {
				p.i++
			}
		}
		items++
		p.skipBlanks()
		if p.eof() {
			return false
		}
		c := p.s[p.i]
		if c == ')' {
			p.i++
			if !p.eof() && strings.IndexByte("?*+", p.s[p.i]) >= 0 {
				p.i++
			}
			return true
		}
		if c != '|' && c != ',' || sep != 0 && c != sep {
			return false
		}
		sep = c
		p.i++
	}
}

// attlistDecl reads <!ATTLIST element (name type default)*>.
func (p *xmlParser) attlistDecl() bool {
	p.i += len("<!ATTLIST")
	if !p.skipBlanks() || p.name() == "" {
		return false
	}
	for {
		blank := p.skipBlanks()
		if p.has(">") {
			p.i++
			return true
		}
		if !blank || p.name() == "" || !p.skipBlanks() {
			return false
		}
		switch {
		case p.has("NOTATION"):
			p.i += len("NOTATION")
			if !p.skipBlanks() || !p.has("(") || !p.enumeration(true) {
				return false
			}
		case p.has("("):
			if !p.enumeration(false) {
				return false
			}
		default:
			t := p.name()
			switch t {
			case "CDATA", "ID", "IDREF", "IDREFS", "ENTITY", "ENTITIES", "NMTOKEN", "NMTOKENS":
			default:
				return false
			}
		}
		if !p.skipBlanks() {
			return false
		}
		switch {
		case p.has("#REQUIRED"):
			p.i += len("#REQUIRED")
		case p.has("#IMPLIED"):
			p.i += len("#IMPLIED")
		default:
			if p.has("#FIXED") {
				p.i += len("#FIXED")
				if !p.skipBlanks() {
					return false
				}
			}
			if !p.attValue() {
				return false
			}
		}
	}
}

// enumeration reads ( token | token ... ): names for a NOTATION type,
// name tokens otherwise.
func (p *xmlParser) enumeration(names bool) bool {
	p.i++
	for {
		p.skipBlanks()
		start := p.i
		for p.i < len(p.s) {
			r, w := utf8.DecodeRuneInString(p.s[p.i:])
			if !isXMLNameChar(r) || names && p.i == start && !isXMLNameStart(r) {
				break
			}
			p.i += w
		}
		if p.i == start {
			return false
		}
		p.skipBlanks()
		switch {
		case p.has(")"):
			p.i++
			return true
		case p.has("|"):
			p.i++
		default:
			return false
		}
	}
}

// content reads content up to an end tag or the end of the input.
func (p *xmlParser) content() bool {
	for !p.eof() {
		switch {
		case p.has("</"):
			return true
		case p.has("<?"):
			if !p.pi() {
				return false
			}
		case p.has("<!--"):
			if !p.comment() {
				return false
			}
		case p.has("<![CDATA["):
			if !p.cdata() {
				return false
			}
		case p.s[p.i] == '<':
			if !p.element() {
				return false
			}
		case p.s[p.i] == '&':
			if !p.reference() {
				return false
			}
		default:
			if !p.charData() {
				return false
			}
		}
	}
	return true
}

// charData reads character data up to markup or a reference.
func (p *xmlParser) charData() bool {
	start := p.i
	for !p.eof() && p.s[p.i] != '<' && p.s[p.i] != '&' {
		if p.has("]]>") {
			return p.fail(start, "Sequence ']]>' not allowed in content")
		}
		if !p.char("PCDATA invalid Char value %d") {
			return false
		}
	}
	return true
}

// reference reads a character or entity reference.
func (p *xmlParser) reference() bool {
	p.i++
	if p.has("#") {
		return p.charRef()
	}
	n := p.name()
	if n == "" {
		p.note(p.i, "xmlParseEntityRef: no name")
		return true
	}
	if !p.has(";") {
		p.note(p.i, "EntityRef: expecting ';'")
		return true
	}
	p.i++
	switch n {
	case "lt", "gt", "amp", "apos", "quot":
		return true
	}
	if !p.entities[n] {
		if !(p.lenientEntities && !p.standalone) {
			p.note(p.i, "Entity '%s' not defined", n)
		}
		return true
	}
	v, internal := p.values[n]
	if !internal {
		return true
	}
	if p.expanding[n] {
		return p.fail(p.i, "Detected an entity reference loop")
	}
	// The replacement text must be content in its own right.
	sub := &xmlParser{s: v, entities: p.entities, values: p.values, external: p.external,
		lenientEntities: p.lenientEntities, standalone: p.standalone, expanding: map[string]bool{n: true}}
	for k := range p.expanding {
		sub.expanding[k] = true
	}
	if sub.content() && !sub.eof() || len(sub.errs) > 0 {
		return p.fail(p.i, "Entity '%s' failed to parse", n)
	}
	return true
}

// charRef reads &#N; or &#xH; (after the '&') and checks the character.
func (p *xmlParser) charRef() bool {
	p.i++
	hex := p.has("x")
	if hex {
		p.i++
	}
	var v int64
	digits := 0
	for !p.eof() && p.s[p.i] != ';' {
		c := p.s[p.i]
		var d int64
		switch {
		case c >= '0' && c <= '9':
			d = int64(c - '0')
		case hex && c >= 'a' && c <= 'f':
			d = int64(c-'a') + 10
		case hex && c >= 'A' && c <= 'F':
			d = int64(c-'A') + 10
		default:
			return p.fail(p.i, "xmlParseCharRef: invalid decimal value")
		}
		if v < 0x110000 {
			if hex {
				v = v*16 + d
			} else {
				v = v*10 + d
			}
		}
		digits++
		p.i++
	}
	if p.eof() || digits == 0 {
		return p.fail(p.i, "xmlParseCharRef: invalid decimal value")
	}
	p.i++
	if v >= 0x110000 || !isXMLChar(rune(v)) {
		return p.fail(p.i, "xmlParseCharRef: invalid xmlChar value %d", v)
	}
	return true
}

// element reads an element from its '<'.
func (p *xmlParser) element() bool {
	start := p.i
	p.i++
	n := p.name()
	if n == "" {
		return p.fail(p.i, "StartTag: invalid element name")
	}
	seen := map[string]bool{}
	for {
		blank := p.skipBlanks()
		if p.eof() {
			return p.fail(p.i, "Couldn't find end of Start Tag %s line %d", n, p.lineAt(start))
		}
		if p.has("/>") {
			p.i += 2
			return true
		}
		if p.has(">") {
			p.i++
			break
		}
		unfinished := func() bool {
			p.note(p.i, "Couldn't find end of Start Tag %s line %d", n, p.lineAt(start))
			p.fatal = true
			return false
		}
		if !blank {
			p.note(p.i, "attributes construct error")
			return unfinished()
		}
		an := p.name()
		if an == "" {
			p.note(p.i, "attributes construct error")
			return unfinished()
		}
		p.skipBlanks()
		if !p.has("=") {
			p.note(p.i, "Specification mandates value for attribute %s", an)
			p.note(p.i, "attributes construct error")
			return unfinished()
		}
		p.i++
		p.skipBlanks()
		if !p.attValue() {
			p.note(p.i, "attributes construct error")
			return unfinished()
		}
		if seen[an] {
			return p.fail(p.i, "Attribute %s redefined", an)
		}
		seen[an] = true
	}
	if !p.content() {
		return false
	}
	if p.eof() {
		return p.fail(p.i, "Premature end of data in tag %s line %d", n, p.lineAt(start))
	}
	p.i += 2
	end := p.name()
	p.skipBlanks()
	if !p.has(">") {
		return p.fail(p.i, "expected '>'")
	}
	p.i++
	if end != n {
		p.note(p.i, "Opening and ending tag mismatch: %s line %d and %s", n, p.lineAt(start), end)
	}
	return true
}

// attValue reads a quoted attribute value.
func (p *xmlParser) attValue() bool {
	if p.eof() || p.s[p.i] != '"' && p.s[p.i] != '\'' {
		p.note(p.i, "AttValue: \" or ' expected")
		return false
	}
	q := p.s[p.i]
	p.i++
	for {
		switch {
		case p.eof():
			p.note(p.i, "AttValue: ' expected")
			return false
		case p.s[p.i] == q:
			p.i++
			return true
		case p.s[p.i] == '<':
			p.note(p.i, "Unescaped '<' not allowed in attributes values")
			return false
		case p.s[p.i] == '&':
			if !p.reference() {
				return false
			}
		default:
			if !p.char("invalid character in attribute value") {
				return false
			}
		}
	}
}

// comment reads a comment from its "<!--".
func (p *xmlParser) comment() bool {
	start := p.i
	p.i += 4
	for {
		if p.eof() {
			return p.fail(p.i, "Comment not terminated")
		}
		if p.has("--") {
			if p.has("-->") {
				p.i += 3
				return true
			}
			return p.fail(p.i, "Double hyphen within comment: <!--%.50s", p.s[start+4:p.i])
		}
		if !p.char("xmlParseComment: invalid xmlChar value %d") {
			return false
		}
	}
}

// cdata reads a CDATA section from its "<![CDATA[".
func (p *xmlParser) cdata() bool {
	p.i += len("<![CDATA[")
	for {
		if p.eof() {
			return p.fail(p.i, "CData section not finished")
		}
		if p.has("]]>") {
			p.i += 3
			return true
		}
		if !p.char("PCDATA invalid Char value %d") {
			return false
		}
	}
}

// pi reads a processing instruction from its "<?".
func (p *xmlParser) pi() bool {
	p.i += 2
	target := p.name()
	switch {
	case target == "":
		return p.fail(p.i, "xmlParsePI : no target name")
	case target == "xml":
		return p.fail(p.i, "XML declaration allowed only at the start of the document")
	case strings.EqualFold(target, "xml"):
		return p.fail(p.i, "Invalid PI name")
	}
	if p.has("?>") {
		p.i += 2
		return true
	}
	if !p.skipBlanks() {
		return p.fail(p.i, "ParsePI: PI %s space expected", target)
	}
	for {
		if p.eof() {
			return p.fail(p.i, "ParsePI: PI %s never end ...", target)
		}
		if p.has("?>") {
			p.i += 2
			return true
		}
		if !p.char("xmlParsePI: invalid xmlChar value %d") {
			return false
		}
	}
}

// commonEncodings are encoding names as iconv compares them (upper case,
// punctuation dropped) that libxml2 and iconv know beyond the IANA
// registry's spellings.
var commonEncodings = map[string]bool{"UTF8": true, "UTF16": true, "UTF16BE": true, "UTF16LE": true, "UTF32": true,
	"UCS2": true, "UCS4": true, "ISO10646UCS2": true, "ISO10646UCS4": true, "ASCII": true, "USASCII": true,
	"ISOLATIN1": true, "EUCJP": true, "EUCKR": true, "EUCCN": true, "EUCTW": true, "SHIFTJIS": true, "SJIS": true,
	"BIG5": true, "GB2312": true, "GBK": true, "GB18030": true, "KOI8R": true, "KOI8U": true}

// iconvEncodingRE matches the families of names iconv knows, as it
// compares them (ISO-8859-n, LATINn, CP1252, IBM850, WINDOWS-1250, MS932).
var iconvEncodingRE = regexp.MustCompile(`^(ISO8859[0-9]+|LATIN[0-9]+|CP[0-9]+|IBM[0-9]+|WINDOWS[0-9]+|MS[0-9]+)$`)

// knownXMLEncoding approximates whether libxml2 (with iconv) can read a
// document in encoding name: names of the IANA registry, and the common
// names iconv knows, compared as iconv compares them.
func knownXMLEncoding(name string) bool {
	if _, err := ianaindex.IANA.Encoding(name); err == nil {
		return true
	}
	var b strings.Builder
	for _, r := range strings.ToUpper(name) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	n := b.String()
	return commonEncodings[n] || iconvEncodingRE.MatchString(n)
}
