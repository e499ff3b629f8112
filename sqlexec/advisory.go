package sqlexec

import (
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Advisory locks: pg_advisory_lock, pg_try_advisory_lock,
// pg_advisory_unlock and their _shared and _xact kin, over a bigint key or
// a pair of integers (a key space of its own, as in PostgreSQL), on the
// store's advisory locks, which wait with deadlock detection like any
// lock. Keys belong to the database, as PostgreSQL's lock tags do. Session
// locks are held until unlocked (pg_advisory_unlock_all releases them all)
// or until the connection closes; transaction locks until the transaction
// ends. The pg_try_ forms answer false where the others wait; the others
// return void. ActiveRecord's migrations take one.

// advisoryFunc describes one advisory lock function.
type advisoryFunc struct {
	try, xact, unlock, shared bool
}

func init() {
	for name, f := range map[string]advisoryFunc{
		"pg_advisory_lock":                 {},
		"pg_advisory_lock_shared":          {shared: true},
		"pg_advisory_xact_lock":            {xact: true},
		"pg_advisory_xact_lock_shared":     {xact: true, shared: true},
		"pg_try_advisory_lock":             {try: true},
		"pg_try_advisory_lock_shared":      {try: true, shared: true},
		"pg_try_advisory_xact_lock":        {try: true, xact: true},
		"pg_try_advisory_xact_lock_shared": {try: true, xact: true, shared: true},
		"pg_advisory_unlock":               {unlock: true},
		"pg_advisory_unlock_shared":        {unlock: true, shared: true},
	} {
		result := types.Bool
		if !f.try && !f.unlock {
			result = types.Void
		}
		for _, args := range [][]types.Type{{types.Int8}, {types.Int4, types.Int4}} {
			addSysFunc(name, sysFunc{args: args, result: result, volatile: true, eval: f.call})
		}
	}
	addSysFunc("pg_advisory_unlock_all", sysFunc{result: types.Void, volatile: true, eval: func(x *execCtx, _ []any) (any, error) {
		x.s.kv.AdvisoryUnlockAll()
		return "", nil
	}})
	addSysFunc("pg_sleep", sysFunc{args: []types.Type{types.Float8}, result: types.Void, volatile: true, eval: sleep})
}

// call runs the function on its key's arguments.
func (f advisoryFunc) call(x *execCtx, args []any) (any, error) {
	key := advisoryKey(x, args)
	if f.unlock {
		released := x.s.kv.AdvisoryUnlock(key, f.shared)
		if !released {
			mode := "ExclusiveLock"
			if f.shared {
				mode = "ShareLock"
			}
			x.s.warn(pgerror.Newf(pgerror.Warning, "you don't own a lock of type %s", mode))
		}
		return released, nil
	}
	wait := isolation.WaitBlock
	if f.try {
		wait = isolation.WaitNoWait
	}
	var got bool
	var err error
	if f.xact {
		got, err = x.txn.AdvisoryLock(x.ctx, key, f.shared, wait)
	} else {
		got, err = x.s.kv.AdvisoryLock(x.ctx, key, f.shared, wait)
	}
	if err != nil || f.try {
		return got, err
	}
	return "", nil
}

// advisoryKey is the lock a function's arguments name: one bigint, or two
// integers, which PostgreSQL keeps apart from every bigint, in the
// session's database.
func advisoryKey(x *execCtx, args []any) isolation.AdvisoryKey {
	space := uint64(x.s.engine.oid) << 1
	if len(args) == 1 {
		return isolation.AdvisoryKey{Space: space, Key: args[0].(int64)}
	}
	return isolation.AdvisoryKey{Space: space | 1, Key: args[0].(int64)<<32 | int64(uint32(args[1].(int64)))}
}

// sleep is pg_sleep: it waits the seconds given, or until the statement is
// cancelled.
func sleep(x *execCtx, args []any) (any, error) {
	d := time.Duration(args[0].(float64) * float64(time.Second))
	if d <= 0 {
		return "", nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return "", nil
	case <-x.ctx.Done():
		return nil, x.checkCancel()
	}
}
