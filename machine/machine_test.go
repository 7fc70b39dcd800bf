package machine

import (
	"strings"
	"testing"

	"measuredbook/dataset"
)

func TestDefaultNameIsASlug(t *testing.T) {
	got := DefaultName(dataset.Fingerprint{CPU: "Apple M1 (Virtual) @ 3.2GHz", Cores: 8, Arch: "arm64"})
	if !strings.HasSuffix(got, "-arm64-apple-m1-virtual-3-2ghz-8c") {
		t.Errorf("name %q", got)
	}
}
