package content

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// aliasBomb is a "billion laughs" list: nine levels of ten aliases each, about 10^9 strings
// when expanded, in under 1 KB.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("traits:\n  - &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		p := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "  - &a%d [%s]\n", i, strings.TrimSuffix(strings.Repeat(p+", ", 10), ", "))
	}
	return b.String()
}

// TestHostileContent feeds the loader files built to exhaust memory or time: each must be
// refused with file:line and nothing decoded. (Before the limits, the alias bomb and the
// deep nesting ran out of memory and the huge publisher made a 1.9 GB tree.)
func TestHostileContent(t *testing.T) {
	tests := []struct {
		name  string
		edits func(t *testing.T) map[string]string
		want  string
	}{
		{
			name: "alias bomb",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"life-path/1.yaml": replace(t, "life-path/1.yaml", "traits: [черта1, черта2, черта3, черта4, черта5]\n", aliasBomb())}
			},
			want: "content/life-path/1.yaml:8: YAML anchors and aliases (&, *) are not allowed in content",
		},
		{
			name: "empty tagged value",
			edits: func(t *testing.T) map[string]string {
				// Crashed go-yaml's decoder before tags were refused (found by FuzzLoad).
				return map[string]string{"life-path/1.yaml": replace(t, "life-path/1.yaml", "traits: [черта1, черта2, черта3, черта4, черта5]\n", "traits: !0 #x\n")}
			},
			want: "content/life-path/1.yaml:7: YAML tags (!0) are not allowed in content",
		},
		{
			name: "deep flow nesting",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"life-path/1.yaml": "traits: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n"}
			},
			want: "content/life-path/1.yaml:1: nested deeper than 16 levels",
		},
		{
			name: "deep block nesting",
			edits: func(t *testing.T) map[string]string {
				// 30,000 levels in 60 KB: go-yaml's parser took 1.4 GB and 4.7 s to build it.
				return map[string]string{"life-path/1.yaml": strings.Repeat("- ", 30000) + "x\n"}
			},
			want: "content/life-path/1.yaml:1: nested deeper than 16 levels",
		},
		{
			name: "deep indented mappings",
			edits: func(t *testing.T) map[string]string {
				var b strings.Builder
				for i := range 40 {
					fmt.Fprintf(&b, "%sk%d:\n", strings.Repeat(" ", i), i)
				}
				return map[string]string{"positions.yaml": b.String()}
			},
			want: "content/positions.yaml:17: nested deeper than 16 levels",
		},
		{
			name: "block and flow nesting together",
			edits: func(t *testing.T) map[string]string {
				// Ten levels of each: neither alone crosses the limit.
				return map[string]string{"arcana.yaml": strings.Repeat("- ", 10) + strings.Repeat("[", 10) + "x" + strings.Repeat("]", 10) + "\n"}
			},
			want: "content/arcana.yaml:1: nested deeper than 16 levels",
		},
		{
			name: "file over the size limit",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"life-path/1.yaml": "number: 1\n" + strings.Repeat("[", 204<<10)}
			},
			want: "content/life-path/1.yaml:2: file is larger than 64 KiB",
		},
		{
			name: "huge publisher",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"site.yaml": replace(t, "site.yaml", "publisher: Open Numerology Data", "publisher: "+strings.Repeat("x", 16<<20))}
			},
			want: "content/site.yaml:3: file is larger than 64 KiB",
		},
		{
			name: "long publisher within the file limit",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"site.yaml": replace(t, "site.yaml", "publisher: Open Numerology Data", "publisher: "+strings.Repeat("x", 5000))}
			},
			want: "content/site.yaml:3: publisher: too long: 5000 characters, the limit is 1000",
		},
		{
			name: "long list item",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"life-path/3.yaml": replace(t, "life-path/3.yaml", "черта1", strings.Repeat("ж", 1001))}
			},
			want: "content/life-path/3.yaml:7: traits[0]: too long: 1001 characters, the limit is 1000",
		},
		{
			name: "not UTF-8",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"positions.yaml": "- key: personal\n  title: \xff\n"}
			},
			want: "content/positions.yaml:2: file is not valid UTF-8",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(fixture(t, tt.edits(t)), "content", testRules)
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("Load error = %v, want Errors", err)
			}
			for _, p := range errs {
				if strings.HasPrefix(p.String(), tt.want) {
					return
				}
			}
			t.Errorf("problems:\n%v\nwant one starting %q", err, tt.want)
		})
	}
}

// TestRefusedCharacters checks that control characters, raw or escaped, never reach a value
// (they landed raw in index.html and llms.txt), and that byte order marks are handled.
func TestRefusedCharacters(t *testing.T) {
	const tagline = "tagline: Девиз числа 1\n"
	tests := []struct {
		name string
		file string // of life-path/1.yaml
		want string // "": the file loads
	}{
		{"raw NUL", replace(t, "life-path/1.yaml", tagline, "tagline: Девиз\x00 числа 1\n"),
			"content/life-path/1.yaml:3: control character U+0000 is not allowed (only newline and tab are)"},
		{"escaped NUL", replace(t, "life-path/1.yaml", tagline, `tagline: "Девиз\0 числа 1"`+"\n"),
			"content/life-path/1.yaml:3: control character U+0000 is not allowed"},
		{"escaped ESC", replace(t, "life-path/1.yaml", tagline, `tagline: "Девиз\x1b[31m"`+"\n"),
			"content/life-path/1.yaml:3: control character U+001B is not allowed"},
		{"escaped C1 control", replace(t, "life-path/1.yaml", tagline, `tagline: "Девиз\u0085"`+"\n"),
			"content/life-path/1.yaml:3: control character U+0085 is not allowed"},
		{"raw DEL in a comment", replace(t, "life-path/1.yaml", tagline, tagline+"# \x7f\n"),
			"content/life-path/1.yaml:4: control character U+007F is not allowed"},
		{"lone carriage return", replace(t, "life-path/1.yaml", tagline, "tagline: Девиз\rчисла 1\n"),
			"content/life-path/1.yaml:3: control character U+000D is not allowed"},
		{"tab and CRLF line ends", strings.ReplaceAll(replace(t, "life-path/1.yaml", tagline, "tagline: \"Девиз\tчисла 1\"\n"), "\n", "\r\n"), ""},
		{"leading byte order mark", "\uFEFF" + replace(t, "life-path/1.yaml", tagline, tagline), ""},
		{"byte order mark inside", replace(t, "life-path/1.yaml", tagline, tagline+"\uFEFFnumber: 1\n"),
			"content/life-path/1.yaml:4: byte order mark (U+FEFF) after the start of the file"},
		{"UTF-16", "\xff\xfen\x00u\x00", "content/life-path/1.yaml:1: file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(fixture(t, map[string]string{"life-path/1.yaml": tt.file}), "content", testRules)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			var errs Errors
			if !errors.As(err, &errs) || len(errs) != 1 || !strings.HasPrefix(errs[0].String(), tt.want) {
				t.Fatalf("Load error = %v, want one problem starting %q", err, tt.want)
			}
		})
	}
}
