package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec"
)

// loadSQL runs the SQL file at path into eng before the history starts
// (fickle serve --load), as psql -v ON_ERROR_STOP=1 -f path would: each
// statement outside a transaction block in its own transaction, BEGIN ...
// COMMIT blocks as written, COPY ... FROM STDIN with its data on the
// following lines up to a line "\.", and the psql commands that pg_dump
// output and fixture scripts use:
//
//   - \set ON_ERROR_STOP (on, 1, true or nothing): the loader always stops
//     at the first error, so only that setting is accepted;
//   - \connect (\c) [DBNAME]: a fresh session (settings reset, as in psql)
//     of that database (which must exist: the main one, postgres, or one
//     the file created), or of the current one without a name or with -;
//   - \i (\include) FILE relative to the working directory and \ir
//     (\include_relative) FILE relative to the including file, as in psql;
//   - \restrict KEY and \unrestrict KEY, which pg_dump 15.14 and later put
//     around a dump: between them every other psql command is refused.
//
// Any other psql command is an error naming its file and line.
//
// pg_dump's preamble settings, ALTER ... OWNER TO, ALTER SEQUENCE ... OWNED
// BY and nextval('name'::regclass) defaults run as they would on
// PostgreSQL 15. One rule remains for dumps made by a later pg_dump: a SET
// (or set_config) of a parameter PostgreSQL 15 does not have but a later
// pg_dump writes in its preamble (laterPgDumpSettings) is skipped when
// fickle answers 42704.
//
// It reads with the latest strategy whatever --strategy says, so that the
// initial state is what the file describes, and stops at the first error.
// Errors name the line (and, in an included file, the \i line and the
// included file's line) and the SQLSTATE.
func loadSQL(eng *sqlexec.Engine, path string) error {
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	l := newLoader(eng)
	defer l.close()
	return l.script(path, string(text), 0)
}

// loadText runs a --load file's text (see loadSQL); \ir includes resolve
// against the working directory.
func loadText(eng *sqlexec.Engine, text string) error {
	l := newLoader(eng)
	defer l.close()
	return l.script("", text, 0)
}

// maxIncludeDepth bounds nested \i, so that a file including itself fails
// instead of recursing without end.
const maxIncludeDepth = 32

// loader runs --load scripts in one session of eng (or of the database a
// \connect chose).
type loader struct {
	eng *sqlexec.Engine
	s   *sqlexec.Session
	ctx context.Context
	// database is the database the last \connect named, "" for eng's.
	database string
	// restrictKey is the key of an open \restrict section, "" when none.
	restrictKey string
}

func newLoader(eng *sqlexec.Engine) *loader {
	l := &loader{eng: eng, ctx: context.Background()}
	l.s, _ = l.newSession()
	return l
}

func (l *loader) newSession() (*sqlexec.Session, error) {
	info := sqlexec.SessionInfo{User: "fickle", Database: l.database, ApplicationName: "fickle serve --load",
		StartupParams: map[string]string{"fickle.strategy": "latest"}}
	if l.database == "" {
		return l.eng.NewSession(info), nil
	}
	return l.eng.Connect(info)
}

func (l *loader) close() { l.s.Close() }

// script runs one file's text; name is its path ("" for loadText) and
// depth the number of \i commands that led to it.
func (l *loader) script(name, text string, depth int) error {
	sc := &scriptScanner{text: text}
	sc.indexLines()
	for {
		item, err := sc.next()
		if err != nil {
			return err
		}
		switch item.kind {
		case itemEnd:
			if depth == 0 && l.s.InTxn() {
				return loadError(sc.lineAt(len(text)), errors.New("the file ends inside a transaction block (BEGIN without COMMIT)"))
			}
			return nil
		case itemMeta:
			if err := l.meta(name, sc, item, depth); err != nil {
				return err
			}
		case itemStatement:
			if err := l.statement(sc, item); err != nil {
				return err
			}
		}
	}
}

// statement runs one SQL statement and, for COPY ... FROM STDIN, the data
// lines after it.
func (l *loader) statement(sc *scriptScanner, item scriptItem) error {
	line := sc.lineAt(item.start)
	sql := item.sql
	sts, err := l.s.Parse(sql)
	if err != nil {
		if pe := (*pgerror.Error)(nil); errors.As(err, &pe) && pe.Position > 0 {
			line += lineOfRune(sql, pe.Position-1) - 1
		}
		return loadError(line, err)
	}
	for _, st := range sts {
		res, err := l.run(st)
		if err != nil {
			if skippable(st, err) {
				continue
			}
			return loadError(line, err)
		}
		if res == nil || res.Copy == nil {
			continue
		}
		if !res.Copy.In {
			return loadError(line, pgerror.Unsupported("COPY ... TO in a --load file"))
		}
		data := sc.copyData(item.end)
		if _, err := l.s.CopyIn(l.ctx, res.Copy, strings.NewReader(data)); err != nil {
			return loadError(line, err)
		}
	}
	return nil
}

// run runs one parsed statement; the result is nil for transaction control.
func (l *loader) run(st *sqlexec.Statement) (*sqlexec.Result, error) {
	if tc, ok := st.TxnControl(); ok {
		switch tc.Kind {
		case sqlexec.TxnBegin:
			return nil, l.s.Begin(tc.Options, true)
		case sqlexec.TxnCommit:
			return nil, l.s.Commit()
		case sqlexec.TxnRollback:
			return nil, l.s.Rollback()
		case sqlexec.TxnSavepoint:
			return nil, l.s.Savepoint(l.ctx, tc.Savepoint)
		case sqlexec.TxnRelease:
			return nil, l.s.ReleaseSavepoint(tc.Savepoint)
		case sqlexec.TxnRollbackTo:
			return nil, l.s.RollbackToSavepoint(tc.Savepoint)
		}
		return nil, pgerror.Unsupported("this transaction statement in a --load file")
	}
	p, err := l.s.Prepare(st, nil)
	if err != nil {
		return nil, err
	}
	return l.s.Execute(l.ctx, p, nil)
}

// laterPgDumpSettings are the session parameters that pg_dump releases
// after PostgreSQL 15 set in their preamble and PostgreSQL 15 lacks.
var laterPgDumpSettings = map[string]bool{"transaction_timeout": true}

// skippable reports whether err from running st falls under loadSQL's
// rule for settings of a later pg_dump.
func skippable(st *sqlexec.Statement, err error) bool {
	var pe *pgerror.Error
	if !errors.As(err, &pe) || pe.Code != pgerror.UndefinedObject {
		return false
	}
	n := st.Node()
	switch {
	case n == nil:
		return false
	case n.GetVariableSetStmt() != nil:
		return laterPgDumpSettings[strings.ToLower(n.GetVariableSetStmt().Name)]
	case n.GetSelectStmt() != nil:
		return laterPgDumpSettings[setConfigOf(n.GetSelectStmt())]
	}
	return false
}

// setConfigOf returns the parameter a SELECT [pg_catalog.]set_config('name',
// ...) sets, or "" for any other SELECT.
func setConfigOf(sel *pg_query.SelectStmt) string {
	if len(sel.TargetList) != 1 || sel.FromClause != nil {
		return ""
	}
	rt := sel.TargetList[0].GetResTarget()
	if rt == nil {
		return ""
	}
	fc := rt.Val.GetFuncCall()
	if fc == nil || len(fc.Args) == 0 || len(fc.Funcname) == 0 {
		return ""
	}
	if s := fc.Funcname[len(fc.Funcname)-1].GetString_(); s == nil || s.Sval != "set_config" {
		return ""
	}
	c := fc.Args[0].GetAConst()
	if c == nil || c.GetSval() == nil {
		return ""
	}
	return strings.ToLower(c.GetSval().Sval)
}

// meta runs the psql command item of the file name.
func (l *loader) meta(name string, sc *scriptScanner, item scriptItem, depth int) error {
	line := sc.lineAt(item.start)
	cmd, args := splitMeta(sc.text[item.start:item.end])
	fail := func(format string, a ...any) error { return loadError(line, fmt.Errorf(format, a...)) }
	if l.restrictKey != "" && cmd != `\unrestrict` {
		return fail(`%s inside a \restrict section: pg_dump output allows no psql commands there`, cmd)
	}
	switch cmd {
	case `\restrict`:
		if len(args) != 1 {
			return fail(`\restrict takes one key`)
		}
		l.restrictKey = args[0]
	case `\unrestrict`:
		if len(args) != 1 || args[0] != l.restrictKey {
			return fail(`\unrestrict without a matching \restrict`)
		}
		l.restrictKey = ""
	case `\set`:
		if len(args) == 0 || args[0] != "ON_ERROR_STOP" || len(args) > 2 {
			return fail(`\set %s: --load accepts only \set ON_ERROR_STOP (it always stops at the first error)`, strings.Join(args, " "))
		}
		if len(args) == 2 {
			switch strings.ToLower(args[1]) {
			case "on", "1", "true", "yes":
			default:
				return fail(`\set ON_ERROR_STOP %s: --load always stops at the first error`, args[1])
			}
		}
	case `\c`, `\connect`:
		return l.connect(args, fail)
	case `\i`, `\include`, `\ir`, `\include_relative`:
		if len(args) != 1 {
			return fail(`%s takes one file name`, cmd)
		}
		if sc.pending {
			return fail(`%s inside an unfinished statement`, cmd)
		}
		path := args[0]
		if (cmd == `\ir` || cmd == `\include_relative`) && !filepath.IsAbs(path) && name != "" {
			path = filepath.Join(filepath.Dir(name), path)
		}
		if depth+1 > maxIncludeDepth {
			return fail(`%s %s: includes nested more than %d deep`, cmd, args[0], maxIncludeDepth)
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return fail("%s: %v", cmd, err)
		}
		if err := l.script(path, string(text), depth+1); err != nil {
			return fail(`%s %s: %w`, cmd, path, err)
		}
	default:
		return fail(`unsupported psql command %s (--load accepts SQL, COPY ... FROM STDIN data, \set ON_ERROR_STOP, \connect, \i, \ir, \restrict and \unrestrict)`, cmd)
	}
	return nil
}

// connect runs \connect [DBNAME [USER ...]]: a fresh session of the named
// database, or of the current one. The user is ignored: fickle has no
// roles.
func (l *loader) connect(args []string, fail func(string, ...any) error) error {
	if l.s.InTxn() {
		return fail(`\connect inside a transaction block`)
	}
	db := l.database
	if len(args) > 0 && args[0] != "-" {
		db = args[0]
		if strings.ContainsAny(db, "= ") || strings.Contains(db, "://") {
			return fail(`\connect %s: --load accepts a database name, not a connection string`, db)
		}
	}
	prev := l.database
	l.database = db
	s, err := l.newSession()
	if err != nil {
		l.database = prev
		return fail(`\connect %s: %w`, db, err)
	}
	l.s.Close()
	l.s = s
	return nil
}

// splitMeta splits a psql command line into the command and its arguments,
// unquoting 'single-quoted' and "double-quoted" ones.
func splitMeta(line string) (cmd string, args []string) {
	line = strings.TrimSpace(line)
	cmd, rest, _ := strings.Cut(line, " ")
	if i := strings.IndexAny(cmd, "\t"); i >= 0 {
		cmd, rest = cmd[:i], cmd[i:]+" "+rest
	}
	rest = strings.TrimSpace(rest)
	for rest != "" {
		var arg string
		switch q := rest[0]; q {
		case '\'', '"':
			end := strings.IndexByte(rest[1:], q)
			if end < 0 {
				arg, rest = rest[1:], ""
			} else {
				arg, rest = rest[1:1+end], rest[2+end:]
			}
		default:
			end := strings.IndexAny(rest, " \t")
			if end < 0 {
				end = len(rest)
			}
			arg, rest = rest[:end], rest[end:]
		}
		args = append(args, arg)
		rest = strings.TrimLeft(rest, " \t")
	}
	return cmd, args
}

// lineOfRune returns the 1-based line of the n-th character of text.
func lineOfRune(text string, n int) int {
	r := []rune(text)
	if n > len(r) {
		n = len(r)
	}
	return strings.Count(string(r[:n]), "\n") + 1
}

// loadError names the line of the failing statement (or of the syntax
// error) and the error's SQLSTATE.
func loadError(line int, err error) error {
	var pe *pgerror.Error
	if errors.As(err, &pe) {
		return fmt.Errorf("line %d: ERROR %s: %s", line, pe.Code, pe.Message)
	}
	return fmt.Errorf("line %d: %w", line, err)
}

// scriptItem is one unit of a script: a statement (with its terminating
// semicolon, or up to the end of the file) or a psql command line.
type scriptItem struct {
	kind       itemKind
	start, end int
	// sql is a statement's text, with the lines of psql commands met
	// inside it blanked out.
	sql string
}

type itemKind uint8

const (
	itemEnd itemKind = iota
	itemStatement
	itemMeta
)

// scriptScanner splits a psql script into statements and psql commands as
// psql's lexer does: semicolons, and backslashes at the start of a line,
// count only outside quotes ('...', E'...', "...", $tag$...$tag$) and
// comments (-- and nested /* */). COPY data lines are skipped by copyData.
type scriptScanner struct {
	text     string
	pos      int
	newlines []int // offsets of '\n', for lineAt
	// resumeAt, when resumeTo > 0, is the end of a COPY statement's line:
	// the scan continues at resumeTo, after the data.
	resumeAt, resumeTo int
	// copyLineEnd and copyNext are the end of the line of the last COPY
	// and the offset after its data.
	copyLineEnd, copyNext int
	// pending is set while a statement has begun but not ended; stmtStart
	// is then its offset, and cuts the psql command lines met inside it.
	pending   bool
	stmtStart int
	cuts      [][2]int
	// words counts the statement's identifiers and beginDepth its open
	// BEGIN and CASE blocks, as psql's lexer does: a semicolon inside a
	// BEGIN ATOMIC ... END body of CREATE FUNCTION does not end it.
	words, beginDepth int
}

func (sc *scriptScanner) indexLines() {
	for i := 0; i < len(sc.text); i++ {
		if sc.text[i] == '\n' {
			sc.newlines = append(sc.newlines, i)
		}
	}
}

// lineAt returns the 1-based line of byte offset off.
func (sc *scriptScanner) lineAt(off int) int {
	return sort.SearchInts(sc.newlines, off) + 1
}

// onlySpaceBefore reports whether only blanks precede off on its line.
func (sc *scriptScanner) onlySpaceBefore(off int) bool {
	for i := off - 1; i >= 0 && sc.text[i] != '\n'; i-- {
		if c := sc.text[i]; c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// lineEnd returns the offset of the newline ending the line at off, or
// len(text).
func (sc *scriptScanner) lineEnd(off int) int {
	if i := strings.IndexByte(sc.text[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(sc.text)
}

// advance moves to off, jumping over COPY data when it reaches the end of
// the COPY statement's line.
func (sc *scriptScanner) advance(off int) {
	if sc.resumeTo > 0 && off >= sc.resumeAt {
		off, sc.resumeTo = max(off, sc.resumeTo), 0
	}
	sc.pos = off
}

// copyData returns the COPY data that follows the line of the statement
// ending at end: the lines up to a line "\." (or to the end of the file),
// which the scan then skips.
func (sc *scriptScanner) copyData(end int) string {
	eol := sc.lineEnd(end)
	start := min(eol+1, len(sc.text))
	if eol == sc.copyLineEnd && sc.copyNext > 0 { // a second COPY on one line: its data follows the first's
		start = sc.copyNext
	}
	dataEnd, next := len(sc.text), len(sc.text)
	for off := start; off < len(sc.text); {
		le := sc.lineEnd(off)
		if strings.TrimSuffix(sc.text[off:le], "\r") == `\.` {
			dataEnd, next = off, min(le+1, len(sc.text))
			break
		}
		off = le + 1
	}
	sc.resumeAt, sc.resumeTo = eol, next
	sc.copyLineEnd, sc.copyNext = eol, next
	if sc.pos >= sc.resumeAt {
		sc.advance(sc.pos)
	}
	return sc.text[start:dataEnd]
}

// next returns the next statement or psql command.
func (sc *scriptScanner) next() (scriptItem, error) {
	text := sc.text
	start := -1
	if sc.pending {
		start = sc.stmtStart
	}
	depth := 0 // /* */ nesting
	for sc.pos < len(text) {
		c := text[sc.pos]
		switch {
		case depth > 0:
			if strings.HasPrefix(text[sc.pos:], "*/") {
				depth--
				sc.advance(sc.pos + 2)
			} else if strings.HasPrefix(text[sc.pos:], "/*") {
				depth++
				sc.advance(sc.pos + 2)
			} else {
				sc.advance(sc.pos + 1)
			}
			continue
		case c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == '\f':
			sc.advance(sc.pos + 1)
			continue
		case strings.HasPrefix(text[sc.pos:], "--"):
			sc.advance(sc.lineEnd(sc.pos))
			continue
		case strings.HasPrefix(text[sc.pos:], "/*"):
			depth++
			sc.advance(sc.pos + 2)
			continue
		case c == '\\' && sc.onlySpaceBefore(sc.pos):
			// psql runs a command met inside an unfinished statement and
			// keeps the statement; so does the loader (pending says so).
			b, e := sc.pos, sc.lineEnd(sc.pos)
			sc.advance(e)
			if strings.TrimSpace(text[b:e]) == `\.` {
				return scriptItem{}, loadError(sc.lineAt(b), errors.New(`"\." outside COPY data`))
			}
			if start >= 0 {
				sc.pending, sc.stmtStart = true, start
				sc.cuts = append(sc.cuts, [2]int{b, e})
			}
			return scriptItem{kind: itemMeta, start: b, end: e}, nil
		}
		if start < 0 {
			start = sc.pos
		}
		switch {
		case c == ';' && sc.beginDepth > 0:
			sc.advance(sc.pos + 1)
		case c == ';':
			end := sc.pos + 1
			sc.advance(end)
			return sc.statement(start, end), nil
		case isIdentChar(c) && (c < '0' || c > '9') && (sc.pos == 0 || !isIdentChar(text[sc.pos-1])):
			e := sc.pos
			for e < len(text) && isIdentChar(text[e]) {
				e++
			}
			sc.word(text[sc.pos:e])
			sc.advance(e)
		case c == '\'':
			escapes := sc.pos > 0 && (text[sc.pos-1] == 'E' || text[sc.pos-1] == 'e') &&
				(sc.pos < 2 || !isIdentChar(text[sc.pos-2]))
			if err := sc.skipQuoted('\'', escapes); err != nil {
				return scriptItem{}, err
			}
		case c == '"':
			if err := sc.skipQuoted('"', false); err != nil {
				return scriptItem{}, err
			}
		case c == '$' && (sc.pos == 0 || !isIdentChar(text[sc.pos-1])):
			if tag, ok := dollarTag(text[sc.pos:]); ok {
				end := strings.Index(text[sc.pos+len(tag):], tag)
				if end < 0 {
					return scriptItem{}, loadError(sc.lineAt(sc.pos), errors.New("unterminated dollar-quoted string"))
				}
				sc.advance(sc.pos + len(tag) + end + len(tag))
				continue
			}
			sc.advance(sc.pos + 1)
		default:
			sc.advance(sc.pos + 1)
		}
	}
	if start >= 0 {
		return sc.statement(start, len(text)), nil
	}
	return scriptItem{kind: itemEnd}, nil
}

// statement returns the statement text[start:end], the psql command lines
// inside it blanked out, and ends the pending statement.
func (sc *scriptScanner) statement(start, end int) scriptItem {
	sql := sc.text[start:end]
	if len(sc.cuts) > 0 {
		b := []byte(sql)
		for _, c := range sc.cuts {
			for i := c[0]; i < c[1]; i++ {
				b[i-start] = ' '
			}
		}
		sql = string(b)
	}
	sc.pending, sc.cuts = false, sc.cuts[:0]
	sc.words, sc.beginDepth = 0, 0
	return scriptItem{kind: itemStatement, start: start, end: end, sql: sql}
}

// word notes an identifier or keyword of the statement: BEGIN and CASE
// after its first word open a block, END closes one (psqlscan.l).
func (sc *scriptScanner) word(w string) {
	sc.words++
	switch {
	case (strings.EqualFold(w, "begin") || strings.EqualFold(w, "case")) && sc.words > 1:
		sc.beginDepth++
	case strings.EqualFold(w, "end") && sc.beginDepth > 0:
		sc.beginDepth--
	}
}

// skipQuoted moves past the quoted string or identifier at pos; doubled
// quotes, and with escapes backslash escapes, stay inside it.
func (sc *scriptScanner) skipQuoted(q byte, escapes bool) error {
	text, open := sc.text, sc.pos
	for i := open + 1; i < len(text); i++ {
		switch text[i] {
		case '\\':
			if escapes {
				i++
			}
		case q:
			if i+1 < len(text) && text[i+1] == q {
				i++
				continue
			}
			sc.advance(i + 1)
			return nil
		}
	}
	what := "quoted string"
	if q == '"' {
		what = "quoted identifier"
	}
	return loadError(sc.lineAt(open), fmt.Errorf("unterminated %s", what))
}

// dollarTag returns the $tag$ at the start of s, if there is one.
func dollarTag(s string) (string, bool) {
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '$':
			return s[:i+1], true
		case c >= '0' && c <= '9':
			if i == 1 {
				return "", false // a parameter, $1
			}
		case !isIdentChar(c):
			return "", false
		}
	}
	return "", false
}

func isIdentChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
