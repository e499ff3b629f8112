package main

import (
	"regexp"
	"strings"
)

// interpolate substitutes psql variables in a statement outside quotes and
// comments: :name by the value, :'name' by it as a string literal, :"name"
// as an identifier. Unknown variables stay as they are, as psql leaves them.
func interpolate(sql string, vars map[string]string) string {
	if !strings.Contains(sql, ":") {
		return sql
	}
	var out strings.Builder
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			end := strings.IndexByte(sql[i:], '\n')
			if end < 0 {
				end = len(sql) - i
			}
			out.WriteString(sql[i : i+end])
			i += end
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			n := blockCommentLen(sql[i:])
			out.WriteString(sql[i : i+n])
			i += n
		case c == '\'' || c == '"':
			n := quotedLen(sql[i:], c, c == '\'' && isEscapeString(sql, i))
			out.WriteString(sql[i : i+n])
			i += n
		case c == '$':
			n := dollarQuotedLen(sql, i)
			out.WriteString(sql[i : i+n])
			i += n
		case c == ':' && strings.HasPrefix(sql[i:], "::"):
			out.WriteString("::")
			i += 2
		case c == ':':
			value, n := variableRef(sql[i:], vars)
			if n == 0 {
				out.WriteByte(c)
				i++
				continue
			}
			out.WriteString(value)
			i += n
		default:
			out.WriteByte(c)
			i++
		}
	}
	return out.String()
}

var variableRefRE = regexp.MustCompile(`^:(?:'([A-Za-z0-9_]+)'|"([A-Za-z0-9_]+)"|([A-Za-z0-9_]+))`)

// variableRef reads the variable reference s starts with and returns its
// substitution and length, or length 0 when s holds no known variable.
func variableRef(s string, vars map[string]string) (string, int) {
	m := variableRefRE.FindStringSubmatch(s)
	if m == nil {
		return "", 0
	}
	switch {
	case m[1] != "":
		if v, ok := vars[m[1]]; ok {
			return "'" + strings.ReplaceAll(v, "'", "''") + "'", len(m[0])
		}
	case m[2] != "":
		if v, ok := vars[m[2]]; ok {
			return `"` + strings.ReplaceAll(v, `"`, `""`) + `"`, len(m[0])
		}
	default:
		if v, ok := vars[m[3]]; ok {
			return v, len(m[0])
		}
	}
	return "", 0
}

// setVariable runs psql's \set NAME VALUE...: the value is the
// concatenation of the arguments, each a 'quoted' string (with doubled quotes and
// backslash escapes), a :variable, :'variable', or a bare word.
func setVariable(args string, vars map[string]string) {
	name, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	if name == "" {
		return
	}
	var value strings.Builder
	for i := 0; i < len(rest); {
		c := rest[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '\'':
			j := i + 1
			for j < len(rest) {
				if rest[j] == '\\' && j+1 < len(rest) {
					value.WriteByte(unescapeByte(rest[j+1]))
					j += 2
					continue
				}
				if rest[j] == '\'' {
					if j+1 < len(rest) && rest[j+1] == '\'' {
						value.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				value.WriteByte(rest[j])
				j++
			}
			i = j + 1
		case c == ':':
			v, n := variableRef(rest[i:], vars)
			if n == 0 {
				value.WriteByte(c)
				i++
				continue
			}
			// Within \set, :'name' quotes the value as psql's lexer does.
			value.WriteString(v)
			i += n
		default:
			j := i
			for j < len(rest) && rest[j] != ' ' && rest[j] != '\t' && rest[j] != '\'' && rest[j] != ':' {
				j++
			}
			value.WriteString(rest[i:j])
			i = j
		}
	}
	vars[name] = value.String()
}

func unescapeByte(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	}
	return c
}
