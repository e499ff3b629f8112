package sqlexec

import (
	"slices"
	"testing"
)

// TestACLNewOwnerMergesTheOldOwnersItems pins aclnewowner: the old owner's
// items become the new owner's, as grantee and as grantor, and an item
// that then duplicates another is merged into it, grant options kept.
func TestACLNewOwnerMergesTheOldOwnersItems(t *testing.T) {
	const old, owner, other = 10, 20, 30
	for _, tc := range []struct {
		name      string
		acl, want []aclItem
	}{
		{"owner only", []aclItem{{old, old, "arwdDxt"}}, []aclItem{{owner, owner, "arwdDxt"}}},
		{"grant by the old owner", []aclItem{{old, old, "arwdDxt"}, {other, old, "r"}},
			[]aclItem{{owner, owner, "arwdDxt"}, {other, owner, "r"}}},
		{"new owner held a grant", []aclItem{{old, old, "arwdDxt"}, {owner, old, "r*w"}},
			[]aclItem{{owner, owner, "ar*wdDxt"}}},
		{"PUBLIC and other grantors stay", []aclItem{{0, old, "X"}, {old, old, "X"}, {other, other, "X"}},
			[]aclItem{{0, owner, "X"}, {owner, owner, "X"}, {other, other, "X"}}},
	} {
		if got := aclNewOwner(tc.acl, old, owner); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
