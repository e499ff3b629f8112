package sqlexec

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// settingDef describes a session setting (a GUC): its default, whether the
// server reports it with ParameterStatus, and how SET normalises its value.
type settingDef struct {
	name     string // canonical spelling, as SHOW ALL and ParameterStatus print it
	def      string
	reported bool
	readOnly bool
	// normalize checks and canonicalises a new value; nil accepts any text.
	normalize func(string) (string, error)
}

// settingDefs lists the settings fickle knows, by lower-case name.
var settingDefs = func() map[string]*settingDef {
	defs := []*settingDef{
		{name: "server_version", def: "15.0", reported: true, readOnly: true},
		{name: "server_version_num", def: "150000", readOnly: true},
		{name: "server_encoding", def: "UTF8", reported: true, readOnly: true},
		{name: "client_encoding", def: "UTF8", reported: true, normalize: normEncoding},
		{name: "DateStyle", def: "ISO, MDY", reported: true, normalize: normDateStyle},
		{name: "IntervalStyle", def: "postgres", reported: true, normalize: normOneOf("postgres")},
		{name: "TimeZone", def: "UTC", reported: true, normalize: normTimeZone},
		{name: "integer_datetimes", def: "on", reported: true, readOnly: true},
		{name: "standard_conforming_strings", def: "on", reported: true, normalize: normOneOf("on")},
		{name: "is_superuser", def: "on", reported: true, readOnly: true},
		{name: "session_authorization", def: "postgres", reported: true, readOnly: true},
		{name: "application_name", def: "", reported: true},
		{name: "default_transaction_read_only", def: "off", reported: true, normalize: normBool},
		{name: "in_hot_standby", def: "off", reported: true, readOnly: true},
		{name: "search_path", def: `"$user", public`},
		{name: "statement_timeout", def: "0", normalize: normDuration},
		{name: "lock_timeout", def: "0", normalize: normDuration},
		{name: "idle_in_transaction_session_timeout", def: "0", normalize: normDuration},
		{name: "idle_session_timeout", def: "0", normalize: normDuration},
		{name: "default_transaction_isolation", def: "read committed", normalize: normIsolation},
		{name: "default_transaction_deferrable", def: "off", normalize: normBool},
		{name: "extra_float_digits", def: "1", normalize: normIntRange(-15, 3)},
		{name: "client_min_messages", def: "notice", normalize: normOneOf("debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error")},
		{name: "bytea_output", def: "hex", normalize: normOneOf("hex")},
		{name: "max_identifier_length", def: "63", readOnly: true},
		{name: "synchronous_commit", def: "on"},
		{name: "row_security", def: "on"},
		{name: "lc_messages", def: "C"},
		{name: "lc_monetary", def: "C"},
		{name: "lc_numeric", def: "C"},
		{name: "lc_time", def: "C"},
		{name: "datestyle_order", def: "MDY", readOnly: true},
		{name: "timezone_abbreviations", def: "Default"},
		{name: "fickle.isolation", def: "", normalize: normFickleLevel},
		{name: "fickle.strategy", def: "adversarial", normalize: normOneOf("adversarial", "latest", "random", "oldest")},
		{name: "fickle.session", def: ""},
	}
	m := make(map[string]*settingDef, len(defs))
	for _, d := range defs {
		m[strings.ToLower(d.name)] = d
	}
	return m
}()

// settings holds a session's current values by lower-case name, plus the
// values SET LOCAL overrode until the transaction ends.
type settings struct {
	vals    map[string]string
	local   map[string]string // previous values to restore at transaction end
	changed map[string]bool   // reported settings changed since TakeChangedParameters
}

// newSettings returns a session's initial settings: the defaults, then the
// engine's overrides (by lower-case name), then the startup parameters.
func newSettings(info SessionInfo, overrides map[string]string) settings {
	s := settings{vals: make(map[string]string), changed: make(map[string]bool)}
	for k, d := range settingDefs {
		s.vals[k] = d.def
	}
	for k, v := range overrides {
		s.vals[k] = v
	}
	if info.User != "" {
		s.vals["session_authorization"] = info.User
	}
	s.vals["application_name"] = info.ApplicationName
	keys := make([]string, 0, len(info.StartupParams))
	for k := range info.StartupParams {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		lk := strings.ToLower(k)
		d := settingDefs[lk]
		if d == nil || d.readOnly {
			continue
		}
		v := info.StartupParams[k]
		if d.normalize != nil {
			nv, err := d.normalize(v)
			if err != nil {
				continue
			}
			v = nv
		}
		s.vals[lk] = v
		if lk == "default_transaction_isolation" {
			// The client's choice of PostgreSQL's default beats the
			// server's fickle.isolation (a fickle.isolation startup
			// parameter, sorted after it, still beats both).
			s.vals["fickle.isolation"] = ""
		}
	}
	s.changed = make(map[string]bool)
	return s
}

// set assigns a setting. local marks SET LOCAL: the old value comes back
// when the transaction ends.
func (s *settings) set(name, value string, local bool) error {
	lk := strings.ToLower(name)
	d := settingDefs[lk]
	if d == nil {
		if !strings.Contains(lk, ".") {
			return pgerror.Newf(pgerror.UndefinedObject, "unrecognized configuration parameter %q", name)
		}
	} else {
		if d.readOnly {
			return pgerror.Newf(pgerror.CantChangeRuntimeParam, "parameter %q cannot be changed", d.name)
		}
		if d.normalize != nil {
			nv, err := d.normalize(value)
			if err != nil {
				return err
			}
			value = nv
		}
	}
	if local {
		if s.local == nil {
			s.local = make(map[string]string)
		}
		if _, ok := s.local[lk]; !ok {
			s.local[lk] = s.vals[lk]
		}
	}
	if s.vals[lk] != value && d != nil && d.reported {
		s.changed[lk] = true
	}
	s.vals[lk] = value
	return nil
}

// endTxn restores the values SET LOCAL overrode.
func (s *settings) endTxn() {
	for k, v := range s.local {
		if s.vals[k] != v && settingDefs[k] != nil && settingDefs[k].reported {
			s.changed[k] = true
		}
		s.vals[k] = v
	}
	s.local = nil
}

func (s *settings) get(name string) (string, bool) {
	v, ok := s.vals[strings.ToLower(name)]
	return v, ok
}

func (s *Session) reportedParameters() map[string]string {
	out := make(map[string]string)
	for k, d := range settingDefs {
		if d.reported {
			out[d.name] = s.settings.vals[k]
		}
	}
	return out
}

func (s *Session) takeChangedParameters() map[string]string {
	if len(s.settings.changed) == 0 {
		return nil
	}
	out := make(map[string]string, len(s.settings.changed))
	for k := range s.settings.changed {
		out[settingDefs[k].name] = s.settings.vals[k]
	}
	s.settings.changed = make(map[string]bool)
	return out
}

func (s *Session) setting(name string) (string, bool) {
	switch strings.ToLower(name) {
	case "transaction_isolation":
		return s.transactionIsolation(), true
	case "transaction_read_only":
		if s.txn != nil && s.txn.readOnly {
			return "on", true
		}
		v, _ := s.settings.get("default_transaction_read_only")
		return v, true
	case "transaction_deferrable":
		v, _ := s.settings.get("default_transaction_deferrable")
		return v, true
	}
	return s.settings.get(name)
}

// StatementTimeout returns the session's statement_timeout, 0 for none.
func (s *Session) StatementTimeout() time.Duration { return s.durationSetting("statement_timeout") }

// LockTimeout returns the session's lock_timeout, 0 for none.
func (s *Session) LockTimeout() time.Duration { return s.durationSetting("lock_timeout") }

func (s *Session) durationSetting(name string) time.Duration {
	v, _ := s.settings.get(name)
	ms, err := parseDurationMS(v)
	if err != nil {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// transactionIsolation answers SHOW transaction_isolation in PostgreSQL's
// terms.
func (s *Session) transactionIsolation() string {
	lvl := s.defaultLevel()
	if s.txn != nil {
		lvl = s.txn.level
	}
	return pgLevelName(lvl)
}

// pgLevelName names a level the way PostgreSQL's SHOW does; fickle's own
// levels between read committed and repeatable read report the nearest
// weaker PostgreSQL level.
func pgLevelName(l history.Level) string {
	switch l {
	case history.Serializable:
		return "serializable"
	case history.Snapshot:
		return "repeatable read"
	default:
		return "read committed"
	}
}

// setValue turns the arguments of SET into the setting's text.
func setValue(name string, args []*pg_query.Node) (string, error) {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		n := a
		if tc := n.GetTypeCast(); tc != nil {
			n = tc.Arg
		}
		c := n.GetAConst()
		if c == nil {
			return "", pgerror.Newf(pgerror.SyntaxError, "invalid value for parameter %q", name)
		}
		switch v := c.Val.(type) {
		case *pg_query.A_Const_Sval:
			parts = append(parts, v.Sval.Sval)
		case *pg_query.A_Const_Ival:
			parts = append(parts, strconv.FormatInt(int64(v.Ival.Ival), 10))
		case *pg_query.A_Const_Fval:
			parts = append(parts, v.Fval.Fval)
		case *pg_query.A_Const_Boolval:
			if v.Boolval.Boolval {
				parts = append(parts, "on")
			} else {
				parts = append(parts, "off")
			}
		default:
			return "", pgerror.Newf(pgerror.SyntaxError, "invalid value for parameter %q", name)
		}
	}
	if strings.EqualFold(name, "search_path") {
		for i, p := range parts {
			if p != strings.ToLower(p) || strings.ContainsAny(p, " ,\"$") {
				parts[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
			}
		}
	}
	return strings.Join(parts, ", "), nil
}

func invalidValue(name, v string) error {
	return pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter %q: %q", name, v)
}

func normBool(v string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "yes", "1", "t", "y":
		return "on", nil
	case "off", "false", "no", "0", "f", "n":
		return "off", nil
	}
	return "", invalidValue("boolean", v)
}

func normOneOf(allowed ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		lv := strings.ToLower(strings.TrimSpace(v))
		for _, a := range allowed {
			if lv == a {
				return a, nil
			}
		}
		return "", pgerror.Newf(pgerror.InvalidParameterValue, "invalid value %q (allowed: %s)", v, strings.Join(allowed, ", "))
	}
}

func normIntRange(lo, hi int) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return "", pgerror.Newf(pgerror.InvalidParameterValue, "invalid value %q: an integer is required", v)
		}
		if n < lo || n > hi {
			return "", pgerror.Newf(pgerror.InvalidParameterValue, "%d is outside the valid range (%d .. %d)", n, lo, hi)
		}
		return strconv.Itoa(n), nil
	}
}

func normEncoding(v string) (string, error) {
	switch strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(v), "-", "")) {
	case "UTF8", "UNICODE":
		return "UTF8", nil
	}
	return "", pgerror.Newf(pgerror.FeatureNotSupported, "client encoding %q is not supported by fickle (only UTF8)", v)
}

// normDateStyle accepts the ISO output style with MDY, DMY or YMD order;
// other output styles are not supported.
func normDateStyle(v string) (string, error) {
	style, order := "ISO", "MDY"
	for _, p := range strings.Split(v, ",") {
		switch strings.ToUpper(strings.TrimSpace(p)) {
		case "ISO":
		case "MDY", "US", "NONEURO", "NONEUROPEAN":
			order = "MDY"
		case "DMY", "EURO", "EUROPEAN":
			order = "DMY"
		case "YMD":
			order = "YMD"
		case "":
		case "SQL", "POSTGRES", "GERMAN":
			return "", pgerror.Unsupported("DateStyle " + strings.TrimSpace(p))
		default:
			return "", invalidValue("DateStyle", v)
		}
	}
	return style + ", " + order, nil
}

func normTimeZone(v string) (string, error) {
	t := strings.TrimSpace(v)
	switch strings.ToLower(t) {
	case "utc", "z", "zulu", "gmt", "etc/utc", "universal":
		return "UTC", nil
	case "local":
		return "UTC", nil
	}
	if _, err := time.LoadLocation(t); err != nil {
		if _, err2 := strconv.ParseFloat(t, 64); err2 == nil {
			return t, nil
		}
		return "", invalidValue("TimeZone", v)
	}
	return t, nil
}

func normIsolation(v string) (string, error) {
	l, err := history.ParseLevel(v)
	if err != nil {
		return "", invalidValue("default_transaction_isolation", v)
	}
	lv := strings.ToLower(strings.TrimSpace(v))
	if lv == "read uncommitted" {
		return lv, nil
	}
	switch l {
	case history.Serializable:
		return "serializable", nil
	case history.Snapshot:
		return "repeatable read", nil
	case history.ReadCommitted:
		return "read committed", nil
	}
	return "", invalidValue("default_transaction_isolation", v)
}

func normFickleLevel(v string) (string, error) {
	if strings.TrimSpace(v) == "" {
		return "", nil
	}
	l, err := history.ParseLevel(v)
	if err != nil {
		return "", invalidValue("fickle.isolation", v)
	}
	return l.String(), nil
}

func normDuration(v string) (string, error) {
	ms, err := parseDurationMS(v)
	if err != nil {
		return "", err
	}
	return formatDurationMS(ms), nil
}

// parseDurationMS reads a time setting: a bare number is milliseconds,
// otherwise a number with one of PostgreSQL's units.
func parseDurationMS(v string) (int64, error) {
	t := strings.TrimSpace(v)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.' || t[i] == '-') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for a time setting: %q", v)
	}
	mult := map[string]float64{"": 1, "us": 0.001, "ms": 1, "s": 1000, "min": 60000, "h": 3600000, "d": 86400000}
	m, ok := mult[unit]
	if !ok {
		return 0, pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for a time setting: %q", v).
			WithHint(`Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".`)
	}
	ms := f * m
	if ms < 0 || ms > 2147483647 {
		return 0, pgerror.Newf(pgerror.InvalidParameterValue, "%s is outside the valid range (0 .. 2147483647)", v)
	}
	return int64(ms + 0.5), nil
}

// formatDurationMS prints milliseconds the way SHOW does: the largest unit
// that divides the value exactly.
func formatDurationMS(ms int64) string {
	if ms == 0 {
		return "0"
	}
	units := []struct {
		n    int64
		name string
	}{{86400000, "d"}, {3600000, "h"}, {60000, "min"}, {1000, "s"}}
	for _, u := range units {
		if ms%u.n == 0 {
			return fmt.Sprintf("%d%s", ms/u.n, u.name)
		}
	}
	return fmt.Sprintf("%dms", ms)
}
