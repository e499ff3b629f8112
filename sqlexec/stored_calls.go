package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// PostgreSQL stores a default, a CHECK, a generation expression, a view's
// query, a row security policy or a trigger's WHEN condition with every
// function it calls bound by OID: a later session whose search_path finds
// another function of the same name still calls the one the definition
// found. fickle keeps stored expressions as parse trees, bound anew where
// they are used, so a call written without a schema is given, when the
// definition is stored, the schema it resolves to then (as views'
// relations are, qualifyRelations). The catalog functions print it back
// without the schema while that schema's function is the one the search
// path finds (procVisible). An operator that extensions' or users'
// operators share the name of keeps the search path it was resolved with
// (storedOperatorSearchPath).

// qualifiedCalls returns n, or a copy of it when it calls user functions
// without naming their schema, with those calls qualified (qualifyCalls).
func (s *Session) qualifiedCalls(c *catalog, n *pg_query.Node) *pg_query.Node {
	needs := false
	walk(n, func(x *pg_query.Node) bool {
		if fc := x.GetFuncCall(); fc != nil && !needs {
			_, needs = s.callSchema(c, fc)
		}
		if ae := x.GetAExpr(); ae != nil && !needs {
			_, needs = s.storedOperatorSearchPath(c, ae)
		}
		return !needs
	})
	if !needs {
		return n
	}
	n = proto.Clone(n).(*pg_query.Node)
	s.qualifyCalls(c, n)
	return n
}

// qualifyCalls qualifies, in place, the calls in n of user functions that
// name no schema with the schema the search path finds them in.
func (s *Session) qualifyCalls(c *catalog, n *pg_query.Node) {
	walk(n, func(x *pg_query.Node) bool {
		if fc := x.GetFuncCall(); fc != nil {
			if schema, ok := s.callSchema(c, fc); ok {
				fc.Funcname = append([]*pg_query.Node{pg_query.MakeStrNode(schema)}, fc.Funcname...)
			}
		}
		if ae := x.GetAExpr(); ae != nil {
			if path, ok := s.storedOperatorSearchPath(c, ae); ok {
				if name, ok := storedOperatorName(path, opName(ae.Name)); ok {
					ae.Name = name
				}
			}
		}
		return true
	})
}

// callSchema is the schema of the user function an unqualified call
// resolves to whatever its arguments' types: the first schema on the
// search path with a function of the name, when every function of the
// name in later schemas takes the same arguments as one of it (and so is
// hidden by it). Calls of a name pg_catalog has, and calls whose function
// depends on the arguments' types across schemas, are left as written.
func (s *Session) callSchema(c *catalog, fc *pg_query.FuncCall) (string, bool) {
	if len(fc.Funcname) != 1 {
		return "", false
	}
	name := lastName(fc.Funcname)
	if _, sys := sysFuncs[name]; sys || len(builtinIndex().procsByName[name]) > 0 {
		return "", false
	}
	var first string
	var firstFuncs []*funcDesc
	for _, p := range s.searchPath() {
		sc := c.schemas[p]
		if sc == nil || len(sc.funcs[name]) == 0 {
			continue
		}
		if firstFuncs == nil {
			first, firstFuncs = p, sc.funcs[name]
			continue
		}
		for _, f := range sc.funcs[name] {
			hidden := false
			for _, g := range firstFuncs {
				hidden = hidden || sameTypes(f.sigIn(), g.sigIn())
			}
			if !hidden {
				return "", false
			}
		}
	}
	return first, firstFuncs != nil
}
