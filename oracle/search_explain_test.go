package oracle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchExplanationScripts runs testdata/explain_search/*.txt, the
// golden explanations of violations the commit-order search finds (PC, SI,
// SER), in the format of testdata/check (see TestCheckScripts). Run with
// -rewrite to regenerate them.
func TestSearchExplanationScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/explain_search/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cases, lines := readDD(t, path)
			var out []string
			prev := 0
			for _, c := range cases {
				got := runDD(t, c)
				if !*rewrite && got != c.want {
					t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", c.pos, c.cmd, got, c.want)
				}
				out = append(out, lines[prev:c.sep+1]...)
				if got != "" {
					out = append(out, strings.Split(got, "\n")...)
				}
				prev = c.end
			}
			if *rewrite {
				out = append(out, lines[prev:]...)
				if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
