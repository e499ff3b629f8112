// Package types owns the values of SQL: PostgreSQL 15's types, their text
// input and output, casts and coercion rules, operators, scalar functions,
// aggregates, the total order used by ORDER BY, and the order-preserving key
// encoding of primary and index keys.
//
// It never touches the store, the catalog or the wire, never reads the clock
// and never draws randomness on its own: time and randomness arrive through
// Env. Binary wire formats belong to package wire; this package is text only.
//
// # Datums
//
// A datum is a Go any; its type always travels beside it as a Type (an OID
// plus typmod). The representation is shared with wire and server:
//
//   - NULL: nil, for every type
//   - bool: bool
//   - smallint, integer, bigint: int64 (range-checked where produced)
//   - real, double precision: float64 (real values rounded to float32)
//   - numeric: *apd.Decimal, never mutated after creation; NaN and ±Infinity
//   - text, varchar(n), char(n), name, "char": string (char(n) blank-padded)
//   - bytea: []byte
//   - date: time.Time at 00:00 UTC of the day
//   - time: int64 microseconds since midnight, 0 to 24:00:00 inclusive
//   - time with time zone: TimeTZ, the time as time's and the zone's
//     offset in seconds west of UTC
//   - money: int64 cents
//   - timestamp: time.Time in UTC holding the wall-clock value
//   - timestamptz: time.Time in UTC (the instant)
//   - interval: pgtype.Interval with Valid set
//   - uuid: [16]byte
//   - json: string as given; jsonb: string, normalized as PostgreSQL prints it
//   - oid, regclass: int64
//   - unknown (untyped literals): string
//   - arrays (int4[], text[], ... over every type above): []any of element
//     datums, nil for a NULL element; one dimension, lower bound 1
//   - record and composite types (CREATE TYPE ... AS): []any of the field
//     datums, nil for a NULL field; Type.Fields gives the shape
//   - bit(n), bit varying(n): BitString, the bits packed from the high bit
//     of the first byte, the bits past the length zero
//   - tsvector: TSVector, its lexemes sorted and unique with their
//     positions; tsquery: TSQuery, an immutable operator tree (ParseTSQuery
//     is the one parser behind tsquery input and to_tsquery's kin)
//
// Dates and timestamps are limited to what time.Time holds exactly; infinity
// and -infinity are represented by the sentinels InfinityTime and
// NegInfinityTime.
//
// # Resolution, then evaluation
//
// The planner resolves once per expression (ResolveBinaryOp, ResolveFunc,
// LookupCast, CommonType) and evaluates the returned closures per row. The
// closures take datums of the operand types the planner resolved with, apply
// PostgreSQL's implicit coercions themselves, and handle NULL.
//
// Resolution follows the parser's rules, not a simplification: operators and
// functions are picked by func_select_candidate (exact matches, then implicit
// coercions, preferred types and the categories of unknown literals), casts
// by the pg_cast contexts plus automatic I/O conversion, CASE/COALESCE/UNION
// types by select_common_type. Untyped literals should reach resolution as
// Unknown, not pre-typed: 'a' || 1 resolves to text || anynonarray only then.
//
// Whatever depends on the session TimeZone (timestamptz ± interval, date and
// timestamp compared with timestamptz, casts to and from timestamptz,
// date_trunc and extract on timestamptz, to_char) reads Env.Location; the
// EvalEnv, LookupCastEnv and CastEnv forms take the Env, the others use UTC.
//
// # Deviations from PostgreSQL
//
// Text comparison is by code point, as in the "C" collation. DateStyle
// (Env.DateStyle: ISO, SQL, Postgres or German output, MDY, DMY or YMD
// input order) and extra_float_digits (Env.FloatDigits) follow the
// session; IntervalStyle is postgres, the only style supported. Dates, like
// timestamps, span 4713 BC to 294276 AD (PostgreSQL's dates go further).
// Interval fields restrictions (INTERVAL DAY TO SECOND) and to_char's EEEE,
// V, L, RN and TH patterns answer 0A000.
// Arrays have up to six dimensions and any lower bounds, as in PostgreSQL.
// Floating-point functions use Go's math
// package, whose cbrt, exp, ln and trigonometric results may differ from
// glibc's in the last digit. Regular expressions use Go's RE2 syntax, the
// common subset of PostgreSQL's; back-references are rejected.
//
// # Testing
//
// Expected values come from PostgreSQL 15, not from this code: each
// testdata/*.cases file lists inputs, and testdata/gen.sh runs them through a
// real server into the matching .golden file (start one with initdb and
// pg_ctl, then PGHOST=... PGPORT=... testdata/gen.sh). The tests read only
// the golden files. Key encoding is checked against Compare by a seeded
// property test; the input functions have fuzz targets (go test -fuzz
// FuzzParseNumbers, FuzzParseStrings, FuzzParseDateTime, FuzzParseJSON,
// FuzzParseArrays, FuzzParseTSVector, FuzzParseTSQuery, FuzzParseBitStrings,
// FuzzParseMoney, FuzzParseTimetz) that
// require every accepted input to survive a trip through its text output.
package types
