package checkcli

import (
	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
)

// checkLevel checks h at opts.Level: SI and SER of a read-modify-write
// (mini-transaction) history by oracle.CheckMini, in linear time, which
// decides what Check decides without a commit order to verify or search
// (fickle stress's histories have none); everything else by Check. The
// explanation is the first violation found.
func checkLevel(h *history.History, opts oracle.Options) oracle.Result {
	if opts.Level == history.Snapshot || opts.Level == history.Serializable {
		if mini, err := oracle.CheckMini(h, opts); err == nil {
			res := oracle.Result{Verdict: mini.Verdict, Level: opts.Level}
			if len(mini.Violations) > 0 {
				res.Explanation = mini.Violations[0]
			}
			return res
		}
	}
	return oracle.Check(h, opts)
}
