package types

import (
	"math"
	"slices"
	"sync"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Enum types (CREATE TYPE name AS ENUM (...)). As with composite types, the
// catalog gives an enum type its OID and registers its labels here, so that
// input, output, comparison, casts and key encoding find them from the Type
// alone. A datum is the label's text. Labels sort by their position, never
// by their text: Position is a number the catalog keeps stable for a
// label's life (an index's keys encode it), while pg_enum's enumsortorder,
// which PostgreSQL may renumber, is the catalog's business.

// CategoryEnum is the category of enum types.
const CategoryEnum Category = 'E'

// OidAnyEnum is the pseudo-type anyenum of the enum support functions.
const OidAnyEnum Oid = 3500

// EnumLabel is one value of an enum type.
type EnumLabel struct {
	Label    string
	Position float64
}

type enumInfo struct {
	name   string
	array  Oid
	labels []EnumLabel // in sort order
	index  map[string]float64
}

var (
	enums      sync.Map // Oid -> *enumInfo
	enumArrays sync.Map // array type Oid -> element Oid
)

// RegisterEnum records that oid is the enum type name (as format_type
// prints it) with the given labels, and array the OID of the array type
// over it. Registering an OID again replaces its labels (ALTER TYPE ... ADD
// VALUE, and its undo).
func RegisterEnum(oid, array Oid, name string, labels []EnumLabel) {
	e := &enumInfo{name: name, array: array, labels: slices.Clone(labels), index: make(map[string]float64, len(labels))}
	slices.SortFunc(e.labels, func(a, b EnumLabel) int { return compareFloat(a.Position, b.Position) })
	for _, l := range e.labels {
		e.index[l.Label] = l.Position
	}
	enums.Store(oid, e)
	enumArrays.Store(array, oid)
}

func enumOf(oid Oid) (*enumInfo, bool) {
	v, ok := enums.Load(oid)
	if !ok {
		return nil, false
	}
	return v.(*enumInfo), true
}

func enumElemOf(oid Oid) (Oid, bool) {
	v, ok := enumArrays.Load(oid)
	if !ok {
		return 0, false
	}
	return v.(Oid), true
}

// IsEnum reports whether t is an enum type.
func (t Type) IsEnum() bool {
	_, ok := enumOf(t.Oid)
	return ok
}

// EnumLabels returns the labels of enum type t in sort order.
func (t Type) EnumLabels() []EnumLabel {
	e, ok := enumOf(t.Oid)
	if !ok {
		return nil
	}
	return slices.Clone(e.labels)
}

// pendingEnumLabels holds the labels an uncommitted ALTER TYPE ... ADD VALUE
// added to an enum type that existed before its transaction: PostgreSQL
// refuses them (55P04) until that transaction commits.
var pendingEnumLabels sync.Map // pendingLabel -> struct{}

type pendingLabel struct {
	oid   Oid
	label string
}

// pendingLabelOf returns a label of enum type oid that an uncommitted
// transaction added, if any.
func pendingLabelOf(oid Oid) (label string, ok bool) {
	pendingEnumLabels.Range(func(k, _ any) bool {
		if p := k.(pendingLabel); p.oid == oid {
			label, ok = p.label, true
			return false
		}
		return true
	})
	return label, ok
}

func unsafeEnumValue(t Type, label string) error {
	return pgerror.Newf(pgerror.UnsafeNewEnumValueUsage, "unsafe use of new value \"%s\" of enum type %s", label, formatType(t)).
		WithHint("New enum values must be committed before they can be used.")
}

// enumLabelsInUse returns t's labels for the functions that list them;
// while a label added by an uncommitted transaction exists, which
// PostgreSQL's catalog would list and refuse to use, they fail with 55P04.
func enumLabelsInUse(t Type) ([]EnumLabel, error) {
	if label, pending := pendingLabelOf(t.Oid); pending {
		return nil, unsafeEnumValue(t, label)
	}
	return t.EnumLabels(), nil
}

// EnumLabelPending returns a label of enum type oid that an uncommitted
// ALTER TYPE ... ADD VALUE added, if any.
func EnumLabelPending(oid Oid) (string, bool) { return pendingLabelOf(oid) }

// SetEnumLabelPending marks label of enum type oid as added by a transaction
// that has not committed yet, or clears the mark.
func SetEnumLabelPending(oid Oid, label string, pending bool) {
	if pending {
		pendingEnumLabels.Store(pendingLabel{oid, label}, struct{}{})
	} else {
		pendingEnumLabels.Delete(pendingLabel{oid, label})
	}
}

// parseEnum is enum_in.
func parseEnum(t Type, s string) (any, error) {
	e, _ := enumOf(t.Oid)
	if _, ok := e.index[s]; !ok {
		if _, pending := pendingEnumLabels.Load(pendingLabel{t.Oid, s}); pending {
			return nil, unsafeEnumValue(t, s)
		}
		return nil, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input value for enum %s: \"%s\"", formatType(t), s)
	}
	return s, nil
}

// enumPosition returns the sort position of a label of t.
func enumPosition(t Type, label string) float64 {
	e, _ := enumOf(t.Oid)
	return e.index[label]
}

// compareEnums is enum_cmp: by the labels' positions.
func compareEnums(t Type, a, b string) int {
	return compareFloat(enumPosition(t, a), enumPosition(t, b))
}

// enumLabelAt returns the label of t at a sort position (key decoding).
func enumLabelAt(t Type, pos float64) (string, bool) {
	e, ok := enumOf(t.Oid)
	if !ok {
		return "", false
	}
	i, found := slices.BinarySearchFunc(e.labels, pos, func(l EnumLabel, p float64) int { return compareFloat(l.Position, p) })
	if !found {
		return "", false
	}
	return e.labels[i].Label, true
}

// enumComparison resolves =, <>, <, <=, > and >= between two values of one
// enum type (an untyped literal takes the other side's type), PostgreSQL's
// enum_eq ... enum_ge over anyenum.
func enumComparison(op string, l, r Type) (*BinaryOp, bool) {
	t := l
	if l.Oid == OidUnknown {
		t = r
	}
	if !t.IsEnum() || (l.Oid != t.Oid && l.Oid != OidUnknown) || (r.Oid != t.Oid && r.Oid != OidUnknown) {
		return nil, false
	}
	test, ok := comparisonTests[op]
	if !ok {
		return nil, false
	}
	in := func(v any) (string, error) {
		s := v.(string)
		if _, err := parseEnum(t, s); err != nil {
			return "", err
		}
		return s, nil
	}
	lit := func(side Type) func(any) (string, error) {
		if side.Oid == OidUnknown {
			return in
		}
		return func(v any) (string, error) { return v.(string), nil }
	}
	ls, rs := lit(l), lit(r)
	eval := func(_ *Env, a, b any) (any, error) {
		if a == nil || b == nil {
			return nil, nil
		}
		x, err := ls(a)
		if err != nil {
			return nil, err
		}
		y, err := rs(b)
		if err != nil {
			return nil, err
		}
		return test(compareEnums(t, x, y)), nil
	}
	return &BinaryOp{Name: op, Left: t, Right: t, Result: Bool,
		Eval:    func(a, b any) (any, error) { return eval(nil, a, b) },
		EvalEnv: eval}, true
}

// comparisonTests maps a comparison operator to its test of a three-way
// comparison's result.
var comparisonTests = map[string]func(int) bool{
	"=":  func(c int) bool { return c == 0 },
	"<>": func(c int) bool { return c != 0 },
	"!=": func(c int) bool { return c != 0 },
	"<":  func(c int) bool { return c < 0 },
	"<=": func(c int) bool { return c <= 0 },
	">":  func(c int) bool { return c > 0 },
	">=": func(c int) bool { return c >= 0 },
}

func init() {
	builders["enum_first"] = enumEndBuilder(false)
	builders["enum_last"] = enumEndBuilder(true)
	builders["enum_range"] = enumRangeBuilder
	builders["enum_cmp"] = func(args []Type) (*Func, bool, error) {
		t, ok := enumArgs(args, 2)
		if !ok {
			return nil, false, nil
		}
		return &Func{Args: []Type{t, t}, Result: Int4, Volatility: Immutable, Eval: func(_ *Env, a []any) (any, error) {
			if a[0] == nil || a[1] == nil {
				return nil, nil
			}
			return int64(compareEnums(t, a[0].(string), a[1].(string))), nil
		}}, true, nil
	}
}

// enumArgs returns the enum type of a call's n arguments when they all have
// it (an untyped NULL or literal takes it), as anyenum requires.
func enumArgs(args []Type, n int) (Type, bool) {
	if len(args) != n {
		return Type{}, false
	}
	var t Type
	for _, a := range args {
		switch {
		case a.Oid == OidUnknown:
		case !a.IsEnum() || (t.Oid != 0 && t.Oid != a.Oid):
			return Type{}, false
		default:
			t = a
		}
	}
	return t, t.Oid != 0
}

// enumEndBuilder builds enum_first and enum_last, which read only their
// argument's type.
func enumEndBuilder(last bool) func([]Type) (*Func, bool, error) {
	return func(args []Type) (*Func, bool, error) {
		t, ok := enumArgs(args, 1)
		if !ok {
			return nil, false, nil
		}
		return &Func{Args: []Type{t}, Result: t, Volatility: Stable, Eval: func(*Env, []any) (any, error) {
			labels, err := enumLabelsInUse(t)
			if err != nil {
				return nil, err
			}
			if len(labels) == 0 {
				return nil, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "enum %s contains no values", formatType(t))
			}
			if last {
				return labels[len(labels)-1].Label, nil
			}
			return labels[0].Label, nil
		}}, true, nil
	}
}

// enumRangeBuilder builds enum_range(anyenum), every label in order, and
// enum_range(anyenum, anyenum), the labels between two bounds (a NULL bound
// is open).
func enumRangeBuilder(args []Type) (*Func, bool, error) {
	t, ok := enumArgs(args, len(args))
	if !ok || len(args) > 2 {
		return nil, false, nil
	}
	arr, _ := ArrayOf(t)
	declared := slices.Repeat([]Type{t}, len(args))
	return &Func{Args: declared, Result: arr, Volatility: Stable, Eval: func(_ *Env, a []any) (any, error) {
		lo, hi := math.Inf(-1), math.Inf(1)
		if len(a) == 2 {
			if a[0] != nil {
				lo = enumPosition(t, a[0].(string))
			}
			if a[1] != nil {
				hi = enumPosition(t, a[1].(string))
			}
		}
		labels, err := enumLabelsInUse(t)
		if err != nil {
			return nil, err
		}
		out := []any{}
		for _, l := range labels {
			if l.Position >= lo && l.Position <= hi {
				out = append(out, l.Label)
			}
		}
		return out, nil
	}}, true, nil
}
