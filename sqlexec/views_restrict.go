package sqlexec

import (
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// normRestrictRelationKind checks restrict_nonsystem_relation_kind, a list
// of the relation kinds ("view", "foreign-table") whose user-defined
// relations a session may not read or write, as PostgreSQL's check hook
// does; the value is kept as given.
func normRestrictRelationKind(v string) (string, error) {
	for _, kind := range restrictedKinds(v) {
		if kind != "view" && kind != "foreign-table" {
			return "", invalidValue("restrict_nonsystem_relation_kind", v).WithDetail("Unrecognized key word: \"%s\".", kind)
		}
	}
	return v, nil
}

// restrictedKinds splits a restrict_nonsystem_relation_kind value into its
// lower-cased kinds.
func restrictedKinds(v string) []string {
	var kinds []string
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if strings.HasPrefix(part, `"`) && strings.HasSuffix(part, `"`) && len(part) >= 2 {
			part = part[1 : len(part)-1]
		} else {
			part = strings.ToLower(part)
		}
		if part != "" {
			kinds = append(kinds, part)
		}
	}
	return kinds
}

// checkViewAccess refuses to expand or write the user-defined view v when
// restrict_nonsystem_relation_kind lists views, as PostgreSQL's rewriter
// does (55000); fickle's system views are built in and never refused.
func (b *binder) checkViewAccess(v *viewDesc) error {
	setting, _ := b.s.settings.get("restrict_nonsystem_relation_kind")
	for _, kind := range restrictedKinds(setting) {
		if kind == "view" {
			return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "access to non-system view \"%s\" is restricted", v.name)
		}
	}
	return nil
}
