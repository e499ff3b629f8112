package types

import (
	"errors"
	"strings"
	"testing"
)

// TestLongFunctionsStopWhenInterrupted: functions whose work grows with
// their inputs (a result of up to a gigabyte from repeat, string_to_array
// and array_to_string over millions of elements) call Env.Interrupt as
// they go and fail with its error, and give their results when it
// returns nil.
func TestLongFunctionsStopWhenInterrupted(t *testing.T) {
	stop := errors.New("statement cancelled")
	textArray, _ := ArrayOf(Text)
	long := strings.Repeat("a,", 1<<20)
	elems := make([]any, 1<<20)
	for i := range elems {
		elems[i] = "a"
	}
	cases := []struct {
		name string
		args []Type
		vals []any
	}{
		{"repeat", []Type{Text, Int4}, []any{"abc", int64(1 << 20)}},
		{"string_to_array", []Type{Text, Text}, []any{long, ","}},
		{"array_to_string", []Type{textArray, Text}, []any{elems, ","}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := ResolveFunc(c.name, c.args)
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			env := &Env{Interrupter: interruptFunc(func() error {
				calls++
				if calls > 1 {
					return stop
				}
				return nil
			})}
			if _, err := f.Eval(env, c.vals); err != stop {
				t.Fatalf("got %v after %d checks, want the interruption", err, calls)
			}
			if _, err := f.Eval(&Env{}, c.vals); err != nil {
				t.Fatalf("without an interruption: %v", err)
			}
		})
	}
}

// interruptFunc is a function as an Interrupter.
type interruptFunc func() error

// Interrupted calls f.
func (f interruptFunc) Interrupted() error { return f() }
