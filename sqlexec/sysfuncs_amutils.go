package sqlexec

import (
	"strings"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// Index access method properties: pg_indexam_has_property,
// pg_index_has_property and pg_index_column_has_property answer from an
// access method's capabilities (indexAmCapabilities), an index's pg_index
// row and its operator classes, as PostgreSQL 15's amutils.c with the
// btree, gist and spgist amproperty routines does. Schema inspectors
// (Atlas, behind ent's migrations) ask them for every index column.

// indexProperties are the property names amutils.c knows, matched without
// regard to case; any other name answers NULL.
var indexProperties = []string{"asc", "desc", "nulls_first", "nulls_last", "orderable", "distance_orderable", "returnable",
	"search_array", "search_nulls", "clusterable", "index_scan", "bitmap_scan", "backward_scan", "can_order", "can_unique",
	"can_multi_col", "can_exclude", "can_include"}

func indexPropertyName(s string) string {
	for _, p := range indexProperties {
		if strings.EqualFold(p, s) {
			return p
		}
	}
	return ""
}

// accessMethodByOID is the name of the index access method with pg_am OID
// oid, "" when there is none.
func accessMethodByOID(oid uint32) string {
	for name, am := range indexAccessMethods {
		if am == oid {
			return name
		}
	}
	return ""
}

// accessMethodProperty is pg_indexam_has_property: what CREATE INDEX may
// ask of method; nil for a property of indexes or columns.
func accessMethodProperty(method, prop string) any {
	can := indexAmCapabilities[method]
	switch prop {
	case "can_order":
		return can.order
	case "can_unique":
		return can.unique
	case "can_multi_col":
		return can.multicolumn
	case "can_exclude":
		return can.tupleScan
	case "can_include":
		return can.include
	}
	return nil
}

// indexProperty is pg_index_has_property: what scans an index of method
// allows.
func indexProperty(method, prop string) any {
	can := indexAmCapabilities[method]
	switch prop {
	case "clusterable":
		return can.clusterable
	case "index_scan":
		return can.tupleScan
	case "bitmap_scan":
		return true
	case "backward_scan":
		return can.backward
	}
	return nil
}

// indexColumnProperty is pg_index_column_has_property for column attno
// (1-based, key columns then INCLUDE columns) of the index e.
func indexColumnProperty(e indexEntry, attno int, prop string) any {
	natts, nkeys := int(e.row[2].(int64)), int(e.row[3].(int64))
	if attno < 1 || attno > natts {
		return nil
	}
	can, isKey := indexAmCapabilities[e.method], attno <= nkeys
	var opclass uint32
	if isKey {
		opclass = uint32(e.row[17].([]any)[attno-1].(int64))
	}
	switch {
	case e.method == "btree" && prop == "returnable":
		return true
	case e.method == "gist" && (prop == "distance_orderable" || prop == "returnable"):
		return gistColumnProperty(opclass, prop)
	case e.method == "spgist" && prop == "distance_orderable":
		if !isKey {
			return nil
		}
		oc := builtinIndex().opclasses[opclass]
		return builtinIndex().orderedBy[oc]
	}
	option := func(mask, want int64) any {
		if !isKey {
			return nil
		}
		if !can.order {
			return false
		}
		return e.row[18].([]any)[attno-1].(int64)&mask == want
	}
	const desc, nullsFirst = 1, 2
	switch prop {
	case "asc":
		return option(desc, 0)
	case "desc":
		return option(desc, desc)
	case "nulls_first":
		return option(nullsFirst, nullsFirst)
	case "nulls_last":
		return option(nullsFirst, 0)
	case "orderable":
		return isKey && can.order
	case "distance_orderable":
		if !can.orderByOperator || !isKey {
			return false
		}
		return nil
	case "returnable":
		// spgist returns what its operator class's config says; of the
		// built-in ones only poly_ops keeps a lossy value.
		return can.canReturn && builtinIndex().opclassNames[opclass] != "poly_ops"
	case "search_array":
		if isKey {
			return can.searchArray
		}
	case "search_nulls":
		if isKey {
			return can.searchNulls
		}
	}
	return nil
}

// gistColumnProperty is gistproperty's answer for a column of operator
// class opclass (0 for an INCLUDE column): distance-orderable when the
// class has a distance function, returnable when it has a fetch function
// or no compress function.
func gistColumnProperty(opclass uint32, prop string) any {
	oc, ok := builtinIndex().opclasses[opclass]
	if !ok {
		return nil
	}
	const compress, distance, fetch = 3, 8, 9
	has := func(proc uint32) bool { return builtinIndex().supportProcs[[4]uint32{oc[0], oc[1], oc[1], proc}] }
	if prop == "distance_orderable" {
		return has(distance)
	}
	return has(fetch) || !has(compress)
}

// findIndexEntry is the index of OID oid in c, false when no index has it.
func findIndexEntry(c *catalog, oid uint32) (indexEntry, bool) {
	for _, t := range c.tables {
		for _, e := range indexEntries(t) {
			if uint32(e.row[0].(int64)) == oid {
				return e, true
			}
		}
	}
	return indexEntry{}, false
}

func init() {
	oid, text, b := types.OidType, types.Text, types.Bool
	add := func(fn string, eval func(x *execCtx, args []any) (any, error), args ...types.Type) {
		addSysFunc(fn, sysFunc{args: args, result: b, eval: eval})
	}
	add("pg_indexam_has_property", func(x *execCtx, a []any) (any, error) {
		c, _ := x.s.catalog()
		method := c.accessMethodName(uint32(a[0].(int64)))
		if method == "" {
			return nil, nil
		}
		return accessMethodProperty(method, indexPropertyName(a[1].(string))), nil
	}, oid, text)
	add("pg_index_has_property", func(x *execCtx, a []any) (any, error) {
		c, _ := x.s.catalog()
		e, ok := findIndexEntry(c, uint32(a[0].(int64)))
		if !ok {
			return nil, nil
		}
		return indexProperty(e.method, indexPropertyName(a[1].(string))), nil
	}, types.Regclass, text)
	add("pg_index_column_has_property", func(x *execCtx, a []any) (any, error) {
		c, _ := x.s.catalog()
		e, ok := findIndexEntry(c, uint32(a[0].(int64)))
		if !ok {
			return nil, nil
		}
		return indexColumnProperty(e, int(a[1].(int64)), indexPropertyName(a[2].(string))), nil
	}, types.Regclass, types.Int4, text)
}
