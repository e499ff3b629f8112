package sqlexec

import (
	"strconv"
	"strings"
	"time"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// The session's value environment: what types needs to read and print
// values as the session's settings ask (TimeZone, DateStyle,
// extra_float_digits, the catalog for regclass and its kin).

// newEnv returns the evaluation environment of a statement.
func (s *Session) newEnv() *types.Env {
	return s.fillEnv(new(types.Env))
}

// fillEnv makes env the evaluation environment of a statement and returns
// it.
func (s *Session) fillEnv(env *types.Env) *types.Env {
	now := time.Now().UTC()
	txnTime := now
	if s.txn != nil {
		txnTime = s.txn.start
	}
	*env = *s.textEnv()
	env.TxnTime, env.StmtTime, env.Rand = txnTime, now, cryptoRand{}
	env.Clock = func() time.Time { return time.Now().UTC() }
	return env
}

// textEnv is the environment values are read and printed in, without a
// clock or randomness; it is kept until a setting changes, and callers
// must not change it.
func (s *Session) textEnv() *types.Env {
	if s.env != nil && s.envVersion == s.settings.version {
		return s.env
	}
	env := &types.Env{Location: s.location(), Catalog: catalogNames{s: s}, TextSearch: sessionTextSearch{s}}
	ds, _ := s.settings.get("DateStyle")
	env.DateStyle = parseDateStyle(ds)
	env.IntervalStyle = s.intervalStyle()
	bo, _ := s.settings.get("bytea_output")
	env.ByteaEscape = bo == "escape"
	xo, _ := s.settings.get("xmloption")
	env.XMLOptionDocument = xo == "document"
	xb, _ := s.settings.get("xmlbinary")
	env.XMLBinaryHex = xb == "hex"
	if efd, _ := s.settings.get("extra_float_digits"); efd != "" {
		if n, err := strconv.Atoi(efd); err == nil && n <= 0 {
			env.FloatDigits = 15 + n
		}
	}
	s.env, s.envVersion = env, s.settings.version
	return env
}

// intervalStyle returns the session's IntervalStyle.
func (s *Session) intervalStyle() types.IntervalStyle {
	v, _ := s.settings.get("IntervalStyle")
	switch v {
	case "iso_8601":
		return types.IntervalISO8601
	case "postgres_verbose":
		return types.IntervalPostgresVerbose
	case "sql_standard":
		return types.IntervalSQLStandard
	}
	return types.IntervalPostgres
}

// parseDateStyle reads the DateStyle setting as normDateStyle writes it.
func parseDateStyle(v string) types.DateStyle {
	style, order, _ := strings.Cut(v, ", ")
	ds := types.DateStyle{Style: map[string]types.DateOutput{"SQL": types.DateSQL, "Postgres": types.DatePostgres,
		"German": types.DateGerman}[style]}
	ds.Order = map[string]types.DateOrder{"DMY": types.OrderDMY, "YMD": types.OrderYMD}[order]
	return ds
}

// location returns the session TimeZone as a location, nil for UTC; the
// last one loaded is kept (time.LoadLocation reads the zone database).
func (s *Session) location() *time.Location {
	tz, _ := s.settings.get("TimeZone")
	if tz == "" || tz == "UTC" {
		return nil
	}
	if s.tzName == tz {
		return s.tzLoc
	}
	loc, _, err := types.ParseTimeZone(tz, false)
	if err != nil {
		loc = nil
	}
	s.tzName, s.tzLoc = tz, loc
	return loc
}

// FormatText is types.FormatTextEnv in the session: its TimeZone,
// DateStyle and extra_float_digits, regclass and its kin as names along
// its search path, as PostgreSQL's text output gives them.
func (s *Session) FormatText(t types.Type, v any) string {
	return types.FormatTextEnv(s.textEnv(), t, v)
}

// ParseText is types.ParseTextEnv in the session: timestamptz without a
// zone in its TimeZone, dates in its DateStyle's order, regclass names
// along its search path.
func (s *Session) ParseText(t types.Type, text string) (any, error) {
	return types.ParseTextEnv(s.textEnv(), t, text)
}
