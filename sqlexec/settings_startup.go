package sqlexec

import (
	"sort"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Settings a connection's startup message gives (the wire layer has already
// turned the -c name=value switches of its options parameter into
// parameters). A name no setting has, a value the setting refuses or a
// setting that cannot change at connection start fails the connection, as
// in PostgreSQL.

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
	keys := make([]string, 0, len(params))
	for k := range params {
		if !startupKeys[k] && !strings.HasPrefix(k, "_pq_.") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		lk := strings.ToLower(k)
		d := settingDefs[lk]
		switch {
		case d == nil && strings.Contains(lk, "."):
			out = append(out, startupSetting{lk, params[k]}) // a placeholder, as SET allows
			continue
		case d == nil:
			return nil, pgerror.Newf(pgerror.UndefinedObject, "unrecognized configuration parameter \"%s\"", k)
		case d.context != ctxUser && d.context != ctxBackend:
			return nil, d.cannotChange()
		}
		v := params[k]
		if d.normalize != nil {
			var err error
			if v, err = d.normalize(v); err != nil {
				return nil, err
			}
		}
		out = append(out, startupSetting{lk, v})
	}
	return out, nil
}
