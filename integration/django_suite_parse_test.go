package integration

import (
	"maps"
	"testing"
)

// TestParseDjangoTestOutputReadsEveryTestsStatus pins how TestDjangoSuite
// reads runtests.py -v 2: a test's status may follow its docstring on the
// next line, a failed subtest fails its test whatever the test's own line
// says, and a run without unittest's summary or with another Django is an
// error.
func TestParseDjangoTestOutputReadsEveryTestsStatus(t *testing.T) {
	const head = "Testing against Django installed in '/src/django'\n"
	cases := []struct {
		name    string
		out     string
		want    map[string]string
		wantErr bool
	}{
		{
			name: "one line per test",
			out: head + "test_a (app.tests.T.test_a) ... ok\n" +
				"test_b (app.tests.T.test_b) ... skipped 'no reason'\n" +
				"test_c (app.tests.T) ... expected failure\n" +
				"Ran 3 tests in 0.1s\n",
			want: map[string]string{"app.tests.T.test_a": "ok", "app.tests.T.test_b": "skipped", "app.tests.T.test_c": "expected failure"},
		},
		{
			name: "docstring on the next line",
			out: head + "test_rank (w.tests.W.test_rank)\nRank the employees ... ok\n" +
				"Ran 1 test in 0.1s\n",
			want: map[string]string{"w.tests.W.test_rank": "ok"},
		},
		{
			name: "failed subtest and error headers",
			out: head + "test_s (a.tests.A.test_s) ... \n  test_s (a.tests.A.test_s) [x] ... FAIL\n" +
				"test_e (a.tests.A.test_e) ... ok\n" +
				"======\nERROR: test_e (a.tests.A.test_e)\nTraceback\n" +
				"FAIL: test_s (a.tests.A.test_s) [x]\n" +
				"Ran 2 tests in 0.1s\n",
			want: map[string]string{"a.tests.A.test_s": "FAIL", "a.tests.A.test_e": "ERROR"},
		},
		{
			name:    "no summary",
			out:     head + "test_a (app.tests.T.test_a) ... ok\nTraceback (most recent call last):\n",
			want:    map[string]string{"app.tests.T.test_a": "ok"},
			wantErr: true,
		},
		{
			name:    "another Django",
			out:     "Testing against Django installed in '/usr/lib/python3/dist-packages/django'\nRan 0 tests in 0s\n",
			wantErr: true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseDjangoTestOutput(c.out, "/src/django")
			if (err != nil) != c.wantErr {
				t.Fatalf("error %v, want error %v", err, c.wantErr)
			}
			if c.want != nil && !maps.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}
