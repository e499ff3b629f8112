package isolation

import "context"

// WaitObserver learns when a call into the store waits for another
// transaction (a row, table, key or advisory lock, or a logical session's
// turn) and when a call of another transaction lets it go. A driver that
// orders a run's calls itself (fickle explore's turnstile) uses it to know,
// without looking at goroutines, when a waiting call has handed over and
// when the call that ended a wait is done: Woken is called by the releasing
// call, before it returns, so a release and the wake-ups it causes are one
// step. Both are called with the store's mutex held: they must not call
// back into the store, and must return quickly.
type WaitObserver interface {
	// Waiting is called by a call about to wait.
	Waiting()
	// Woken is called by the call that lets a waiting call retry.
	Woken()
}

type waitObserverKey struct{}

// WithWaitObserver returns ctx carrying o: calls into the store made with
// it report their waits to o.
func WithWaitObserver(ctx context.Context, o WaitObserver) context.Context {
	return context.WithValue(ctx, waitObserverKey{}, o)
}

func waitObserverOf(ctx context.Context) WaitObserver {
	o, _ := ctx.Value(waitObserverKey{}).(WaitObserver)
	return o
}

// wokenAll tells the observers of the waiters a release wakes.
func wokenAll(obs []WaitObserver) {
	for _, o := range obs {
		o.Woken()
	}
}
