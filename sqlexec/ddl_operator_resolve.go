package sqlexec

import (
	"slices"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Resolution of operators that extensions and CREATE OPERATOR made,
// together with the built-in ones, as PostgreSQL's oper() and
// left_oper() do: the candidates are the operators of the name in the
// schemas searched (the one OPERATOR(schema.op) names, else search_path's,
// pg_catalog's built-in operators included), an operator hiding those of
// its argument types later on the path; then an exact match of the
// operand types (an untyped operand taking the other's type), else
// func_select_candidate. When the choice is a built-in operator, fickle's
// own operators evaluate it (expr.go), so an expression without such
// operators of its name binds as before.

// operatorOf returns the extension's or user's operator the (possibly
// qualified) name resolves to for operands of types lt and rt (lt of OID
// 0 for a prefix operator, unknown for an untyped literal or parameter):
// nil when a built-in operator is chosen or none fits (the built-in
// resolution then reports it; OPERATOR(schema.op) of another schema than
// pg_catalog fails with 42883), 42725 when the choice is ambiguous.
func (b *binder) operatorOf(names []string, lt, rt types.Type) (*operatorDesc, error) {
	c := b.catalogNow()
	if len(c.extensions) == 0 && len(c.operators) == 0 && len(names) == 1 {
		return nil, nil
	}
	key := operatorChoiceKey{names: strings.Join(names, "\x00"), left: lt, right: rt}
	if ch, ok := b.operatorChoices[key]; ok {
		return ch.op, ch.err
	}
	op, err := b.resolveOperator(c, names, lt, rt)
	if b.operatorChoices == nil {
		b.operatorChoices = map[operatorChoiceKey]operatorChoice{}
	}
	b.operatorChoices[key] = operatorChoice{op, err}
	return op, err
}

// operatorChoiceKey is an operator name (its parts joined by NUL) and
// operand types; operatorChoice what they resolve to.
type operatorChoiceKey struct {
	names       string
	left, right types.Type
}

type operatorChoice struct {
	op  *operatorDesc
	err error
}

// resolveOperator is operatorOf without the memo.
func (b *binder) resolveOperator(c *catalog, names []string, lt, rt types.Type) (*operatorDesc, error) {
	name := names[len(names)-1]
	prefix := lt.Oid == 0
	// OPERATOR(schema.op) of a schema other than pg_catalog: only that
	// schema's operators are candidates, and none fitting is an error.
	_, stored := storedOperatorPath(names)
	explicit := len(names) == 2 && !stored && names[0] != "pg_catalog"
	notFound := func() error {
		if explicit && c.schemas[b.s.schemaAlias(names[0])] == nil {
			return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", names[0])
		}
		if !explicit {
			return nil
		}
		e := pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s", operatorSignature(names[0]+"."+name, lt, rt))
		if prefix {
			return e.WithHint("No operator matches the given name and argument type. You might need to add an explicit type cast.")
		}
		return e.WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
	}
	if len(c.extensions) == 0 && len(c.operators) == 0 {
		return nil, notFound()
	}
	var mine []*operatorDesc
	for _, op := range allOperators(c) {
		if op.def.name == name && op.prefix() == prefix {
			mine = append(mine, op)
		}
	}
	if len(mine) == 0 {
		return nil, notFound()
	}
	// The candidates in search path order; ops[i] is nil for a built-in.
	var ops []*operatorDesc
	var sigs [][]types.Type
	seen := map[[2]types.Oid]bool{}
	add := func(op *operatorDesc, left, right types.Type) {
		key := [2]types.Oid{left.Oid, right.Oid}
		if seen[key] {
			return
		}
		seen[key] = true
		ops = append(ops, op)
		if prefix {
			sigs = append(sigs, []types.Type{right})
		} else {
			sigs = append(sigs, []types.Type{left, right})
		}
	}
	user := false
	for _, schema := range b.s.lookupSchemas(names) {
		if schema == "pg_catalog" {
			for _, o := range builtinIndex().opersByName[name] {
				if (o.left == 0) == prefix && o.right != 0 {
					add(nil, oidType(o.left), oidType(o.right))
				}
			}
			continue
		}
		for _, op := range mine {
			if op.schema == schema {
				add(op, op.def.left, op.def.right)
				user = true
			}
		}
	}
	if !user {
		return nil, notFound()
	}
	// binary_oper_exact.
	el, er := lt, rt
	if !prefix && el.Oid == types.OidUnknown {
		el = er
	} else if !prefix && er.Oid == types.OidUnknown {
		er = el
	}
	chosen := -1
	for i, sig := range sigs {
		if prefix && sig[0].Oid == rt.Oid && rt.Oid != types.OidUnknown || !prefix && sig[0].Oid == el.Oid && sig[1].Oid == er.Oid && el.Oid != types.OidUnknown {
			chosen = i
			break
		}
	}
	if chosen < 0 {
		inputs := []types.Type{lt, rt}
		if prefix {
			inputs = []types.Type{rt}
		}
		var ambiguous bool
		if chosen, ambiguous = types.SelectCandidate(inputs, sigs); chosen < 0 {
			if ambiguous {
				shown := name
				if explicit {
					shown = names[0] + "." + name
				}
				return nil, pgerror.Newf(pgerror.AmbiguousFunction, "operator is not unique: %s", operatorSignature(shown, lt, rt)).
					WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.")
			}
			return nil, notFound()
		}
	}
	op := ops[chosen]
	if op != nil && op.shell() {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "operator is only a shell: %s", op.signature())
	}
	return op, nil
}

// oidType is the type of a built-in operator's operand OID; a type fickle
// does not have keeps its OID, which no operand has.
func oidType(oid uint32) types.Type {
	if t, ok := types.TypeByOid(types.Oid(oid)); ok {
		return t
	}
	return types.Type{Oid: types.Oid(oid), Typmod: -1}
}

// operandType is the type an operand counts as in resolution: unknown
// for an untyped literal or parameter.
func operandType(e *scalar) types.Type {
	if unresolved(e) {
		return types.Unknown
	}
	return e.typ
}

// extensionBinary binds l op r to an extension's or user's operator; nil
// when a built-in operator applies.
func (b *binder) extensionBinary(names []string, l, r *scalar, loc int32) (*scalar, error) {
	op, err := b.operatorOf(names, operandType(l), operandType(r))
	if op == nil || err != nil {
		return nil, b.withPos(err, loc)
	}
	return b.operatorCall(op, []*scalar{l, r}, loc)
}

// userPrefix binds op arg to an extension's or user's prefix operator;
// nil when a built-in operator applies.
func (b *binder) userPrefix(names []string, arg *scalar, loc int32) (*scalar, error) {
	op, err := b.operatorOf(names, types.Type{}, operandType(arg))
	if op == nil || err != nil {
		return nil, b.withPos(err, loc)
	}
	return b.operatorCall(op, []*scalar{arg}, loc)
}

// operatorCall is a call of op's function with the operands coerced to
// its argument types, counted as functions_call.go counts a call (index
// expressions refuse it, generated columns a mutable one) and run with
// the function's strictness.
func (b *binder) operatorCall(op *operatorDesc, args []*scalar, loc int32) (*scalar, error) {
	declared := []types.Type{op.def.left, op.def.right}
	if op.prefix() {
		declared = declared[1:]
	}
	var refs uint64
	volatile := false
	for i, a := range args {
		if declared[i].IsPolymorphic() {
			return nil, b.errAt(pgerror.Unsupported("an operator over polymorphic types"), loc)
		}
		c, err := b.coerce(a, declared[i], types.CastImplicit)
		if err != nil {
			return nil, b.withPos(err, loc)
		}
		args[i] = c
		refs |= c.refs
		volatile = volatile || c.volatile
	}
	if b.extOpsUsed != nil {
		b.extOpsUsed[op.oid] = true
	}
	fn := op.fn
	if op.user {
		fn = b.catalogNow().funcByOID(op.code)
		if fn == nil {
			// A built-in function: called by its name, which the
			// operand types, now its own, resolve to it.
			p := builtinIndex().procs[op.code]
			if p == nil {
				return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "cache lookup failed for function %d", op.code), loc)
			}
			call := func() (*scalar, error) { return b.callResolved(p.name, args, loc) }
			if o := builtinOperatorOf(op.code); o != nil && len(args) == 2 {
				// The function of a built-in operator (int4mi), which
				// fickle runs as that operator, of the same types.
				call = func() (*scalar, error) { return b.builtinBinary(o.name, args[0], args[1], loc) }
			}
			e, err := call()
			if err != nil {
				return nil, err
			}
			named := *e
			named.name = "?column?"
			return &named, nil
		}
		if fn.retSet {
			return nil, b.errAt(pgerror.Unsupported("an operator whose function returns a set"), loc)
		}
		b.requireExecute(fn)
	}
	b.routineCalls++
	if fn.volatility != 'i' {
		b.volatileCalls++
		b.mutableCalls++
		if fn.lang != "sql" && fn.lang != "c" {
			b.mutableOpaqueCalls++
		}
	}
	evals := make([]func(*execCtx) (any, error), len(args))
	for i, a := range args {
		evals[i] = a.eval
	}
	return &scalar{typ: fn.result, slot: -1, refs: refs, volatile: volatile || fn.volatility != 'i', name: "?column?",
		eval: func(x *execCtx) (any, error) {
			vals := make([]any, len(evals))
			for i, ev := range evals {
				v, err := ev(x)
				if err != nil {
					return nil, err
				}
				vals[i] = v
			}
			var rows [][]any
			var err error
			if fn.lang == "c" {
				for _, v := range vals {
					if fn.strict && v == nil {
						return nil, nil
					}
				}
				rows, err = invokeExtension(x, fn, vals)
			} else {
				rows, err = x.s.invoke(x, fn, vals)
			}
			if err != nil || len(rows) == 0 {
				return nil, err
			}
			return fn.rowValue(rows[0]), nil
		}}, nil
}

// userOperatorChosen reports whether l op e resolves to an extension's or
// a user's operator for one of the elements e: IN then compares with it
// rather than by hashing.
func (b *binder) userOperatorChosen(op string, l *scalar, elems []*scalar) bool {
	for _, e := range elems {
		if o, _ := b.operatorOf([]string{op}, operandType(l), operandType(e)); o != nil {
			return true
		}
	}
	return false
}

// userRowComparison is make_row_comparison_op for rows whose column pairs
// op resolves to an extension's or a user's operator for: of one column,
// that operator; of more, 0A000, as no btree operator family has it.
// done is false when op resolves to built-in operators only.
func (b *binder) userRowComparison(op string, l, r *scalar, loc int32) (e *scalar, done bool, err error) {
	for i := range l.row {
		if !b.userOperatorChosen(op, l.row[i], []*scalar{r.row[i]}) {
			continue
		}
		if len(l.row) == 1 {
			e, err := b.binary(op, l.row[0], r.row[0], loc)
			return e, true, err
		}
		return nil, true, b.errAt(pgerror.Newf(pgerror.FeatureNotSupported, "could not determine interpretation of row comparison operator %s", op).
			WithHint("Row comparison operators must be associated with btree operator families."), loc)
	}
	return nil, false, nil
}

// userOperatorNamed reports whether an extension or a user has a binary
// operator of the name on the search path: the plans that compare by
// hashing the built-in operator's values (semi-joins) stand aside.
func (b *binder) userOperatorNamed(name string) bool {
	c := b.catalogNow()
	if len(c.extensions) == 0 && len(c.operators) == 0 {
		return false
	}
	path := b.s.searchPath()
	for _, op := range allOperators(c) {
		if op.def.name == name && !op.prefix() && slices.Contains(path, op.schema) {
			return true
		}
	}
	return false
}

// builtinOperatorOf is the built-in binary operator whose function
// (oprcode) is the built-in function of the OID, nil for none.
func builtinOperatorOf(proc uint32) *builtinOper {
	for _, o := range builtinIndex().opers {
		if o.code == proc && o.kind == 'b' {
			return o
		}
	}
	return nil
}
