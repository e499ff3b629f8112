package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// System functions: the functions that read the session, the catalog or
// the store (version(), current_schemas(), format_type(), nextval(),
// has_table_privilege(), ...), as opposed to the value functions of
// package types. Each signature is an entry of sysFuncs, resolved by the
// overload rules of every function (types.ChooseOverload: 42883 when no
// signature fits), its arguments coerced to the signature's types while
// the statement is bound, so that a typed column is an argument like a
// literal.

// sysFunc is one signature of a system function.
type sysFunc struct {
	args   []types.Type
	result types.Type
	// volatile functions are computed for every row (nextval); the
	// others once per statement when their arguments are constant.
	volatile bool
	// nullable functions see NULL arguments; for the others any NULL
	// argument makes the result NULL without a call.
	nullable bool
	// immutable functions (pg_proc's provolatile 'i') may be called in
	// index expressions, generated columns and partition keys.
	immutable bool
	eval      func(x *execCtx, args []any) (any, error)
}

var sysFuncs = map[string][]sysFunc{}

// addSysFunc registers a signature of a system function.
func addSysFunc(name string, f sysFunc) { sysFuncs[name] = append(sysFuncs[name], f) }

// sysCall compiles a call of a system function.
func (b *binder) sysCall(sc *scope, name string, overloads []sysFunc, fc *pg_query.FuncCall) (*scalar, error) {
	args := make([]*scalar, len(fc.Args))
	ts := make([]types.Type, len(fc.Args))
	for i, a := range fc.Args {
		e, err := b.expr(sc, a)
		if err != nil {
			return nil, err
		}
		args[i], ts[i] = e, e.typ
		if unresolved(e) {
			ts[i] = types.Unknown
		}
	}
	sigs := make([][]types.Type, len(overloads))
	for i, o := range overloads {
		sigs[i] = o.args
	}
	chosen, err := types.ChooseOverload(name, ts, sigs)
	if err != nil {
		return nil, b.withPos(err, fc.Location)
	}
	f := overloads[chosen]
	out := &scalar{typ: f.result, slot: -1, name: name, volatile: f.volatile}
	if f.volatile {
		b.volatileCalls++
		b.pgVolatileCalls++
	}
	if !f.immutable {
		b.mutableCalls++
	}
	for i, a := range args {
		if args[i], err = b.coerce(a, f.args[i], types.CastImplicit); err != nil {
			return nil, b.withPos(err, fc.Location)
		}
		out.refs |= args[i].refs
		out.volatile = out.volatile || args[i].volatile
	}
	out.eval = func(x *execCtx) (any, error) {
		vals := make([]any, len(args))
		for i, a := range args {
			v, err := a.eval(x)
			if err != nil {
				return nil, err
			}
			if v == nil && !f.nullable {
				return nil, nil
			}
			vals[i] = v
		}
		return f.eval(x, vals)
	}
	return out, nil
}

// The session functions.
func init() {
	noArgs := func(name string, result types.Type, eval func(x *execCtx) (any, error)) {
		addSysFunc(name, sysFunc{result: result, volatile: true, eval: func(x *execCtx, _ []any) (any, error) { return eval(x) }})
	}
	noArgs("version", types.Text, func(*execCtx) (any, error) { return versionString, nil })
	noArgs("current_database", types.Name, func(x *execCtx) (any, error) { return x.s.database(), nil })
	// fickle's databases are UTF8.
	noArgs("getdatabaseencoding", types.Name, func(*execCtx) (any, error) { return "UTF8", nil })
	noArgs("pg_client_encoding", types.Name, func(x *execCtx) (any, error) { return x.s.clientEncoding().Name, nil })
	noArgs("current_schema", types.Name, func(x *execCtx) (any, error) {
		if schemas := x.s.currentSchemas(false); len(schemas) > 0 {
			return schemas[0], nil
		}
		return nil, nil
	})
	noArgs("pg_backend_pid", types.Int4, func(x *execCtx) (any, error) { return int64(x.s.info.ProcessID), nil })
	// pg_trigger_depth is how many trigger functions are running, one
	// inside another: 0 outside any.
	noArgs("pg_trigger_depth", types.Int4, func(x *execCtx) (any, error) { return int64(len(x.s.triggerTables)), nil })
	// The connection's endpoints, NULL for a Unix-socket connection.
	endpointPort := func(addr string, port int) any {
		if endpointInet(addr) == nil {
			return nil
		}
		return int64(port)
	}
	noArgs("inet_client_addr", types.InetType, func(x *execCtx) (any, error) { return endpointInet(x.s.info.ClientAddr), nil })
	noArgs("inet_client_port", types.Int4, func(x *execCtx) (any, error) {
		return endpointPort(x.s.info.ClientAddr, x.s.info.ClientPort), nil
	})
	noArgs("inet_server_addr", types.InetType, func(x *execCtx) (any, error) { return endpointInet(x.s.info.ServerAddr), nil })
	noArgs("inet_server_port", types.Int4, func(x *execCtx) (any, error) {
		return endpointPort(x.s.info.ServerAddr, x.s.info.ServerPort), nil
	})
	noArgs("pg_is_in_recovery", types.Bool, func(*execCtx) (any, error) { return false, nil })
	noArgs("txid_current", types.Int8, func(x *execCtx) (any, error) { return int64(x.txn.XID()), nil })
	noArgs("pg_current_xact_id", types.Type{Oid: types.OidXID8, Typmod: -1}, func(x *execCtx) (any, error) { return types.XID8(x.txn.XID()), nil })
	noArgs("fickle_checkpoint", types.Int8, fickleCheckpoint)
	nameArray, _ := types.ArrayOf(types.Name)
	addSysFunc("current_schemas", sysFunc{args: []types.Type{types.Bool}, result: nameArray, volatile: true,
		eval: func(x *execCtx, args []any) (any, error) {
			schemas := x.s.currentSchemas(args[0].(bool))
			out := make([]any, len(schemas))
			for i, s := range schemas {
				out[i] = s
			}
			return out, nil
		}})
	currentSetting := func(x *execCtx, args []any) (any, error) {
		if v, ok := x.s.setting(args[0].(string)); ok {
			return v, nil
		}
		if len(args) == 2 && args[1] == true {
			return nil, nil
		}
		return nil, pgerror.Newf(pgerror.UndefinedObject, "unrecognized configuration parameter \"%s\"", args[0])
	}
	addSysFunc("current_setting", sysFunc{args: []types.Type{types.Text}, result: types.Text, volatile: true, eval: currentSetting})
	addSysFunc("current_setting", sysFunc{args: []types.Type{types.Text, types.Bool}, result: types.Text, volatile: true, eval: currentSetting})
	addSysFunc("set_config", sysFunc{args: []types.Type{types.Text, types.Text, types.Bool}, result: types.Text, volatile: true, nullable: true,
		eval: setConfig})
}

// currentSchemas is current_schemas(implicit): the schemas of the search
// path that exist, in order. Without implicit, as PostgreSQL's
// fetch_search_path, the list starts at the first existing schema the
// path names (the creation schema), leaving out the implicitly searched
// ones before it, and is empty when the path names none that exists.
func (s *Session) currentSchemas(implicit bool) []string {
	c, _ := s.catalog()
	path, implicitCount := s.searchPathImplicit()
	var out []string
	firstExplicit := -1
	for i, p := range path {
		if _, ok := c.schemas[p]; !ok && p != "information_schema" && p != "pg_catalog" && (s.tempID == 0 || p != s.tempSchema()) {
			continue
		}
		if i >= implicitCount && firstExplicit < 0 {
			firstExplicit = len(out)
		}
		out = append(out, p)
	}
	switch {
	case implicit:
		return out
	case firstExplicit < 0:
		return nil
	}
	return out[firstExplicit:]
}

// setConfig is set_config(name, value, is_local): SET or SET LOCAL, then
// the new value.
func setConfig(x *execCtx, args []any) (any, error) {
	if args[0] == nil {
		return nil, pgerror.New(pgerror.NullValueNotAllowed, "SET requires parameter name")
	}
	name := args[0].(string)
	val, _ := args[1].(string)
	local := args[2] == true && x.s.txn != nil
	if err := x.s.mayChangeSetting(name); err != nil {
		return nil, err
	}
	if err := x.s.settings.set(name, val, local); err != nil {
		return nil, err
	}
	if strings.EqualFold(name, "default_transaction_isolation") {
		x.s.followPGDefaultIsolation(false, local)
	}
	v, _ := x.s.setting(name)
	return v, nil
}
