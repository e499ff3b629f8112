package isolation

import "testing"

// TestStrategyNamesRoundTrip: every strategy's name parses back to it, and
// only the four strategies' names parse.
func TestStrategyNamesRoundTrip(t *testing.T) {
	for _, s := range []Strategy{StrategyLatest, StrategyRandom, StrategyOldest, StrategyAdversarial} {
		if got, err := ParseStrategy(s.String()); err != nil || got != s {
			t.Errorf("ParseStrategy(%q) = %v, %v", s, got, err)
		}
	}
	for _, bad := range []string{"default", "", "Latest", "newest"} {
		if _, err := ParseStrategy(bad); err == nil {
			t.Errorf("ParseStrategy(%q) succeeded", bad)
		}
	}
}
