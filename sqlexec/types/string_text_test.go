package types

import (
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestTextInputNamesTheBadBytes pins report_invalid_encoding's message for
// text input the server encoding UTF8 refuses (as PostgreSQL 15 prints it for
// convert_from of the same bytes): the bytes of the first bad character, as
// many as its lead byte announces and the text still holds; NUL as 0x00.
func TestTextInputNamesTheBadBytes(t *testing.T) {
	tests := []struct {
		name  string
		oid   Oid
		input string
		bytes string
	}{
		{"lone 0xff", OidText, "a\xffb", "0xff"},
		{"NUL", OidText, "a\x00b", "0x00"},
		{"three-byte lead with a bad second byte", OidText, "\xe2\x28\xa1", "0xe2 0x28 0xa1"},
		{"three-byte lead cut off at the end", OidVarchar, "x\xe2\x82", "0xe2 0x82"},
		{"surrogate", OidText, "\xed\xa0\x80", "0xed 0xa0 0x80"},
		{"overlong two-byte form", OidName, "\xc0\xaf", "0xc0 0xaf"},
		{"continuation byte first", OidText, "\x80abc", "0x80"},
		{"four-byte lead past U+10FFFF", OidText, "\xf5\x80\x80\x80", "0xf5 0x80 0x80 0x80"},
		{"bad byte after valid multibyte text", OidText, "é€\xf0\x9f\x98", "0xf0 0x9f 0x98"},
		{"NUL before invalid UTF-8 is reported first", OidText, "\x00\xff", "0x00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, _ := TypeByOid(tt.oid)
			_, err := ParseText(typ, tt.input)
			want := `invalid byte sequence for encoding "UTF8": ` + tt.bytes
			if e := pgerror.Flatten(err); err == nil || e.Code != pgerror.CharacterNotInRepertoire || e.Message != want {
				t.Fatalf("ParseText(%x) error %v; want 22021 %q", tt.input, err, want)
			}
		})
	}
}
