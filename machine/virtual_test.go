package machine

import (
	"os"
	"strings"
	"testing"
)

// TestVirtualIsRecorded: on Linux the hypervisor flag decides.
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
}
