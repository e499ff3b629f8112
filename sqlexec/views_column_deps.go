package sqlexec

import (
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// viewsUsingColumn returns the views that may read column name of t: those
// that read t and name a column so, or take all of a relation's columns
// (*). certain says every one of them surely reads it, as when a view
// reads t alone without subqueries in FROM or WITH queries, where a
// column of that name can only be t's.
func (d *ddl) viewsUsingColumn(t *tableDesc, name string) (views []*viewDesc, certain bool) {
	certain = true
	for _, v := range sortedViews(d.cat) {
		if !slices.Contains(v.deps, t.oid) {
			continue
		}
		found, nested := false, false
		walk(v.query, func(n *pg_query.Node) bool {
			if n.GetRangeSubselect() != nil || n.GetWithClause() != nil {
				nested = true
			}
			if cr := n.GetColumnRef(); cr != nil {
				last := cr.Fields[len(cr.Fields)-1]
				if last.GetAStar() != nil || last.GetString_().GetSval() == name {
					found = true
				}
			}
			return true
		})
		if found {
			views = append(views, v)
			certain = certain && !nested && len(v.deps) == 1
		}
	}
	return views, certain
}

// checkColumnDropForViews refuses to drop column name of t while a view
// reads it: PostgreSQL's dependency error (2BP01) when the view surely
// does, 0A000 when it only may; CASCADE drops the views that surely read it
// (and refuses when one only may).
func (d *ddl) checkColumnDropForViews(t *tableDesc, name string, cascade bool) error {
	if mv := d.matviewReadingColumn(t, name); mv != nil {
		return pgerror.Unsupported(fmt.Sprintf("DROP COLUMN of a column that materialized view %s may read", mv.name))
	}
	views, certain := d.viewsUsingColumn(t, name)
	switch {
	case len(views) == 0:
		return nil
	case cascade && certain:
		// The views go, and what reads them, as PostgreSQL's cascade does.
		var oids []uint32
		var names []string
		for _, v := range views {
			oids, names = append(oids, v.oid), append(names, "view "+v.name)
		}
		return d.dropCascading("view", oids, names, true, func() {
			for _, v := range views {
				d.dropView(v)
			}
		})
	case cascade:
		return pgerror.Unsupported(fmt.Sprintf("DROP COLUMN ... CASCADE of a column that view %s may read", views[0].name))
	case !certain:
		return pgerror.Unsupported(fmt.Sprintf("DROP COLUMN of a column that view %s may read", views[0].name))
	}
	var detail []string
	for _, v := range views {
		detail = append(detail, fmt.Sprintf("view %s depends on column %s of table %s", v.name, name, t.name))
	}
	return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop column %s of table %s because other objects depend on it", name, t.name).
		WithDetail("%s", strings.Join(detail, "\n")).
		WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
}

// checkColumnTypeForViews refuses to change the type of column name of t
// while a view may read it, as PostgreSQL does (0A000).
func (d *ddl) checkColumnTypeForViews(t *tableDesc, name string) error {
	if mv := d.matviewReadingColumn(t, name); mv != nil {
		return pgerror.Unsupported(fmt.Sprintf("ALTER COLUMN TYPE of a column that materialized view %s may read", mv.name))
	}
	views, certain := d.viewsUsingColumn(t, name)
	switch {
	case len(views) == 0:
		return nil
	case !certain:
		return pgerror.Unsupported(fmt.Sprintf("ALTER COLUMN TYPE of a column that view %s may read", views[0].name))
	}
	return pgerror.New(pgerror.FeatureNotSupported, "cannot alter type of a column used by a view or rule").
		WithDetail("rule _RETURN on view %s depends on column \"%s\"", views[0].name, name)
}
