package sqlexec

import (
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The catalogs of publications: pg_publication, pg_publication_rel,
// pg_publication_namespace, the view pg_publication_tables and
// pg_get_publication_tables, which psql's \dRp, \dRp+ and \d read.
// prqual holds the row filter's SQL text, which pg_get_expr decompiles,
// as pg_attrdef.adbin does.

// publishedTables are the tables whose changes p publishes, as
// pg_get_publication_tables lists them: with publish_via_partition_root
// a partitioned table stands for its partitions, without it its leaf
// partitions stand for it.
func (c *catalog) publishedTables(p *publicationDesc) []*tableDesc {
	var out []*tableDesc
	add := func(t *tableDesc) {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	withPartitions := func(t *tableDesc) {
		if t.part == nil || p.viaRoot {
			add(t)
			return
		}
		for _, d := range c.descendants(t) {
			if d.part == nil {
				add(d)
			}
		}
	}
	if p.allTables {
		for _, t := range sortedTables(c) {
			if !isPublishable(t) || t.part != nil && !p.viaRoot || p.viaRoot && t.part == nil && t.bound != nil {
				continue
			}
			add(t)
		}
		return out
	}
	for _, r := range c.liveRels(p) {
		withPartitions(c.tables[r.rel])
	}
	for _, s := range c.liveSchemas(p) {
		for _, t := range sortedTables(c) {
			if sc := c.schemas[t.schema]; sc == nil || sc.oid != s.nsp || !isPublishable(t) {
				continue
			}
			withPartitions(t)
		}
	}
	if !p.viaRoot {
		return out
	}
	// filter_partitions: a partition goes when an ancestor is listed.
	return slices.DeleteFunc(slices.Clone(out), func(t *tableDesc) bool {
		return slices.ContainsFunc(c.partitionAncestors(t), func(a *tableDesc) bool { return slices.Contains(out, a) })
	})
}

// publishedColumns are the attnums of p's column list for t, nil when it
// has none (pg_get_publication_tables' attrs).
func (c *catalog) publishedColumns(p *publicationDesc, t *tableDesc) []int16 {
	if r := c.relOf(p, t.oid); r != nil {
		return r.cols
	}
	return nil
}

// publishedQual is p's stored row filter for t, nil for none.
func (c *catalog) publishedQual(p *publicationDesc, t *tableDesc) any {
	if r := c.relOf(p, t.oid); r != nil && r.qual != "" {
		return r.qual
	}
	return nil
}

func int16sAny(a []int16) any {
	if a == nil {
		return nil
	}
	out := make([]any, len(a))
	for i, v := range a {
		out[i] = int64(v)
	}
	return out
}

// publicationTablesRows are pg_get_publication_tables(pubname)'s rows.
func publicationTablesRows(x *execCtx, args []any) ([][]any, error) {
	c, _ := x.s.catalog()
	p := c.publications[args[0].(string)]
	if p == nil {
		return nil, pgerror.Newf(pgerror.UndefinedObject, "publication \"%s\" does not exist", args[0].(string))
	}
	var out [][]any
	for _, t := range c.publishedTables(p) {
		out = append(out, []any{int64(t.oid), int16sAny(c.publishedColumns(p, t)), c.publishedQual(p, t)})
	}
	return out, nil
}

// bindPublicationTables binds pg_get_publication_tables(text).
func bindPublicationTables(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	if len(args) != 1 {
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function pg_get_publication_tables with %d arguments does not exist", len(args)), loc)
	}
	var err error
	if args[0], err = b.coerce(args[0], types.Text, types.CastImplicit); err != nil {
		return nil, err
	}
	return []types.Field{{Name: "relid", Type: types.OidType}, {Name: "attrs", Type: types.Int2Vector}, {Name: "qual", Type: types.Text}}, nil
}

func init() {
	name, oid, b, text := types.Name, types.OidType, types.Bool, types.Text
	nameArray, _ := types.ArrayOf(types.Name)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_publication",
		cols: []vcol{{"oid", oid}, {"pubname", name}, {"pubowner", oid}, {"puballtables", b},
			{"pubinsert", b}, {"pubupdate", b}, {"pubdelete", b}, {"pubtruncate", b}, {"pubviaroot", b}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, p := range c.sortedPublications() {
				out = append(out, []any{int64(p.oid), p.name, int64(p.owner), p.allTables, p.insert, p.update, p.delete, p.truncate, p.viaRoot})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_publication_rel",
		cols: []vcol{{"oid", oid}, {"prpubid", oid}, {"prrelid", oid}, {"prqual", text}, {"prattrs", types.Int2Vector}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, p := range c.sortedPublications() {
				for _, r := range c.liveRels(p) {
					var qual any
					if r.qual != "" {
						qual = r.qual
					}
					out = append(out, []any{int64(r.oid), int64(p.oid), int64(r.rel), qual, int16sAny(r.cols)})
				}
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_publication_namespace",
		cols: []vcol{{"oid", oid}, {"pnpubid", oid}, {"pnnspid", oid}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, p := range c.sortedPublications() {
				for _, sc := range c.liveSchemas(p) {
					out = append(out, []any{int64(sc.oid), int64(p.oid), int64(sc.nsp)})
				}
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_publication_tables",
		cols: []vcol{{"pubname", name}, {"schemaname", name}, {"tablename", name}, {"attnames", nameArray}, {"rowfilter", text}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, p := range c.sortedPublications() {
				for _, t := range c.publishedTables(p) {
					// Every column when there is no column list, as
					// PostgreSQL 15's view reads pg_attribute.
					cols := c.publishedColumns(p, t)
					var names []any
					for _, col := range t.cols {
						if cols == nil || slices.Contains(cols, col.attnum) {
							names = append(names, col.name)
						}
					}
					var attnames, filter any
					if names != nil {
						attnames = names
					}
					if q := c.publishedQual(p, t); q != nil {
						filter = decompile(s, c, q.(string), t.oid, false)
					}
					out = append(out, []any{p.name, t.schema, t.name, attnames, filter})
				}
			}
			return out
		}})
}
