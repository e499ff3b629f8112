package sqlexec

import "testing"

// TestModifiedFirst: a row is written first once per member and key, and
// the same key under another member is another row.
func TestModifiedFirst(t *testing.T) {
	done := modified{}
	for _, tc := range []struct {
		member int
		key    string
		want   bool
	}{
		{0, "\x00\x01", true},
		{0, "\x00\x01", false},
		{1, "\x00\x01", true},
		{1, ":\x00\x01", true},
		{12, "\x00\x01", true},
		{1, "2\x00\x01", true},
		{12, "\x00\x01", false},
	} {
		if got := done.first(match{member: tc.member, key: []byte(tc.key)}); got != tc.want {
			t.Errorf("first(%d, %q) = %v, want %v", tc.member, tc.key, got, tc.want)
		}
	}
}
