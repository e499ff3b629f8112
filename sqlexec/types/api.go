package types

import (
	"io"
	"time"
)

// This file is the surface other packages code against. Datums follow the
// representation in doc.go; every function here takes and returns datums in
// exactly that representation.

// Oid is a PostgreSQL type OID, as pg_type.oid and the wire protocol use it.
type Oid uint32

// The OIDs of the types fickle knows, equal to PostgreSQL 15's.
const (
	OidBool        Oid = 16
	OidBytea       Oid = 17
	OidChar        Oid = 18 // "char", the one-byte internal type
	OidName        Oid = 19
	OidInt8        Oid = 20
	OidInt2        Oid = 21
	OidInt4        Oid = 23
	OidText        Oid = 25
	OidOid         Oid = 26
	OidJSON        Oid = 114
	OidFloat4      Oid = 700
	OidFloat8      Oid = 701
	OidUnknown     Oid = 705
	OidBpchar      Oid = 1042
	OidVarchar     Oid = 1043
	OidDate        Oid = 1082
	OidTime        Oid = 1083
	OidTimestamp   Oid = 1114
	OidTimestamptz Oid = 1184
	OidInterval    Oid = 1186
	OidNumeric     Oid = 1700
	OidRegclass    Oid = 2205
	OidUUID        Oid = 2950
	OidJSONB       Oid = 3802
	OidJSONPath    Oid = 4072
)

// Type is a SQL type: its OID plus the type modifier (atttypmod) that
// varchar(n), char(n) and numeric(p,s) carry. Typmod is -1 when absent.
// Type is a small comparable value; compare with == (which includes the
// typmod) or by Oid.
type Type struct {
	Oid    Oid
	Typmod int32
}

// The types without a modifier. Use Varchar, Bpchar and Numeric for the
// modified forms.
var (
	Bool        = Type{OidBool, -1}
	Bytea       = Type{OidBytea, -1}
	Char        = Type{OidChar, -1}
	Name        = Type{OidName, -1}
	Int8        = Type{OidInt8, -1}
	Int2        = Type{OidInt2, -1}
	Int4        = Type{OidInt4, -1}
	Text        = Type{OidText, -1}
	OidType     = Type{OidOid, -1}
	JSON        = Type{OidJSON, -1}
	Float4      = Type{OidFloat4, -1}
	Float8      = Type{OidFloat8, -1}
	Unknown     = Type{OidUnknown, -1}
	BpcharAny   = Type{OidBpchar, -1}
	VarcharAny  = Type{OidVarchar, -1}
	Date        = Type{OidDate, -1}
	Time        = Type{OidTime, -1}
	Timestamp   = Type{OidTimestamp, -1}
	Timestamptz = Type{OidTimestamptz, -1}
	Interval    = Type{OidInterval, -1}
	NumericAny  = Type{OidNumeric, -1}
	Regclass    = Type{OidRegclass, -1}
	UUID        = Type{OidUUID, -1}
	JSONB       = Type{OidJSONB, -1}
	JSONPath    = Type{OidJSONPath, -1}
)

// Varchar returns varchar(n). n must be in 1..10485760 (TypeByName checks).
func Varchar(n int) Type { return Type{OidVarchar, int32(n) + varHdrSz} }

// Bpchar returns character(n), blank-padded to n characters.
func Bpchar(n int) Type { return Type{OidBpchar, int32(n) + varHdrSz} }

// Numeric returns numeric(precision, scale).
func Numeric(precision, scale int) Type {
	return Type{OidNumeric, int32(precision<<16|scale&0xffff) + varHdrSz}
}

// Category is PostgreSQL's pg_type.typcategory: the class of types that
// implicit coercion and select_common_type reason about.
type Category byte

// The categories of the types fickle knows.
const (
	CategoryBool     Category = 'B'
	CategoryInternal Category = 'Z'
	CategoryDateTime Category = 'D'
	CategoryNumeric  Category = 'N'
	CategoryString   Category = 'S'
	CategoryTimespan Category = 'T'
	CategoryUser     Category = 'U'
	CategoryUnknown  Category = 'X'
)

// Env is the session and statement context that parsing and evaluation may
// need. Every source of time and randomness comes in here: nothing in this
// package reads the clock or a global random source. A nil *Env is valid and
// means UTC, the zero time and no randomness (functions that need it fail).
type Env struct {
	// Location is the session TimeZone: timestamptz output and the input of
	// timestamptz values without an explicit zone use it. nil means UTC.
	Location *time.Location
	// TxnTime is the transaction start: now(), current_timestamp,
	// current_date, localtimestamp, transaction_timestamp().
	TxnTime time.Time
	// StmtTime is the statement start: statement_timestamp().
	StmtTime time.Time
	// Clock returns the current time for clock_timestamp() and timeofday();
	// nil means StmtTime.
	Clock func() time.Time
	// Rand supplies randomness for gen_random_uuid() and random(); nil makes
	// them fail with 0A000.
	Rand io.Reader
	// Catalog resolves the input and output of the object identifier
	// types (regclass, regtype, regproc, ...) against the catalog; nil
	// means only numeric OIDs are understood.
	Catalog CatalogResolver
	// DateStyle is how dates and times print and the order in which
	// ambiguous input dates read; the zero value is ISO, MDY.
	DateStyle DateStyle
	// FloatDigits, when positive, is the number of significant digits
	// float8 values print with (15 plus a non-positive
	// extra_float_digits; float4 prints 9 fewer). Zero prints the
	// shortest exact form, as extra_float_digits above 0 does.
	FloatDigits int
	// IntervalStyle is how intervals print (interval_out, casts to text).
	IntervalStyle IntervalStyle
	// ByteaEscape prints bytea in the escape format (bytea_output =
	// escape) instead of hex.
	ByteaEscape bool
	// Interrupter, when set, reports the statement's cancellation:
	// functions whose work grows with their inputs ask it as they go
	// (Interrupt).
	Interrupter Interrupter
	// TextSearch is the session's default text search configuration, which
	// the text @@ operators parse text with; nil makes them fail with 0A000.
	TextSearch TextSearcher
	// XMLOptionDocument is xmloption = document: xml input must be a
	// document rather than content.
	XMLOptionDocument bool
	// XMLBinaryHex is xmlbinary = hex: XMLELEMENT writes bytea in hex
	// rather than base64.
	XMLBinaryHex bool
}

// TextSearcher turns text into what full-text search compares, with the
// session's default_text_search_config (sqlexec implements it over package
// internal/tsearch).
type TextSearcher interface {
	// Document is to_tsvector(text).
	Document(text string) (TSVector, error)
	// PlainQuery is plainto_tsquery(text).
	PlainQuery(text string) (TSQuery, error)
}

// Interrupter reports a statement's cancellation (57014 after
// statement_timeout or a cancel request), nil while it may go on. It is an
// interface so that the executor sets its statement context as one, where
// a method value would allocate a closure a statement.
type Interrupter interface{ Interrupted() error }

// Interrupt returns the statement's cancellation, nil while it may go on
// (and always outside a statement).
func (e *Env) Interrupt() error {
	if e == nil || e.Interrupter == nil {
		return nil
	}
	return e.Interrupter.Interrupted()
}

// interruptEvery is how many elements or bytes a function handles between
// two calls of Env.Interrupt.
const interruptEvery = 1 << 16

// DateStyle is the DateStyle setting.
type DateStyle struct {
	// Style is ISO (the zero value), SQL, Postgres or German.
	Style DateOutput
	// Order is MDY (the zero value), DMY or YMD.
	Order DateOrder
}

// DateOutput is DateStyle's output format.
type DateOutput byte

// The output formats.
const (
	DateISO DateOutput = iota
	DateSQL
	DatePostgres
	DateGerman
)

// DateOrder is DateStyle's order of day, month and year.
type DateOrder byte

// The field orders.
const (
	OrderMDY DateOrder = iota
	OrderDMY
	OrderYMD
)

// CatalogResolver is the catalog as the object identifier types see it.
// The executor implements it; this package never reads the catalog itself.
type CatalogResolver interface {
	// RegIn returns the OID of the object a name denotes for the object
	// identifier type t (regclassin, regtypein, ...), or the error
	// PostgreSQL gives (42P01 for an unknown relation, 42704 for an unknown
	// type, 42883 for an unknown function, ...).
	RegIn(t Oid, name string) (int64, error)
	// RegOut returns the name the output function of t prints for an OID
	// (qualified when the search path would not find it), or false when no
	// object has it: the number is printed then.
	RegOut(t Oid, oid int64) (string, bool)
}

// CastContext is the context a coercion happens in, as in pg_cast.castcontext.
type CastContext int

// Coercion contexts, weakest first: a cast allowed implicitly is allowed in
// assignment, and one allowed in assignment is allowed explicitly.
const (
	// CastImplicit is a coercion PostgreSQL inserts on its own, in
	// expressions (int4 to int8 in int4 + int8).
	CastImplicit CastContext = iota
	// CastAssignment is the coercion of INSERT and UPDATE values to the
	// column type: a too-long varchar fails with 22001.
	CastAssignment
	// CastExplicit is CAST(x AS t) and x::t: a too-long varchar is
	// truncated silently.
	CastExplicit
)

// CastFunc converts a non-NULL datum of a cast's source type to its target
// type. Lookups return it once so that evaluation does not repeat the lookup.
// A CastFunc evaluates in UTC: casts that depend on the session TimeZone
// (timestamptz to date, timestamp or text, and back) need EnvCastFunc.
type CastFunc func(v any) (any, error)

// EnvCastFunc is a CastFunc that evaluates in the session env (its
// Location); a nil env means UTC.
type EnvCastFunc func(env *Env, v any) (any, error)

// BinaryOp is a resolved binary operator: the operator PostgreSQL's
// operator resolution picks for the operand types given to ResolveBinaryOp.
type BinaryOp struct {
	// Name is the operator name ("+", "=", "~~", ...).
	Name string
	// Left and Right are the operator's declared argument types, to which the
	// operands are coerced (int4 + numeric resolves to numeric + numeric).
	Left, Right Type
	// Result is the result type.
	Result Type
	// Eval evaluates the operator on datums of the operand types that were
	// passed to ResolveBinaryOp (it applies the coercions itself, including
	// the parse of "unknown" literals). It handles NULL operands: strict
	// operators return nil for a nil operand. Eval evaluates in UTC; use
	// EvalEnv for operators that depend on the session TimeZone.
	Eval func(l, r any) (any, error)
	// EvalEnv is Eval in the session env: timestamptz ± interval adds days
	// and months in env.Location, and date or timestamp compared with
	// timestamptz are read in env.Location. A nil env means UTC.
	EvalEnv func(env *Env, l, r any) (any, error)
}

// UnaryOp is a resolved prefix operator (unary minus, unary plus, |/ ...).
type UnaryOp struct {
	// Name is the operator name.
	Name string
	// Arg is the declared argument type, Result the result type.
	Arg, Result Type
	// Eval evaluates the operator on a datum of the operand type given to
	// ResolveUnaryOp; it returns nil for a nil operand.
	Eval func(v any) (any, error)
	// EvalEnv is Eval in the session env (nil means UTC).
	EvalEnv func(env *Env, v any) (any, error)
}

// Volatility is pg_proc.provolatile: whether a function's result may be
// computed once per statement or must be computed per row.
type Volatility byte

// Volatility classes.
const (
	// Immutable functions depend only on their arguments.
	Immutable Volatility = 'i'
	// Stable functions are constant within a statement (now(),
	// timestamptz output that depends on the session TimeZone).
	Stable Volatility = 's'
	// Volatile functions may change result on every call
	// (gen_random_uuid(), clock_timestamp()).
	Volatile Volatility = 'v'
)

// Func is a resolved call of a scalar function.
type Func struct {
	// Name is the function name, lower case, without schema.
	Name string
	// Args are the declared argument types the call's arguments are coerced
	// to, one per argument of the call (variadic arguments expanded).
	Args []Type
	// Result is the result type.
	Result Type
	// Volatility says whether the planner may fold or cache the call.
	Volatility Volatility
	// Eval computes the result from datums of the argument types given to
	// ResolveFunc (coercions applied inside) and env. It handles NULL
	// arguments itself: strict functions return nil for any nil argument,
	// others (concat, concat_ws, greatest, least, nullif) follow PostgreSQL.
	Eval func(env *Env, args []any) (any, error)
}

// Aggregate is a resolved aggregate function call.
type Aggregate struct {
	// Name is the aggregate name, lower case.
	Name string
	// Args are the declared argument types (empty for count(*)).
	Args []Type
	// Result is the result type (sum(int4) is int8, avg(int8) numeric, ...).
	Result Type
	// New returns a fresh accumulator for one group, for a statement run
	// with the settings of env (json_agg prints timestamps in its time
	// zone).
	New func(env *Env) Accumulator
}

// Accumulator folds the rows of one group into an aggregate's result.
type Accumulator interface {
	// Add adds one row's arguments (datums of the types given to
	// ResolveAggregate, possibly nil: the accumulator skips NULLs as
	// PostgreSQL's strict transition functions do).
	Add(args []any) error
	// Result returns the aggregate's value for the rows added so far:
	// nil for sum/min/max/avg/bool_and/string_agg over no non-NULL rows,
	// 0 for count.
	Result() (any, error)
}

// TypeByName returns the type PostgreSQL's parser names, as pg_query gives
// it in TypeName.Names ("pg_catalog", "int4"), ("varchar"), ("timestamptz"),
// ("char") for the one-byte type, or a plain SQL name ("integer",
// "double precision", "character varying"). mods are the typmod arguments
// (varchar(10) -> [10], numeric(10,2) -> [10 2]). An unknown name fails with
// 42704 "type \"x\" does not exist"; bad modifiers with 22023.
func TypeByName(names []string, mods []int32) (Type, error) { return typeByName(names, mods) }

// TypeByOid returns the type with the given OID and no modifier.
func TypeByOid(oid Oid) (Type, bool) { return typeByOid(oid) }

// FormatType returns the type's name as PostgreSQL's format_type(oid,
// typmod) prints it: "integer", "character varying(10)", "numeric(10,2)",
// "timestamp with time zone", "\"char\"".
func FormatType(t Type) string { return formatType(t) }

// FormatTypeBe returns the type's name as PostgreSQL's format_type_be
// prints it in messages: without the typmod ("character varying", "bit"),
// bpchar as "character".
func FormatTypeBe(t Type) string { return formatTypeBe(t) }

// ParseText parses the text form of a value of type t, as the type's input
// function does with DateStyle ISO, MDY and TimeZone UTC. A typmod on t is
// applied as in assignment (varchar(n) too long fails with 22001, numeric(p,s)
// rounds and may fail with 22003). Errors: 22P02 invalid input syntax, 22003
// out of range, 22007/22008 for dates and times, 22001 too long.
func ParseText(t Type, s string) (any, error) { return parseText(nil, t, s) }

// ParseTextEnv is ParseText in a session: timestamptz values without a zone
// are read in env.Location, and 'now', 'today', 'tomorrow', 'yesterday'
// use env.TxnTime.
func ParseTextEnv(env *Env, t Type, s string) (any, error) { return parseText(env, t, s) }

// FormatText returns PostgreSQL's text output of the non-NULL datum v of type
// t: shortest round-trip floats, numeric with its scale, bytea as \x hex,
// ISO dates and timestamps (timestamptz in loc, nil meaning UTC, with +00 style
// offsets), postgres-style intervals, t/f booleans, normalized jsonb.
func FormatText(t Type, v any, loc *time.Location) string {
	return formatText(&Env{Location: loc}, t, v)
}

// IntervalStyle is the IntervalStyle setting.
type IntervalStyle uint8

// The IntervalStyle values.
const (
	IntervalPostgres IntervalStyle = iota
	IntervalISO8601
	IntervalPostgresVerbose
	IntervalSQLStandard
)

// FormatTextEnv is FormatText in a session: timestamptz in env.Location,
// the object identifier types (regclass, regtype, ...) as the names
// env.Catalog gives their OIDs.
func FormatTextEnv(env *Env, t Type, v any) string { return formatText(env, t, v) }

// Cast converts the non-NULL datum v of type from to type to with the
// semantics of an explicit cast (CAST(v AS to)): a typmod on to is applied
// (varchar(n) truncates, numeric(p,s) rounds, 22003 on overflow). Casting
// from Unknown parses the text. It fails with 42846 when PostgreSQL has no
// such cast, and with the cast's own errors (22P02, 22003, ...).
func Cast(v any, from, to Type) (any, error) {
	f, err := lookupCast(from, to, CastExplicit)
	if err != nil {
		return nil, err
	}
	return f(nil, v)
}

// CastEnv is Cast in the session env (its TimeZone).
func CastEnv(env *Env, v any, from, to Type) (any, error) {
	f, err := lookupCast(from, to, CastExplicit)
	if err != nil {
		return nil, err
	}
	return f(env, v)
}

// Coerce is Cast in the given context: in CastAssignment a too-long
// varchar(n) or char(n) fails with 22001 instead of being truncated, and a
// cast not allowed in the context fails with 42846 (explicit) or 42804
// (assignment: "column is of type x but expression is of type y").
func Coerce(v any, from, to Type, ctx CastContext) (any, error) {
	f, err := lookupCast(from, to, ctx)
	if err != nil {
		return nil, err
	}
	return f(nil, v)
}

// LookupCast returns the conversion from type from to type to allowed in ctx,
// including the typmod coercion of to. The returned function takes non-NULL
// datums only; callers map nil to nil. It evaluates in UTC; LookupCastEnv
// gives the session-aware form.
func LookupCast(from, to Type, ctx CastContext) (CastFunc, error) {
	f, err := lookupCast(from, to, ctx)
	if err != nil {
		return nil, err
	}
	return func(v any) (any, error) { return f(nil, v) }, nil
}

// LookupCastEnv is LookupCast returning a function of the session env, for
// casts whose result depends on the TimeZone (timestamptz to and from date,
// timestamp and text).
func LookupCastEnv(from, to Type, ctx CastContext) (EnvCastFunc, error) {
	return lookupCast(from, to, ctx)
}

// CanCoerce reports whether PostgreSQL would coerce a value of type from to
// type to in ctx (can_coerce_type); Unknown coerces to every type.
func CanCoerce(from, to Type, ctx CastContext) bool { return canCoerce(from, to, ctx) }

// CanImplicitCast reports whether from coerces implicitly to to.
func CanImplicitCast(from, to Type) bool { return canCoerce(from, to, CastImplicit) }

// CommonType returns the type PostgreSQL's select_common_type picks for the
// branches of a CASE, COALESCE, UNION, IN list, VALUES column, GREATEST or
// LEAST: all-Unknown resolves to text; otherwise the first non-unknown type's
// category is kept and the preferred type, or the type every other one
// coerces to implicitly, wins. context names the construct for the error
// message ("CASE", "UNION", "COALESCE", "VALUES", "IN"): 42804 "CASE types
// integer and boolean cannot be matched".
func CommonType(context string, ts ...Type) (Type, error) { return commonType(context, ts) }

// Category returns the type's category.
func (t Type) Category() Category { return typeInfoOf(t.Oid).category }

// Preferred reports whether the type is the preferred type of its category
// (text, float8, timestamptz, interval, bool).
func (t Type) Preferred() bool { return typeInfoOf(t.Oid).preferred }

// Size returns pg_type.typlen: the fixed size in bytes, -1 for varlena types,
// -2 for C strings (unknown).
func (t Type) Size() int { return typeInfoOf(t.Oid).size }

// String returns FormatType(t).
func (t Type) String() string { return formatType(t) }

// Name returns the type's internal name as in pg_type.typname ("int4",
// "varchar", "timestamptz").
func (t Type) Name() string { return typeInfoOf(t.Oid).name }

// Length returns n of varchar(n) or char(n), or -1.
func (t Type) Length() int {
	if (t.Oid == OidVarchar || t.Oid == OidBpchar) && t.Typmod >= varHdrSz {
		return int(t.Typmod - varHdrSz)
	}
	return -1
}

// PrecisionScale returns p and s of numeric(p,s); ok is false without a
// typmod.
func (t Type) PrecisionScale() (precision, scale int, ok bool) {
	if t.Oid != OidNumeric || t.Typmod < varHdrSz {
		return 0, 0, false
	}
	m := t.Typmod - varHdrSz
	return int(m >> 16 & 0xffff), int(int16(m & 0xffff)), true
}

// ResolveBinaryOp resolves the binary operator op (as pg_query names it:
// "+", "-", "*", "/", "%", "^", "=", "<>", "<", "<=", ">", ">=", "||", "~~"
// LIKE, "~~*" ILIKE, "!~~", "!~~*", "->", "->>") for operands of types l and
// r with PostgreSQL's operator resolution (exact match, then unknown literals
// taking the other side's type, then implicit coercions and preferred types).
// No match fails with 42883 "operator does not exist: integer + boolean".
func ResolveBinaryOp(op string, l, r Type) (*BinaryOp, error) { return resolveBinaryOp(op, l, r) }

// ResolveUnaryOp resolves the prefix operator op ("-", "+", "@", "|/",
// "||/") for an operand of type t; 42883 when none matches.
func ResolveUnaryOp(op string, t Type) (*UnaryOp, error) { return resolveUnaryOp(op, t) }

// UnaryOperandTypes returns the operand types of the prefix operators
// named op.
func UnaryOperandTypes(op string) []Type {
	var out []Type
	for _, o := range unaryOperators[op] {
		out = append(out, o.args[0])
	}
	return out
}

// ResolveFunc resolves a call of the scalar function name (lower case, an
// optional "pg_catalog." prefix is ignored) with arguments of types args,
// with PostgreSQL's overload resolution. Unknown names or argument types fail
// with 42883 "function foo(integer) does not exist". SQL-standard forms map to
// these names: CURRENT_TIMESTAMP is "current_timestamp", CURRENT_DATE
// "current_date", LOCALTIMESTAMP "localtimestamp", EXTRACT(f FROM x) is
// "extract"(text, x), SUBSTRING(x FROM a FOR b) "substring", TRIM(BOTH ...)
// "btrim", POSITION(a IN b) "position"(b, a), x LIKE p ESCAPE e uses
// "like_escape"(p, e) as the right operand of "~~".
func ResolveFunc(name string, args []Type) (*Func, error) { return resolveFunc(name, args) }

// IsAggregate reports whether name (lower case) is an aggregate function.
func IsAggregate(name string) bool { return isAggregate(name) }

// AggregateIsPolymorphic reports whether the aggregate name takes a
// polymorphic argument (array_agg, json_agg, jsonb_agg), for which an
// untyped literal has no type to take: it stays unknown, and resolving
// the aggregate fails as in PostgreSQL.
func AggregateIsPolymorphic(name string) bool {
	switch normalizeFuncName(name) {
	case "array_agg", "json_agg", "jsonb_agg":
		return true
	}
	return false
}

// AggregateOverloaded reports whether the aggregate name is resolved among
// overloads of declared argument types (sum, string_agg, bool_and, ...),
// which type an untyped literal argument; false for count, min, max and
// the polymorphic ones, which take any type.
func AggregateOverloaded(name string) bool {
	name = normalizeFuncName(name)
	switch name {
	case "count", "min", "max":
		return false
	}
	return !AggregateIsPolymorphic(name) && !isJSONAggregate(name)
}

// ResolveAggregate resolves the aggregate name over arguments of types args;
// star is true for count(*) (args is then empty). Unknown aggregates fail
// with 42883.
func ResolveAggregate(name string, args []Type, star bool) (*Aggregate, error) {
	return resolveAggregate(name, args, star)
}

// And returns the three-valued conjunction of a and b (bool or nil).
func And(a, b any) any { return and3(a, b) }

// Or returns the three-valued disjunction of a and b (bool or nil).
func Or(a, b any) any { return or3(a, b) }

// Not returns the three-valued negation of a (bool or nil).
func Not(a any) any {
	if a == nil {
		return nil
	}
	return !a.(bool)
}

// DistinctFrom evaluates l IS DISTINCT FROM r with eq, the resolved "="
// operator for the operand types: NULLs are equal to each other and distinct
// from everything else.
func DistinctFrom(eq *BinaryOp, l, r any) (bool, error) {
	if l == nil || r == nil {
		return (l == nil) != (r == nil), nil
	}
	v, err := eq.Eval(l, r)
	if err != nil || v == nil {
		return false, err
	}
	return !v.(bool), nil
}

// Compare returns -1, 0 or 1 ordering the non-NULL datums a and b of type t
// as ORDER BY, DISTINCT and GROUP BY do: numbers by value (NaN after
// everything, -0 equal to 0), text by code point (the "C" collation), intervals
// by their 30-day-month span, jsonb in PostgreSQL's jsonb order.
func Compare(t Type, a, b any) int { return compare(t, a, b) }

// AppendKey appends an order-preserving ("memcomparable") encoding of the
// datum v of type t to buf: bytes.Compare of two encodings orders them as
// Compare does, equal values encode identically (1.0 and 1.00, 0 and -0),
// and concatenated encodings of several columns compare column by column.
// nil (NULL) encodes after every value, as ORDER BY ... ASC puts NULLs last.
func AppendKey(buf []byte, t Type, v any) []byte { return appendKey(buf, t, v) }

// DecodeKey decodes one datum of type t from the front of an AppendKey
// encoding and returns it with the remaining bytes. Values that compare
// equal but print differently decode to one canonical form: numeric loses
// trailing zeros, an interval comes back as months, days below 30 and
// microseconds below a day, char(n) keeps its padding, a citext comes back
// lower-cased (its key is the value citext compares).
func DecodeKey(t Type, buf []byte) (v any, rest []byte, err error) { return decodeKey(t, buf) }

// InfinityTime and NegInfinityTime are the datums of the date, timestamp and
// timestamptz values 'infinity' and '-infinity': one day after the largest
// and one day before the smallest value PostgreSQL accepts, so that they
// order correctly with time.Time.Compare.
var (
	InfinityTime    = time.Date(294277, 1, 1, 0, 0, 0, 0, time.UTC)
	NegInfinityTime = time.Date(-4713, 11, 23, 0, 0, 0, 0, time.UTC)
)
