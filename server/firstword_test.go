package server

import "testing"

// TestFirstWordIsSkipsLeadingComments pins how START TRANSACTION is told
// from BEGIN for its command tag: comments and blanks before the keyword do
// not count, as PostgreSQL's parser ignores them.
func TestFirstWordIsSkipsLeadingComments(t *testing.T) {
	cases := []struct {
		sql  string
		want bool
	}{
		{"START TRANSACTION", true},
		{"  start transaction read write", true},
		{"-- fail\nSTART TRANSACTION READ WRITE", true},
		{"/* a */ -- b\n /* c */START TRANSACTION", true},
		{"BEGIN", false},
		{"-- START\nBEGIN", false},
		{"-- unterminated comment", false},
		{"/* unterminated START", false},
	}
	for _, c := range cases {
		if got := firstWordIs(c.sql, "START"); got != c.want {
			t.Errorf("firstWordIs(%q, START) = %v, want %v", c.sql, got, c.want)
		}
	}
}
