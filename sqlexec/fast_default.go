package sqlexec

import "github.com/fickle-db/fickle/internal/pgerror"

// Fast defaults. ADD COLUMN whose default PostgreSQL need not compute row
// by row (not volatile, no identity or generation, no domain constraint to
// check) does not write the table anew: the rows already stored keep their
// width and read the default's value from the catalog (pg_attribute's
// atthasmissing and attmissingval) until a command rewrites the table.
// fickle stores every row at its full width; it keeps the value for the
// catalog and for what depends on it in PostgreSQL: whether a row moved
// between a partition and its root must be converted (rowTypeConverts).

// addedColumnRewrites reports whether PostgreSQL writes the table anew to
// add col; volatileDefault says its default (its own or its domain's)
// calls a function PostgreSQL marks VOLATILE (a serial's nextval).
func (b *binder) addedColumnRewrites(col *columnDesc, volatileDefault bool) bool {
	if col.identity != 0 || col.generated != nil || volatileDefault {
		return true
	}
	for dom := b.domainByOid(col.domain); dom != nil; dom = b.domainByOid(dom.domain.parent) {
		if dom.domain.notNull || len(dom.domain.checks) > 0 {
			return true // its constraints are checked on every row
		}
	}
	return false
}

// noteMissing records the value the rows stored in t read for col, which
// ADD COLUMN added without a rewrite: its default def's value, computed
// once as PostgreSQL computes it when the command runs (a default that
// fails fails the command on an empty table too). Only an ordinary table
// keeps one, and a NULL is not kept.
func (d *ddl) noteMissing(t *tableDesc, col *columnDesc, def *scalar) error {
	if def == nil || t.part != nil || t.foreign != nil || t.matview != nil {
		return nil
	}
	v, err := def.eval(d.x)
	if err != nil || v == nil {
		return err
	}
	if t.missing == nil {
		t.missing = map[int16]any{}
	}
	t.missing[col.attnum] = v
	return nil
}

// clearMissing forgets the missing values of the tables a rewrite wrote
// anew (RelationClearMissing): their rows now hold every column.
func (d *ddl) clearMissing(tables ...*tableDesc) {
	for _, t := range tables {
		if t = d.cat.tables[t.oid]; t != nil && t.missing != nil {
			nt := t.clone()
			nt.missing = nil
			d.cat.putTable(nt)
		}
	}
}

// missingAttributeValue is the attmissingval of column col of t: a
// one-element array of its missing value, nil for none.
func missingAttributeValue(s *Session, t *tableDesc, col *columnDesc) any {
	v, ok := t.missing[col.attnum]
	if !ok {
		return nil
	}
	return []any{s.FormatText(col.typ, v)}
}

// attributeLayout is the place of each attribute of t, by attnum from 1:
// its column, or for a dropped one the column as it was (isDropped).
func attributeLayout(t *tableDesc) (cols []*columnDesc, isDropped []bool) {
	n := 0
	for _, c := range t.cols {
		n = max(n, int(c.attnum))
	}
	for _, c := range t.droppedCols {
		n = max(n, int(c.attnum))
	}
	cols, isDropped = make([]*columnDesc, n), make([]bool, n)
	for _, c := range t.cols {
		cols[c.attnum-1] = c
	}
	for _, c := range t.droppedCols {
		cols[c.attnum-1], isDropped[c.attnum-1] = c, true
	}
	return cols, isDropped
}

// rowTypeConverts reports whether PostgreSQL converts a row of table in to
// the layout of table out, one of its partitions or its partitioned
// ancestor, rather than pass it on as it is (build_attrmap_by_name_if_req
// and check_attrmap_match): when their attributes differ in number, when a
// column of out is at another attnum in in or a dropped attribute of out
// is not a dropped one of the same size and alignment in in, or when in
// has a missing value at one of out's attnums.
func rowTypeConverts(in, out *tableDesc) bool {
	inCols, inDropped := attributeLayout(in)
	outCols, outDropped := attributeLayout(out)
	if len(inCols) != len(outCols) {
		return true
	}
	for i, oc := range outCols {
		ic := inCols[i]
		if _, ok := in.missing[int16(i+1)]; ok || ic == nil || oc == nil {
			return true
		}
		if outDropped[i] {
			_, inAlign, _ := typeTraits(ic.typ)
			_, outAlign, _ := typeTraits(oc.typ)
			if !inDropped[i] || ic.typ.Size() != oc.typ.Size() || inAlign != outAlign {
				return true
			}
		} else if inDropped[i] || ic.name != oc.name {
			return true
		}
	}
	return false
}

// routedVersionsUnreadable reports whether RETURNING cannot read xmin or
// xmax of a row an INSERT or an UPDATE of root wrote into leaf, coming from
// the partition from (nil for an INSERT), where PostgreSQL fails with
// versionsUnreadableError. PostgreSQL holds a routed row in root's layout,
// a virtual slot with no stored tuple behind it, unless it converts it into
// leaf's; a row an UPDATE moves is in root's layout only when its old
// partition's needed converting.
func routedVersionsUnreadable(root, from, leaf *tableDesc) bool {
	if from != nil && !rowTypeConverts(from, root) {
		return false
	}
	return !rowTypeConverts(root, leaf)
}

// versionsUnreadableError is PostgreSQL's error for a system column of a
// row in a virtual slot (tts_virtual_getsysattr).
func versionsUnreadableError() error {
	return pgerror.New(pgerror.FeatureNotSupported, "cannot retrieve a system column in this context")
}
