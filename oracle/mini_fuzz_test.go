package oracle

import (
	"testing"

	"github.com/fickle-db/fickle/history"
)

// FuzzMiniChecksNeverPanic: CheckMini and CheckLinearizable answer on
// arbitrary, possibly malformed histories (fuzzHistory's) without
// panicking, each violation comes with an explanation that renders, and
// where they apply and Check decides, they agree with Check.
func FuzzMiniChecksNeverPanic(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 2, 3, 1, 2, 0, 2, 0, 0, 1, 1, 0, 1, 1, 2, 0, 1, 0})
	f.Add([]byte{5, 3, 7, 0x81, 3, 1, 1, 5, 4, 0x21, 2, 3, 1, 0x30, 1, 2, 2, 0xff, 0x40, 0, 1})
	f.Add([]byte{1, 1, 4, 0, 1, 0, 3, 1, 0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 2, 0, 0, 2, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		h := fuzzHistory(data)
		rendered := func(r MiniResult) {
			if r.Verdict == Violation && len(r.Violations) == 0 {
				t.Fatal("violation without explanation")
			}
			for _, e := range r.Violations {
				_ = e.Text(h)
				if _, err := e.JSON(h); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, rt := range []bool{false, true} {
			for _, l := range []history.Level{history.Snapshot, history.Serializable} {
				opts := Options{Level: l, RealTime: rt}
				r, err := CheckMini(h, opts)
				if err != nil {
					continue
				}
				rendered(r)
				opts.MaxSteps = 100_000
				if c := Check(h, opts); c.Verdict != Unknown && c.Verdict != r.Verdict {
					t.Fatalf("%s real time %v: CheckMini says %s, Check %s\n%s", l, rt, r.Verdict, c.Verdict, dump(h))
				}
			}
		}
		if r, err := CheckLinearizable(h); err == nil {
			rendered(r)
		}
	})
}
