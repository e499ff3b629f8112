package main

import (
	"strings"
)

// item is one unit of a psql script: an SQL statement to send, or a psql
// meta-command (a backslash command) with its arguments.
type item struct {
	sql      string // the statement, without its terminating semicolon
	meta     string // the meta-command's name without the backslash ("set", "gexec", ...)
	args     string // the rest of the meta-command's line
	copyData string // rows for COPY ... FROM STDIN, up to (not including) the \. line
	line     int    // the line the item starts on
}

// splitScript cuts a psql script into statements and meta-commands the way
// psql reads a file: white space and -- comments before a statement are
// dropped, a semicolon ends a statement only outside quotes,
// dollar quotes, comments and parentheses; a backslash outside quotes starts
// a meta-command that runs to the end of the line, and \g, \gx, \gset and
// \gexec also end the statement before them. A statement left without a
// semicolon at the end of the file is sent, as psql sends it.
//
// The rows of COPY ... FROM STDIN follow their statement up to a line "\.".
// psql reads them only when the server accepted the COPY; here they are
// taken as rows when a "\." line comes before any line ending in a
// semicolon, which tells the two apart in the regression suite.
func splitScript(text string) []item {
	var items []item
	var buf strings.Builder
	startLine, line := 1, 1
	parens := 0
	flush := func() {
		stmt := strings.TrimSpace(buf.String())
		buf.Reset()
		parens = 0
		if isBlank(stmt) {
			return
		}
		items = append(items, item{sql: stmt, line: startLine})
	}
	i := 0
	for i < len(text) {
		if isBlank(buf.String()) {
			startLine = line
		}
		c := text[i]
		switch {
		case c == '\n':
			line++
			if buf.Len() > 0 {
				buf.WriteByte(c)
			}
			i++
		case (c == ' ' || c == '\t' || c == '\r') && buf.Len() == 0:
			i++
		case c == '-' && strings.HasPrefix(text[i:], "--"):
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				end = len(text) - i
			}
			if buf.Len() > 0 {
				buf.WriteString(text[i : i+end])
			}
			i += end
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			n := blockCommentLen(text[i:])
			line += strings.Count(text[i:i+n], "\n")
			buf.WriteString(text[i : i+n])
			i += n
		case c == '\'' || c == '"':
			n := quotedLen(text[i:], c, c == '\'' && isEscapeString(text, i))
			line += strings.Count(text[i:i+n], "\n")
			buf.WriteString(text[i : i+n])
			i += n
		case c == '$':
			n := dollarQuotedLen(text, i)
			line += strings.Count(text[i:i+n], "\n")
			buf.WriteString(text[i : i+n])
			i += n
		case c == '(':
			parens++
			buf.WriteByte(c)
			i++
		case c == ')':
			parens--
			buf.WriteByte(c)
			i++
		case c == ';' && parens <= 0:
			flush()
			i++
			if len(items) > 0 && isCopyFromStdin(items[len(items)-1].sql) {
				if data, n, ok := copyRows(text[i:]); ok {
					items[len(items)-1].copyData = data
					line += strings.Count(text[i:i+n], "\n")
					i += n
				}
			}
		case c == '\\':
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				end = len(text) - i
			}
			cmd := text[i+1 : i+end]
			name, args, _ := strings.Cut(cmd, " ")
			if name == "" && strings.HasPrefix(cmd, "\\") {
				// "\\" is psql's meta-command separator; treat the rest as a new line.
				i += 2
				continue
			}
			if strings.HasPrefix(name, "g") {
				flush()
			}
			items = append(items, item{meta: name, args: strings.TrimSpace(args), line: line})
			i += end
		default:
			buf.WriteByte(c)
			i++
		}
	}
	flush()
	return items
}

// copyRows returns the rows that follow a COPY ... FROM STDIN statement (the
// rest of its line skipped) and how many bytes they and the "\." line take,
// or false when a line ending in a semicolon comes first.
func copyRows(rest string) (string, int, bool) {
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 {
		return "", 0, false
	}
	pos := nl + 1
	var rows strings.Builder
	for pos < len(rest) {
		end := strings.IndexByte(rest[pos:], '\n')
		if end < 0 {
			end = len(rest) - pos
		}
		l := rest[pos : pos+end]
		if l == `\.` {
			return rows.String(), pos + end, true
		}
		if strings.HasSuffix(strings.TrimSpace(l), ";") {
			return "", 0, false
		}
		rows.WriteString(l)
		rows.WriteByte('\n')
		pos += end + 1
	}
	return "", 0, false
}

// isBlank reports whether s holds nothing but white space and comments.
func isBlank(s string) bool {
	for i := 0; i < len(s); {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r':
			i++
		case strings.HasPrefix(s[i:], "--"):
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				return true
			}
			i += end
		case strings.HasPrefix(s[i:], "/*"):
			i += blockCommentLen(s[i:])
		default:
			return false
		}
	}
	return true
}

// blockCommentLen is the length of the (nesting) comment s starts with.
func blockCommentLen(s string) int {
	depth := 0
	for i := 0; i < len(s)-1; i++ {
		switch {
		case s[i] == '/' && s[i+1] == '*':
			depth++
			i++
		case s[i] == '*' && s[i+1] == '/':
			depth--
			i++
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// quotedLen is the length of the quoted string or identifier s starts with;
// a doubled quote stays inside, and so does a backslashed one in E'...'.
func quotedLen(s string, q byte, backslashes bool) int {
	for i := 1; i < len(s); i++ {
		switch {
		case backslashes && s[i] == '\\':
			i++
		case s[i] == q:
			if i+1 < len(s) && s[i+1] == q {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(s)
}

// isEscapeString reports whether the quote at text[i] opens an E'...' string.
func isEscapeString(text string, i int) bool {
	if i == 0 || (text[i-1] != 'e' && text[i-1] != 'E') {
		return false
	}
	return i == 1 || !isIdentByte(text[i-2])
}

// dollarQuotedLen is the length of the dollar-quoted string at text[i], or 1
// when the $ opens none (a parameter $1, or part of an identifier).
func dollarQuotedLen(text string, i int) int {
	if i > 0 && isIdentByte(text[i-1]) {
		return 1
	}
	j := i + 1
	for j < len(text) && isIdentByte(text[j]) && !(j == i+1 && text[j] >= '0' && text[j] <= '9') {
		j++
	}
	if j >= len(text) || text[j] != '$' {
		return 1
	}
	tag := text[i : j+1]
	end := strings.Index(text[j+1:], tag)
	if end < 0 {
		return len(text) - i
	}
	return j + 1 + end + len(tag) - i
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
