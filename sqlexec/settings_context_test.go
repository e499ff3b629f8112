package sqlexec

import (
	"strings"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// TestSettingsSessionsCannotSetAreShownAndRefused pins, for every
// parameter of a context other than user, that SHOW, current_setting and
// pg_settings agree on its value and that SET, SET LOCAL and RESET fail
// with 55P02 and PostgreSQL's message for its context.
func TestSettingsSessionsCannotSetAreShownAndRefused(t *testing.T) {
	eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "tester", Database: "fickle"})
	defer s.Close()
	because := map[settingContext]string{ctxInternal: "cannot be changed", ctxPostmaster: "cannot be changed without restarting the server",
		ctxSighup: "cannot be changed now", ctxBackend: "cannot be set after connection start"}
	for key, d := range settingDefs {
		// session_authorization shows the session's user, not a default;
		// it and role change through SET SESSION AUTHORIZATION and SET
		// ROLE.
		if !d.readOnly() || key == "session_authorization" || key == "role" {
			continue
		}
		want := d.def
		if got := show(t, s, d.name); got != want {
			t.Errorf("SHOW %s = %q, want %q", d.name, got, want)
		}
		rows, err := query(t, s, "SELECT current_setting('"+d.name+"'), setting, unit, vartype FROM pg_settings WHERE name = '"+d.name+"'")
		switch {
		case err != nil:
			t.Errorf("current_setting and pg_settings of %s: %v", d.name, err)
		case len(rows) == 0: // not a PostgreSQL parameter: pg_settings does not list it
		default:
			// pg_settings gives a number in the parameter's unit: 1GB of
			// an 8kB parameter is 131072.
			unit, _ := rows[0][2].(string)
			if rows[0][0] != want || rows[0][1] != settingInUnit(want, unit, rows[0][3].(string)) {
				t.Errorf("current_setting and pg_settings of %s: %v, want %q", d.name, rows, want)
			}
		}
		msg := `parameter "` + d.name + `" ` + because[d.context]
		for _, sql := range []string{"SET " + d.name + " = '1'", "RESET " + d.name, "SET " + d.name + " TO DEFAULT"} {
			_, err := execOne(s, sql)
			if pe := pgerror.Flatten(err); err == nil || pe.Code != pgerror.CantChangeRuntimeParam || pe.Message != msg {
				t.Errorf("%s: %v, want 55P02 %s", sql, err, msg)
			}
		}
	}
	for _, name := range []string{"shared_buffers", "max_connections", "server_version_num", "block_size", "max_identifier_length", "data_checksums"} {
		if d := settingDefs[strings.ToLower(name)]; d == nil || !d.readOnly() {
			t.Errorf("%s: not among the parameters a session cannot set", name)
		}
	}
}
