package types

import (
	"errors"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

func TestNormalizeRefusesCharactersNewSinceUnicode14(t *testing.T) {
	for _, tc := range []struct {
		in      string
		form    string
		want    string
		refused bool
	}{
		{"a\u0308", "NFC", "\u00e4", false},
		{"\u00e4\u24d1c", "nfkd", "a\u0308bc", false},
		{"\U00011F41", "NFC", "", true},   // Kawi sign killer: a combining mark since Unicode 15
		{"x\U0001E030", "NFKD", "", true}, // a Cyrillic modifier letter of Unicode 15, with a compatibility mapping
		{"\U00011F40a", "NFC", "\U00011F40a", false},
	} {
		f, err := normalizationForm(tc.form)
		if err != nil {
			t.Fatal(err)
		}
		got, err := unicodeNormalize(tc.in, f)
		var pe *pgerror.Error
		if refused := errors.As(err, &pe) && pe.Code == pgerror.FeatureNotSupported; refused != tc.refused || !tc.refused && got != tc.want {
			t.Errorf("normalize(%+q, %s) = %+q, %v; want %+q, refused %v", tc.in, tc.form, got, err, tc.want, tc.refused)
		}
	}
	if _, err := normalizationForm("def"); err == nil || err.Error() != "invalid normalization form: def" {
		t.Errorf("form def: %v", err)
	}
}
