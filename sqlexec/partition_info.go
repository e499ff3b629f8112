package sqlexec

import (
	"slices"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// partitionGraph is the shape of the catalog's partition trees, of tables
// and of their indexes, as pg_partition_tree, pg_partition_ancestors and
// pg_partition_root walk them: each relation's kind, whether it is a
// partition, its parent and its children in OID order.
type partitionGraph struct {
	kind      map[uint32]string
	partition map[uint32]bool
	parent    map[uint32]uint32
	children  map[uint32][]uint32
}

// partitionGraph returns the partition trees of the session's catalog,
// made once for each catalog: psql's \d asks for a table's ancestors.
func (s *Session) partitionGraph() *partitionGraph {
	c, _ := s.catalog()
	return s.catalogMemo(c, partitionGraphKey{}, func() any { return newPartitionGraph(c) }).(*partitionGraph)
}

// partitionGraphKey keys the partition graph in catalogMemo.
type partitionGraphKey struct{}

// newPartitionGraph reads the partition trees of catalog c from its
// pg_class and pg_inherits rows.
func newPartitionGraph(c *catalog) *partitionGraph {
	g := &partitionGraph{kind: map[uint32]string{}, partition: map[uint32]bool{}, parent: map[uint32]uint32{}, children: map[uint32][]uint32{}}
	for _, r := range relationRows(c) {
		g.kind[r.oid], g.partition[r.oid] = r.kind, r.partition
	}
	for _, row := range inheritsRows(c) {
		child, parent := uint32(row[0].(int64)), uint32(row[1].(int64))
		if g.partition[child] {
			g.parent[child] = parent
			g.children[parent] = append(g.children[parent], child)
		}
	}
	for _, kids := range g.children {
		slices.Sort(kids)
	}
	return g
}

// hasPartitions reports whether relation oid is a partitioned table or a
// partitioned index.
func (g *partitionGraph) hasPartitions(oid uint32) bool {
	return g.kind[oid] == "p" || g.kind[oid] == "I"
}

// inTree reports whether relation oid can sit in a partition tree, as
// PostgreSQL's check_rel_can_be_partition: it exists and is a partition
// or has partitions. The functions answer nothing for any other.
func (g *partitionGraph) inTree(oid uint32) bool {
	_, ok := g.kind[oid]
	return ok && (g.partition[oid] || g.hasPartitions(oid))
}

// ancestors lists the relations above oid, nearest first.
func (g *partitionGraph) ancestors(oid uint32) []uint32 {
	var out []uint32
	for p, ok := g.parent[oid]; ok; p, ok = g.parent[p] {
		out = append(out, p)
	}
	return out
}

// partitionAncestorsRows is pg_partition_ancestors(rel): rel then the
// relations above it, none for a relation outside any partition tree.
func partitionAncestorsRows(x *execCtx, args []any) ([][]any, error) {
	g, oid := x.s.partitionGraph(), uint32(args[0].(int64))
	if !g.inTree(oid) {
		return nil, nil
	}
	out := [][]any{{int64(oid)}}
	for _, a := range g.ancestors(oid) {
		out = append(out, []any{int64(a)})
	}
	return out, nil
}

// partitionRoot is pg_partition_root(rel): the top of rel's partition
// tree, NULL for a relation outside any.
func partitionRoot(x *execCtx, args []any) (any, error) {
	g, oid := x.s.partitionGraph(), uint32(args[0].(int64))
	if !g.inTree(oid) {
		return nil, nil
	}
	if up := g.ancestors(oid); len(up) > 0 {
		return int64(up[len(up)-1]), nil
	}
	return int64(oid), nil
}

func init() {
	addSysFunc("pg_partition_root", sysFunc{args: []types.Type{types.Regclass}, result: types.Regclass, eval: partitionRoot})
}

var partitionTreeFields = []types.Field{{Name: "relid", Type: types.Regclass}, {Name: "parentrelid", Type: types.Regclass},
	{Name: "isleaf", Type: types.Bool}, {Name: "level", Type: types.Int4}}

// partitionTreeRows is pg_partition_tree(rel): rel and every relation
// below it, breadth first as PostgreSQL's find_all_inheritors lists them,
// each with its parent, whether it is a leaf and its depth below rel.
func partitionTreeRows(x *execCtx, args []any) ([][]any, error) {
	g, root := x.s.partitionGraph(), uint32(args[0].(int64))
	if !g.inTree(root) {
		return nil, nil
	}
	var out [][]any
	level := map[uint32]int64{root: 0}
	for queue := []uint32{root}; len(queue) > 0; queue = queue[1:] {
		oid := queue[0]
		var parent any
		if p, ok := g.parent[oid]; ok {
			parent = int64(p)
		}
		out = append(out, []any{int64(oid), parent, !g.hasPartitions(oid), level[oid]})
		for _, k := range g.children[oid] {
			level[k] = level[oid] + 1
			queue = append(queue, k)
		}
	}
	return out, nil
}
