package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// RAISE and DO.

// The RAISE ... USING options, as the parser numbers them.
const (
	plOptErrcode = iota
	plOptMessage
	plOptDetail
	plOptHint
	plOptColumn
	plOptConstraint
	plOptDatatype
	plOptTable
	plOptSchema
)

// plRaiseOptionNames are the USING options' names, by number.
var plRaiseOptionNames = []string{"ERRCODE", "MESSAGE", "DETAIL", "HINT", "COLUMN", "CONSTRAINT", "DATATYPE", "TABLE", "SCHEMA"}

// minMessageLevels orders client_min_messages' values by elog level, and
// noticeLevels a notice's severity (RAISE DEBUG is DEBUG1); a notice of no
// severity is a NOTICE.
var (
	minMessageLevels = map[string]int{"debug5": 10, "debug4": 11, "debug3": 12, "debug2": 13, "debug1": 14, "log": 15,
		"notice": 18, "warning": 19, "error": 21}
	noticeLevels = map[string]int{"DEBUG": 14, "LOG": 15, "": 18, "NOTICE": 18, "WARNING": 19}
)

func (fr *plFrame) raise(st *plStmt) error {
	if st.message == "" && st.cond2 == "" && len(st.options) == 0 {
		if len(fr.caught) == 0 {
			return pgerror.New(pgerror.StackedDiagnosticsAccessedWithoutActiveHandler, "RAISE without parameters cannot be used outside an exception handler")
		}
		return fr.caught[len(fr.caught)-1]
	}
	e := &pgerror.Error{Code: pgerror.RaiseException}
	if st.level < plLevelError {
		e.Code = pgerror.SuccessfulCompletion
		if st.level == plLevelWarning {
			e.Code = pgerror.Warning
		}
	}
	if st.cond2 != "" {
		code, err := conditionCode(st.cond2)
		if err != nil {
			return err
		}
		e.Code, e.Message = code, st.cond2
	}
	if st.message != "" {
		msg, err := fr.format(st.message, st.params)
		if err != nil {
			return err
		}
		e.Message = msg
	}
	// Each item is given once: the condition name counts as ERRCODE and
	// the format as MESSAGE.
	given := map[int]bool{plOptErrcode: st.cond2 != "", plOptMessage: st.message != ""}
	for _, o := range st.options {
		v, t, err := fr.value(o.expr)
		if err != nil {
			return err
		}
		if v == nil {
			return pgerror.Newf(pgerror.NullValueNotAllowed, "RAISE statement option cannot be null")
		}
		if given[o.kind] {
			return pgerror.Newf(pgerror.SyntaxError, "RAISE option already specified: %s", plRaiseOptionNames[o.kind])
		}
		given[o.kind] = true
		text := types.FormatTextEnv(fr.x.env, t, v)
		switch o.kind {
		case plOptErrcode:
			if e.Code, err = conditionCode(text); err != nil {
				return err
			}
			if st.message == "" && st.cond2 == "" && e.Message == "" {
				e.Message = text
			}
		case plOptMessage:
			e.Message = text
		case plOptDetail:
			e.Detail = text
		case plOptHint:
			e.Hint = text
		case plOptColumn:
			e.Column = text
		case plOptConstraint:
			e.Constraint = text
		case plOptTable:
			e.Table = text
		}
	}
	if e.Message == "" {
		e.Message = string(e.Code)
	}
	if st.level >= plLevelError {
		return e
	}
	e.Severity = map[int]string{plLevelDebug: "DEBUG", plLevelLog: "LOG", plLevelInfo: "INFO", plLevelNotice: "NOTICE", plLevelWarning: "WARNING"}[st.level]
	if err := fr.s.untranslatableNotice(e); err != nil {
		return err
	}
	fr.s.notices = append(fr.s.notices, e)
	return nil
}

// conditionCode reads a condition name or a five-character SQLSTATE.
func conditionCode(name string) (pgerror.Code, error) {
	if codes, ok := plConditions[strings.ToLower(name)]; ok {
		return pgerror.Code(codes[0]), nil
	}
	if len(name) == 5 && strings.Trim(strings.ToUpper(name), "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" && !strings.HasPrefix(name, "00") {
		return pgerror.Code(strings.ToUpper(name)), nil
	}
	return "", pgerror.Newf(pgerror.UndefinedObject, "unrecognized exception condition \"%s\"", name)
}

// format replaces each % of a RAISE message by the next parameter's text
// (NULL prints <NULL>); %% is a percent sign.
func (fr *plFrame) format(msg string, params []*plExpr) (string, error) {
	var b strings.Builder
	next := 0
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(msg) && msg[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		if next >= len(params) {
			return "", pgerror.New(pgerror.SyntaxError, "too few parameters specified for RAISE")
		}
		v, t, err := fr.value(params[next])
		if err != nil {
			return "", err
		}
		next++
		if v == nil {
			b.WriteString("<NULL>")
		} else {
			b.WriteString(types.FormatTextEnv(fr.x.env, t, v))
		}
	}
	if next < len(params) {
		return "", pgerror.New(pgerror.SyntaxError, "too many parameters specified for RAISE")
	}
	return b.String(), nil
}

// doPlan plans DO: the block runs as a PL/pgSQL function without
// parameters that returns void.
func (b *binder) doPlan(ds *pg_query.DoStmt) (*stmtPlan, error) {
	f := &funcDesc{name: "inline_code_block", kind: 'f', lang: "plpgsql", result: types.Void, volatility: 'v'}
	for _, a := range ds.Args {
		de := a.GetDefElem()
		switch de.Defname {
		case "as":
			f.src = de.Arg.GetString_().GetSval()
		case "language":
			f.lang = strings.ToLower(de.Arg.GetString_().GetSval())
		}
	}
	if f.lang != "plpgsql" {
		if f.lang == "sql" {
			return nil, pgerror.New(pgerror.FeatureNotSupported, "language \"sql\" does not support inline code execution")
		}
		return nil, pgerror.Newf(pgerror.UndefinedObject, "language \"%s\" does not exist", f.lang)
	}
	if _, err := parsePlpgsql(f, plRowTypes(b)); err != nil {
		return nil, err
	}
	batch := inBatch(b.full)
	return &stmtPlan{exec: func(x *execCtx) (*Result, error) {
		defer delete(x.s.routines, f)
		if _, err := x.s.invokeCalled(x, f, nil, batch); err != nil {
			return nil, err
		}
		return &Result{Tag: "DO"}, nil
	}}, nil
}
