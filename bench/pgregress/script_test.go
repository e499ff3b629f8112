package main

import (
	"reflect"
	"testing"
)

func TestSplitScriptCutsWherePsqlDoes(t *testing.T) {
	cases := []struct {
		name, text string
		want       []item
	}{
		{"semicolons in quotes, comments and parentheses stay",
			"SELECT 'a;b', \"c;d\" -- e;f\n FROM t; /* g; /* h; */ */ SELECT (1;2);",
			[]item{{sql: "SELECT 'a;b', \"c;d\" -- e;f\n FROM t", line: 1}, {sql: "/* g; /* h; */ */ SELECT (1;2)", line: 2}}},
		{"dollar quotes, E strings and parameters",
			"SELECT $x$ ; $x$, E'\\';', $1;\nSELECT 2",
			[]item{{sql: "SELECT $x$ ; $x$, E'\\';', $1", line: 1}, {sql: "SELECT 2", line: 2}}},
		{"meta-commands run to the end of the line; \\gexec ends the statement",
			"\\set x 'y'\nSELECT 1\n\\gexec\nSELECT 2;",
			[]item{{meta: "set", args: "x 'y'", line: 1}, {sql: "SELECT 1", line: 2}, {meta: "gexec", line: 3}, {sql: "SELECT 2", line: 4}}},
		{"COPY rows up to \\. follow their statement",
			"copy t from stdin;\n1\t2\n\\.\nselect 1;",
			[]item{{sql: "copy t from stdin", copyData: "1\t2\n", line: 1}, {sql: "select 1", line: 4}}},
		{"a COPY followed by a statement has no rows",
			"copy t(a) from stdin;\ncopy t(b) from stdin;\n3\n\\.\n",
			[]item{{sql: "copy t(a) from stdin", line: 1}, {sql: "copy t(b) from stdin", copyData: "3\n", line: 2}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := splitScript(c.text); !reflect.DeepEqual(got, c.want) {
				t.Errorf("splitScript(%q)\n got %#v\nwant %#v", c.text, got, c.want)
			}
		})
	}
}

func TestInterpolateSubstitutesOutsideQuotes(t *testing.T) {
	vars := map[string]string{"f": "/a/it's", "n": "x"}
	setVariable("g :abs 'b''c'", vars)
	cases := map[string]string{
		"COPY t FROM :'f'":            "COPY t FROM '/a/it''s'",
		"SELECT :n, ':n', 1::int, :u": "SELECT x, ':n', 1::int, :u",
		`SELECT :"n" -- :n`:           `SELECT "x" -- :n`,
	}
	for in, want := range cases {
		if got := interpolate(in, vars); got != want {
			t.Errorf("interpolate(%q) = %q, want %q", in, got, want)
		}
	}
	if vars["g"] != ":absb'c" {
		t.Errorf(`\set g :abs 'b''c' gave %q`, vars["g"])
	}
}
