package isolation

import "fmt"

// strategyText are the strategies' names in fickle's flags and settings
// (--strategy, fickletest.Strategy, a history header's meta).
var strategyText = [...]string{StrategyDefault: "default", StrategyLatest: "latest", StrategyRandom: "random",
	StrategyOldest: "oldest", StrategyAdversarial: "adversarial"}

// String returns the strategy's name: latest, random, oldest, adversarial.
func (s Strategy) String() string {
	if int(s) < len(strategyText) {
		return strategyText[s]
	}
	return fmt.Sprintf("Strategy(%d)", s)
}

// ParseStrategy is the inverse of String for the four strategies.
func ParseStrategy(name string) (Strategy, error) {
	for s, n := range strategyText {
		if n == name && Strategy(s) != StrategyDefault {
			return Strategy(s), nil
		}
	}
	return StrategyDefault, fmt.Errorf("unknown strategy %q: want latest, random, oldest or adversarial", name)
}
