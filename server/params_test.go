package server

import "testing"

func TestFirstPlaceholder(t *testing.T) {
	tests := []struct {
		sql  string
		pos  int
		name string
	}{
		{"SELECT $1", 8, "$1"},
		{"SELECT 1 + $2, $1", 12, "$2"},
		{"SELECT '$1', \"$2\", $3", 20, "$3"},
		{"SELECT 1 -- $1\n + $12", 19, "$12"},
		{"SELECT /* $1 */ é$1, $2", 22, "$2"},
		{"SELECT 'é', $4", 13, "$4"},
		{"SELECT x$1 FROM t", 0, ""},
		{"SELECT 1", 0, ""},
	}
	for _, tt := range tests {
		pos, name := firstPlaceholder(tt.sql)
		if pos != tt.pos || name != tt.name {
			t.Errorf("firstPlaceholder(%q) = %d %q, want %d %q", tt.sql, pos, name, tt.pos, tt.name)
		}
	}
}
