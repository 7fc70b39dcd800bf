package store

import "testing"

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"m1", "linux-amd64-amd-epyc-2c", "My_Set.2"} {
		if err := CheckName("set", ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "../etc", "a/b", "/abs", ".hidden", "a..b", "a b", "세트", `a\b`} {
		if err := CheckName("set", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
