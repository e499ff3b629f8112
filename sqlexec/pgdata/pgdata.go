// Package pgdata holds the rows PostgreSQL 15's initdb puts in the system
// catalogs that describe built-in objects: its types (pg_type), functions
// (pg_proc), operators (pg_operator), range types (pg_range), operator
// classes (pg_opclass), access methods (pg_am), system tables and views
// (pg_class, their names and OIDs), predefined roles
// (pg_authid), the built-in objects' descriptions (pg_description), SQL
// keywords (pg_get_keywords()), and the catalogs pg_dump reads to tell
// built-in objects from a user's: casts, operator families and their
// members, text search objects, conversions, tablespaces and the initial
// privileges of built-in objects (pg_init_privs). fickle's
// pg_catalog shows them as PostgreSQL does, whether or not fickle
// implements the object: a client that reads the catalog sees the
// PostgreSQL it expects, and using an object fickle lacks answers 0A000.
//
// The files are the catalogs' text output, dumped from a fresh PostgreSQL 15
// cluster in physical order (the order a query without ORDER BY returns)
// by integration's TestBuiltinCatalogMatchesPostgres, which also checks
// that they still match (FICKLE_REWRITE=1 rewrites them). Each file is a
// header line of column names, then one line per row, its values separated
// by tabs, written as COPY's text format does (\N for NULL, backslash
// escapes for tab, newline and backslash).
//
// pgdata parses SQL nowhere and knows nothing of fickle's types: values
// are text, which the executor reads with its own input functions.
package pgdata

import (
	"embed"
	"fmt"
	"strings"
	"sync"
)

//go:embed *.tsv
var files embed.FS

// Table is one catalog's built-in rows as text.
type Table struct {
	// Columns are the column names, in order.
	Columns []string
	// Rows hold one value per column; nil is NULL.
	Rows [][]*string
}

// Column returns the position of the named column, or -1.
func (t *Table) Column(name string) int {
	for i, c := range t.Columns {
		if c == name {
			return i
		}
	}
	return -1
}

// The catalogs there are files for.
const (
	PgType        = "pg_type"
	PgProc        = "pg_proc"
	PgOperator    = "pg_operator"
	PgRange       = "pg_range"
	PgAuthid      = "pg_authid"
	PgOpclass     = "pg_opclass"
	PgAm          = "pg_am"
	PgClass       = "pg_class"
	PgDescription = "pg_description"
	Keywords      = "pg_get_keywords"
	PgCast        = "pg_cast"
	PgOpfamily    = "pg_opfamily"
	PgAmop        = "pg_amop"
	PgAmproc      = "pg_amproc"
	PgTsParser    = "pg_ts_parser"
	PgTsTemplate  = "pg_ts_template"
	PgTsDict      = "pg_ts_dict"
	PgTsConfig    = "pg_ts_config"
	PgTsConfigMap = "pg_ts_config_map"
	PgConversion  = "pg_conversion"
	PgInitPrivs   = "pg_init_privs"
	PgTablespace  = "pg_tablespace"
	PgSettings    = "pg_settings"
	PgAggregate   = "pg_aggregate"
)

var cache struct {
	mu     sync.Mutex
	tables map[string]*Table
}

// Load returns the rows of the named catalog, parsed once. It panics on a
// name without a file: the names are the constants above.
func Load(name string) *Table {
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if t, ok := cache.tables[name]; ok {
		return t
	}
	data, err := files.ReadFile(name + ".tsv")
	if err != nil {
		panic(fmt.Sprintf("pgdata: no catalog %q", name))
	}
	t, err := Parse(string(data))
	if err != nil {
		panic(fmt.Sprintf("pgdata: %s.tsv: %v", name, err))
	}
	if cache.tables == nil {
		cache.tables = map[string]*Table{}
	}
	cache.tables[name] = t
	return t
}

// Parse reads a table in the files' format.
func Parse(data string) (*Table, error) {
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	t := &Table{Columns: strings.Split(lines[0], "\t")}
	for n, line := range lines[1:] {
		fields := strings.Split(line, "\t")
		if len(fields) != len(t.Columns) {
			return nil, fmt.Errorf("line %d has %d fields, want %d", n+2, len(fields), len(t.Columns))
		}
		row := make([]*string, len(fields))
		for i, f := range fields {
			if f == `\N` {
				continue
			}
			v, err := unescape(f)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n+2, err)
			}
			row[i] = &v
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// Format writes a table in the files' format.
func Format(t *Table) string {
	var b strings.Builder
	b.WriteString(strings.Join(t.Columns, "\t"))
	b.WriteByte('\n')
	for _, row := range t.Rows {
		for i, v := range row {
			if i > 0 {
				b.WriteByte('\t')
			}
			if v == nil {
				b.WriteString(`\N`)
				continue
			}
			b.WriteString(escape(*v))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

var escaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

func escape(s string) string { return escaper.Replace(s) }

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) {
			return "", fmt.Errorf("trailing backslash in %q", s)
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			return "", fmt.Errorf("unknown escape \\%c in %q", s[i], s)
		}
	}
	return b.String(), nil
}
