package sqlexec

import (
	"sort"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Settings a connection's startup message gives, as PostgreSQL reads them
// (postgres.c's process_startup_options): first the -c name=value (or
// --name=value) switches of its options parameter, then its other
// parameters. A name no setting has, a value the setting refuses or a
// setting that cannot change at connection start fails the connection.

// startupKeys are the startup parameters that are not settings.
var startupKeys = map[string]bool{"user": true, "database": true, "options": true, "replication": true}

// startupSetting is one setting the startup message gives.
type startupSetting struct {
	name, value string // lower-case name, normalized value
}

// startupSettings returns the settings of a startup message's parameters,
// in the order they apply.
func startupSettings(params map[string]string) ([]startupSetting, error) {
	var out []startupSetting
	opts, err := startupOptions(params["options"])
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		if !startupKeys[k] && !strings.HasPrefix(k, "_pq_.") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		opts = append(opts, [2]string{k, params[k]})
	}
	for _, o := range opts {
		lk := strings.ToLower(o[0])
		d := settingDefs[lk]
		switch {
		case d == nil && strings.Contains(lk, "."):
			out = append(out, startupSetting{lk, o[1]}) // a placeholder, as SET allows
			continue
		case d == nil:
			return nil, pgerror.Newf(pgerror.UndefinedObject, "unrecognized configuration parameter \"%s\"", o[0])
		case d.context != ctxUser && d.context != ctxBackend:
			return nil, d.cannotChange()
		}
		v := o[1]
		if d.normalize != nil {
			if v, err = d.normalize(v); err != nil {
				return nil, err
			}
		}
		out = append(out, startupSetting{lk, v})
	}
	return out, nil
}

// startupOptions reads the options parameter: command-line switches
// separated by white space, a backslash escaping the next character. Only
// -c name=value and --name=value, which set a setting, are accepted.
func startupOptions(options string) ([][2]string, error) {
	var words []string
	var w strings.Builder
	inWord, escaped := false, false
	for _, r := range options {
		switch {
		case escaped:
			w.WriteRune(r)
			escaped, inWord = false, true
		case r == '\\':
			escaped, inWord = true, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	var out [][2]string
	for i := 0; i < len(words); i++ {
		var setting string
		switch word := words[i]; {
		case word == "-c" && i+1 < len(words):
			i++
			setting = words[i]
		case strings.HasPrefix(word, "-c") && len(word) > 2:
			setting = word[2:]
		case strings.HasPrefix(word, "--") && len(word) > 2:
			setting = word[2:]
		default:
			return nil, pgerror.Unsupported("the startup option " + word + " (only -c name=value and --name=value)")
		}
		name, value, ok := strings.Cut(setting, "=")
		if !ok {
			if strings.HasPrefix(words[i], "--") {
				return nil, pgerror.Newf(pgerror.SyntaxError, "--%s requires a value", setting)
			}
			return nil, pgerror.Newf(pgerror.SyntaxError, "-c %s requires a value", setting)
		}
		out = append(out, [2]string{strings.ReplaceAll(name, "-", "_"), value})
	}
	return out, nil
}
