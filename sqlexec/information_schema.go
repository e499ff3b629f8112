package sqlexec

import (
	"strconv"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// The views of information_schema that drivers and migration tools read,
// with every column PostgreSQL 15 gives them, over the user's tables,
// views and constraints. Their columns have the base types of the
// information_schema domains, as the wire shows them: sql_identifier is
// name, cardinal_number integer, character_data character varying,
// yes_or_no character varying(3).

var (
	isIdent = types.Name
	isCard  = types.Int4
	isChars = types.VarcharAny
	isYesNo = types.Varchar(3)
)

// yesNo is a yes_or_no value.
func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

// columnFacts are the information_schema.columns facts of a column's type.
type columnFacts struct {
	dataType                                   string
	charMax, charOctets                        any
	numPrecision, numRadix, numScale, dtPrecis any
	intervalType                               any
	udtName                                    string
}

// typeFacts computes columnFacts as PostgreSQL's information_schema does
// (_pg_char_max_length, _pg_numeric_precision, ... over UTF8).
func typeFacts(s *Session, t types.Type) columnFacts {
	f := columnFacts{udtName: t.Name()}
	if bt := builtinIndex().types[uint32(t.Oid)]; bt != nil {
		f.udtName = bt.name
	}
	switch {
	case t.IsArray() && t.Oid != types.OidInt2Vector && t.Oid != types.OidOidVector:
		f.dataType = "ARRAY"
	default:
		f.dataType, _ = catalogNames{s: s}.typeName(uint32(t.Oid), typmodNone)
	}
	switch t.Oid {
	case types.OidBpchar, types.OidVarchar:
		if n := t.Length(); n >= 0 {
			f.charMax, f.charOctets = int64(n), int64(n)*4
		} else {
			f.charOctets = int64(1073741824)
		}
	case types.OidText:
		f.charOctets = int64(1073741824)
	case types.OidBit, types.OidVarbit:
		if t.Typmod > 0 {
			f.charMax = int64(t.Typmod)
		}
	case types.OidInt2, types.OidInt4, types.OidInt8:
		f.numPrecision, f.numRadix, f.numScale = int64(8*t.Size()), int64(2), int64(0)
	case types.OidFloat4:
		f.numPrecision, f.numRadix = int64(24), int64(2)
	case types.OidFloat8:
		f.numPrecision, f.numRadix = int64(53), int64(2)
	case types.OidNumeric:
		f.numRadix = int64(10)
		if p, sc, ok := t.PrecisionScale(); ok {
			f.numPrecision, f.numScale = int64(p), int64(sc)
		}
	case types.OidDate:
		f.dtPrecis = int64(0)
	case types.OidTime, types.OidTimetz, types.OidTimestamp, types.OidTimestamptz:
		f.dtPrecis = int64(6)
		if t.Typmod >= 0 {
			f.dtPrecis = int64(t.Typmod)
		}
	case types.OidInterval:
		f.dtPrecis = int64(6)
		if p := types.IntervalPrecision(t); p >= 0 {
			f.dtPrecis = int64(p)
		}
		if fields := types.IntervalFields(t); fields != "" {
			f.intervalType = fields
		}
	}
	return f
}

// infoColumn is a column of a table or view, as information_schema.columns
// lists it.
type infoColumn struct {
	schema, table, name string
	pos                 int
	typ                 types.Type
	notNull, updatable  bool
	def                 any
	// generation is a generated column's expression, nil for others.
	generation any
	col        *columnDesc // nil for a view's column
	seq        *sequence   // an identity column's sequence
	domain     uint32      // the column's domain, 0 for none
}

// infoColumns lists the columns of the catalog's tables and views.
func infoColumns(s *Session, c *catalog) []infoColumn {
	var out []infoColumn
	for _, t := range sortedTables(c) {
		if t.matview != nil {
			continue // information_schema leaves materialized views out
		}
		for i, col := range t.cols {
			ic := infoColumn{schema: t.schema, table: t.name, name: col.name, pos: i + 1, typ: col.typ, notNull: col.notNull,
				updatable: true, col: col, domain: col.domain}
			if text, ok := storedDefault(col); ok && col.generated != nil {
				ic.generation = decompile(s, c, text, t.oid, false)
			} else if ok {
				ic.def = decompile(s, c, text, t.oid, false)
			}
			if col.identity != 0 {
				for _, q := range c.schemas[t.schema].seqs {
					if owner, attnum := q.owner(); owner == t.oid && attnum == col.attnum {
						ic.seq = q
					}
				}
			}
			out = append(out, ic)
		}
	}
	for _, v := range sortedViews(c) {
		for i, col := range v.cols {
			out = append(out, infoColumn{schema: v.schema, table: v.name, name: col.name, pos: i + 1, typ: col.typ,
				updatable: viewColumnUpdatable(s, c, v, i), domain: col.domain})
		}
	}
	return out
}

func init() {
	registerVirtual(&virtualTable{schema: "information_schema", name: "columns",
		cols: []vcol{{"table_catalog", isIdent}, {"table_schema", isIdent}, {"table_name", isIdent}, {"column_name", isIdent},
			{"ordinal_position", isCard}, {"column_default", isChars}, {"is_nullable", isYesNo}, {"data_type", isChars},
			{"character_maximum_length", isCard}, {"character_octet_length", isCard}, {"numeric_precision", isCard},
			{"numeric_precision_radix", isCard}, {"numeric_scale", isCard}, {"datetime_precision", isCard}, {"interval_type", isChars},
			{"interval_precision", isCard}, {"character_set_catalog", isIdent}, {"character_set_schema", isIdent},
			{"character_set_name", isIdent}, {"collation_catalog", isIdent}, {"collation_schema", isIdent}, {"collation_name", isIdent},
			{"domain_catalog", isIdent}, {"domain_schema", isIdent}, {"domain_name", isIdent}, {"udt_catalog", isIdent},
			{"udt_schema", isIdent}, {"udt_name", isIdent}, {"scope_catalog", isIdent}, {"scope_schema", isIdent},
			{"scope_name", isIdent}, {"maximum_cardinality", isCard}, {"dtd_identifier", isIdent}, {"is_self_referencing", isYesNo},
			{"is_identity", isYesNo}, {"identity_generation", isChars}, {"identity_start", isChars}, {"identity_increment", isChars},
			{"identity_maximum", isChars}, {"identity_minimum", isChars}, {"identity_cycle", isYesNo}, {"is_generated", isChars},
			{"generation_expression", isChars}, {"is_updatable", isYesNo}},
		rows: func(s *Session, c *catalog) [][]any {
			db := s.database()
			var out [][]any
			for _, ic := range infoColumns(s, c) {
				f := typeFacts(s, ic.typ)
				// A column names its collation unless it is the database's
				// default.
				coll := typeCollation(ic.typ.Oid)
				if ic.col != nil {
					coll = ic.col.collationOID()
				}
				var collCatalog, collSchema, collName any
				if name := collationName(coll); name != "" && coll != oidDefaultCollation {
					collCatalog, collSchema, collName = db, "pg_catalog", name
				}
				identity, generation, start, increment, maximum, minimum, cycle := "NO", any(nil), any(nil), any(nil), any(nil), any(nil), "NO"
				if ic.col != nil && ic.col.identity != 0 {
					identity, generation = "YES", map[byte]string{'a': "ALWAYS", 'd': "BY DEFAULT"}[ic.col.identity]
					if q := ic.seq; q != nil {
						itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
						start, increment, maximum, minimum, cycle = itoa(q.start), itoa(q.increment), itoa(q.max), itoa(q.min), yesNo(q.cycle)
					}
				}
				// A user-defined type's columns name its schema, and its
				// data type is USER-DEFINED unless it is an array; a domain
				// column shows its base type and names the domain.
				dataType, udtSchema := f.dataType, "pg_catalog"
				if ut, array := c.typeByOidOrArray(uint32(ic.typ.Oid)); ut != nil {
					udtSchema = ut.schema
					if !array {
						dataType = "USER-DEFINED"
					}
				}
				var domCatalog, domSchema, domName any
				udtName := f.udtName
				if ic.domain != 0 {
					if dt := c.typeByOid(ic.domain); dt != nil {
						domCatalog, domSchema, domName = db, dt.schema, dt.name
					} else if dt, array := c.typeByOidOrArray(ic.domain); dt != nil && array {
						// An array of a domain: its udt is the array type.
						udtSchema, udtName = dt.schema, "_"+dt.name
					}
				}
				isGenerated := "NEVER"
				if ic.generation != nil {
					isGenerated = "ALWAYS"
				}
				out = append(out, []any{db, ic.schema, ic.table, ic.name, int64(ic.pos), ic.def, yesNo(!ic.notNull), dataType,
					f.charMax, f.charOctets, f.numPrecision, f.numRadix, f.numScale, f.dtPrecis, f.intervalType, nil, nil, nil, nil,
					collCatalog, collSchema, collName, domCatalog, domSchema, domName, db, udtSchema, udtName, nil, nil, nil, nil,
					strconv.Itoa(ic.pos), "NO", identity, generation, start, increment, maximum, minimum, cycle, isGenerated, ic.generation,
					yesNo(ic.updatable)})
			}
			return out
		},
		unreadable: foreignUpdatabilityError("is_updatable")})
	registerVirtual(&virtualTable{schema: "information_schema", name: "tables",
		cols: []vcol{{"table_catalog", isIdent}, {"table_schema", isIdent}, {"table_name", isIdent}, {"table_type", isChars},
			{"self_referencing_column_name", isIdent}, {"reference_generation", isChars}, {"user_defined_type_catalog", isIdent},
			{"user_defined_type_schema", isIdent}, {"user_defined_type_name", isIdent}, {"is_insertable_into", isYesNo},
			{"is_typed", isYesNo}, {"commit_action", isChars}},
		rows: func(s *Session, c *catalog) [][]any {
			db := s.database()
			var out [][]any
			for _, t := range sortedTables(c) {
				if t.matview != nil {
					continue // information_schema leaves materialized views out
				}
				kind := "BASE TABLE"
				if t.foreign != nil {
					kind = "FOREIGN" // its is_insertable_into is unreadable
				}
				out = append(out, []any{db, t.schema, t.name, kind, nil, nil, nil, nil, nil, "YES", "NO", nil})
			}
			for _, v := range sortedViews(c) {
				ins, _, _ := viewWritable(s, c, v, 0)
				out = append(out, []any{db, v.schema, v.name, "VIEW", nil, nil, nil, nil, nil, yesNo(ins), "NO", nil})
			}
			return out
		},
		unreadable: foreignUpdatabilityError("is_insertable_into")})
	registerVirtual(&virtualTable{schema: "information_schema", name: "schemata",
		cols: []vcol{{"catalog_name", isIdent}, {"schema_name", isIdent}, {"schema_owner", isIdent},
			{"default_character_set_catalog", isIdent}, {"default_character_set_schema", isIdent},
			{"default_character_set_name", isIdent}, {"sql_path", isChars}},
		rows: func(s *Session, c *catalog) [][]any {
			db := s.database()
			names := catalogNames{s: s}
			owner := func(oid uint32) string {
				n, _ := names.roleName(oid)
				return unquoteIdent(n)
			}
			out := [][]any{{db, "information_schema", owner(oidBootstrapSuperuser), nil, nil, nil, nil},
				{db, "pg_catalog", owner(oidBootstrapSuperuser), nil, nil, nil, nil},
				{db, "pg_toast", owner(oidBootstrapSuperuser), nil, nil, nil, nil}}
			for _, sc := range sortedSchemas(c) {
				out = append(out, []any{db, sc.name, owner(schemaOwner(sc)), nil, nil, nil, nil})
			}
			return out
		}})
}
