package sqlexec

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The store names keys and rows in the history through a TableSpec's
// FormatKey and the table's row format (Store.SetRowFormat): this file
// renders them in the user's terms, a
// primary key as its values' text ("1", "(7, 2)" for two columns, the row
// id of a table without one) and a row as a JSON object of its columns.
// Both look the table up by OID in the published catalog at the time of
// the call (the store calls them under its own lock; the catalog's is only
// held to read the pointer), so a table altered since it was created is
// rendered with its current columns, and a table whose creating
// transaction has not committed yet with its first descriptor; a row of
// another shape (an ALTER in progress) falls back to a JSON array of its
// values.

// createStoreTable creates the store's table for t under the history name
// name, the table naming its keys and rows in the history.
func (e *Engine) createStoreTable(t *tableDesc, name string) (isolation.TableID, error) {
	oid := t.oid
	id, err := e.store.CreateTable(isolation.TableSpec{
		Name:        name,
		HiddenRowID: t.hidden,
		FormatKey:   func(key []byte) string { return e.formatStoreKey(e.currentTable(oid, t), key) },
		Tuple: func(row []any) (int, int) {
			cur := e.currentTable(oid, t)
			if len(cur.cols) != len(row) {
				cur = t
			}
			return tupleSize(cur, row), fillFactor(cur)
		},
	})
	if err != nil {
		return id, err
	}
	return id, e.store.SetRowFormat(id, func(row []any) string { return e.formatStoreRow(e.currentTable(oid, t), row) })
}

// currentTable is the descriptor of table oid in the catalog the history
// names things with, or created, its descriptor when it was created, while
// the transaction that created it has not committed (DDL is
// transactional). It takes no lock: the store calls it while committing.
func (e *Engine) currentTable(oid uint32, created *tableDesc) *tableDesc {
	cat := e.cat.naming.Load()
	if t := cat.tables[oid]; t != nil {
		return t
	}
	return created
}

// formatStoreKey renders a store key: the primary key's values, or the
// hidden row id. A table whose primary key was dropped keeps rendering the
// keys stored before by the key's types (the store names the row ids it
// assigned since itself).
func (e *Engine) formatStoreKey(t *tableDesc, key []byte) string {
	if t == nil || t.hidden && t.storedKey == nil {
		if len(key) == 8 {
			return strconv.FormatUint(binary.BigEndian.Uint64(key), 10)
		}
		return fmt.Sprintf("%q", key)
	}
	typs := t.storedKey
	if !t.hidden {
		typs = make([]types.Type, len(t.pk))
		for i, c := range t.pk {
			typs[i] = t.cols[c].typ
		}
	}
	vals := make([]string, len(typs))
	rest := key
	for i, typ := range typs {
		v, r, err := types.DecodeKey(typ, rest)
		if err != nil {
			return fmt.Sprintf("%q", key)
		}
		rest = r
		if v == nil {
			vals[i] = "null"
		} else {
			vals[i] = types.FormatText(typ, v, nil)
		}
	}
	if len(vals) == 1 {
		return vals[0]
	}
	return "(" + strings.Join(vals, ", ") + ")"
}

// formatStoreRow renders a row as a JSON object: numbers and booleans as
// JSON's, NULL as null, every other value as its text output.
func (e *Engine) formatStoreRow(t *tableDesc, row []any) string {
	var b strings.Builder
	if t == nil || len(t.cols) != len(row) {
		b.WriteByte('[')
		for i, v := range row {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(&b, fmt.Sprint(v))
		}
		b.WriteByte(']')
		return b.String()
	}
	b.WriteByte('{')
	for i, c := range t.cols {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, c.name)
		b.WriteByte(':')
		writeJSONValue(&b, c.typ, row[i])
	}
	b.WriteByte('}')
	return b.String()
}

func writeJSONValue(b *strings.Builder, typ types.Type, v any) {
	if v == nil {
		b.WriteString("null")
		return
	}
	text := types.FormatText(typ, v, nil)
	switch typ.Category() {
	case types.CategoryBool:
		if text == "t" {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
		return
	case types.CategoryNumeric:
		if json.Valid([]byte(text)) {
			b.WriteString(text)
			return
		}
	}
	writeJSONString(b, text)
}

func writeJSONString(b *strings.Builder, s string) {
	q, _ := json.Marshal(s)
	b.Write(q)
}
