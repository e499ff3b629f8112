// Package jsonpath owns PostgreSQL's SQL/JSON path language: the parser of
// jsonpath text (jsonpath_in's grammar and scanner, its 42601 syntax
// errors and normalized output) and the evaluator of a path over a jsonb
// value (lax and strict modes, accessors, filters, arithmetic, item
// methods, variables, silent mode), as jsonpath_exec.c behaves.
//
// It never touches SQL: numbers and regular expressions come from the
// caller through Host, so that they behave as the SQL types do, and
// values arrive as Value trees converted from the caller's jsonb.
//
// The .datetime() method reads its string through the host (PostgreSQL's
// datetime templates and types live with the SQL types); its values are
// Datetime items, compared through the host too.
package jsonpath
