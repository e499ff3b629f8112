package sqlexec

import (
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// PL/pgSQL's extra checks (plpgsql.extra_warnings, plpgsql.extra_errors):
// too_many_rows makes a SELECT ... INTO that finds more than one row warn or
// fail, strict_multi_assignment does so for an INTO whose query has not as
// many columns as its target has fields. shadowed_variables, a check of
// the body when it is compiled, is not made: as an extra warning it is
// accepted and gives none, as an extra error (and so "all") it is refused.

// plExtraCheck is one extra check, as a bit of a set of them.
type plExtraCheck uint8

const (
	plCheckShadowedVariables plExtraCheck = 1 << iota
	plCheckTooManyRows
	plCheckStrictMultiAssignment
	plCheckAll = plCheckShadowedVariables | plCheckTooManyRows | plCheckStrictMultiAssignment
)

var plExtraCheckNames = map[string]plExtraCheck{
	"shadowed_variables": plCheckShadowedVariables, "too_many_rows": plCheckTooManyRows,
	"strict_multi_assignment": plCheckStrictMultiAssignment,
}

// parsePlExtraChecks reads a value of plpgsql.extra_warnings or
// extra_errors as plpgsql_extra_checks_check_hook does.
func parsePlExtraChecks(name, v string) (plExtraCheck, error) {
	invalid := func(detail string, args ...any) error {
		return pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v).WithDetail(detail, args...)
	}
	switch {
	case strings.EqualFold(v, "all"):
		return plCheckAll, nil
	case strings.EqualFold(v, "none"):
		return 0, nil
	}
	words, ok := splitIdentifierList(v)
	if !ok {
		return 0, invalid("List syntax is invalid.")
	}
	var set plExtraCheck
	for _, w := range words {
		if c, ok := plExtraCheckNames[strings.ToLower(w)]; ok {
			set |= c
			continue
		}
		if strings.EqualFold(w, "all") || strings.EqualFold(w, "none") {
			return 0, invalid("Key word \"%s\" cannot be combined with other key words.", w)
		}
		return 0, invalid("Unrecognized key word: \"%s\".", w)
	}
	return set, nil
}

// normPlExtraChecks checks a value of plpgsql.extra_warnings or, errors,
// plpgsql.extra_errors, keeping it as written.
func normPlExtraChecks(name string, errors bool) func(string) (string, error) {
	return func(v string) (string, error) {
		set, err := parsePlExtraChecks(name, v)
		if err != nil {
			return "", err
		}
		if errors && set&plCheckShadowedVariables != 0 {
			return "", pgerror.Unsupported("the PL/pgSQL extra error check shadowed_variables")
		}
		return v, nil
	}
}

// plExtraCheckLevel is the severity check c reports with under the
// session's settings: "ERROR", "WARNING", or "" when it is off.
func (s *Session) plExtraCheckLevel(c plExtraCheck) string {
	for _, level := range []struct{ setting, severity string }{{"plpgsql.extra_errors", "ERROR"}, {"plpgsql.extra_warnings", "WARNING"}} {
		v, _ := s.setting(level.setting)
		if set, err := parsePlExtraChecks(level.setting, v); err == nil && set&c != 0 {
			return level.severity
		}
	}
	return ""
}

// extraCheck reports e as check c's level asks: the error when it is an
// extra error, nil after sending it as a warning, nil when the check is off.
func (fr *plFrame) extraCheck(c plExtraCheck, e *pgerror.Error) error {
	switch fr.s.plExtraCheckLevel(c) {
	case "ERROR":
		return e
	case "WARNING":
		fr.s.warn(e)
	}
	return nil
}

// strictMultiAssignment is the strict_multi_assignment check of an INTO
// whose query returned a row of n columns into target k: a row of
// variables or a variable of a composite type takes as many columns as it
// has fields, any other variable but a record one column.
func (fr *plFrame) strictMultiAssignment(k, n int) error {
	want := 1
	switch d := fr.pl.datums[k]; {
	case d.kind == 'w':
		want = len(d.fields)
	case fr.typs[k].IsComposite():
		fields, _ := fr.typs[k].Fields()
		want = len(fields)
	case fr.typs[k].IsRecord():
		return nil
	}
	if n == want {
		return nil
	}
	level := fr.s.plExtraCheckLevel(plCheckStrictMultiAssignment)
	if level == "" {
		return nil
	}
	setting := map[string]string{"ERROR": "extra_errors", "WARNING": "extra_warnings"}[level]
	return fr.extraCheck(plCheckStrictMultiAssignment,
		pgerror.New(pgerror.DatatypeMismatch, "number of source and target fields in assignment does not match").
			WithDetail("%s check of %s is active.", "strict_multi_assignment", setting).
			WithHint("Make sure the query returns the exact list of columns."))
}
