package sqlexec

import (
	"math"
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// This file validates a table's storage parameters (CREATE TABLE ... WITH
// (...)) as PostgreSQL's reloptions do: the names and namespaces it knows,
// values of the right kind and within bounds. fickle keeps no pages, so a
// valid parameter changes nothing; an invalid one fails as in PostgreSQL.

// relOptKind is the kind of a storage parameter's value.
type relOptKind uint8

const (
	relOptBool relOptKind = iota
	relOptInt
	relOptReal
	relOptIndexCleanup
	relOptBuffering
)

// relOpt describes one heap storage parameter: its kind, bounds and
// whether TOAST tables (the toast. namespace) take it too.
type relOpt struct {
	kind     relOptKind
	min, max float64
	toast    bool
}

// heapRelOpts are PostgreSQL 15's heap storage parameters.
var heapRelOpts = map[string]relOpt{
	"autovacuum_enabled":                    {kind: relOptBool, toast: true},
	"user_catalog_table":                    {kind: relOptBool},
	"vacuum_truncate":                       {kind: relOptBool, toast: true},
	"vacuum_index_cleanup":                  {kind: relOptIndexCleanup, toast: true},
	"fillfactor":                            {kind: relOptInt, min: 10, max: 100},
	"toast_tuple_target":                    {kind: relOptInt, min: 128, max: 8160},
	"autovacuum_vacuum_threshold":           {kind: relOptInt, min: 0, max: math.MaxInt32, toast: true},
	"autovacuum_vacuum_insert_threshold":    {kind: relOptInt, min: -1, max: math.MaxInt32, toast: true},
	"autovacuum_analyze_threshold":          {kind: relOptInt, min: 0, max: math.MaxInt32},
	"autovacuum_vacuum_cost_limit":          {kind: relOptInt, min: 1, max: 10000, toast: true},
	"autovacuum_freeze_min_age":             {kind: relOptInt, min: 0, max: 1000000000, toast: true},
	"autovacuum_multixact_freeze_min_age":   {kind: relOptInt, min: 0, max: 1000000000, toast: true},
	"autovacuum_freeze_max_age":             {kind: relOptInt, min: 100000, max: 2000000000, toast: true},
	"autovacuum_multixact_freeze_max_age":   {kind: relOptInt, min: 10000, max: 2000000000, toast: true},
	"autovacuum_freeze_table_age":           {kind: relOptInt, min: 0, max: 2000000000, toast: true},
	"autovacuum_multixact_freeze_table_age": {kind: relOptInt, min: 0, max: 2000000000, toast: true},
	"log_autovacuum_min_duration":           {kind: relOptInt, min: -1, max: math.MaxInt32, toast: true},
	"parallel_workers":                      {kind: relOptInt, min: 0, max: 1024},
	"autovacuum_vacuum_cost_delay":          {kind: relOptReal, min: 0, max: 100, toast: true},
	"autovacuum_vacuum_scale_factor":        {kind: relOptReal, min: 0, max: 100, toast: true},
	"autovacuum_vacuum_insert_scale_factor": {kind: relOptReal, min: 0, max: 100, toast: true},
	"autovacuum_analyze_scale_factor":       {kind: relOptReal, min: 0, max: 100},
}

// indexRelOpts are PostgreSQL 15's storage parameters of each index access
// method.
var indexRelOpts = map[string]map[string]relOpt{
	"btree":  {"fillfactor": {kind: relOptInt, min: 10, max: 100}, "deduplicate_items": {kind: relOptBool}},
	"hash":   {"fillfactor": {kind: relOptInt, min: 10, max: 100}},
	"gist":   {"fillfactor": {kind: relOptInt, min: 10, max: 100}, "buffering": {kind: relOptBuffering}},
	"gin":    {"fastupdate": {kind: relOptBool}, "gin_pending_list_limit": {kind: relOptInt, min: 64, max: math.MaxInt32}},
	"spgist": {"fillfactor": {kind: relOptInt, min: 10, max: 100}},
	"brin":   {"pages_per_range": {kind: relOptInt, min: 1, max: 131072}, "autosummarize": {kind: relOptBool}},
}

// indexOptions validates the WITH (...) list of an index using method and
// returns it as pg_class.reloptions lists it (name=value, a name alone
// meaning true).
func indexStorageOptions(opts []*pg_query.Node, method string) ([]string, error) {
	var out []string
	for _, o := range opts {
		de := o.GetDefElem()
		if de == nil {
			continue
		}
		if de.Defnamespace != "" {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized parameter namespace \"%s\"", de.Defnamespace)
		}
		opt, ok := indexRelOpts[method][de.Defname]
		if !ok {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized parameter \"%s\"", de.Defname)
		}
		if err := opt.check(de); err != nil {
			return nil, err
		}
		out = append(out, de.Defname+"="+relOptText(de))
	}
	return out, nil
}

// relOptText is a storage parameter's value as written ("true" for a name
// alone), as pg_class.reloptions keeps it.
func relOptText(de *pg_query.DefElem) string {
	switch {
	case de.Arg == nil:
		return "true"
	case de.Arg.GetFloat() != nil:
		return de.Arg.GetFloat().Fval
	case de.Arg.GetBoolean() != nil:
		return strconv.FormatBool(de.Arg.GetBoolean().Boolval)
	}
	return defElemText(de)
}

// relOptionNodes turns reloptions (name=value) back into a WITH list.
func relOptionNodes(opts []string) []*pg_query.Node {
	nodes := make([]*pg_query.Node, len(opts))
	for i, o := range opts {
		name, value, _ := strings.Cut(o, "=")
		nodes[i] = pg_query.MakeSimpleDefElemNode(name, pg_query.MakeStrNode(value), -1)
	}
	return nodes
}

// withOptions is pg_get_indexdef's WITH (...) clause of an index with
// storage parameters opts, "" for none.
func withOptions(opts []string) string {
	if len(opts) == 0 {
		return ""
	}
	return " WITH (" + flattenRelOptions(opts) + ")"
}

// flattenRelOptions prints reloptions as pg_get_indexdef's WITH (...) does
// (flatten_reloptions): each value bare when it reads as a plain
// identifier, else quoted as a literal.
func flattenRelOptions(opts []string) string {
	out := make([]string, len(opts))
	for i, o := range opts {
		name, value, _ := strings.Cut(o, "=")
		if types.QuoteIdent(value) != value {
			value = "'" + strings.ReplaceAll(value, "'", "''") + "'"
		}
		out[i] = name + "=" + value
	}
	return strings.Join(out, ", ")
}

// tableStorageOptions validates the WITH (...) list of a table (or ALTER
// TABLE ... SET's) and returns its heap and TOAST parameters as
// pg_class.reloptions lists them (name=value); partitioned says the table
// is partitioned, which knows no storage parameter.
func tableStorageOptions(opts []*pg_query.Node, partitioned bool) (heap, toast []string, err error) {
	for _, o := range opts {
		de := o.GetDefElem()
		if de == nil {
			continue
		}
		if de.Defnamespace != "" && de.Defnamespace != "toast" {
			return nil, nil, pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized parameter namespace \"%s\"", de.Defnamespace)
		}
		if de.Defnamespace == "" && de.Defname == "oids" {
			if v, err := relOptBoolValue(de); err == nil && !v {
				continue
			}
			return nil, nil, pgerror.New(pgerror.FeatureNotSupported, "tables declared WITH OIDS are not supported")
		}
	}
	for _, o := range opts {
		de := o.GetDefElem()
		if de == nil || de.Defname == "oids" && de.Defnamespace == "" {
			continue
		}
		opt, ok := heapRelOpts[de.Defname]
		if !ok || partitioned || de.Defnamespace == "toast" && !opt.toast {
			return nil, nil, pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized parameter \"%s\"", de.Defname)
		}
		if err := opt.check(de); err != nil {
			return nil, nil, err
		}
		list := &heap
		if de.Defnamespace == "toast" {
			list = &toast
		}
		if slices.ContainsFunc(*list, func(o string) bool { return strings.HasPrefix(o, de.Defname+"=") }) {
			return nil, nil, pgerror.Newf(pgerror.InvalidParameterValue, "parameter \"%s\" specified more than once", de.Defname)
		}
		*list = append(*list, de.Defname+"="+relOptText(de))
	}
	return heap, toast, nil
}

// setRelOption returns opts with name=value last, in place of name's
// entry if it had one, as PostgreSQL's transformRelOptions keeps the old
// parameters and appends the new. opts itself is left alone.
func setRelOption(opts []string, name, value string) []string {
	return append(resetRelOptions(opts, []string{name}), name+"="+value)
}

// resetRelOptions returns opts without the parameters named (ALTER TABLE
// ... RESET: names not set are ignored), nil when none is left.
func resetRelOptions(opts []string, names []string) []string {
	var out []string
	for _, o := range opts {
		if n, _, _ := strings.Cut(o, "="); !slices.Contains(names, n) {
			out = append(out, o)
		}
	}
	return out
}

// check validates de's value against o.
func (o relOpt) check(de *pg_query.DefElem) error {
	text := defElemText(de)
	if f := de.Arg.GetFloat(); f != nil {
		text = f.Fval
	}
	switch o.kind {
	case relOptBool:
		if _, err := relOptBoolValue(de); err != nil {
			return pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for boolean option \"%s\": %s", de.Defname, text)
		}
	case relOptIndexCleanup, relOptBuffering:
		_, err := relOptBoolValue(de)
		valid := err == nil && o.kind == relOptIndexCleanup || strings.EqualFold(text, "auto") ||
			o.kind == relOptBuffering && (strings.EqualFold(text, "on") || strings.EqualFold(text, "off"))
		if !valid {
			return pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for enum option \"%s\": %s", de.Defname, text).
				WithDetail("Valid values are \"on\", \"off\", and \"auto\".")
		}
	case relOptInt, relOptReal:
		if de.Arg == nil {
			return pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for %s option \"%s\": %s", o.kindName(), de.Defname, "true")
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if o.kind == relOptInt {
			v = math.Round(v) // integer options round a fraction, as PostgreSQL's parse_int
		}
		if err != nil || math.IsNaN(v) {
			return pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for %s option \"%s\": %s", o.kindName(), de.Defname, text)
		}
		if v < o.min || v > o.max {
			return pgerror.Newf(pgerror.InvalidParameterValue, "value %s out of bounds for option \"%s\"", text, de.Defname).
				WithDetail("Valid values are between \"%s\" and \"%s\".", o.bound(o.min), o.bound(o.max))
		}
	}
	return nil
}

// kindName names o's kind as PostgreSQL's messages do.
func (o relOpt) kindName() string {
	if o.kind == relOptReal {
		return "floating point"
	}
	return "integer"
}

// bound formats a bound as PostgreSQL's messages do (%d, or %f for reals).
func (o relOpt) bound(v float64) string {
	if o.kind == relOptReal {
		return strconv.FormatFloat(v, 'f', 6, 64)
	}
	return strconv.FormatInt(int64(v), 10)
}

// relOptBoolValue reads a boolean parameter; a name alone means true.
func relOptBoolValue(de *pg_query.DefElem) (bool, error) {
	if de.Arg == nil {
		return true, nil
	}
	switch strings.ToLower(defElemText(de)) {
	case "t", "true", "y", "yes", "on", "1":
		return true, nil
	case "f", "false", "n", "no", "off", "0":
		return false, nil
	}
	return false, strconv.ErrSyntax
}

// setTableOptions runs ALTER TABLE ... SET (...) on t.
func setTableOptions(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	heap, toast, err := tableStorageOptions(cmd.Def.GetList().GetItems(), t.part != nil)
	if err != nil {
		return err
	}
	for _, o := range heap {
		name, value, _ := strings.Cut(o, "=")
		t.options = setRelOption(t.options, name, value)
	}
	for _, o := range toast {
		name, value, _ := strings.Cut(o, "=")
		t.toastOptions = setRelOption(t.toastOptions, name, value)
	}
	return nil
}

// resetTableOptions runs ALTER TABLE ... RESET (...) on t.
func resetTableOptions(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	var heap, toast []string
	for _, o := range cmd.Def.GetList().GetItems() {
		if err := checkResetHasNoValue(o); err != nil {
			return err
		}
		if de := o.GetDefElem(); de != nil && de.Defnamespace == "toast" {
			toast = append(toast, de.Defname)
		} else if de != nil {
			heap = append(heap, de.Defname)
		}
	}
	t.options, t.toastOptions = resetRelOptions(t.options, heap), resetRelOptions(t.toastOptions, toast)
	return nil
}

// checkResetHasNoValue fails as PostgreSQL's transformRelOptions does for
// a RESET option given a value (RESET (fillfactor = 10)).
func checkResetHasNoValue(o *pg_query.Node) error {
	if de := o.GetDefElem(); de != nil && de.Arg != nil {
		return pgerror.New(pgerror.SyntaxError, "RESET must not include values for parameters")
	}
	return nil
}
