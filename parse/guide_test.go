package parse

import (
	"os"
	"strings"
	"testing"
)

// TestGuideCoversEveryField: docs/authoring.md documents every field the
// parser accepts, each in its directive's section, as `field` or `field: …`.
func TestGuideCoversEveryField(t *testing.T) {
	guide, err := os.ReadFile("../docs/authoring.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, fields := range directiveFields {
		_, section, ok := strings.Cut(string(guide), "\n### "+name+"\n")
		if !ok {
			t.Errorf("docs/authoring.md has no section ### %s", name)
			continue
		}
		section, _, _ = strings.Cut(section, "\n## ")
		section, _, _ = strings.Cut(section, "\n### ")
		for _, f := range fields {
			if !strings.Contains(section, "`"+f+"`") && !strings.Contains(section, "`"+f+":") {
				t.Errorf("docs/authoring.md's ### %s does not document the field `%s`", name, f)
			}
		}
	}
	if !strings.Contains(string(guide), "`cdf`") {
		t.Error("docs/authoring.md does not document kind: cdf")
	}
}
