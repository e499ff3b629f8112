package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// discardPlan compiles DISCARD, which connection pools send before handing
// a connection to its next user: TEMP drops the session's temporary
// objects, SEQUENCES forgets currval and lastval, PLANS the cached plans,
// and ALL does all of it, closes the cursors, deallocates the prepared
// statements, releases the session's advisory locks and resets every
// setting, outside a transaction block only.
func (b *binder) discardPlan(ds *pg_query.DiscardStmt) *stmtPlan {
	tag := map[pg_query.DiscardMode]string{pg_query.DiscardMode_DISCARD_ALL: "DISCARD ALL", pg_query.DiscardMode_DISCARD_PLANS: "DISCARD PLANS",
		pg_query.DiscardMode_DISCARD_SEQUENCES: "DISCARD SEQUENCES", pg_query.DiscardMode_DISCARD_TEMP: "DISCARD TEMP"}[ds.Target]
	return &stmtPlan{noTxn: true, exec: func(x *execCtx) (*Result, error) {
		s := x.s
		all := ds.Target == pg_query.DiscardMode_DISCARD_ALL
		if all && s.txn != nil && s.txn.explicit {
			return nil, pgerror.New(pgerror.ActiveSqlTransaction, "DISCARD ALL cannot run inside a transaction block")
		}
		if all || ds.Target == pg_query.DiscardMode_DISCARD_TEMP {
			if err := s.dropTempObjects(); err != nil {
				return nil, err
			}
		}
		if all || ds.Target == pg_query.DiscardMode_DISCARD_SEQUENCES {
			s.currval, s.lastval, s.seqCache = make(map[uint32]int64), 0, nil
		}
		if all || ds.Target == pg_query.DiscardMode_DISCARD_PLANS {
			s.plans = nil
		}
		if all {
			s.cursors = nil
			s.kv.AdvisoryUnlockAll()
			s.unlistenAll()
			// The version goes on counting, so that no cache derived from
			// the old values takes the new ones for them.
			version := s.settings.version
			s.settings = newSettings(s.info, s.engine.sessionOverrides(s.info))
			s.settings.version = version + 1
			// And DEALLOCATE ALL, of the prepared statements the server
			// keeps.
			return &Result{Tag: tag, Deallocate: &Deallocation{All: true}}, nil
		}
		return &Result{Tag: tag}, nil
	}}
}
