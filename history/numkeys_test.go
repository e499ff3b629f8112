package history

import (
	"strings"
	"testing"
)

// TestNumberedKeysKeepTheirNames reads Plume files whose key numbers are
// dense, sparse, or too large for a KeyID: each key keeps its number as its
// name and every read finds its writer.
func TestNumberedKeysKeepTheirNames(t *testing.T) {
	tests := []struct {
		name, in string
		keys     []string
	}{
		{"dense", "w(1,1,0,0)\nw(0,1,0,0)\nr(1,1,1,1)\nr(0,1,1,1)\n", []string{"0", "1"}},
		{"sparse", "w(70,1,0,0)\nw(5,1,0,0)\nr(70,1,1,1)\nr(5,1,1,1)\n", []string{"5", "70"}},
		{"big", "w(9000000000,1,0,0)\nw(3,1,0,0)\nw(4000000000,2,0,0)\nr(9000000000,1,1,1)\nr(3,1,1,1)\nr(4000000000,2,1,1)\n",
			[]string{"3", "4000000000", "9000000000"}},
	}
	for _, tt := range tests {
		h, err := ReadPlume(strings.NewReader(tt.in), tt.name)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var names []string
		for _, k := range h.Keys {
			names = append(names, k.Name)
		}
		if strings.Join(names, " ") != strings.Join(tt.keys, " ") {
			t.Errorf("%s: keys %v, want %v", tt.name, names, tt.keys)
		}
		writer, reader := &h.Txns[1], &h.Txns[2]
		for i, r := range reader.Ops {
			w := writer.Ops[i]
			if r.Writer != 1 || r.Key != w.Key || h.Keys[r.Key] != h.Keys[w.Key] {
				t.Errorf("%s: read %d of key %s from T%d, want key %s from T1", tt.name, i, h.Keys[r.Key].Name, r.Writer, h.Keys[w.Key].Name)
			}
		}
	}
}
