package sqlexec

import (
	"slices"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Settings an extension's library defines (pg_trgm's thresholds). As in
// PostgreSQL they exist in a session only once the library is loaded
// there: by CREATE EXTENSION, which validates its C functions, or by the
// first call of one of its functions. Until then a name under the
// library's prefix is a placeholder like any other custom setting; on
// loading, a placeholder's value is checked (a bad one is dropped with a
// WARNING), other placeholders under the prefix are removed with a
// WARNING, and the prefix is reserved: SET of an unknown name under it
// fails (PostgreSQL's MarkGUCPrefixReserved).

// librarySettingDef is a setting of a library: its definition and its
// pg_settings description (short_desc, extra_desc, vartype, min_val,
// max_val).
type librarySettingDef struct {
	*settingDef
	short, extra, vartype, min, max string
	// show, when set, is how SHOW and current_setting print the value
	// kept.
	show func(string) string
}

// librarySetting is the settings a library defines under its prefix.
type librarySetting struct {
	prefix string
	defs   []librarySettingDef
}

// librarySettings are the libraries that define settings, by library.
var librarySettings = map[string]*librarySetting{}

// def returns the definition of setting lk for the session: a built-in
// one, or a loaded library's; nil for none.
func (s *settings) def(lk string) *settingDef {
	if d := settingDefs[lk]; d != nil {
		return d
	}
	if d, ok := s.library[lk]; ok {
		return d.settingDef
	}
	return nil
}

// reservedPrefix fails for an unknown setting lk under a loaded library's
// prefix, as PostgreSQL's check for reserved prefixes does.
func (s *settings) reservedPrefix(lk, name string) error {
	prefix, _, _ := strings.Cut(lk, ".")
	if !slices.Contains(s.reserved, prefix) {
		return nil
	}
	return pgerror.Newf(pgerror.InvalidName, "invalid configuration parameter name \"%s\"", name).
		WithDetail("\"%s\" is a reserved prefix.", prefix)
}

// loadLibrary defines the settings of library lib in the session, once.
func (s *Session) loadLibrary(lib string) {
	ls := librarySettings[lib]
	if s == nil || ls == nil || slices.Contains(s.settings.reserved, ls.prefix) {
		return
	}
	st := &s.settings
	if st.library == nil {
		st.library = map[string]librarySettingDef{}
	}
	for _, d := range ls.defs {
		lk := strings.ToLower(d.name)
		st.library[lk] = d
		v, placeholder := st.vals[lk]
		if !placeholder {
			st.vals[lk] = d.def
			continue
		}
		nv, err := d.normalize(v)
		if err != nil {
			if pe, ok := err.(*pgerror.Error); ok {
				s.warn(pe)
			}
			nv = d.def
		}
		st.vals[lk] = nv
	}
	keys := make([]string, 0, len(st.vals))
	for k := range st.vals {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if _, defined := st.library[k]; !defined && strings.HasPrefix(k, ls.prefix+".") {
			s.warn(pgerror.Newf(pgerror.InvalidName, "invalid configuration parameter name \"%s\", removing it", k).
				WithDetail("\"%s\" is now a reserved prefix.", ls.prefix))
			delete(st.vals, k)
		}
	}
	st.reserved = append(st.reserved, ls.prefix)
	st.version++
}

// librarySettingRows are pg_settings' descriptions of the loaded
// libraries' settings, by lower-case name, in pg_settings' column order
// (name, unit, category, short_desc, extra_desc, context, vartype,
// min_val, max_val, enumvals).
func (s *settings) librarySettingRows() map[string][]any {
	out := map[string][]any{}
	for lk, d := range s.library {
		out[lk] = []any{d.name, nil, "Customized Options", d.short, d.extra, "user", d.vartype, d.min, d.max, nil}
	}
	return out
}
