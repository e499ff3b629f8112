package sqlexec

import (
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// pg_proc's OIDs of the built-in trigger functions fickle has.
const (
	suppressRedundantUpdatesOID    = 1291
	tsvectorUpdateTriggerOID       = 3752
	tsvectorUpdateTriggerColumnOID = 3753
)

// builtinTriggerFunc reports whether a trigger's function is a built-in
// one, which runs without a user routine.
func builtinTriggerFunc(oid uint32) bool {
	return oid == suppressRedundantUpdatesOID || oid == tsvectorUpdateTriggerOID || oid == tsvectorUpdateTriggerColumnOID
}

// namesSuppressRedundantUpdates reports whether a CREATE TRIGGER's function
// name, which no user function matched, names the built-in
// suppress_redundant_updates_trigger (unqualified or in pg_catalog).
func namesSuppressRedundantUpdates(names []string) bool {
	return namesBuiltinTrigger(names, "suppress_redundant_updates_trigger")
}

// namesBuiltinTrigger reports whether names name pg_catalog's trigger
// function fn, qualified or not.
func namesBuiltinTrigger(names []string, fn string) bool {
	switch len(names) {
	case 1:
		return names[0] == fn
	case 2:
		return names[0] == "pg_catalog" && names[1] == fn
	}
	return false
}

// suppressRedundantUpdate runs suppress_redundant_updates_trigger: a
// BEFORE UPDATE FOR EACH ROW trigger that skips an update whose new row is
// identical to the old one. PostgreSQL compares the stored bytes; two
// values of a column are identical here when their text output is, which
// tells apart what the bytes do (numeric scale, -0 and 0, a jsonb's
// normalized form).
func (ts *triggerSet) suppressRedundantUpdate(x *execCtx, when, level string, old, new []any) ([]any, error) {
	const fn = "suppress_redundant_updates_trigger"
	switch {
	case ts.event != tgUpdate:
		return nil, pgerror.New(pgerror.TriggerProtocolViolated, fn+": must be fired on update")
	case when != "BEFORE":
		return nil, pgerror.New(pgerror.TriggerProtocolViolated, fn+": must be fired before update")
	case level != "ROW":
		return nil, pgerror.New(pgerror.TriggerProtocolViolated, fn+": must be fired for each row")
	}
	for i, c := range ts.t.cols {
		if !identicalDatums(x.env, c.typ, old[i], new[i]) {
			return new, nil
		}
	}
	return nil, nil
}

// identicalDatums reports whether two values of type t would be stored
// alike: both NULL, or both not NULL with the same text output.
func identicalDatums(env *types.Env, t types.Type, a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return types.FormatTextEnv(env, t, a) == types.FormatTextEnv(env, t, b)
}
