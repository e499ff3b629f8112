package types

import (
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// What RE2 cannot mean the same way runs on fickle's ARE engine; only what
// neither engine can answer exactly (BREs, which the options b and e ask
// for) is refused.
func TestRegexRefusesOnlyWhatNeitherEngineRunsExactly(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []any
		code pgerror.Code
	}{
		{"regexp_match", []any{"XY1234Z", "Y*?([0-9]{1,3})"}, ""},
		{"regexp_match", []any{"a\bc", `a\bc`}, ""},
		{"regexp_match", []any{"abc", "b", "x"}, ""},
		{"regexp_match", []any{"abc", "b", "b"}, pgerror.FeatureNotSupported},
		{"regexp_match", []any{"abc", "(?b)b"}, pgerror.FeatureNotSupported},
		{"regexp_match", []any{"abc", "(?e)b"}, ""},
		{"regexp_match", []any{"abc", "(b"}, pgerror.InvalidRegularExpression},
		{"regexp_match", []any{"abc", "a.*?c"}, ""},
		{"regexp_count", []any{"abab", "ab", int64(2)}, ""},
	} {
		ts := make([]Type, len(tc.args))
		for i, a := range tc.args {
			ts[i] = Text
			if _, ok := a.(int64); ok {
				ts[i] = Int4
			}
		}
		fn, err := resolveFunc(tc.name, ts)
		if err != nil {
			t.Fatalf("%s%v: %v", tc.name, tc.args, err)
		}
		_, err = fn.Eval(nil, tc.args)
		if got := pgerror.GetCode(err); got != tc.code {
			t.Errorf("%s%q: got %q (%v), want %q", tc.name, tc.args, got, err, tc.code)
		}
	}
}
