package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Advisory locks: pg_try_advisory_lock, pg_advisory_unlock and their
// _shared and _xact kin over a bigint key, on the store's advisory locks
// (which wait with deadlock detection like any lock). Session locks are
// held until unlocked or until the connection closes; transaction locks
// until the transaction ends. ActiveRecord's migrations take one. The
// functions that return void (pg_advisory_lock, pg_advisory_xact_lock,
// pg_advisory_unlock_all) and the two-integer keys, whose locks PostgreSQL
// keeps apart from bigint keys, are refused with 0A000.

// advisoryFuncs are the advisory lock functions by name; those fickle
// runs return a boolean.
var advisoryFuncs = map[string]struct {
	try, xact, unlock, shared, void bool
}{
	"pg_try_advisory_lock":             {try: true},
	"pg_try_advisory_lock_shared":      {try: true, shared: true},
	"pg_try_advisory_xact_lock":        {try: true, xact: true},
	"pg_try_advisory_xact_lock_shared": {try: true, xact: true, shared: true},
	"pg_advisory_unlock":               {unlock: true},
	"pg_advisory_unlock_shared":        {unlock: true, shared: true},
	"pg_advisory_lock":                 {void: true},
	"pg_advisory_lock_shared":          {void: true},
	"pg_advisory_xact_lock":            {void: true},
	"pg_advisory_xact_lock_shared":     {void: true},
	"pg_advisory_unlock_all":           {void: true},
}

// advisoryFunc compiles a call of an advisory lock function; ok is false
// for every other name.
func (b *binder) advisoryFunc(sc *scope, name string, argNodes []*pg_query.Node, loc int32) (*scalar, bool, error) {
	f, ok := advisoryFuncs[name]
	switch {
	case !ok:
		return nil, false, nil
	case f.void:
		return nil, true, b.errAt(pgerror.Unsupported(name+" (functions returning void)"), loc)
	case len(argNodes) == 2:
		return nil, true, b.errAt(pgerror.Unsupported(name+" with two integer keys"), loc)
	case len(argNodes) != 1:
		return nil, true, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s with %d arguments does not exist", name, len(argNodes)), loc)
	}
	key, err := b.expr(sc, argNodes[0])
	if err != nil {
		return nil, true, err
	}
	if key, err = b.coerce(key, types.Int8, types.CastImplicit); err != nil {
		return nil, true, b.withPos(err, loc)
	}
	eval := func(x *execCtx) (any, error) {
		k, err := key.eval(x)
		if err != nil || k == nil {
			return nil, err
		}
		switch {
		case f.unlock:
			return x.s.kv.AdvisoryUnlock(k.(int64), f.shared), nil
		case f.xact:
			return x.txn.AdvisoryLock(x.ctx, k.(int64), f.shared, isolation.WaitNoWait)
		}
		return x.s.kv.AdvisoryLock(x.ctx, k.(int64), f.shared, isolation.WaitNoWait)
	}
	return &scalar{typ: types.Bool, slot: -1, name: name, volatile: true, refs: key.refs, eval: eval}, true, nil
}
