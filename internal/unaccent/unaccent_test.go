package unaccent

import "testing"

func TestLexize(t *testing.T) {
	for _, c := range []struct {
		in, want string
		changed  bool
	}{
		{"Hôtel", "Hotel", true},
		{"Hotel", "Hotel", false},
		{"Æsop œuvre ½", "AEsop oeuvre 1/2", true},
		{"ʺxʺ", `"x"`, true},
		{"e\u0301", "e", true},
		{"", "", false},
	} {
		got, changed := Default.Lexize(c.in)
		if got != c.want || changed != c.changed {
			t.Errorf("Lexize(%q) = %q, %v; want %q, %v", c.in, got, changed, c.want, c.changed)
		}
	}
}

func TestParse(t *testing.T) {
	r := Parse("a\tb\na\tc\nxy\t\"q \"\"r\"\"\"\nz\n\n")
	for in, want := range map[string]string{"a": "b", "xyz": `q "r"`, "xa": "xb"} {
		if got, _ := r.Lexize(in); got != want {
			t.Errorf("Lexize(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzLexize(f *testing.F) {
	f.Add("Crème Brûlée")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = Default.Lexize(s)
		_ = Parse(s)
	})
}
