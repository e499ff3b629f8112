package types

import (
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Unicode normalization: normalize(text [, form]) and text IS [form]
// NORMALIZED (is_normalized), in the forms NFC, NFD, NFKC and NFKD.
// golang.org/x/text implements the Unicode algorithm on a later edition of
// the character database than PostgreSQL 15's (Unicode 14); the code
// points whose normalization the two editions disagree on (characters new
// since, found by comparing every code point with PostgreSQL 15) are
// refused rather than answered differently.

// normalizationForms are the forms by the names PostgreSQL accepts, in
// any case (unicode_norm_form_from_string).
var normalizationForms = map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}

// unicode15Normalizing are the ranges of code points PostgreSQL 15's
// Unicode 14 tables do not have but x/text's normalize: combining marks
// and compatibility characters new in Unicode 15.
var unicode15Normalizing = [][2]rune{
	{0x10EFD, 0x10EFF}, {0x11F41, 0x11F42}, {0x1E030, 0x1E06D}, {0x1E08F, 0x1E08F}, {0x1E4EC, 0x1E4EF},
}

// NormalizationUnknownToPostgres reports whether r is a code point whose
// normalization PostgreSQL 15 does not know (unicode15Normalizing).
func NormalizationUnknownToPostgres(r rune) bool {
	for _, rg := range unicode15Normalizing {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return false
}

// normalizationForm reads a form's name; 22023 for another.
func normalizationForm(name string) (norm.Form, error) {
	if f, ok := normalizationForms[strings.ToUpper(name)]; ok {
		return f, nil
	}
	return 0, pgerror.Newf(pgerror.InvalidParameterValue, "invalid normalization form: %s", name)
}

// unicodeNormalize is s in form, refusing characters PostgreSQL 15 does
// not normalize.
func unicodeNormalize(s string, form norm.Form) (string, error) {
	if strings.ContainsFunc(s, NormalizationUnknownToPostgres) {
		return "", pgerror.Unsupported("Unicode normalization of characters new since Unicode 14 (PostgreSQL 15's tables)")
	}
	return form.String(s), nil
}

func init() {
	t := Text
	normalize := func(s, form string) (any, error) {
		f, err := normalizationForm(form)
		if err != nil {
			return nil, err
		}
		return unicodeNormalize(s, f)
	}
	isNormalized := func(s, form string) (any, error) {
		n, err := normalize(s, form)
		if err != nil {
			return nil, err
		}
		return n == s, nil
	}
	addFunc("normalize", Immutable, t, func(_ *Env, a []any) (any, error) { return normalize(a[0].(string), "NFC") }, t)
	addFunc("normalize", Immutable, t, func(_ *Env, a []any) (any, error) { return normalize(a[0].(string), a[1].(string)) }, t, t)
	addFunc("is_normalized", Immutable, Bool, func(_ *Env, a []any) (any, error) { return isNormalized(a[0].(string), "NFC") }, t)
	addFunc("is_normalized", Immutable, Bool, func(_ *Env, a []any) (any, error) { return isNormalized(a[0].(string), a[1].(string)) }, t, t)
}
