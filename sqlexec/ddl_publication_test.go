package sqlexec

import (
	"slices"
	"testing"
)

// TestSplitIdentifierListReadsPublishAsPostgres pins SplitIdentifierString
// as CREATE PUBLICATION's publish option uses it: names downcased unless
// quoted, white space around them ignored, an empty element malformed.
func TestSplitIdentifierListReadsPublishAsPostgres(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"insert, update", []string{"insert", "update"}, true},
		{" insert , \"update\" ", []string{"insert", "update"}, true},
		{"INSERT", []string{"insert"}, true},
		{"\"Insert\"", []string{"Insert"}, true},
		{"\"a\"\"b\"", []string{"a\"b"}, true},
		{"", nil, true},
		{"   ", nil, true},
		{"insert,,update", nil, false},
		{"insert,", nil, false},
		{"insert update", nil, false},
		{"\"\"", nil, false},
		{"\"open", nil, false},
	} {
		got, ok := splitIdentifierList(c.in)
		if ok != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("splitIdentifierList(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
