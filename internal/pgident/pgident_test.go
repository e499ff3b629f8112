package pgident

import "testing"

// TestQuoteFollowsQuoteIdentifier pins PostgreSQL's quote_identifier on
// the kinds of names it treats differently.
func TestQuoteFollowsQuoteIdentifier(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"users", "users"},
		{"_order2", "_order2"},
		{"order", `"order"`},     // reserved
		{"user", `"user"`},       // reserved
		{"between", `"between"`}, // column name keyword
		{"left", `"left"`},       // type or function name keyword
		{"off", "off"},           // unreserved keyword
		{"name", "name"},         // unreserved keyword
		{"on", `"on"`},
		{"Mixed", `"Mixed"`},
		{"a$b", `"a$b"`},
		{"1abc", `"1abc"`},
		{"", `""`},
		{`we"ird`, `"we""ird"`},
		{"a b", `"a b"`},
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
