package types

// argDefaults are the values of the parameters with defaults of built-in
// functions (pg_proc.proargdefaults), for the full signature, trailing
// parameters only; calls that leave them out (positionally or by naming
// later ones) get these. Each function's file registers its own.
var argDefaults = map[string][]any{}

// ArgDefaults returns the defaults of the trailing parameters of the
// built-in function name (nil when it has none).
func ArgDefaults(name string) []any { return argDefaults[normalizeFuncName(name)] }

// withArgDefaults returns args completed to n arguments with name's
// defaults.
func withArgDefaults(name string, args []any, n int) []any {
	d := argDefaults[name]
	full := append([]any(nil), args...)
	return append(full, d[len(d)-(n-len(args)):]...)
}
