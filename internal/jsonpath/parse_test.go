package jsonpath

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// goRegex stands in for the SQL type system's regular expressions: the
// parser only needs to know whether a pattern compiles.
func goRegex(pattern string, flags uint8) (func(string) bool, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, pgerror.Newf(pgerror.InvalidRegularExpression, "invalid regular expression: %v", err)
	}
	return re.MatchString, nil
}

func describe(p *Path, err error) string {
	if err != nil {
		var pe *pgerror.Error
		if errors.As(err, &pe) {
			return fmt.Sprintf("ERROR %s: %s", pe.Code, pe.Message)
		}
		return "ERROR " + err.Error()
	}
	return p.String()
}

// TestParsePrintsWhatPostgreSQLPrints reads testdata/parse.txt, lines of
// a jsonpath text and what PostgreSQL 15's jsonpath_in and jsonpath_out
// make of it (the normalized text, or the error's SQLSTATE and message).
func TestParsePrintsWhatPostgreSQLPrints(t *testing.T) {
	f, err := os.Open("testdata/parse.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		in, want, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("line %q has no tab", sc.Text())
		}
		n++
		if got := describe(Parse(in, goRegex)); got != want {
			t.Errorf("Parse(%q):\n got  %s\n want %s", in, got, want)
		}
	}
	if n < 100 {
		t.Fatalf("only %d cases read", n)
	}
}

// chainedPredicate reports an exists(...), !(...) or "(...) is unknown"
// followed by an accessor: PostgreSQL prints it without the parentheses
// it needs to parse back, and so does Path.String.
func chainedPredicate(it *Item) bool {
	if it == nil {
		return false
	}
	switch it.Kind {
	case KindExists, KindNot, KindIsUnknown:
		if it.Next != nil {
			return true
		}
	}
	for _, s := range it.Subscripts {
		if chainedPredicate(s.From) || chainedPredicate(s.To) {
			return true
		}
	}
	return chainedPredicate(it.Left) || chainedPredicate(it.Right) || chainedPredicate(it.Next)
}

// TestPrintedPathParsesBack checks that jsonpath_out's text is a fixed
// point of parse and print, which stored values rely on.
func TestPrintedPathParsesBack(t *testing.T) {
	f, err := os.Open("testdata/parse.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		in, out, _ := strings.Cut(sc.Text(), "\t")
		if strings.HasPrefix(out, "ERROR") {
			continue
		}
		if p, _ := Parse(in, goRegex); p != nil && chainedPredicate(p.Expr) {
			continue
		}
		if got := describe(Parse(out, goRegex)); got != out {
			t.Errorf("Parse(%q) printed %q", out, got)
		}
	}
}
