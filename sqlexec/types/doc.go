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
//   - timestamp: time.Time in UTC holding the wall-clock value
//   - timestamptz: time.Time in UTC (the instant)
//   - interval: pgtype.Interval with Valid set
//   - uuid: [16]byte
//   - json: string as given; jsonb: string, normalized as PostgreSQL prints it
//   - oid, regclass: int64
//   - unknown (untyped literals): string
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
// # Deviations from PostgreSQL
//
// Text comparison is by code point, as in the "C" collation. DateStyle is ISO,
// MDY and IntervalStyle postgres, the only styles supported. Dates and
// timestamps span the years 4713 BC to 294276 AD as in PostgreSQL, but BC
// input is accepted only for dates. Floating-point functions use Go's math
// package, whose cbrt, exp, ln and trigonometric results may differ from
// glibc's in the last digit. Regular expressions use Go's RE2 syntax, the
// common subset of PostgreSQL's; back-references are rejected.
package types
