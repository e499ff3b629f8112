package types

import (
	"sync"
)

// User-defined range types (CREATE TYPE name AS RANGE). As with enums and
// composite types, the catalog gives a range type, its multirange type and
// their arrays their OIDs and registers them here, so that input, output,
// comparison, keys, casts and the range functions find them from the Type
// alone. Their functions and operators are the built-in ranges' own
// (addRangeFuncs, addMultirangeFuncs), registered into a table of the type
// that resolution consults beside the built-in one.

// userRange is a registered range type with its multirange type.
type userRange struct {
	name, multiName               string
	oid, array, multi, multiArray Oid
	sub                           Type
	once                          sync.Once
	funcs                         *funcTable
}

var (
	userRanges      sync.Map // range, multirange and array OIDs -> *userRange
	userRangeByName sync.Map // range and multirange type names -> *userRange
)

// RegisterRange records that oid is the range type name over subtype sub,
// array the OID of its array type, and multi (named multiName, array
// multiArray) its multirange type.
func RegisterRange(oid, array Oid, name string, sub Type, multi, multiArray Oid, multiName string) {
	r := &userRange{name: name, multiName: multiName, oid: oid, array: array, multi: multi, multiArray: multiArray, sub: Type{sub.Oid, -1}}
	for _, o := range []Oid{oid, array, multi, multiArray} {
		userRanges.Store(o, r)
	}
	userRangeByName.Store(name, r)
	userRangeByName.Store(multiName, r)
}

func userRangeOf(oid Oid) (*userRange, bool) {
	if oid < firstUserOid {
		return nil, false
	}
	v, ok := userRanges.Load(oid)
	if !ok {
		return nil, false
	}
	return v.(*userRange), true
}

// firstUserOid is where the catalog's OIDs for user types start.
const firstUserOid Oid = 1 << 30

// table returns the functions, operators and aggregates of the range
// type and its multirange type, built the first time they are needed.
func (r *userRange) table() *funcTable {
	r.once.Do(func() {
		ft := newFuncTable()
		rt, mt := Type{r.oid, -1}, Type{r.multi, -1}
		addRangeFuncsTo(ft, rt, r.sub)
		addMultirangeFuncsTo(ft, mt, rt, r.sub)
		r.funcs = ft
	})
	return r.funcs
}

// userRangeTypeInfo is the pg_type row of a user range type, multirange
// type or one of their arrays.
func userRangeTypeInfo(oid Oid) (typeInfo, bool) {
	r, ok := userRangeOf(oid)
	if !ok {
		return typeInfo{}, false
	}
	switch oid {
	case r.oid:
		return typeInfo{name: r.name, sqlName: QuoteIdent(r.name), size: -1, category: CategoryRange}, true
	case r.multi:
		return typeInfo{name: r.multiName, sqlName: QuoteIdent(r.multiName), size: -1, category: CategoryRange}, true
	case r.array:
		return typeInfo{name: "_" + r.name, sqlName: QuoteIdent(r.name) + "[]", size: -1, category: CategoryArray}, true
	}
	return typeInfo{name: "_" + r.multiName, sqlName: QuoteIdent(r.multiName) + "[]", size: -1, category: CategoryArray}, true
}

// userRangeElem is the element of an array of a user range or multirange
// type.
func userRangeElem(oid Oid) (Oid, bool) {
	r, ok := userRangeOf(oid)
	switch {
	case !ok:
		return 0, false
	case oid == r.array:
		return r.oid, true
	case oid == r.multiArray:
		return r.multi, true
	}
	return 0, false
}

// userRangeArray is the array type over a user range or multirange type.
func userRangeArray(oid Oid) (Oid, bool) {
	r, ok := userRangeOf(oid)
	switch {
	case !ok:
		return 0, false
	case oid == r.oid:
		return r.array, true
	case oid == r.multi:
		return r.multiArray, true
	}
	return 0, false
}

// userRangeTables are the function tables of the user range types among
// ts (as range, multirange or array types) and of the one named name.
func userRangeTables(name string, ts []Type) []*funcTable {
	var out []*funcTable
	seen := map[*userRange]bool{}
	add := func(r *userRange) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r.table())
		}
	}
	for _, t := range ts {
		if r, ok := userRangeOf(t.Oid); ok {
			add(r)
		}
	}
	if v, ok := userRangeByName.Load(name); ok {
		add(v.(*userRange))
	}
	return append(append(out, citextTables(ts)...), hstoreTables(ts)...)
}

// funcTable is a registry of functions, operators, aggregates and casts:
// the built-in one (global), or one user range type's.
type funcTable struct {
	functions       map[string][]funcDef
	builders        map[string]funcBuilder
	binaryOperators map[string][]binaryOperator
	aggregates      map[string][]aggDef
	casts           map[castKey]castEntry
}

func newFuncTable() *funcTable {
	return &funcTable{functions: map[string][]funcDef{}, builders: map[string]funcBuilder{},
		binaryOperators: map[string][]binaryOperator{}, aggregates: map[string][]aggDef{}, casts: map[castKey]castEntry{}}
}

// global is the built-in registry.
var global = &funcTable{functions: functions, builders: builders, binaryOperators: binaryOperators, aggregates: aggregates, casts: casts}

func (ft *funcTable) addFunc(name string, vol Volatility, result Type, eval funcEval, args ...Type) {
	ft.functions[name] = append(ft.functions[name], funcDef{
		candidate: candidate{args: args, result: result}, vol: vol, strict: true, eval: eval,
	})
}

func (ft *funcTable) addFuncPolymorphic(name string, vol Volatility, result Type, eval funcEval, args ...Type) {
	ft.functions[name] = append(ft.functions[name], funcDef{
		candidate: candidate{args: args, result: result, polymorphic: true}, vol: vol, strict: true, eval: eval,
	})
}

func (ft *funcTable) addFuncNullable(name string, vol Volatility, result Type, eval funcEval, args ...Type) {
	ft.functions[name] = append(ft.functions[name], funcDef{
		candidate: candidate{args: args, result: result}, vol: vol, eval: eval,
	})
}

func (ft *funcTable) addBinary(op string, l, r, result Type, eval opFunc) {
	ft.binaryOperators[op] = append(ft.binaryOperators[op], binaryOperator{
		candidate: candidate{args: []Type{l, r}, result: result}, eval: eval,
	})
}

func (ft *funcTable) addBinaryPolymorphic(op string, l, r, result Type, eval opFunc) {
	ft.binaryOperators[op] = append(ft.binaryOperators[op], binaryOperator{
		candidate: candidate{args: []Type{l, r}, result: result, polymorphic: true}, eval: eval,
	})
}

func (ft *funcTable) addComparisons(l, r Type, cmp func(env *Env, a, b any) int) {
	for op, test := range comparisonOps {
		ft.addBinary(op, l, r, Bool, func(env *Env, a, b any) (any, error) { return test(cmp(env, a, b)), nil })
	}
}

func (ft *funcTable) addAgg(name string, result Type, newAcc func() Accumulator, args ...Type) {
	ft.aggregates[name] = append(ft.aggregates[name], aggDef{candidate{args: args, result: result}, newAcc})
}

func (ft *funcTable) addCast(from, to Oid, ctx CastContext, fn EnvCastFunc) {
	ft.casts[castKey{from, to}] = castEntry{ctx, fn}
}

// withUserFuncs returns the overloads of name in the global registry
// followed by those of the user range types among ts or named name.
func withUserFuncs(name string, ts []Type) []funcDef {
	defs := functions[name]
	for _, ft := range userRangeTables(name, ts) {
		if more := ft.functions[name]; len(more) > 0 {
			defs = append(append([]funcDef(nil), defs...), more...)
		}
	}
	return defs
}

// isUserRangeType reports whether oid is a user range or multirange type
// (not an array of one).
func isUserRangeType(oid Oid) bool {
	r, ok := userRangeOf(oid)
	return ok && (oid == r.oid || oid == r.multi)
}

// userCast is the cast between a user range type and its multirange
// type, or nil.
func userCast(from, to Oid) (castEntry, bool) {
	if e, ok := citextCast(from, to); ok {
		return e, true
	}
	if e, ok := hstoreCast(from, to); ok {
		return e, true
	}
	r, ok := userRangeOf(from)
	if !ok {
		return castEntry{}, false
	}
	e, ok := r.table().casts[castKey{from, to}]
	return e, ok
}

// UnregisterRangeNames forgets the names of range type oid and its
// multirange type, whose constructors then no longer resolve: the type
// was dropped, or its creation undone.
func UnregisterRangeNames(oid Oid) {
	r, ok := userRangeOf(oid)
	if !ok {
		return
	}
	for _, name := range []string{r.name, r.multiName} {
		userRangeByName.CompareAndDelete(name, r)
	}
}

// RangeConstructorType returns the range type whose constructors (its own
// or its multirange type's) are named name; ok is false when none is.
func RangeConstructorType(name string) (Oid, bool) {
	v, ok := userRangeByName.Load(name)
	if !ok {
		return 0, false
	}
	return v.(*userRange).oid, true
}
