package types

import (
	"strings"
	"testing"
)

// FuzzXMLCheck feeds the xml input check arbitrary text, which
// applications store from untrusted input: it never panics, its DETAIL
// always names a line, a document is also content unless it has a DOCTYPE,
// what passes as content is left as written by XMLPARSE, and an element
// wrapped around well-formed content is a document.
func FuzzXMLCheck(f *testing.F) {
	for _, s := range []string{"<a/>", "<wrong", "abc", "", "<a x='1' y=\"&lt;\">t<![CDATA[<]]><!--c--><?p d?></a>",
		"<?xml version=\"1.0\" standalone=\"yes\"?><a/>", "<!DOCTYPE a [<!ENTITY e \"v\">]><a>&e;</a>", "&#x10FFFF;&#0;",
		"<a>&x;</b>", "a]]>b", "<a b=\"x\"c=\"y\"/>", "<?xml version='1.0' encoding='UTF-8'?>\n<a/>", "<\u00e9\u00b7/>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc := xmlCheckErr(s, true)
		content := xmlCheckErr(s, false)
		for _, e := range []error{doc, content} {
			if e != nil && !strings.Contains(e.Error(), "invalid XML") {
				t.Fatalf("%q: unexpected error %v", s, e)
			}
		}
		if doc == nil && content != nil && !strings.Contains(s, "<!DOCTYPE") {
			if d, derr := parseXMLDecl(s); derr == "" && d.length == 0 {
				t.Fatalf("%q: a document but not content: %v", s, content)
			}
		}
		if content == nil {
			if v, err := XMLParse(s, false); err != nil || v != s {
				t.Fatalf("%q: XMLPARSE gave %q, %v", s, v, err)
			}
			if d, derr := parseXMLDecl(s); derr == "" && d.length == 0 && !xmlDoctypeInContent(s) {
				if !XMLIsDocument("<r>" + s + "</r>") {
					t.Fatalf("%q: content that is no document inside an element", s)
				}
			}
		}
		_ = FormatXML(s)
	})
}
