package store

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"measuredbook/machine"
	"measuredbook/view"
)

func TestFingerprintRoundTripsThroughConfig(t *testing.T) {
	f := machine.Current()
	if f.Name == "" || f.Cores < 1 || f.Go == "" {
		t.Fatalf("fingerprint %+v", f)
	}
	if host, _ := os.Hostname(); host != "" && strings.Contains(f.Name, host) {
		t.Errorf("machine name %q contains the hostname", f.Name)
	}
	cfg := map[string]string{}
	var keys []string
	for _, kv := range fingerprintConfig(f) {
		cfg[kv[0]] = kv[1]
		keys = append(keys, kv[0])
	}
	if got, err := fingerprintFromConfig(func(k string) string { return cfg[k] }, keys, keyError); err != nil || !reflect.DeepEqual(got, f) {
		t.Errorf("round trip:\n got %+v, %v\nwant %+v", got, err, f)
	}
}

func TestFingerprintRejectsBadNumbers(t *testing.T) {
	for key, v := range map[string]string{"machine-cores": "many", "machine-memory": "16GB"} {
		_, err := fingerprintFromConfig(func(k string) string {
			if k == key {
				return v
			}
			return ""
		}, nil, keyError)
		if err == nil || !strings.HasPrefix(err.Error(), key+": ") {
			t.Errorf("%s: %q: err = %v, want an error naming the key", key, v, err)
		}
	}
}

// FuzzFingerprint parses arbitrary header lines as a fingerprint: never a
// panic, and what parses survives fingerprintConfig → fingerprintFromConfig unchanged.
func FuzzFingerprint(f *testing.F) {
	f.Add("machine: m1\nmachine-cpu: Apple M1\nmachine-cores: 8\nmachine-memory: 17179869184\nlimit-nofile: 1024/4096")
	f.Add("machine-cores: -1\nmachine-memory: 1e9")
	f.Add("limit-: x\nlimit-a: \nmachine-cores: 0x10")
	f.Fuzz(func(t *testing.T, text string) {
		cfg := map[string]string{}
		var keys []string
		for _, line := range strings.Split(text, "\n") {
			if k, v, ok := strings.Cut(line, ": "); ok {
				if _, dup := cfg[k]; !dup {
					keys = append(keys, k)
				}
				cfg[k] = v
			}
		}
		fp, err := fingerprintFromConfig(func(k string) string { return cfg[k] }, keys, keyError)
		if err != nil {
			return
		}
		again := map[string]string{}
		var keys2 []string
		for _, kv := range fingerprintConfig(fp) {
			again[kv[0]] = kv[1]
			keys2 = append(keys2, kv[0])
		}
		fp2, err := fingerprintFromConfig(func(k string) string { return again[k] }, keys2, keyError)
		if err != nil || !reflect.DeepEqual(fp, fp2) {
			t.Fatalf("round trip: %+v → %+v, %v", fp, fp2, err)
		}
		_ = view.English.MachineSummary(fp)
	})
}

// keyError is the error of a configuration line at key, as a results
// file's reader makes it without the file and line.
func keyError(key, format string, a ...any) error {
	return fmt.Errorf("%s: %s", key, fmt.Sprintf(format, a...))
}
