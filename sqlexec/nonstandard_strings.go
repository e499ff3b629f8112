package sqlexec

import (
	"strings"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// While standard_conforming_strings is off, a '...' literal reads
// backslash escapes as E'...' does. fickle's parser always reads '...' the
// standard way, so a query string read then is rewritten first: every '...'
// literal (with its continuation segments) that holds a backslash becomes
// the standard literal of the value PostgreSQL reads, padded with spaces to
// its length so that every position after it stays where it was. U&'...'
// literals fail as in PostgreSQL.

// rewriteNonStandardStrings returns sql as the standard parser must read it.
func rewriteNonStandardStrings(sql string) (string, error) {
	if !strings.Contains(sql, `\`) && !strings.Contains(strings.ToLower(sql), "u&'") {
		return sql, nil
	}
	var out strings.Builder
	done := 0 // sql[:done] is in out
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			i = skipLineComment(sql, i)
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			i = skipBlockComment(sql, i)
		case c == '"':
			i = skipQuoted(sql, i, '"')
		case c == '$':
			i = skipDollarQuote(sql, i)
		case isIdentStart(c):
			j := i
			for j < len(sql) && isIdentChar(sql[j]) {
				j++
			}
			word := strings.ToLower(sql[i:j])
			switch {
			case word == "u" && strings.HasPrefix(sql[j:], "&'"):
				return "", pgerror.New(pgerror.FeatureNotSupported, "unsafe use of string constant with Unicode escapes").
					WithDetail("String constants with Unicode escapes cannot be used when standard_conforming_strings is off.").
					WithPosition(utf8.RuneCountInString(sql[:i]) + 1)
			case j < len(sql) && sql[j] == '\'' && word == "e":
				end, _, err := scanEscapeLiteral(sql, j)
				if err != nil {
					return "", err
				}
				i = end
			case j < len(sql) && sql[j] == '\'' && (word == "b" || word == "x"):
				i = skipQuoted(sql, j, '\'')
			case j < len(sql) && sql[j] == '\'' && word == "n":
				// N'...' reads as '...' does, typed char.
				i = j
			default:
				i = j
			}
		case c == '\'':
			end, backslash, err := scanEscapeLiteral(sql, i)
			if err != nil {
				return "", err
			}
			if backslash {
				lit, err := standardLiteral(sql, i, end)
				if err != nil {
					return "", err
				}
				out.WriteString(sql[done:i])
				out.WriteString(lit)
				done = end
			}
			i = end
		default:
			i++
		}
	}
	if done == 0 {
		return sql, nil
	}
	out.WriteString(sql[done:])
	return out.String(), nil
}

// scanEscapeLiteral scans the literal whose opening quote is at sql[i] as
// an escape string, with its continuation segments (a quote after
// whitespace holding a newline), and returns the offset after it and
// whether it holds a backslash. An unterminated literal fails with 42601.
func scanEscapeLiteral(sql string, i int) (end int, backslash bool, err error) {
	start := i
	for {
		i++ // the opening quote
		for {
			if i >= len(sql) {
				return 0, false, pgerror.Newf(pgerror.SyntaxError, "unterminated quoted string at or near \"%s\"", sql[start:]).
					WithPosition(utf8.RuneCountInString(sql[:start]) + 1)
			}
			if sql[i] == '\\' {
				backslash = true
				i += 2
				continue
			}
			if sql[i] == '\'' {
				if i+1 < len(sql) && sql[i+1] == '\'' {
					i += 2
					continue
				}
				i++
				break
			}
			i++
		}
		next, ok := continuation(sql, i)
		if !ok {
			return i, backslash, nil
		}
		i = next
	}
}

// continuation returns the offset of the quote that continues a literal
// ending at i: after whitespace (or comments) that holds a newline.
func continuation(sql string, i int) (int, bool) {
	newline := false
	for i < len(sql) {
		switch c := sql[i]; {
		case c == '\n' || c == '\r':
			newline = true
			i++
		case c == ' ' || c == '\t' || c == '\f' || c == '\v':
			i++
		case c == '-' && strings.HasPrefix(sql[i:], "--") && newline:
			i = skipLineComment(sql, i)
		case c == '\'' && newline:
			return i, true
		default:
			return 0, false
		}
	}
	return 0, false
}

// standardLiteral is the standard literal of the value the escape literal
// sql[start:end] denotes, padded with spaces to the same length in
// characters. PostgreSQL's own scanner reads the value, and its errors
// (invalid escapes, 22021 for a zero byte) are the statement's.
func standardLiteral(sql string, start, end int) (string, error) {
	refuse := pgerror.Unsupported("string literals with backslashes while standard_conforming_strings is off")
	const prefix = "SELECT E"
	tree, err := parseTree(prefix + sql[start:end])
	if err != nil {
		pe, ok := err.(*pgerror.Error)
		switch {
		case !ok:
			return "", err
		case strings.HasPrefix(pe.Message, "invalid byte sequence"):
			return "", pgerror.New(pgerror.CharacterNotInRepertoire, pe.Message)
		case pe.Position > 0:
			// The position in the literal, moved to where it is in sql.
			c := *pe
			c.Position = utf8.RuneCountInString(sql[:start]) + max(pe.Position-len(prefix), 1)
			return "", &c
		}
		return "", pe
	}
	if len(tree.Stmts) != 1 {
		return "", refuse
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 {
		return "", refuse
	}
	c := sel.TargetList[0].GetResTarget().GetVal().GetAConst()
	if c == nil || c.GetSval() == nil {
		return "", refuse
	}
	val := c.GetSval().Sval
	if bad, ok := invalidUTF8Byte(val); ok {
		return "", pgerror.Newf(pgerror.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x%02x", bad)
	}
	lit := "'" + strings.ReplaceAll(val, "'", "''") + "'"
	pad := utf8.RuneCountInString(sql[start:end]) - utf8.RuneCountInString(lit)
	if pad < 0 {
		return "", refuse
	}
	return lit + strings.Repeat(" ", pad), nil
}

// invalidUTF8Byte returns the first byte of s that is not valid UTF-8
// text: a zero byte or one that begins no character.
func invalidUTF8Byte(s string) (byte, bool) {
	for j := 0; j < len(s); {
		r, w := utf8.DecodeRuneInString(s[j:])
		if r == 0 || r == utf8.RuneError && w == 1 {
			return s[j], true
		}
		j += w
	}
	return 0, false
}

func skipLineComment(sql string, i int) int {
	if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(sql)
}

// skipBlockComment skips a /* */ comment, which nests.
func skipBlockComment(sql string, i int) int {
	depth := 0
	for i < len(sql) {
		switch {
		case strings.HasPrefix(sql[i:], "/*"):
			depth++
			i += 2
		case strings.HasPrefix(sql[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(sql)
}

// skipQuoted skips a quoted identifier or bit string opening at sql[i],
// whose quote is doubled inside.
func skipQuoted(sql string, i int, q byte) int {
	for i++; i < len(sql); i++ {
		if sql[i] == q {
			if i+1 < len(sql) && sql[i+1] == q {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(sql)
}

// skipDollarQuote skips a $tag$...$tag$ string opening at sql[i]; a $ that
// opens none ($1) is skipped alone.
func skipDollarQuote(sql string, i int) int {
	j := i + 1
	for j < len(sql) && isIdentChar(sql[j]) && sql[j] != '$' {
		j++
	}
	if j >= len(sql) || sql[j] != '$' || j > i+1 && !isIdentStart(sql[i+1]) {
		return i + 1
	}
	tag := sql[i : j+1]
	if k := strings.Index(sql[j+1:], tag); k >= 0 {
		return j + 1 + k + len(tag)
	}
	return len(sql)
}
