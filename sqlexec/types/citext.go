package types

import (
	"slices"
	"strings"
	"sync"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// citext, the type of PostgreSQL 15's citext extension (version 1.6), as it
// behaves under fickle's C collation. The catalog gives the type and its
// array their OIDs when CREATE EXTENSION citext runs and registers them
// here (RegisterCitext), as it does enum types. A datum is a Go string, the
// value exactly as written: its text and binary I/O are text's. Its
// comparisons (citext_cmp) compare the values lower-cased as lower() does
// under the C collation (ASCII letters only), so its keys encode the
// lower-cased value: two values that differ only in case are one key for a
// unique index, GROUP BY and DISTINCT, and a key is never read back as a
// column's value (DecodeKey gives the lower-cased form).
//
// Its operators, casts and functions are the extension script's,
// registered into a table of the type that resolution consults beside the
// built-in one: the comparisons and pattern comparisons, the
// case-insensitive LIKE and regular expression operators over (citext,
// citext) and (citext, text), the casts to and from text, varchar, bpchar,
// boolean and inet, the C functions behind them (citext_eq, citext_hash,
// ...), and the SQL functions the script defines over citext
// (regexp_match, regexp_replace, regexp_split_to_array, strpos, replace,
// split_part, translate). min and max are citextMinMax;
// regexp_matches and regexp_split_to_table, set-returning, are sqlexec's
// (CitextRegexArgs). Resolution does not know search_path: sqlexec refuses
// these where the extension's schema is not on it.

// citextType is a registered citext type.
type citextType struct {
	name       string
	oid, array Oid
	once       sync.Once
	funcs      *funcTable
}

var citexts sync.Map // type and array OIDs -> *citextType

// RegisterCitext records that oid is the citext type (named name, as
// format_type prints it) and array the OID of its array type.
func RegisterCitext(oid, array Oid, name string) {
	c := &citextType{name: name, oid: oid, array: array}
	citexts.Store(oid, c)
	citexts.Store(array, c)
}

func citextOf(oid Oid) (*citextType, bool) {
	if oid < firstUserOid {
		return nil, false
	}
	v, ok := citexts.Load(oid)
	if !ok {
		return nil, false
	}
	return v.(*citextType), true
}

// IsCitext reports whether t is a citext type (not an array of one).
func (t Type) IsCitext() bool {
	c, ok := citextOf(t.Oid)
	return ok && c.oid == t.Oid
}

// citextTypeInfo is the pg_type row of citext or its array.
func citextTypeInfo(oid Oid) (typeInfo, bool) {
	c, ok := citextOf(oid)
	if !ok {
		return typeInfo{}, false
	}
	if oid == c.oid {
		return typeInfo{name: c.name, sqlName: QuoteIdent(c.name), size: -1, category: CategoryString}, true
	}
	return typeInfo{name: "_" + c.name, sqlName: QuoteIdent(c.name) + "[]", size: -1, category: CategoryArray}, true
}

// citextElem is the element of citext[].
func citextElem(oid Oid) (Oid, bool) {
	c, ok := citextOf(oid)
	if !ok || oid != c.array {
		return 0, false
	}
	return c.oid, true
}

// citextArray is the array type over citext.
func citextArray(oid Oid) (Oid, bool) {
	c, ok := citextOf(oid)
	if !ok || oid != c.oid {
		return 0, false
	}
	return c.array, true
}

// citextFold is what citext compares: str_tolower under the C collation,
// which lowers ASCII letters only.
func citextFold(s string) string { return asciiLower(s) }

// compareCitext is citext_cmp under the C collation.
func compareCitext(a, b string) int { return strings.Compare(citextFold(a), citextFold(b)) }

// citextFlags is the citext functions' CASE WHEN strpos(flags, 'c') = 0
// THEN flags || 'i' ELSE flags END.
func citextFlags(flags string) string {
	if strings.Contains(flags, "c") {
		return flags
	}
	return flags + "i"
}

// CitextRegexArgs rewrites the arguments of regexp_matches or
// regexp_split_to_table called as the citext extension's overload (string
// and pattern citext, flags text): the flags it passes to the built-in
// function.
func CitextRegexArgs(args []any) []any {
	out := []any{args[0], args[1], "i"}
	if len(args) > 2 {
		out[2] = citextFlags(args[2].(string))
	}
	return out
}

// builtinEval is the built-in function name over args, for the citext
// functions the extension's script writes in SQL over them.
func builtinEval(name string, args ...Type) funcEval {
	var once sync.Once
	var f *Func
	return func(env *Env, a []any) (any, error) {
		once.Do(func() {
			var err error
			if f, err = resolveFunc(name, args); err != nil {
				panic("citext: " + err.Error())
			}
		})
		return f.Eval(env, a)
	}
}

// citextQuote is regexp_replace(s, '([^a-zA-Z_0-9])', E'\\\\\\1', 'g'): a
// backslash before every character but ASCII letters, digits and '_', as
// the script's replace and split_part quote their pattern.
func citextQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// table returns citext's operators, casts, aggregates and functions,
// built the first time they are needed.
func (c *citextType) table() *funcTable {
	c.once.Do(func() {
		ft := newFuncTable()
		ct := Type{c.oid, -1}
		textArray := Type{arrayTypes[OidText], -1}
		ft.addComparisons(ct, ct, func(_ *Env, a, b any) int { return compareCitext(a.(string), b.(string)) })
		// citext_pattern_lt and friends: memcmp of the lower-cased values,
		// which is citext_cmp under the C collation.
		for op, test := range map[string]func(int) bool{
			"~<~": func(c int) bool { return c < 0 }, "~<=~": func(c int) bool { return c <= 0 },
			"~>~": func(c int) bool { return c > 0 }, "~>=~": func(c int) bool { return c >= 0 },
		} {
			ft.addBinary(op, ct, ct, Bool, func(_ *Env, a, b any) (any, error) {
				return test(compareCitext(a.(string), b.(string))), nil
			})
		}
		// texticlike, texticnlike, texticregexeq, texticregexne: every
		// one of the operators is case-insensitive.
		for _, r := range []Type{ct, Text} {
			for op, negate := range map[string]bool{"~~": false, "~~*": false, "!~~": true, "!~~*": true} {
				ft.addBinary(op, ct, r, Bool, func(_ *Env, a, b any) (any, error) {
					m, err := like(a.(string), b.(string), true)
					return m != negate, err
				})
			}
			for op, negate := range map[string]bool{"~": false, "~*": false, "!~": true, "!~*": true} {
				ft.addBinary(op, ct, r, Bool, func(env *Env, a, b any) (any, error) {
					re, err := compileRegex(b.(string), true)
					if err != nil {
						return nil, err
					}
					m, err := matchRegexp(env, re, a.(string))
					return m != negate, err
				})
			}
		}
		ft.addCast(c.oid, OidText, CastImplicit, identity)
		ft.addCast(c.oid, OidVarchar, CastImplicit, identity)
		ft.addCast(c.oid, OidBpchar, CastAssignment, identity)
		ft.addCast(OidText, c.oid, CastAssignment, identity)
		ft.addCast(OidVarchar, c.oid, CastAssignment, identity)
		// citext(bpchar), citext(boolean), citext(inet): rtrim1, boolout,
		// text(inet), which are the built-in casts to text.
		for _, from := range []Oid{OidBpchar, OidBool, OidInet} {
			fn, _, _ := castPath(from, OidText)
			ft.addCast(from, c.oid, CastAssignment, fn)
		}
		regexMatch := builtinEval("regexp_match", Text, Text, Text)
		regexReplace := builtinEval("regexp_replace", Text, Text, Text, Text)
		regexSplit := builtinEval("regexp_split_to_array", Text, Text, Text)
		strpos := builtinEval("strpos", Text, Text)
		translate := builtinEval("translate", Text, Text, Text)
		flagged := func(eval funcEval, at int) funcEval {
			return func(env *Env, a []any) (any, error) {
				args := append(append([]any(nil), a[:at]...), "i")
				if len(a) > at {
					args[at] = citextFlags(a[at].(string))
				}
				return eval(env, args)
			}
		}
		ft.addFunc("regexp_match", Immutable, textArray, flagged(regexMatch, 2), ct, ct)
		ft.addFunc("regexp_match", Immutable, textArray, flagged(regexMatch, 2), ct, ct, Text)
		ft.addFunc("regexp_replace", Immutable, Text, flagged(regexReplace, 3), ct, ct, Text)
		ft.addFunc("regexp_replace", Immutable, Text, flagged(regexReplace, 3), ct, ct, Text, Text)
		ft.addFunc("regexp_split_to_array", Immutable, textArray, flagged(regexSplit, 2), ct, ct)
		ft.addFunc("regexp_split_to_array", Immutable, textArray, flagged(regexSplit, 2), ct, ct, Text)
		ft.addFunc("strpos", Immutable, Int4, func(env *Env, a []any) (any, error) {
			return strpos(env, []any{citextFold(a[0].(string)), citextFold(a[1].(string))})
		}, ct, ct)
		ft.addFunc("replace", Immutable, Text, func(env *Env, a []any) (any, error) {
			return regexReplace(env, []any{a[0], citextQuote(a[1].(string)), a[2], "gi"})
		}, ct, ct, ct)
		ft.addFunc("split_part", Immutable, Text, func(env *Env, a []any) (any, error) {
			parts, err := regexSplit(env, []any{a[0], citextQuote(a[1].(string)), "i"})
			if err != nil {
				return nil, err
			}
			// (array)[n]: NULL outside the array's bounds.
			n, ps := a[2].(int64), parts.([]any)
			if n < 1 || n > int64(len(ps)) {
				return nil, nil
			}
			return ps[n-1], nil
		}, ct, ct, Int4)
		ft.addFunc("translate", Immutable, Text, func(env *Env, a []any) (any, error) {
			from := a[1].(string)
			s, err := translate(env, []any{a[0], asciiLower(from), a[2]})
			if err != nil {
				return nil, err
			}
			return translate(env, []any{s, asciiUpper(from), a[2]})
		}, ct, ct, Text)
		// The C functions behind the operators, callable by name.
		for name, test := range map[string]func(int) bool{
			"citext_eq": func(c int) bool { return c == 0 }, "citext_ne": func(c int) bool { return c != 0 },
			"citext_lt": func(c int) bool { return c < 0 }, "citext_le": func(c int) bool { return c <= 0 },
			"citext_gt": func(c int) bool { return c > 0 }, "citext_ge": func(c int) bool { return c >= 0 },
			"citext_pattern_lt": func(c int) bool { return c < 0 }, "citext_pattern_le": func(c int) bool { return c <= 0 },
			"citext_pattern_gt": func(c int) bool { return c > 0 }, "citext_pattern_ge": func(c int) bool { return c >= 0 },
		} {
			ft.addFunc(name, Immutable, Bool, func(_ *Env, a []any) (any, error) {
				return test(compareCitext(a[0].(string), a[1].(string))), nil
			}, ct, ct)
		}
		ft.addFunc("citext_smaller", Immutable, ct, func(_ *Env, a []any) (any, error) {
			if compareCitext(a[0].(string), a[1].(string)) < 0 {
				return a[0], nil
			}
			return a[1], nil
		}, ct, ct)
		ft.addFunc("citext_larger", Immutable, ct, func(_ *Env, a []any) (any, error) {
			if compareCitext(a[0].(string), a[1].(string)) > 0 {
				return a[0], nil
			}
			return a[1], nil
		}, ct, ct)
		// citext_cmp and citext_pattern_cmp return memcmp's difference,
		// whose value is the C library's.
		for _, name := range []string{"citext_cmp", "citext_pattern_cmp"} {
			ft.addFunc(name, Immutable, Int4, func(*Env, []any) (any, error) {
				return nil, pgerror.Unsupported(name + "(), whose value is the C library's memcmp's")
			}, ct, ct)
		}
		// citext_hash and citext_hash_extended hash the lower-cased
		// value as hashtext and hashtextextended do.
		hashText, hashTextExtended := builtinEval("hashtext", Text), builtinEval("hashtextextended", Text, Int8)
		ft.addFunc("citext_hash", Immutable, Int4, func(env *Env, a []any) (any, error) {
			return hashText(env, []any{citextFold(a[0].(string))})
		}, ct)
		ft.addFunc("citext_hash_extended", Immutable, Int8, func(env *Env, a []any) (any, error) {
			return hashTextExtended(env, []any{citextFold(a[0].(string)), a[1]})
		}, ct, Int8)
		c.funcs = ft
	})
	return c.funcs
}

// citextMinMax is min or max(citext).
func citextMinMax(name string, t Type) *Aggregate {
	sign := 1
	if name == "min" {
		sign = -1
	}
	t = Type{t.Oid, -1}
	return &Aggregate{Name: name, Args: []Type{t}, Result: t, New: func(*Env) Accumulator { return &citextMinMaxAcc{sign: sign} }}
}

// citextMinMaxAcc is min or max(citext): citext_smaller and
// citext_larger keep the new value when it compares equal to the one
// kept.
type citextMinMaxAcc struct {
	sign int
	best any
}

func (a *citextMinMaxAcc) Add(args []any) error {
	if v := args[0]; v != nil && (a.best == nil || compareCitext(v.(string), a.best.(string))*a.sign >= 0) {
		a.best = v
	}
	return nil
}

func (a *citextMinMaxAcc) Result() (any, error) { return a.best, nil }

// citextTables are the tables of the citext types among ts.
func citextTables(ts []Type) []*funcTable {
	var out []*funcTable
	for _, t := range ts {
		if c, ok := citextOf(t.Oid); ok && t.Oid == c.oid && !slices.Contains(out, c.table()) {
			out = append(out, c.table())
		}
	}
	return out
}

// citextCast is a cast to or from citext, or nil.
func citextCast(from, to Oid) (castEntry, bool) {
	c, ok := citextOf(from)
	if !ok || from != c.oid {
		if c, ok = citextOf(to); !ok || to != c.oid {
			return castEntry{}, false
		}
	}
	e, ok := c.table().casts[castKey{from, to}]
	return e, ok
}

// IsCitextFunc reports whether name is one of the citext extension's own
// functions (citext_eq, citext_hash, ...), which no built-in overloads:
// an untyped argument of a call of one is a citext.
func IsCitextFunc(name string) bool {
	return strings.HasPrefix(normalizeFuncName(name), "citext_")
}
