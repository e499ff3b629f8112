package sqlexec

import (
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestSettingDefaultsAreCanonical pins that every parameter's default is
// a value its own check accepts and prints unchanged, so that RESET, RESET
// ALL and SHOW of an untouched parameter agree with SET of the default.
func TestSettingDefaultsAreCanonical(t *testing.T) {
	for key, d := range settingDefs {
		if d.normalize == nil || d.readOnly() || d.def == "" && key == "fickle.isolation" {
			continue
		}
		got, err := d.normalize(d.def)
		if err != nil {
			t.Errorf("%s: default %q is rejected: %v", d.name, d.def, err)
			continue
		}
		if got != d.def {
			t.Errorf("%s: default %q normalizes to %q", d.name, d.def, got)
		}
	}
}

// TestSettingUnitsRoundTrip pins how numeric parameters read units and
// print the largest unit that holds the value exactly, as SHOW does.
func TestSettingUnitsRoundTrip(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"work_mem", "4096", "4MB"},
		{"work_mem", "1536kB", "1536kB"},
		{"work_mem", "1TB", "1TB"},
		{"work_mem", "0x100", "256kB"},
		{"temp_buffers", "100", "800kB"},
		{"temp_buffers", "131072", "1GB"},
		{"log_parameter_max_length", "1024", "1kB"},
		{"deadlock_timeout", "60000", "1min"},
		{"deadlock_timeout", "1d", "1d"},
		{"deadlock_timeout", "0.5s", "500ms"},
		{"tcp_keepalives_idle", "3600", "1h"},
		{"vacuum_cost_delay", "0.25", "250us"},
		{"geqo_effort", "2.5", "2"},
		{"seq_page_cost", "0.0000001", "1e-07"},
	}
	for _, c := range cases {
		d := settingDefs[c.name]
		got, err := d.normalize(c.in)
		if err != nil || got != c.want {
			t.Errorf("SET %s = '%s': got %q, %v; want %q", c.name, c.in, got, err, c.want)
		}
	}
}

// TestSettingsThatWouldChangeQueriesAcceptOnlyTheirDefault pins that the
// parameters whose other values would change what queries mean (x = NULL
// as IS NULL, ending the session on an error) accept their default in any spelling and fail with 0A000 for the
// rest, rather than being silently ignored.
func TestSettingsThatWouldChangeQueriesAcceptOnlyTheirDefault(t *testing.T) {
	cases := []struct {
		name, value string
		ok          bool
	}{
		{"transform_null_equals", "off", true},
		{"transform_null_equals", "false", true},
		{"transform_null_equals", "on", false},
		{"exit_on_error", "no", true},
		{"exit_on_error", "yes", false},
	}
	for _, c := range cases {
		var s settings
		s.vals, s.changed = map[string]string{}, map[string]bool{}
		err := s.set(c.name, c.value, false)
		if c.ok && err != nil {
			t.Errorf("SET %s = %s: %v", c.name, c.value, err)
		}
		if !c.ok && (err == nil || pgerror.Flatten(err).Code != pgerror.FeatureNotSupported) {
			t.Errorf("SET %s = %s: %v, want 0A000", c.name, c.value, err)
		}
	}
}
