package types

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// The xml type as xml.c defines it: a datum is the text it was given,
// checked for well-formedness as the session's xmloption says (CONTENT or
// DOCUMENT) and kept as written. Output drops an XML declaration that says
// nothing beyond version 1.0 (xml_out); there is no equality or ordering.
// xpath, xpath_exists, XMLEXISTS and XMLTABLE need an XPath engine fickle
// does not have and answer 0A000.

// OIDs of xml and xml[].
const (
	OidXML      Oid = 142
	OidXMLArray Oid = 143
)

// XMLType is the xml type.
var XMLType = Type{OidXML, -1}

// The SQLSTATEs of xml's errors.
const (
	codeInvalidXMLContent  = pgerror.Code("2200N")
	codeInvalidXMLDocument = pgerror.Code("2200M")
	codeNotAnXMLDocument   = pgerror.Code("2200L")
	codeInvalidXMLComment  = pgerror.Code("2200S")
	codeInvalidXMLPI       = pgerror.Code("2200T")
)

func init() {
	x := XMLType
	addFunc("xmlcomment", Immutable, x, func(_ *Env, a []any) (any, error) { return XMLComment(a[0].(string)) }, Text)
	addFunc("xml", Stable, x, func(env *Env, a []any) (any, error) { return parseXML(env, a[0].(string)) }, Text)
	addFunc("xml_is_well_formed", Stable, Bool, func(env *Env, a []any) (any, error) {
		return xmlCheck(a[0].(string), env.xmlDocument()) == nil, nil
	}, Text)
	addFunc("xml_is_well_formed_document", Immutable, Bool, func(_ *Env, a []any) (any, error) {
		return xmlCheck(a[0].(string), true) == nil, nil
	}, Text)
	addFunc("xml_is_well_formed_content", Immutable, Bool, func(_ *Env, a []any) (any, error) {
		return xmlCheck(a[0].(string), false) == nil, nil
	}, Text)
	addFuncNullable("xmlconcat2", Immutable, x, func(_ *Env, a []any) (any, error) {
		switch {
		case a[0] == nil:
			return a[1], nil
		case a[1] == nil:
			return a[0], nil
		}
		return XMLConcat([]string{a[0].(string), a[1].(string)}), nil
	}, x, x)
	addFunc("xmlvalidate", Immutable, Bool, func(_ *Env, _ []any) (any, error) {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "xmlvalidate is not implemented")
	}, x, Text)
	addFunc("xml_send", Stable, Bytea, func(_ *Env, a []any) (any, error) { return []byte(FormatXML(a[0].(string))), nil }, x)
	addAgg("xmlagg", x, func() Accumulator { return &xmlAggAcc{} }, x)
	// The XPath functions: without an XPath 1.0 engine they refuse.
	noXPath := func(_ *Env, _ []any) (any, error) {
		return nil, pgerror.Unsupported("XPath (xpath, xpath_exists, XMLEXISTS)")
	}
	textArray, _ := ArrayOf(Text)
	xmlArray, _ := ArrayOf(x)
	addFunc("xpath", Immutable, xmlArray, noXPath, Text, x)
	addFunc("xpath", Immutable, xmlArray, noXPath, Text, x, textArray)
	addFunc("xpath_exists", Immutable, Bool, noXPath, Text, x)
	addFunc("xpath_exists", Immutable, Bool, noXPath, Text, x, textArray)
	addFunc("xmlexists", Immutable, Bool, noXPath, Text, x)

	for _, from := range []Oid{OidText, OidVarchar, OidBpchar} {
		addCast(from, OidXML, CastExplicit, func(env *Env, v any) (any, error) { return parseXML(env, v.(string)) })
	}
	addCast(OidXML, OidText, CastAssignment, identity)
	addCast(OidXML, OidVarchar, CastAssignment, identity)
	addCast(OidXML, OidBpchar, CastAssignment, identity)
}

// xmlDocument reports whether the session's xmloption is DOCUMENT.
func (e *Env) xmlDocument() bool { return e != nil && e.XMLOptionDocument }

// xmlAggAcc is xmlagg: xmlconcat2 over the non-NULL values.
type xmlAggAcc struct {
	vals []string
}

func (a *xmlAggAcc) Add(args []any) error {
	if args[0] != nil {
		a.vals = append(a.vals, args[0].(string))
	}
	return nil
}

func (a *xmlAggAcc) Result() (any, error) {
	if len(a.vals) == 0 {
		return nil, nil
	}
	acc := a.vals[0]
	for _, v := range a.vals[1:] {
		acc = XMLConcat([]string{acc, v})
	}
	return acc, nil
}

// parseXML is xml_in: s checked as the session's xmloption says.
func parseXML(env *Env, s string) (any, error) {
	if err := xmlCheckErr(s, env.xmlDocument()); err != nil {
		return nil, err
	}
	return s, nil
}

// XMLParse is XMLPARSE(DOCUMENT|CONTENT s): s checked as a document or as
// content, kept as written.
func XMLParse(s string, document bool) (string, error) {
	if err := xmlCheckErr(s, document); err != nil {
		return "", err
	}
	return s, nil
}

// xmlCheckErr is xmlCheck's failure as PostgreSQL reports it.
func xmlCheckErr(s string, document bool) error {
	e := xmlCheck(s, document)
	if e == nil {
		return nil
	}
	return e
}

// xmlCheck is xml_parse's verdict on s: nil when it is a well-formed
// document (document) or content. Content that starts, after its XML
// declaration, comments and PIs, with a DOCTYPE is checked as a document,
// as PostgreSQL does, but still fails as content.
func xmlCheck(s string, document bool) *pgerror.Error {
	code, msg := codeInvalidXMLContent, "invalid XML content"
	if document {
		code, msg = codeInvalidXMLDocument, "invalid XML document"
	}
	if document || xmlDoctypeInContent(s) {
		if e := checkXMLDocument(s); len(e) > 0 {
			return pgerror.New(code, msg).WithDetail("%s", e.detail(s))
		}
		return nil
	}
	d, derr := parseXMLDecl(s)
	if derr != "" {
		return pgerror.New(codeInvalidXMLContent, "invalid XML content: invalid XML declaration").WithDetail("%s", derr)
	}
	rest := s[d.length:]
	if e := checkXMLContent(rest); len(e) > 0 {
		return pgerror.New(code, msg).WithDetail("%s", e.detail(rest))
	}
	return nil
}

// xmlDoctypeInContent is xml_doctype_in_content: whether s, after its XML
// declaration, blanks, comments and processing instructions, has a
// DOCTYPE.
func xmlDoctypeInContent(s string) bool {
	d, derr := parseXMLDecl(s)
	if derr != "" {
		return false
	}
	p := s[d.length:]
	for {
		p = strings.TrimLeft(p, " \t\r\n")
		switch {
		case strings.HasPrefix(p, "<!DOCTYPE"):
			return true
		case strings.HasPrefix(p, "<!--"):
			end := strings.Index(p[4:], "-->")
			if end < 0 {
				return false
			}
			p = p[4+end+3:]
		case strings.HasPrefix(p, "<?"):
			end := strings.Index(p[2:], "?>")
			if end < 0 {
				return false
			}
			p = p[2+end+2:]
		default:
			return false
		}
	}
}

// xmlDecl is what parse_xml_decl reads of an XML declaration.
type xmlDecl struct {
	length     int    // bytes of the declaration, 0 without one
	version    string // "" when absent
	hasVersion bool
	standalone int // 1 yes, 0 no, -1 absent
}

// parseXMLDecl is parse_xml_decl: the XML declaration at the start of s,
// if any. A malformed one gives the DETAIL PostgreSQL reports.
func parseXMLDecl(s string) (xmlDecl, string) {
	d := xmlDecl{standalone: -1}
	if !strings.HasPrefix(s, "<?xml") {
		return d, ""
	}
	if r, _ := utf8.DecodeRuneInString(s[5:]); len(s) > 5 && isXMLNameChar(r) {
		// <?xml-stylesheet ...?> is a PI, not a declaration.
		return d, ""
	}
	p := 5
	blank := func() bool { return p < len(s) && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r') }
	skip := func() {
		for blank() {
			p++
		}
	}
	const (
		errSpace      = "Space required."
		errVersion    = "Malformed declaration: missing version."
		errEncoding   = "Missing encoding in text declaration."
		errStandalone = "standalone accepts only 'yes' or 'no'."
		errNotDone    = "Parsing XML declaration: '?>' expected."
	)
	quoted := func() (string, bool) {
		if p >= len(s) || s[p] != '\'' && s[p] != '"' {
			return "", false
		}
		end := strings.IndexByte(s[p+1:], s[p])
		if end < 0 {
			return "", false
		}
		v := s[p+1 : p+1+end]
		p += end + 2
		return v, true
	}
	if !blank() {
		return d, errSpace
	}
	skip()
	if !strings.HasPrefix(s[p:], "version") {
		return d, errVersion
	}
	p += 7
	skip()
	if p >= len(s) || s[p] != '=' {
		return d, errVersion
	}
	p++
	skip()
	v, ok := quoted()
	if !ok {
		return d, errVersion
	}
	d.version, d.hasVersion = v, true
	// pseudoAttr reads "blanks name blanks = blanks" of an optional
	// pseudo-attribute, leaving p at its value; present is false, with p
	// where it was, when the name does not follow.
	pseudoAttr := func(name, malformed string) (present bool, msg string) {
		save := p
		skip()
		if !strings.HasPrefix(s[p:], name) {
			p = save
			return false, ""
		}
		if !isXMLBlank(s[save]) {
			return true, errSpace
		}
		p += len(name)
		skip()
		if p >= len(s) || s[p] != '=' {
			return true, malformed
		}
		p++
		skip()
		return true, ""
	}
	if present, msg := pseudoAttr("encoding", errEncoding); msg != "" {
		return d, msg
	} else if present {
		if _, ok := quoted(); !ok {
			return d, errEncoding
		}
	}
	if present, msg := pseudoAttr("standalone", errStandalone); msg != "" {
		return d, msg
	} else if present {
		switch rest := s[p:]; {
		case strings.HasPrefix(rest, "'yes'"), strings.HasPrefix(rest, `"yes"`):
			d.standalone = 1
			p += 5
		case strings.HasPrefix(rest, "'no'"), strings.HasPrefix(rest, `"no"`):
			d.standalone = 0
			p += 4
		default:
			return d, errStandalone
		}
	}
	skip()
	if !strings.HasPrefix(s[p:], "?>") {
		return d, errNotDone
	}
	p += 2
	for i := 0; i < p; i++ {
		if s[i] > 127 {
			return d, "Invalid character value."
		}
	}
	d.length = p
	return d, ""
}

// appendXMLDecl is print_xml_decl (for the database encoding, UTF8): a
// declaration only when the version is not 1.0 or standalone is given.
func appendXMLDecl(b *strings.Builder, version string, hasVersion bool, standalone int) bool {
	if !(hasVersion && version != "1.0") && standalone == -1 {
		return false
	}
	b.WriteString("<?xml")
	if hasVersion {
		fmt.Fprintf(b, " version=\"%s\"", version)
	} else {
		b.WriteString(` version="1.0"`)
	}
	switch standalone {
	case 1:
		b.WriteString(` standalone="yes"`)
	case 0:
		b.WriteString(` standalone="no"`)
	}
	b.WriteString("?>")
	return true
}

// FormatXML is xml_out: the declaration rewritten by print_xml_decl
// (dropped when it says nothing, with one newline after it).
func FormatXML(s string) string {
	d, derr := parseXMLDecl(s)
	if derr != "" {
		return s
	}
	var b strings.Builder
	n := d.length
	if !appendXMLDecl(&b, d.version, d.hasVersion, d.standalone) && n < len(s) && s[n] == '\n' {
		n++
	}
	b.WriteString(s[n:])
	return b.String()
}

// XMLConcat is xmlconcat over the non-NULL values: their contents after
// their declarations, under one declaration of the common version and
// standalone property when they agree.
func XMLConcat(vals []string) string {
	globalStandalone := 1
	globalVersion, haveGlobal, versionNoValue := "", false, false
	var body strings.Builder
	for _, s := range vals {
		d, _ := parseXMLDecl(s)
		if d.standalone == 0 && globalStandalone == 1 {
			globalStandalone = 0
		}
		if d.standalone < 0 {
			globalStandalone = -1
		}
		switch {
		case !d.hasVersion:
			versionNoValue = true
		case !haveGlobal:
			globalVersion, haveGlobal = d.version, true
		case d.version != globalVersion:
			versionNoValue = true
		}
		body.WriteString(s[d.length:])
	}
	if !versionNoValue || globalStandalone >= 0 {
		var b strings.Builder
		appendXMLDecl(&b, globalVersion, !versionNoValue && haveGlobal, globalStandalone)
		b.WriteString(body.String())
		return b.String()
	}
	return body.String()
}

// XMLStandalone is XMLROOT's STANDALONE clause.
type XMLStandalone int

// The STANDALONE clauses of XMLROOT.
const (
	XMLStandaloneYes XMLStandalone = iota
	XMLStandaloneNo
	XMLStandaloneNoValue
	XMLStandaloneOmitted
)

// XMLRoot is xmlroot: s's declaration replaced by one with version (nil
// for NO VALUE) and the standalone property.
func XMLRoot(s string, version *string, standalone XMLStandalone) string {
	d, _ := parseXMLDecl(s)
	sa := d.standalone
	switch standalone {
	case XMLStandaloneYes:
		sa = 1
	case XMLStandaloneNo:
		sa = 0
	case XMLStandaloneNoValue:
		sa = -1
	}
	var b strings.Builder
	v := ""
	if version != nil {
		v = *version
	}
	appendXMLDecl(&b, v, version != nil, sa)
	b.WriteString(s[d.length:])
	return b.String()
}

// XMLIsDocument is IS DOCUMENT: whether s parses as a document.
func XMLIsDocument(s string) bool { return xmlCheck(s, true) == nil }

// XMLSerialize is XMLSERIALIZE's check: DOCUMENT requires a document.
func XMLSerialize(s string, document bool) (string, error) {
	if document && !XMLIsDocument(s) {
		return "", pgerror.New(codeNotAnXMLDocument, "not an XML document")
	}
	return s, nil
}

// XMLComment is xmlcomment: no "--" and no trailing "-".
func XMLComment(s string) (string, error) {
	if strings.Contains(s, "--") || strings.HasSuffix(s, "-") {
		return "", pgerror.New(codeInvalidXMLComment, "invalid XML comment")
	}
	return "<!--" + s + "-->", nil
}

// XMLPITargetError is xmlpi's check of its target (an XML name), made
// before the NULL check as the standard says.
func XMLPITargetError(target string) error {
	if strings.EqualFold(target, "xml") {
		return pgerror.New(pgerror.SyntaxError, "invalid XML processing instruction").
			WithDetail("XML processing instruction target name cannot be \"%s\".", target)
	}
	return nil
}

// XMLPI is xmlpi(target, arg) for a non-NULL argument (hasArg) or none.
func XMLPI(target, arg string, hasArg bool) (string, error) {
	if err := XMLPITargetError(target); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("<?" + target)
	if hasArg {
		if strings.Contains(arg, "?>") {
			return "", pgerror.New(codeInvalidXMLPI, "invalid XML processing instruction").
				WithDetail("XML processing instruction cannot contain \"?>\".")
		}
		b.WriteByte(' ')
		b.WriteString(strings.TrimLeft(arg, " "))
	}
	b.WriteString("?>")
	return b.String(), nil
}

// XMLName is map_sql_identifier_to_xml_name with fully_escaped and
// escape_period false, as XMLELEMENT, XMLFOREST, XMLATTRIBUTES and XMLPI
// map their names.
func XMLName(ident string) string { return XMLNameFull(ident, false, false) }

// XMLNameFull is map_sql_identifier_to_xml_name: fullyEscaped also escapes
// every ':' and a leading "xml", escapePeriod every '.', as the mapping of
// tables and columns does.
func XMLNameFull(ident string, fullyEscaped, escapePeriod bool) string {
	var b strings.Builder
	for i, r := range ident {
		switch {
		case r == ':' && (i == 0 || fullyEscaped):
			b.WriteString("_x003A_")
		case r == '_' && strings.HasPrefix(ident[i+1:], "x"):
			b.WriteString("_x005F_")
		case fullyEscaped && i == 0 && len(ident) >= 3 && strings.EqualFold(ident[:3], "xml"):
			if r == 'x' {
				b.WriteString("_x0078_")
			} else {
				b.WriteString("_x0058_")
			}
		case escapePeriod && r == '.':
			b.WriteString("_x002E_")
		case i == 0 && !isXMLNameStartOld(r), i > 0 && !isXMLNameCharOld(r):
			fmt.Fprintf(&b, "_x%04X_", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isXMLNameStartOld is is_valid_xml_namefirst (XML 1.0 fourth edition
// letters, '_' and ':'), which libxml2's older tables give; approximated by
// the fifth edition's classes outside ASCII.
func isXMLNameStartOld(r rune) bool {
	if r < 0x80 {
		return r == '_' || r == ':' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z')
	}
	return isXMLNameStart(r)
}

// isXMLNameCharOld is is_valid_xml_namechar.
func isXMLNameCharOld(r rune) bool {
	if r < 0x80 {
		return isXMLNameStartOld(r) || r == '.' || r == '-' || (r >= '0' && r <= '9')
	}
	return isXMLNameChar(r)
}

// XMLValue is map_sql_value_to_xml_value: v of type t as XML text, escaped
// for element content (escape) or raw for an attribute, which
// XMLAttrEscape escapes. Booleans, dates and timestamps take XML Schema's
// forms, bytea xmlbinary's encoding, arrays one <element> per non-NULL
// element, xml its output.
func XMLValue(env *Env, t Type, v any, escape bool) (string, error) {
	if elem, ok := t.Elem(); ok {
		elems, _ := pgarray.Elems(v)
		var b strings.Builder
		for _, e := range elems {
			if e == nil {
				continue
			}
			s, err := XMLValue(env, elem, e, escape)
			if err != nil {
				return "", err
			}
			b.WriteString("<element>" + s + "</element>")
		}
		return b.String(), nil
	}
	switch t.Oid {
	case OidBool:
		if v.(bool) {
			return "true", nil
		}
		return "false", nil
	case OidDate:
		d := v.(time.Time)
		if isInfiniteTime(d) {
			return "", pgerror.New(pgerror.DatetimeFieldOverflow, "date out of range").
				WithDetail("XML does not support infinite date values.")
		}
		buf, bc := appendDate(nil, d)
		if bc {
			buf = append(buf, " BC"...)
		}
		return string(buf), nil
	case OidTimestamp, OidTimestamptz:
		ts := v.(time.Time)
		if isInfiniteTime(ts) {
			return "", pgerror.New(pgerror.DatetimeFieldOverflow, "timestamp out of range").
				WithDetail("XML does not support infinite timestamp values.")
		}
		return xsdTimestamp(env, ts, t.Oid == OidTimestamptz), nil
	case OidXML:
		return FormatXML(v.(string)), nil
	case OidBytea:
		if env != nil && env.XMLBinaryHex {
			return strings.ToUpper(hex.EncodeToString(v.([]byte))), nil
		}
		enc := base64.StdEncoding.EncodeToString(v.([]byte))
		var b strings.Builder
		for len(enc) > 72 {
			b.WriteString(enc[:72] + "\r\n")
			enc = enc[72:]
		}
		b.WriteString(enc)
		return b.String(), nil
	}
	s := formatText(env, t, v)
	if !escape {
		return s, nil
	}
	return xmlTextEscaper.Replace(s), nil
}

// xmlTextEscaper escapes element content as libxml2's text writer does.
var xmlTextEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\r", "&#x0d;")

// xsdTimestamp is EncodeDateTime with USE_XSD_DATES: the date, 'T', the
// time with its fraction, and for timestamptz the session zone's offset
// as +hh:mm.
func xsdTimestamp(env *Env, ts time.Time, withZone bool) string {
	if withZone {
		loc := time.UTC
		if env != nil && env.Location != nil {
			loc = env.Location
		}
		ts = ts.In(loc)
	}
	buf, bc := appendDate(nil, ts)
	h, m, s := ts.Clock()
	buf = appendClock(append(buf, 'T'), h, m, s, int64(ts.Nanosecond()/1000))
	if withZone {
		_, off := ts.Zone()
		sign := byte('+')
		if off < 0 {
			sign, off = '-', -off
		}
		buf = appendPadded(append(buf, sign), off/3600, 2)
		buf = appendPadded(append(buf, ':'), off%3600/60, 2)
		if off%60 != 0 {
			buf = appendPadded(append(buf, ':'), off%60, 2)
		}
	}
	if bc {
		buf = append(buf, " BC"...)
	}
	return string(buf)
}

// XMLAttrEscape escapes an attribute value as libxml2's text writer
// does: &, <, >, " and the white space characters as references.
func XMLAttrEscape(s string) string { return xmlAttrEscaper.Replace(s) }

var xmlAttrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "\n", "&#10;", "\t", "&#9;", "\r", "&#13;")

// XMLNameToSQL is map_xml_name_to_sql_identifier: each _xHHHH_ escape
// turned back into its character.
func XMLNameToSQL(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] == '_' && i+6 < len(name) && name[i+1] == 'x' && name[i+6] == '_' {
			if v, err := strconv.ParseUint(name[i+2:i+6], 16, 32); err == nil {
				b.WriteRune(rune(v))
				i += 6
				continue
			}
		}
		b.WriteByte(name[i])
	}
	return b.String()
}
