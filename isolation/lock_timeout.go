package isolation

import "context"

// LockWaitContext derives the context one lock wait runs under from the
// context of the call that waits: the executor's ends it at the session's
// lock_timeout, with 55P03 as its cause (ctxError). The store keeps no
// clock of its own.
type LockWaitContext func(ctx context.Context) (context.Context, context.CancelFunc)

type lockWaitKey struct{}

// WithLockWait returns ctx carrying f: a call into the store made with it
// waits for each lock (a row, table, key or advisory lock) under the
// context f derives, from the moment it starts waiting.
func WithLockWait(ctx context.Context, f LockWaitContext) context.Context {
	return context.WithValue(ctx, lockWaitKey{}, f)
}

func lockWaitOf(ctx context.Context) LockWaitContext {
	f, _ := ctx.Value(lockWaitKey{}).(LockWaitContext)
	return f
}
