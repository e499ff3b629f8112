package sqlexec

import (
	"context"
	"fmt"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The protocol's FunctionCall message (PostgreSQL's fastpath, libpq's
// PQfn) calls a function by OID; pgjdbc and libpq call the large-object
// functions that way. A call runs as the statement SELECT schema.f($1,
// ...) with the function's own argument types, so that it goes through
// the same checks, transaction and history as any statement.

// CalledFunction is a function a FunctionCall message names.
type CalledFunction struct {
	// ArgOIDs are the types of its arguments, in which the message's
	// values are decoded.
	ArgOIDs []uint32
	sql     string
}

// LookupFunction finds the function with OID oid for a FunctionCall
// message carrying nargs arguments, with PostgreSQL's checks in its
// order: 42883 for no such function, 0A000 for a procedure, an aggregate
// or a set-returning function, 42501 without USAGE on its schema or
// EXECUTE on it, 08P01 for the wrong number of arguments.
func (s *Session) LookupFunction(oid uint32, nargs int) (*CalledFunction, error) {
	c, _ := s.catalog()
	var schema, name string
	var schemaOID uint32
	var args []uint32
	if p := builtinIndex().procs[oid]; p != nil {
		if p.kind != 'f' || p.retset {
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "cannot call function \"%s\" via fastpath interface", p.name)
		}
		schema, schemaOID, name, args = "pg_catalog", p.namespace, p.name, p.args
	} else if f := c.funcByOID(oid); f != nil {
		if f.kind != 'f' || f.retSet {
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "cannot call function \"%s\" via fastpath interface", f.name)
		}
		schema, name = f.schema, f.name
		if sc := c.schemas[f.schema]; sc != nil {
			schemaOID = sc.oid
		}
		for _, t := range f.in {
			args = append(args, uint32(t.Oid))
		}
	} else {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function with OID %d does not exist", oid)
	}
	role := s.currentRole()
	if !s.hasPrivilege(role, aclSchema, schemaOID, []byte("U")) {
		return nil, pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for schema %s", schema)
	}
	if !s.hasPrivilege(role, aclFunction, oid, []byte("X")) {
		return nil, pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for function %s", name)
	}
	if nargs != len(args) {
		return nil, pgerror.Newf(pgerror.ProtocolViolation, "function call message contains %d arguments but function requires %d", nargs, len(args))
	}
	params := make([]string, len(args))
	for i, a := range args {
		params[i] = fmt.Sprintf("$%d", i+1)
		if _, ok := types.TypeByOid(types.Oid(a)); !ok {
			return nil, pgerror.Unsupported(fmt.Sprintf("calling function %s with an argument of type %d by the function call message", name, a))
		}
	}
	sql := "SELECT " + quoteIdent(schema) + "." + quoteIdent(name) + "(" + strings.Join(params, ", ") + ")"
	return &CalledFunction{ArgOIDs: args, sql: sql}, nil
}

// CallFunction calls f with args, the decoded values of its arguments (nil
// for NULL), in the open transaction, and returns its result and the
// result's type OID.
func (s *Session) CallFunction(ctx context.Context, f *CalledFunction, args []any) (any, uint32, error) {
	sts, err := s.Parse(f.sql)
	if err != nil {
		return nil, 0, err
	}
	p, err := s.Prepare(sts[0], f.ArgOIDs)
	if err != nil {
		return nil, 0, err
	}
	res, err := s.Execute(ctx, p, args)
	if err != nil {
		return nil, 0, err
	}
	if len(res.Columns) != 1 || len(res.Rows) != 1 {
		return nil, 0, pgerror.Newf(pgerror.InternalError, "function call returned %d rows", len(res.Rows))
	}
	return res.Rows[0][0], res.Columns[0].TypeOID, nil
}
