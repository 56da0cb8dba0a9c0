package content

import (
	"strings"
	"testing"
)

func TestRecordDisclaimer(t *testing.T) {
	const line = "record_disclaimer: \"Нумерология — традиция, а не наука.\"\n"
	tests := []siteLineCase{
		{"missing", "", []string{"content/site.yaml:1: record_disclaimer: missing field"}},
		{"at the limit", "record_disclaimer: \"" + strings.Repeat("ж", MaxRecordDisclaimer) + "\"\n", nil},
		{"too long", "record_disclaimer: \"" + strings.Repeat("ж", MaxRecordDisclaimer+1) + "\"\n",
			[]string{"content/site.yaml:22: record_disclaimer: too long: 161 characters, want at most 160"}},
	}
	runSiteLineCases(t, line, tests)
}

func TestRecordHelp(t *testing.T) {
	const line = "record_help: \"При насилии в отношениях нужна помощь людей, а при угрозе жизни — звонок по номеру 112.\"\n"
	tests := []siteLineCase{
		{"missing", "", []string{"content/site.yaml:1: record_help: missing field"}},
		{"at the limit", "record_help: \"" + strings.Repeat("ж", MaxRecordHelp-1) + ".\"\n", nil},
		{"too long", "record_help: \"" + strings.Repeat("ж", MaxRecordHelp) + ".\"\n",
			[]string{"content/site.yaml:23: record_help: too long: 301 characters, want at most 300"}},
		{"two sentences", "record_help: \"Дело не в числах. Нужна помощь людей.\"\n",
			[]string{"content/site.yaml:23: record_help: want one sentence"}},
		{"no full stop", "record_help: \"Дело не в числах, а в помощи людей\"\n",
			[]string{"content/site.yaml:23: record_help: want one sentence"}},
	}
	runSiteLineCases(t, line, tests)
}

// siteLineCase replaces a line of site.yaml with with (nothing: the field is missing) and
// wants the loader's problems want (nil: it loads).
type siteLineCase struct {
	name, with string
	want       []string
}

// runSiteLineCases runs each case on a fixture whose site.yaml has line replaced.
func runSiteLineCases(t *testing.T, line string, tests []siteLineCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edits := map[string]string{"site.yaml": replace(t, "site.yaml", line, tt.with)}
			if tt.want == nil {
				if _, err := Load(fixture(t, edits), "content", testRules); err != nil {
					t.Fatal(err)
				}
				return
			}
			wantProblems(t, edits, tt.want)
		})
	}
}
