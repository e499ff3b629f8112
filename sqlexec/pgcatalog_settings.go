package sqlexec

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// pg_settings lists the parameters fickle knows that PostgreSQL 15 has,
// with PostgreSQL's description of each (pgdata: unit, category, texts,
// context, type, range, values) and the session's value, reset value and
// its source; fickle's own fickle.* parameters come as PostgreSQL lists an
// extension's, under "Customized Options". Numbers are in the parameter's
// unit, as PostgreSQL's setting, boot_val and reset_val columns give them.
func init() {
	text := types.Text
	textArray, _ := types.ArrayOf(types.Text)
	described := []vcol{{"name", text}, {"unit", text}, {"category", text}, {"short_desc", text}, {"extra_desc", text},
		{"context", text}, {"vartype", text}, {"min_val", text}, {"max_val", text}, {"enumvals", textArray}}
	descriptions := builtinRows(pgdata.PgSettings, described)
	byName := sync.OnceValue(func() map[string][]any {
		m := map[string][]any{}
		for _, r := range descriptions() {
			m[strings.ToLower(r[0].(string))] = r
		}
		return m
	})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_settings",
		cols: []vcol{{"name", text}, {"setting", text}, {"unit", text}, {"category", text}, {"short_desc", text},
			{"extra_desc", text}, {"context", text}, {"vartype", text}, {"source", text}, {"min_val", text}, {"max_val", text},
			{"enumvals", textArray}, {"boot_val", text}, {"reset_val", text}, {"sourcefile", text}, {"sourceline", types.Int4},
			{"pending_restart", types.Bool}},
		rows: func(s *Session, _ *catalog) [][]any { return s.settingRows(byName()) }})
}

// settingRows are pg_settings' rows for the session, in PostgreSQL's
// order (by name, ignoring case), from the parameters' descriptions by
// lower-case name.
func (s *Session) settingRows(descriptions map[string][]any) [][]any {
	names := make([]string, 0, len(settingDefs)+len(transactionSettings))
	for k := range settingDefs {
		if descriptions[k] != nil || strings.HasPrefix(k, "fickle.") {
			names = append(names, k)
		}
	}
	for k := range transactionSettings {
		names = append(names, k)
	}
	libraryDescriptions := s.settings.librarySettingRows()
	for k := range libraryDescriptions {
		names = append(names, k)
	}
	sort.Strings(names)
	overrides := s.engine.sessionOverrides(s.info)
	out := make([][]any, 0, len(names))
	for _, k := range names {
		value, _ := s.setting(k)
		var boot, reset, source string
		desc := descriptions[k]
		if desc == nil {
			desc = libraryDescriptions[k]
		}
		if d := s.settings.def(k); d != nil {
			boot, reset, source = d.def, d.def, "default"
			if v, ok := overrides[k]; ok && v != d.def {
				reset, source = v, "command line"
			}
			if v, ok := s.settings.startup[k]; ok {
				reset, source = v, "client"
			}
			if value != reset {
				// (PostgreSQL says session also after a SET to the
				// reset value; fickle keeps no record of that SET.)
				source = "session"
			}
			if desc == nil {
				desc = []any{d.name, nil, "Customized Options", nil, nil, "user", "string", nil, nil, nil}
			}
		} else {
			// A transaction's own characteristic: PostgreSQL's source
			// is override until the transaction sets it.
			boot, reset, source = transactionSettings[k], transactionSettings[k], "override"
			if value != reset {
				source = "session"
			}
		}
		unit, _ := desc[1].(string)
		vartype := desc[6].(string)
		out = append(out, []any{desc[0], settingInUnit(value, unit, vartype), desc[1], desc[2], desc[3], desc[4], desc[5],
			vartype, source, desc[7], desc[8], desc[9], settingInUnit(boot, unit, vartype), settingInUnit(reset, unit, vartype),
			nil, nil, false})
	}
	return out
}

// transactionSettings are the parameters that show the current
// transaction's characteristics (Session.setting), with the value they
// start from.
var transactionSettings = map[string]string{
	"transaction_isolation": "read committed", "transaction_read_only": "off", "transaction_deferrable": "off",
}

// settingInUnit is a numeric parameter's value v (as SHOW prints it, "1s")
// as a number of its unit ("1000" for ms), as pg_settings gives it; other
// values are returned as they are.
func settingInUnit(v, unit, vartype string) string {
	if vartype != "integer" && vartype != "real" {
		return v
	}
	u := unitNone
	for su, name := range unitName {
		if name == unit {
			u = su
		}
	}
	n, err := parseWithUnit("", v, u)
	if err != nil {
		return v
	}
	if vartype == "integer" {
		return strconv.FormatInt(int64(math.RoundToEven(n)), 10)
	}
	return strconv.FormatFloat(n, 'g', 6, 64)
}
