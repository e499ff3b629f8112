package sqlexec

import "strings"

// A plan resolves unqualified names along the search path in force when it
// was made. PostgreSQL's plan cache records that path with the plan and
// analyzes the statement again when a later execution finds another one
// in force (RevalidateCachedQuery), whatever changed it: SET, SET LOCAL,
// RESET, the end of a routine's SET clause, a rolled-back SET. It compares
// the effective path, the schemas searched that exist, so a change of the
// setting's text that searches the same schemas keeps the plan.

// pathMemo caches planPath for one catalog version, settings version and
// temporary schema.
type pathMemo struct {
	catalog, settings uint64
	temp              int
	creating          string
	key               string
	valid             bool
}

// planPath returns the session's effective search path as one string:
// the schemas it searches, in order, leaving out those that do not exist
// in the catalog it sees (the system schemas and the temporary one always
// do).
func (s *Session) planPath() string {
	cat, version := s.catalog()
	m := &s.pathMemo
	if m.valid && m.catalog == version && m.settings == s.settings.version && m.temp == s.tempID && m.creating == s.schemaBeingCreated {
		return m.key
	}
	var b strings.Builder
	for _, p := range s.searchPath() {
		if _, ok := cat.schemas[p]; ok || p == "pg_catalog" || p == "information_schema" || isTempSchema(p) {
			b.WriteString(p)
			b.WriteByte(0)
		}
	}
	*m = pathMemo{valid: true, catalog: version, settings: s.settings.version, temp: s.tempID, creating: s.schemaBeingCreated, key: b.String()}
	return m.key
}
