package machine

import (
	"os"
	"strings"
	"testing"
)

// TestVirtualIsRecorded: on Linux the hypervisor flag decides, and the
// fingerprint's configuration lines carry the answer.
func TestVirtualIsRecorded(t *testing.T) {
	f := Current()
	if info, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		want := "no"
		if strings.Contains(string(info), " hypervisor") {
			want = "yes"
		}
		if f.Virtual != want {
			t.Errorf("Virtual = %q, want %q", f.Virtual, want)
		}
	}
	found := false
	for _, kv := range Config(f) {
		found = found || kv == [2]string{"machine-virtual", f.Virtual}
	}
	if f.Virtual != "" && !found {
		t.Errorf("Config() lacks machine-virtual: %v", Config(f))
	}
}
