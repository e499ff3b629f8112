package types

import (
	"slices"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// OidAnyNonArray is the pseudo-type anynonarray, which polymorphic
// candidates (text || anynonarray) declare; every non-array type coerces to
// it. It never appears as the type of a value.
const oidAnyNonArray Oid = 2776

// anyNonArray is the declared type of a polymorphic argument.
var anyNonArray = Type{oidAnyNonArray, -1}

// candidate is one overload of an operator or function: pg_operator or
// pg_proc restricted to what resolution needs.
type candidate struct {
	args   []Type
	result Type
	// variadic marks the last argument as VARIADIC: calls may repeat it.
	variadic bool
	// polymorphic marks the overloads PostgreSQL declares over anyrange
	// and anyelement, registered per range type: a typed input must have
	// the declared type itself, as polymorphic arguments are never coerced.
	polymorphic bool
	// domains, when set, marks the arguments declared of a domain, whose
	// base type args holds (ChooseRoutine).
	domains []bool
}

// domain reports whether the candidate's argument j is of a domain: one
// that func_select_candidate never counts as an exact or a preferred
// match, since it compares the arguments' base types with the declared
// types and a domain is never preferred.
func (c candidate) domain(j int) bool { return c.domains != nil && c.domains[j] }

// coercible is can_coerce_type for one argument, extended to the
// polymorphic pseudo-type.
func coercible(from, to Type) bool {
	if to.IsPolymorphic() {
		return polyCoercible(from, to)
	}
	return canCoerce(from, to, CastImplicit)
}

// categoryOf is TypeCategory, with the pseudo-type's category P.
func categoryOf(t Type) Category {
	if t.Oid == oidAnyNonArray {
		return 'P'
	}
	return t.Category()
}

// selectCandidate is PostgreSQL's func_match_argtypes followed by
// func_select_candidate: it returns the index of the candidate chosen for
// the input types, or -1 with ambiguous set when several remain.
func selectCandidate(inputs []Type, cands []candidate) (best int, ambiguous bool) {
	var live []int
	untypedRange := false
	for i, c := range cands {
		if len(c.args) != len(inputs) {
			continue
		}
		ok, rangeUnknown := true, false
		for j, in := range inputs {
			if !coercible(in, c.args[j]) || (c.polymorphic && in.Oid != OidUnknown && in.Oid != c.args[j].Oid) {
				ok = false
				break
			}
			rangeUnknown = rangeUnknown || (c.polymorphic && in.Oid == OidUnknown && (c.args[j].IsRange() || c.args[j].IsMultirange()))
		}
		if ok && !c.polymorphic && !PolymorphicMatch(inputs, c.args) {
			ok = false
		}
		switch {
		case ok && rangeUnknown:
			// An untyped literal where PostgreSQL declares anyrange
			// or anymultirange matches the other as well: not unique
			// there.
			untypedRange = true
		case ok:
			live = append(live, i)
		}
	}
	switch len(live) {
	case 0:
		return -1, untypedRange
	case 1:
		return live[0], false
	}
	nargs := len(inputs)
	unknowns := 0
	for _, in := range inputs {
		if in.Oid == OidUnknown {
			unknowns++
		}
	}
	// Keep the candidates with the most exact matches on known inputs.
	keepMax := func(score func(c candidate) int) {
		bestScore, kept := -1, live[:0:0]
		for _, i := range live {
			s := score(cands[i])
			switch {
			case s > bestScore:
				bestScore, kept = s, []int{i}
			case s == bestScore:
				kept = append(kept, i)
			}
		}
		live = kept
	}
	keepMax(func(c candidate) int {
		n := 0
		for j, in := range inputs {
			if in.Oid != OidUnknown && in.Oid == c.args[j].Oid && !c.domain(j) {
				n++
			}
		}
		return n
	})
	if len(live) == 1 {
		return live[0], false
	}
	// Then those with exact or preferred types where coercion is needed.
	keepMax(func(c candidate) int {
		n := 0
		for j, in := range inputs {
			if in.Oid == OidUnknown {
				continue
			}
			if c.domain(j) {
				continue
			}
			if in.Oid == c.args[j].Oid || (c.args[j].Oid != oidAnyNonArray && c.args[j].Preferred() && c.args[j].Category() == in.Category()) {
				n++
			}
		}
		return n
	})
	if len(live) == 1 {
		return live[0], false
	}
	if unknowns == 0 {
		return -1, true
	}
	// Resolve unknown inputs by the categories the candidates accept there,
	// preferring the string category.
	slotCat := make([]Category, nargs)
	slotPref := make([]bool, nargs)
	resolved := false
	for j, in := range inputs {
		if in.Oid != OidUnknown {
			continue
		}
		slotCat[j] = 0
		conflict := false
		for _, i := range live {
			ct := cands[i].args[j]
			cat := categoryOf(ct)
			pref := ct.Oid != oidAnyNonArray && ct.Preferred() && !cands[i].domain(j)
			switch {
			case slotCat[j] == 0:
				slotCat[j], slotPref[j] = cat, pref
			case cat == slotCat[j]:
				slotPref[j] = slotPref[j] || pref
			case cat == CategoryString:
				slotCat[j], slotPref[j] = cat, pref
			case slotCat[j] != CategoryString:
				conflict = true
			}
		}
		if conflict && slotCat[j] != CategoryString {
			resolved = false
			break
		}
		resolved = true
	}
	if resolved {
		var kept []int
		for _, i := range live {
			keep := true
			for j, in := range inputs {
				if in.Oid != OidUnknown {
					continue
				}
				ct := cands[i].args[j]
				if categoryOf(ct) != slotCat[j] || (slotPref[j] && (ct.Oid == oidAnyNonArray || !ct.Preferred() || cands[i].domain(j))) {
					keep = false
				}
			}
			if keep {
				kept = append(kept, i)
			}
		}
		if len(kept) == 1 {
			return kept[0], false
		}
		if len(kept) > 0 {
			live = kept
		}
	}
	// Last gasp: if all known inputs have one type, assume the unknowns have
	// it too.
	if unknowns < nargs {
		known := Type{OidUnknown, -1}
		for _, in := range inputs {
			if in.Oid == OidUnknown {
				continue
			}
			if known.Oid == OidUnknown {
				known = in
			} else if known.Oid != in.Oid {
				return -1, true
			}
		}
		match, n := -1, 0
		for _, i := range live {
			ok := true
			for j, in := range inputs {
				if in.Oid == OidUnknown {
					in = known
				}
				if !coercible(in, cands[i].args[j]) {
					ok = false
				}
			}
			if ok {
				match, n = i, n+1
			}
		}
		if n == 1 {
			return match, false
		}
	}
	return -1, true
}

// coerceArgs returns functions converting each input to the declared
// argument type of the chosen candidate (nil where no conversion is needed).
func coerceArgs(inputs, declared []Type) ([]EnvCastFunc, error) {
	fns := make([]EnvCastFunc, len(inputs))
	for i, in := range inputs {
		to := declared[i]
		if to.Oid == oidAnyNonArray {
			if in.Oid == OidUnknown {
				continue // resolved as text: the literal already is a string
			}
			// anytextcat and textanycat cast the argument to text as
			// $2::text does: bool prints true, not its output t.
			if f, err := lookupCast(in, Text, CastExplicit); err == nil {
				fns[i] = f
				continue
			}
			fns[i] = toText(in)
			continue
		}
		if in.Oid == to.Oid {
			continue
		}
		f, err := lookupCast(in, Type{to.Oid, -1}, CastImplicit)
		if err != nil {
			return nil, err
		}
		fns[i] = f
	}
	return fns, nil
}

// typeList formats argument types for error messages: "integer, boolean".
func typeList(ts []Type) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = formatTypeBe(t)
	}
	return strings.Join(names, ", ")
}

// formatTypeBe is format_type_be, which signatures in errors print with:
// the type without its typmod, bpchar as character.
func formatTypeBe(t Type) string {
	if elem, isArray := t.Elem(); isArray && !isVector(t.Oid) {
		return formatTypeBe(elem) + "[]"
	}
	if t.Oid == OidBpchar {
		return "character"
	}
	return formatType(Type{t.Oid, -1})
}

func operatorError(op string, l, r *Type, ambiguous bool) error {
	var sig string
	switch {
	case l == nil:
		sig = op + " " + formatTypeBe(*r)
	default:
		sig = formatTypeBe(*l) + " " + op + " " + formatTypeBe(*r)
	}
	if ambiguous {
		return pgerror.Newf(pgerror.AmbiguousFunction, "operator is not unique: %s", sig).
			WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.")
	}
	e := pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s", sig)
	e.Hint = "No operator matches the given name and argument types. You might need to add explicit type casts."
	if l == nil {
		// op_error words it for the one operand of a prefix operator.
		e.Hint = "No operator matches the given name and argument type. You might need to add an explicit type cast."
	}
	return e
}

// chooseOverload returns the index of the candidate a call name(args)
// resolves to: an exact match of the argument types, else the one
// PostgreSQL's func_select_candidate picks (selectCandidate); 42883 when
// none fits and 42725 when several do.
func chooseOverload(name string, args []Type, cands []candidate) (int, error) {
	for i, c := range cands {
		if len(c.args) == len(args) && c.domains == nil && sameOids(args, c.args) {
			return i, nil
		}
	}
	chosen, ambiguous := selectCandidate(args, cands)
	if chosen < 0 {
		return -1, funcError(name, args, ambiguous)
	}
	return chosen, nil
}

// sameOids reports whether a and b name the same types, position by position.
func sameOids(a, b []Type) bool {
	for i := range a {
		if a[i].Oid != b[i].Oid {
			return false
		}
	}
	return true
}

// ChooseOverload picks among the argument type lists of a function's
// overloads the one a call with the given argument types resolves to,
// by the rules every built-in function follows (an exact match, else
// func_select_candidate; Unknown for untyped literals): 42883 when none
// fits, 42725 when several do. The executor resolves the functions it
// implements itself (catalog and session functions) with it.
func ChooseOverload(name string, args []Type, overloads [][]Type) (int, error) {
	cands := make([]candidate, len(overloads))
	for i, o := range overloads {
		cands[i] = candidate{args: o}
	}
	return chooseOverload(name, args, cands)
}

// ChooseRoutine is ChooseOverload for overloads some of whose arguments
// are of a domain: domains[i][j] marks argument j of overload i as of a
// domain, whose base type overloads[i][j] holds. args are the arguments'
// base types, as func_select_candidate reduces domains to them: a domain
// argument then matches as a coercible, never exact or preferred, one.
// The match of an argument of a domain with a parameter of that domain,
// which comes before, is the caller's, as a domain is not a Type.
func ChooseRoutine(name string, args []Type, overloads [][]Type, domains [][]bool) (int, error) {
	cands := make([]candidate, len(overloads))
	for i, o := range overloads {
		cands[i] = candidate{args: o}
		if slices.Contains(domains[i], true) {
			cands[i].domains = domains[i]
		}
	}
	return chooseOverload(name, args, cands)
}

// SelectCandidate is func_select_candidate over the argument type lists
// of operators or functions that no input matches exactly: the index of
// the one the inputs resolve to, or -1 with ambiguous set when several
// remain (none fits otherwise).
func SelectCandidate(inputs []Type, overloads [][]Type) (best int, ambiguous bool) {
	cands := make([]candidate, len(overloads))
	for i, o := range overloads {
		cands[i] = candidate{args: o}
	}
	return selectCandidate(inputs, cands)
}
