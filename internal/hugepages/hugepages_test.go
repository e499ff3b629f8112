package hugepages

import "testing"

func TestBracketedReadsTheKernelsChoice(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"always [madvise] never\n", "madvise"},
		{"[always] madvise never\n", "always"},
		{"always madvise [never]\n", "never"},
		{"", ""},
		{"]oops[", ""},
	} {
		if got := bracketed(tc.in); got != tc.want {
			t.Errorf("bracketed(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
