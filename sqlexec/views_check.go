package sqlexec

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Views WITH [LOCAL | CASCADED] CHECK OPTION. Rewriting an INSERT or
// UPDATE through an automatically updatable view (views_update.go) that
// has a check option adds the view's WHERE to the checks of the rows the
// statement writes; a CASCADED one also makes every view below it check
// its WHERE, as if it had a CASCADED check option itself. As in
// PostgreSQL's rewriter, the checks of lower views come first, and a row
// failing one fails the statement with 44000 naming the view.

// viewCheck is one view's condition on the rows written through it,
// over the name the rewritten statement gives its base relation.
type viewCheck struct {
	view string
	// qual is nil for a view without WHERE: it checks nothing but passes
	// cascaded on.
	qual     *pg_query.Node
	cascaded bool
}

// checks reports whether v has a check option, cascades whether it is
// CASCADED; viewDesc.checkOption keeps the option's text as given.
func (v *viewDesc) checks() bool { return v.checkOption != "" }

func (v *viewDesc) cascades() bool { return strings.EqualFold(v.checkOption, "cascaded") }

// takeViewChecks returns the checks the rewrite of a view passed to the
// statement being compiled, and clears them so that no statement
// compiled later sees them.
func (b *binder) takeViewChecks() []viewCheck {
	c := b.viewChecks
	b.viewChecks = nil
	return c
}

// addChecks returns the checks of the statement rewritten from av's
// view: outer, the checks of the views above it, now over av's base
// relation, after av's own when it has a check option or one above
// cascades.
func (av *autoView) addChecks(outer []viewCheck) ([]viewCheck, error) {
	var out []viewCheck
	for _, c := range outer {
		if c.qual != nil {
			c.qual = proto.Clone(c.qual).(*pg_query.Node)
			if err := av.subst(c.qual, false); err != nil {
				return nil, err
			}
		}
		out = append(out, c)
	}
	cascaded := av.v.cascades() || len(outer) > 0 && outer[0].cascaded
	if !av.v.checks() && !cascaded {
		return out, nil
	}
	var qual *pg_query.Node
	if av.where != nil {
		qual = proto.Clone(av.where).(*pg_query.Node)
	}
	return append([]viewCheck{{view: av.v.name, qual: qual, cascaded: cascaded}}, out...), nil
}

// refuseViewChecks fails when checks reach a statement that does not
// write a table directly (a rule's or an INSTEAD OF trigger's).
func refuseViewChecks(checks []viewCheck) error {
	for _, c := range checks {
		if c.qual != nil {
			return pgerror.Unsupported("WITH CHECK OPTION on a view over a view with rules or INSTEAD OF triggers")
		}
	}
	return nil
}

// compiledViewCheck is a viewCheck compiled over the rows of the table
// written.
type compiledViewCheck struct {
	view string
	e    *scalar
}

// viewChecksFor compiles checks over the rows of t, named alias.
func (b *binder) viewChecksFor(t *tableDesc, alias string, checks []viewCheck) ([]compiledViewCheck, error) {
	var out []compiledViewCheck
	for _, c := range checks {
		if c.qual == nil {
			continue
		}
		e, err := b.cond(tableScope(t, alias), c.qual, "CHECK OPTION")
		if err != nil {
			return nil, err
		}
		out = append(out, compiledViewCheck{view: c.view, e: e})
	}
	return out, nil
}

// checkViewRow fails with 44000 when row, a row of t, does not pass
// every check: a NULL condition fails as a false one does.
func checkViewRow(x *execCtx, t *tableDesc, checks []compiledViewCheck, row []any) error {
	if len(checks) == 0 {
		return nil
	}
	saved := x.row
	x.row = row
	defer func() { x.row = saved }()
	for _, c := range checks {
		v, err := c.e.eval(x)
		if err != nil {
			return err
		}
		if v != true {
			return pgerror.Newf(pgerror.WithCheckOptionViolation, "new row violates check option for view \"%s\"", c.view).
				WithDetail("Failing row contains %s.", rowText(t, row))
		}
	}
	return nil
}

// viewOptions reads the options of CREATE VIEW: its WITH (...) list, then
// its WITH [LOCAL | CASCADED] CHECK OPTION clause, as pg_class.reloptions
// lists them.
func viewOptions(vs *pg_query.ViewStmt) ([]string, error) {
	defs := slices.Clone(vs.Options)
	if opt := map[pg_query.ViewCheckOption]string{pg_query.ViewCheckOption_LOCAL_CHECK_OPTION: "local",
		pg_query.ViewCheckOption_CASCADED_CHECK_OPTION: "cascaded"}[vs.WithCheckOption]; opt != "" {
		defs = append(defs, pg_query.MakeSimpleDefElemNode("check_option", pg_query.MakeStrNode(opt), -1))
	}
	return mergeViewOptions(nil, defs, false)
}

// mergeViewOptions applies the options defs of CREATE VIEW or ALTER VIEW
// SET (RESET when reset) to a view's options old, each "name=value" with
// the value as given, as transformRelOptions does: an option named again
// leaves its old place, and a set one goes last. security_barrier asks
// that the view's conditions filter its rows before any condition of the
// query reading it sees them, which fickle does for every view (a view is
// a subquery whose conditions nothing is moved past), so it is only kept.
func mergeViewOptions(old []string, defs []*pg_query.Node, reset bool) ([]string, error) {
	var named []string
	var added []string
	for _, o := range defs {
		de := o.GetDefElem()
		if de == nil {
			return nil, pgerror.Unsupported("this view option")
		}
		if reset {
			if err := checkResetHasNoValue(o); err != nil {
				return nil, err
			}
		}
		val := "true"
		if de.Arg != nil && !reset {
			val = defElemText(de)
		}
		switch {
		case de.Defname == "check_option" && de.Defnamespace == "":
			if !reset && !strings.EqualFold(val, "local") && !strings.EqualFold(val, "cascaded") {
				return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for enum option \"check_option\": %s", val).
					WithDetail("Valid values are \"local\" and \"cascaded\".")
			}
		case de.Defnamespace == "toast":
			continue // PostgreSQL takes and ignores the toast namespace
		default:
			if err := checkViewOption(de); err != nil && !reset {
				return nil, err
			}
		}
		named = append(named, de.Defname)
		if !reset {
			added = append(added, de.Defname+"="+val)
		}
	}
	var out []string
	for _, o := range old {
		name, _, _ := strings.Cut(o, "=")
		if !slices.Contains(named, name) {
			out = append(out, o)
		}
	}
	return append(out, added...), nil
}

// viewOption is the value of option name among a view's options, "" for
// none.
func viewOption(options []string, name string) string {
	for _, o := range options {
		if n, v, _ := strings.Cut(o, "="); n == name {
			return v
		}
	}
	return ""
}

// withOptions gives v its options: its check option and whether it reads
// its relations with the rights of the role reading it (security_invoker).
func (v *viewDesc) withOptions(options []string) {
	v.options = options
	v.checkOption = viewOption(options, "check_option")
	invoker, _ := parsePGBool(viewOption(options, "security_invoker"))
	v.securityInvoker = invoker == "on"
}

// checkViewOption fails as PostgreSQL does for a view option it does not
// know or a boolean one given another value (22023), before fickle refuses
// the options it knows but does not implement.
func checkViewOption(de *pg_query.DefElem) error {
	if de == nil {
		return nil
	}
	switch {
	case de.Defnamespace == "toast":
		return nil // PostgreSQL takes and ignores the toast namespace
	case de.Defnamespace != "":
		return pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized parameter namespace \"%s\"", de.Defnamespace)
	case de.Defname != "security_barrier" && de.Defname != "security_invoker":
		return pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized parameter \"%s\"", de.Defname)
	case de.Arg != nil:
		if _, ok := parsePGBool(defElemText(de)); !ok {
			return pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for boolean option \"%s\": %s", de.Defname, defElemText(de))
		}
	}
	return nil
}

// checkOptionColumn is information_schema.views.check_option of v: it
// reads the option's text, as PostgreSQL's does, so an option given in
// capitals shows as NONE.
func (v *viewDesc) checkOptionColumn() string {
	switch v.checkOption {
	case "local":
		return "LOCAL"
	case "cascaded":
		return "CASCADED"
	}
	return "NONE"
}
