package isolation

import (
	"context"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
)

type lockTimeoutKey struct{}

// WithLockTimeout returns ctx carrying the session's lock_timeout: a call
// into the store made with it that waits longer than d for one lock (a row,
// table, key or advisory lock) fails with 55P03, as PostgreSQL's lock wait
// does. d <= 0 means no limit.
func WithLockTimeout(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return ctx
	}
	return context.WithValue(ctx, lockTimeoutKey{}, d)
}

func lockTimeoutOf(ctx context.Context) time.Duration {
	d, _ := ctx.Value(lockTimeoutKey{}).(time.Duration)
	return d
}

// errLockTimeout is PostgreSQL's error for a lock wait past lock_timeout.
func errLockTimeout() error {
	return pgerror.New(pgerror.LockNotAvailable, "canceling statement due to lock timeout")
}
