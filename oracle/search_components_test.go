package oracle

import (
	"fmt"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// TestComponentsSplitAtInit: sessions that share keys only through Init's
// initial versions are searched apart; sessions sharing a key stay together.
func TestComponentsSplitAtInit(t *testing.T) {
	h := parseShorthand(t, "S1:[w x=1] S2:[r x=1] S3:[w y=1][r z=0] S4:[r y=1] S5:[w z=1] S6:[]", history.Serializable)
	got := fmt.Sprint(components(newTxnIndex(h, levelsFor(h, Options{}))))
	if want := "[[0 1] [2 3 4] [5]]"; got != want {
		t.Fatalf("components = %s, want %s", got, want)
	}
}

// TestSearchFindsViolationsInsideOneComponent: splitting keeps a violation
// inside its component, and the other components still need a witness.
func TestSearchFindsViolationsInsideOneComponent(t *testing.T) {
	consistent := "S1:[w x=1] S2:[r x=1] "
	writeSkew := "S3:[r u=0, r v=0, w u=1] S4:[r u=0, r v=0, w v=1]"
	for _, c := range []struct {
		text string
		want Verdict
	}{
		{consistent + "S3:[w u=1] S4:[r u=1]", Consistent},
		{consistent + writeSkew, Violation},
	} {
		h := parseShorthand(t, c.text, history.Serializable)
		if len(components(newTxnIndex(h, levelsFor(h, Options{})))) != 2 {
			t.Fatalf("%s: want two components", c.text)
		}
		v, co, _ := Search(h, Options{})
		if v != c.want {
			t.Fatalf("%s: Search = %v, want %v", c.text, v, c.want)
		}
		if co != nil && len(co) != len(h.Txns) {
			t.Fatalf("%s: witness %v misses transactions", c.text, co)
		}
	}
}

// TestSearchBudgetGivesUnknown: when MaxSteps runs out the search answers
// Unknown, never a guess.
func TestSearchBudgetGivesUnknown(t *testing.T) {
	h := dbcopShape(history.Serializable, 3)
	if v, _, _ := Search(h, Options{Level: history.Serializable, MaxSteps: 1}); v != Unknown {
		t.Fatalf("Search with one step = %v, want unknown", v)
	}
	if v, _, _ := Search(h, Options{Level: history.Serializable}); v != Consistent {
		t.Fatalf("Search without a budget = %v, want consistent", v)
	}
}

// TestSearchOnHistoriesWithoutTransactions: Init alone, or sessions without
// transactions, are consistent with the order of Init alone.
func TestSearchOnHistoriesWithoutTransactions(t *testing.T) {
	for _, text := range []string{"", "S1:[] S2:[]"} {
		h := parseShorthand(t, text, history.Serializable)
		if v, co, _ := Search(h, Options{}); v != Consistent || len(co) != len(h.Txns) {
			t.Errorf("%q: Search = %v %v, want consistent with every transaction", text, v, co)
		}
	}
}

// TestMalformedHistoriesAreUnknownNotPanics: the exported checkers answer
// Unknown, with the reason, on histories that fail history.Validate.
func TestMalformedHistoriesAreUnknownNotPanics(t *testing.T) {
	h := parseShorthand(t, "S1:[w x=1] S2:[r x=1]", history.Serializable)
	h.Txns[2].Ops[0].Writer = 99
	if v, _, why := Search(h, Options{}); v != Unknown || why == nil {
		t.Errorf("Search = %v %+v, want unknown with a reason", v, why)
	}
	if v, _ := BruteForce(h, Options{}); v != Unknown {
		t.Errorf("BruteForce = %v, want unknown", v)
	}
	c := ClientReads{Missing: []MissingRead{{Txn: 2, Key: 0}}, Matches: matchTable{}.matches}
	if v, _, why := CheckClient(h, c, Options{}); v != Unknown || why == nil {
		t.Errorf("CheckClient = %v %+v, want unknown with a reason", v, why)
	}
}
