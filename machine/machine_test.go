package machine

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestFingerprintRoundTripsThroughConfig(t *testing.T) {
	f := Current()
	if f.Name == "" || f.Cores < 1 || f.Go == "" {
		t.Fatalf("fingerprint %+v", f)
	}
	if host, _ := os.Hostname(); host != "" && strings.Contains(f.Name, host) {
		t.Errorf("machine name %q contains the hostname", f.Name)
	}
	cfg := map[string]string{}
	var keys []string
	for _, kv := range f.Config() {
		cfg[kv[0]] = kv[1]
		keys = append(keys, kv[0])
	}
	if got := FromConfig(func(k string) string { return cfg[k] }, keys); !reflect.DeepEqual(got, f) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, f)
	}
}

func TestDefaultNameIsASlug(t *testing.T) {
	got := DefaultName(Fingerprint{CPU: "Apple M1 (Virtual) @ 3.2GHz", Cores: 8, Arch: "arm64"})
	if !strings.HasSuffix(got, "-arm64-apple-m1-virtual-3-2ghz-8c") {
		t.Errorf("name %q", got)
	}
}
