package sqlexec

import (
	"errors"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Variables of a row type (DECLARE r accounts, r accounts%ROWTYPE,
// r my_composite). PostgreSQL's PL/pgSQL compiler looks a declared type
// up in the catalog and makes a variable of a row type a record whose
// fields r.x an assignment may name; pg_query's parser has no catalog and
// makes every declared type but record a scalar's, so it refuses r.x := v.
// The body's declarations are read from its tokens (scanDeclarations),
// each type looked up (plRowTypes), and those of a row type are given to
// the parser as record, their types as written kept for compilation
// (completeRecord). The parse tree keeps no default, NOT NULL or CONSTANT
// of a record variable, so they are taken from the declaration too.

// plDecl is a variable's declaration in a body: the variable declared at
// line, its type as written (at [typeStart, typeEnd) in the body, with the
// comments and spaces up to what follows it), and its CONSTANT, NOT NULL
// and default value.
type plDecl struct {
	name               string
	line               int
	typName            string
	typeStart, typeEnd int32
	isConst, notNull   bool
	def                string
	// row marks a declaration retypeDeclarations gave the parser as a
	// record's.
	row bool
}

// plRowTypes tells, for the declared type names of a body, whether a name
// is a row type (a table's or a composite type, table%ROWTYPE). A name
// that names no type or relation is PostgreSQL's error, which it reports
// when it creates the routine; another error is left to the compilation
// to report. A domain over a row type is one too. A type fickle does not
// support (a view's row type) counts as a row type, so
// that the body parses as PostgreSQL parses it and its compilation
// refuses the type.
func plRowTypes(b *binder) func(name string) (bool, error) {
	return func(name string) (bool, error) {
		t, err := resolvePlType(b, name)
		var pe *pgerror.Error
		if errors.As(err, &pe) {
			switch pe.Code {
			case pgerror.FeatureNotSupported:
				return true, nil
			case pgerror.UndefinedObject, pgerror.UndefinedTable:
				return false, err
			}
		}
		if err != nil {
			return false, nil
		}
		_, known := t.Fields()
		return known && t.IsRecord(), nil
	}
}

// scanDeclarations reads the variable declarations of body (laid out by
// scopeLayout) from its tokens, comments left out: those between each
// DECLARE and the BEGIN after it, but for ALIAS FOR and cursor
// declarations.
func scanDeclarations(body string) []*plDecl {
	res, err := pg_query.Scan(body)
	if err != nil {
		return nil
	}
	var toks []*pg_query.ScanToken
	for _, t := range res.Tokens {
		if t.Token != pg_query.Token_SQL_COMMENT && t.Token != pg_query.Token_C_COMMENT {
			toks = append(toks, t)
		}
	}
	var out []*plDecl
	in := false
	start := -1
	for i, t := range toks {
		switch {
		case t.Token == pg_query.Token_DECLARE:
			in, start = true, i+1
		case !in:
		case t.Token == pg_query.Token_BEGIN_P:
			in = false
		case t.Token == pg_query.Token_ASCII_59:
			if d := readDeclaration(body, toks[start:i], t.Start); d != nil {
				out = append(out, d)
			}
			start = i + 1
		}
	}
	return out
}

// readDeclaration reads the declaration of toks (without its ";", which
// starts at end): name
// [CONSTANT] type [COLLATE c] [NOT NULL] [{DEFAULT | := | =} expr], as
// PL/pgSQL's grammar has it; nil for any other declaration.
func readDeclaration(body string, toks []*pg_query.ScanToken, end int32) *plDecl {
	if len(toks) < 2 {
		return nil
	}
	at := func(t *pg_query.ScanToken) string { return body[t.Start:t.End] }
	d := &plDecl{name: plIdent(at(toks[0])), line: 1 + strings.Count(body[:toks[0].Start], "\n")}
	i := 1
	if strings.EqualFold(at(toks[i]), "constant") {
		d.isConst = true
		i++
	}
	if i >= len(toks) {
		return nil
	}
	switch strings.ToLower(at(toks[i])) {
	case "alias", "cursor", "no", "scroll":
		return nil
	}
	j, depth := i, 0
	for ; j < len(toks); j++ {
		switch toks[j].Token {
		case pg_query.Token_ASCII_40, pg_query.Token_ASCII_91:
			depth++
			continue
		case pg_query.Token_ASCII_41, pg_query.Token_ASCII_93:
			depth--
			continue
		}
		if depth == 0 && stopsDeclaredType(toks[j].Token) {
			break
		}
	}
	if j == i {
		return nil
	}
	d.typeStart, d.typeEnd = toks[i].Start, end
	if j < len(toks) {
		d.typeEnd = toks[j].Start
	}
	d.typName = body[d.typeStart:toks[j-1].End]
	for ; j < len(toks); j++ {
		switch toks[j].Token {
		case pg_query.Token_NOT:
			d.notNull = true
		case pg_query.Token_COLON_EQUALS, pg_query.Token_ASCII_61, pg_query.Token_DEFAULT:
			if j+1 < len(toks) {
				d.def = strings.TrimSpace(body[toks[j+1].Start:toks[len(toks)-1].End])
			}
			return d
		}
	}
	return d
}

// stopsDeclaredType reports whether a token ends a declaration's type, as
// PL/pgSQL's read_datatype stops.
func stopsDeclaredType(t pg_query.Token) bool {
	switch t {
	case pg_query.Token_COLON_EQUALS, pg_query.Token_ASCII_61, pg_query.Token_DEFAULT, pg_query.Token_NOT,
		pg_query.Token_COLLATE:
		return true
	}
	return false
}

// retypeDeclarations returns body with the type of each declaration of a
// row type rewritten as record (the line breaks in it kept, so that the
// lines the parser numbers stay the body's), and marks those declarations;
// the error is rowTypes' for a declared type.
func retypeDeclarations(body string, decls []*plDecl, rowTypes func(string) (bool, error)) (string, error) {
	for _, d := range decls {
		row, err := rowTypes(d.typName)
		if err != nil {
			return "", err
		}
		d.row = row
	}
	// From the last declaration to the first, so that each one's offsets
	// hold.
	for i := len(decls) - 1; i >= 0; i-- {
		d := decls[i]
		// A declared record is written again too: pg_query's parser
		// knows record only without a comment after it.
		if !d.row && !strings.EqualFold(d.typName, "record") {
			continue
		}
		with := "record " + strings.Repeat("\n", strings.Count(body[d.typeStart:d.typeEnd], "\n"))
		body = body[:d.typeStart] + with + body[d.typeEnd:]
	}
	return body, nil
}

// completeRecord gives record variable d what the parse tree does not keep
// of its declaration: its type when it is of a row type, its CONSTANT, NOT
// NULL and default value.
func completeRecord(d *plDatum, decls []*plDecl) {
	for _, decl := range decls {
		if decl.name != d.name || decl.line != d.line {
			continue
		}
		if decl.row {
			d.typName = decl.typName
		}
		d.isConst, d.notNull = decl.isConst, decl.notNull
		if decl.def != "" {
			d.def = &plExpr{text: decl.def, mode: 2}
		}
		return
	}
}
