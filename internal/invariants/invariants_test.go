package invariants

import "testing"

func TestSometimesIsNeverTrueWithProbabilityZeroAndAlwaysWithOne(t *testing.T) {
	for range 1000 {
		if Sometimes(0) {
			t.Fatal("Sometimes(0) returned true")
		}
	}
	if Enabled && !Sometimes(1) {
		t.Fatal("Sometimes(1) returned false in an invariants build")
	}
	if !Enabled && Sometimes(1) {
		t.Fatal("Sometimes(1) returned true without the invariants tag")
	}
}
