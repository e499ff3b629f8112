package sqlexec

import "testing"

func TestDeclaresCollation(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"declare x text COLLATE \"C\"; begin return x; end", true},
		{"DECLARE\n  x text collate \"POSIX\" := 'a';\nBEGIN RETURN x; END", true},
		{"begin return x < y collate \"C\"; end", false},
		{"declare s text := 'collate'; begin return s; end", false},
		{"declare s text := $q$ collate $q$; -- collate\n begin return s; end", false},
		{"declare /* collate */ \"collate\" text; begin return 1; end", false},
		{"declare a int; begin declare b text collate \"C\"; begin return b; end; end", true},
	} {
		if got := declaresCollation(tc.src); got != tc.want {
			t.Errorf("declaresCollation(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestCollStateMerge(t *testing.T) {
	c := func(s collStrength, name string) collState { return collState{strength: s, name: name} }
	for _, tc := range []struct {
		a, b    collState
		want    collState
		wantErr bool
	}{
		{c(collImplicit, "default"), c(collImplicit, "C"), c(collImplicit, "C"), false},
		{c(collImplicit, "C"), c(collImplicit, "default"), c(collImplicit, "C"), false},
		{c(collImplicit, "C"), c(collImplicit, "POSIX"), collState{strength: collConflict, name: "C", other: "POSIX"}, false},
		{c(collImplicit, "C"), c(collExplicit, "POSIX"), c(collExplicit, "POSIX"), false},
		{c(collExplicit, "C"), c(collExplicit, "POSIX"), collState{}, true},
		{collState{strength: collConflict, name: "C", other: "POSIX"}, c(collExplicit, "C"), c(collExplicit, "C"), false},
		{c(collNone, ""), c(collImplicit, "POSIX"), c(collImplicit, "POSIX"), false},
	} {
		got := tc.a
		err := got.merge(tc.b)
		if (err != nil) != tc.wantErr || err == nil && got != tc.want {
			t.Errorf("%+v merge %+v = %+v, %v; want %+v (error %v)", tc.a, tc.b, got, err, tc.want, tc.wantErr)
		}
	}
}
