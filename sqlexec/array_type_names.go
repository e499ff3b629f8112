package sqlexec

import "strings"

// The names of the array types of tables' row types. PostgreSQL names a
// new type's array type "_" + its name, prepending more underscores while
// the name is taken in the schema, and when a table or a rename takes the
// name of an automatically made array type, it moves that array type out
// of the way the same way (moveArrayTypeName). A table keeps the name its
// array type got (arrayName, "" for "_" + its name) until it is renamed.

// arrayTypeName is the pg_type name of t's row type's array type.
func arrayTypeName(t *tableDesc) string {
	if t.arrayName != "" {
		return t.arrayName
	}
	return "_" + t.name
}

// tableOfArrayType finds the table of schema sc whose row type's array type
// is named name.
func tableOfArrayType(sc *schemaDesc, name string) *tableDesc {
	if !strings.HasPrefix(name, "_") {
		return nil
	}
	if t := sc.tables[name[1:]]; t != nil && arrayTypeName(t) == name {
		return t
	}
	for _, t := range sc.tables {
		if arrayTypeName(t) == name {
			return t
		}
	}
	return nil
}

// typeNameTaken reports whether a type of schema sc is named name: a user
// type, a table's or view's row type, or an array type of theirs.
func typeNameTaken(sc *schemaDesc, name string) bool {
	if sc.types[name] != nil || sc.tables[name] != nil || sc.views[name] != nil || tableOfArrayType(sc, name) != nil {
		return true
	}
	base, ok := strings.CutPrefix(name, "_")
	return ok && sc.views[base] != nil
}

// makeArrayTypeName is the name PostgreSQL gives the array type of a type
// named name in sc: name behind the fewest underscores that make it free,
// cut to the 63 bytes of a name.
func makeArrayTypeName(sc *schemaDesc, name string) string {
	for i := 1; i < 63; i++ {
		candidate := truncateIdentifier(strings.Repeat("_", i) + name)
		if !typeNameTaken(sc, candidate) {
			return candidate
		}
	}
	return ""
}

// placeArrayType names the array type of t, a table being created or
// renamed (or moved to another schema), once its row type takes t's name:
// first the array type of another table that had that name moves out of
// the way, then t's gets a free name.
func (c *catalog) placeArrayType(t *tableDesc) {
	sc := c.schemas[t.schema]
	if sc == nil {
		return
	}
	if other := tableOfArrayType(sc, t.name); other != nil && other.oid != t.oid {
		moved := other.clone()
		moved.arrayName = makeArrayTypeName(sc, arrayTypeName(other))
		sc.tables[moved.name] = moved
		c.tables[moved.oid] = moved
	}
	t.arrayName = ""
	if name := makeArrayTypeName(sc, t.name); name != "_"+t.name {
		t.arrayName = name
	}
}
