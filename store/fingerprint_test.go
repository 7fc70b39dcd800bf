package store

import (
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
	if got, err := linesOf(fingerprintConfig(f)).fingerprint(); err != nil || !reflect.DeepEqual(got, f) {
		t.Errorf("round trip:\n got %+v, %v\nwant %+v", got, err, f)
	}
}

func TestFingerprintRejectsBadNumbers(t *testing.T) {
	for key, v := range map[string]string{"machine-cores": "many", "machine-memory": "16GB"} {
		_, err := linesOf([][2]string{{key, v}}).fingerprint()
		if err == nil || !strings.HasPrefix(err.Error(), "m.txt:1: "+key+": ") {
			t.Errorf("%s: %q: err = %v, want an error naming the key", key, v, err)
		}
	}
}

// FuzzFingerprint parses arbitrary header lines as a fingerprint: never a
// panic, and what parses survives fingerprintConfig → fingerprint unchanged.
func FuzzFingerprint(f *testing.F) {
	f.Add("machine: m1\nmachine-cpu: Apple M1\nmachine-cores: 8\nmachine-memory: 17179869184\nlimit-nofile: 1024/4096")
	f.Add("machine-cores: -1\nmachine-memory: 1e9")
	f.Add("limit-: x\nlimit-a: \nmachine-cores: 0x10")
	f.Fuzz(func(t *testing.T, text string) {
		var kvs [][2]string
		for _, line := range strings.Split(text, "\n") {
			if k, v, ok := strings.Cut(line, ": "); ok {
				kvs = append(kvs, [2]string{k, v})
			}
		}
		fp, err := linesOf(kvs).fingerprint()
		if err != nil {
			return
		}
		fp2, err := linesOf(fingerprintConfig(fp)).fingerprint()
		if err != nil || !reflect.DeepEqual(fp, fp2) {
			t.Fatalf("round trip: %+v → %+v, %v", fp, fp2, err)
		}
		_ = view.English.MachineSummary(fp)
	})
}

// linesOf is the configuration lines kvs of a file m.txt, each on line 1;
// of a key given twice the last counts.
func linesOf(kvs [][2]string) configLines {
	cfg := map[string]configLine{}
	for _, kv := range kvs {
		cfg[kv[0]] = configLine{kv[1], 1}
	}
	return configLines{cfg, "m.txt"}
}
