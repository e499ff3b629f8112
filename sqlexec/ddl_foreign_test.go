package sqlexec

import (
	"slices"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// option is one element of an OPTIONS (...) list: action name 'value'.
func option(action pg_query.DefElemAction, name, value string) *pg_query.Node {
	def := &pg_query.DefElem{Defname: name, Defaction: action}
	if action != pg_query.DefElemAction_DEFELEM_DROP {
		def.Arg = pg_query.MakeStrNode(value)
	}
	return &pg_query.Node{Node: &pg_query.Node_DefElem{DefElem: def}}
}

func TestGenericOptionsApplyAddSetDropInOrderAsPostgres(t *testing.T) {
	add, set, drop, unspec := pg_query.DefElemAction_DEFELEM_ADD, pg_query.DefElemAction_DEFELEM_SET,
		pg_query.DefElemAction_DEFELEM_DROP, pg_query.DefElemAction_DEFELEM_UNSPEC
	cases := []struct {
		name string
		old  []string
		defs []*pg_query.Node
		want []string
		code pgerror.Code
	}{
		{"an option without action is added", nil, []*pg_query.Node{option(unspec, "a", "1"), option(unspec, "b", "2")}, []string{"a=1", "b=2"}, ""},
		{"SET replaces in place, DROP removes, ADD appends", []string{"a=1", "b=2"},
			[]*pg_query.Node{option(drop, "a", ""), option(set, "b", "3"), option(add, "c", "4")}, []string{"b=3", "c=4"}, ""},
		{"an option added then dropped leaves nothing", nil, []*pg_query.Node{option(add, "x", "1"), option(drop, "x", "")}, nil, ""},
		{"a value keeps its equals signs", nil, []*pg_query.Node{option(add, "conn", "a=b")}, []string{"conn=a=b"}, ""},
		{"adding an option twice is 42710", []string{"a=1"}, []*pg_query.Node{option(unspec, "a", "2")}, nil, pgerror.DuplicateObject},
		{"setting a missing option is 42704", nil, []*pg_query.Node{option(set, "a", "1")}, nil, pgerror.UndefinedObject},
		{"dropping a missing option is 42704", []string{"a=1"}, []*pg_query.Node{option(drop, "b", "")}, nil, pgerror.UndefinedObject},
	}
	d := &ddl{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := d.transformGenericOptions(oidPgForeignServer, c.old, c.defs, 0)
			if c.code != "" {
				if pgerror.GetCode(err) != c.code {
					t.Fatalf("error %v, want SQLSTATE %s", err, c.code)
				}
				return
			}
			if err != nil || !slices.Equal(got, c.want) {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestPostgresqlFdwValidatorAcceptsLibpqOptionsOfTheCatalogOnly(t *testing.T) {
	cases := []struct {
		names   []string
		catalog uint32
		ok      bool
		hint    string
	}{
		{[]string{"host", "dbname", "port"}, oidPgForeignServer, true, ""},
		{[]string{"user", "password"}, oidPgUserMapping, true, ""},
		{[]string{"user"}, oidPgForeignServer, false,
			"Valid options in this context are: authtype, service, connect_timeout, dbname, host, hostaddr, port, tty, options, requiressl, sslmode, gsslib"},
		{[]string{"host"}, oidPgUserMapping, false, "Valid options in this context are: user, password"},
		{[]string{"anything"}, oidPgForeignDataWrapper, false, "There are no valid options in this context."},
		{nil, oidPgForeignTable, true, ""},
	}
	for _, c := range cases {
		err := postgresqlFdwValidator(c.names, c.catalog)
		if c.ok != (err == nil) {
			t.Fatalf("%v in catalog %d: error %v", c.names, c.catalog, err)
		}
		if err != nil && (pgerror.GetCode(err) != pgerror.SyntaxError || err.(*pgerror.Error).Hint != c.hint) {
			t.Fatalf("%v in catalog %d: %v (hint %q), want 42601 with hint %q", c.names, c.catalog, err, err.(*pgerror.Error).Hint, c.hint)
		}
	}
}
