package sqlexec

import (
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// btree_gist gives scalar types default gist operator classes, which
// exclusion constraints use to compare a column with = or <> beside a
// range's && (ddl_exclusion.go). fickle installs the extension without
// its support functions and operator classes as catalog objects: an
// EXCLUDE USING gist element of a type it covers takes its class while it
// is installed.
func init() {
	registerExtension(&availableExtension{name: "btree_gist", version: "1.7", library: "btree_gist", relocatable: true,
		comment:       "support for indexing common datatypes in GiST",
		otherVersions: []string{"1.2", "1.3", "1.4", "1.5", "1.6"}})
}

// refuseDroppingBtreeGist refuses to drop btree_gist while an exclusion
// constraint uses its operator classes, which PostgreSQL's dependencies
// would drop with it (CASCADE) or name (2BP01).
func (d *ddl) refuseDroppingBtreeGist(ext *extensionDesc) error {
	if ext.name != "btree_gist" {
		return nil
	}
	for _, t := range sortedTables(d.cat) {
		for _, ix := range t.indexes {
			if slices.ContainsFunc(ix.excl, func(el exclusionElem) bool { return el.btreeGist }) {
				return pgerror.Unsupported("DROP EXTENSION btree_gist while exclusion constraint " + ix.name + " uses its operator classes")
			}
		}
	}
	return nil
}
