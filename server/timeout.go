package server

import (
	"strconv"
	"strings"
	"time"
)

// statementTimeout returns the session's statement_timeout, parsing the
// setting only when its text changes.
func (c *conn) statementTimeout() time.Duration {
	s, _ := c.sess.Setting("statement_timeout")
	if s != c.timeoutSetting {
		c.timeoutSetting = s
		c.timeout = parseTimeout(s)
	}
	return c.timeout
}

// parseTimeout parses a time setting in its SHOW form: a number with an
// optional unit (us, ms, s, min, h, d), milliseconds without one. Anything
// unparsable, zero or negative means no timeout.
func parseTimeout(s string) time.Duration {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || n <= 0 {
		return 0
	}
	unit := time.Millisecond
	switch strings.TrimSpace(s[i:]) {
	case "", "ms":
	case "us":
		unit = time.Microsecond
	case "s":
		unit = time.Second
	case "min":
		unit = time.Minute
	case "h":
		unit = time.Hour
	case "d":
		unit = 24 * time.Hour
	default:
		return 0
	}
	return time.Duration(n * float64(unit))
}
