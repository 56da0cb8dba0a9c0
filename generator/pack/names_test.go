package pack

import (
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/manifest"
)

// TestNamesAgreeEverywhere checks that the work's title, the publisher's name and the
// licence's Russian name are written one way in every file of the tree (records, pages,
// OpenAPI, llms.txt, sitemap) and of the dataset (README, LICENSE, CITATION.cff,
// datapackage.json, the CSVs and records), that the documents which must name them do,
// and that every record carries the same attribution strings.
func TestNamesAgreeEverywhere(t *testing.T) {
	s := fixtureSite.Content.Site
	names := []struct {
		name string
		want string
		// any spelling of the name: a match that is not exactly want is a variant.
		loose *regexp.Regexp
		// in lists the files that must name it.
		in []string
	}{
		{"title", s.Title, regexp.MustCompile(`(?i)открыт\pL*\s+(данны\pL*|API)\s+нумерологи\pL*`),
			[]string{"tree/" + generator.HomePage, "tree/" + manifest.OpenAPIFile, "tree/api/public/index.json", "tree/" + generator.LLMsFile,
				"dataset/" + ReadmeFile, "dataset/" + LicenseFile, "dataset/" + CitationFile, "dataset/" + DataPackageFile}},
		{"publisher", s.Publisher, regexp.MustCompile(`(?i)open\s+numerology\s+data`),
			[]string{"tree/" + generator.HomePage, "tree/" + manifest.OpenAPIFile, "tree/" + generator.LLMsFile,
				"dataset/" + ReadmeFile, "dataset/" + LicenseFile, "dataset/" + CitationFile, "dataset/" + DataPackageFile}},
		{"licence", s.LicenseName, regexp.MustCompile(`(?i)атрибуци\pL*»?\s*4\.0\s*»?\s*международн\pL*|с\s+указанием\s+авторства`),
			[]string{"tree/" + generator.HomePage, "tree/" + manifest.OpenAPIFile, "tree/api/public/index.json",
				"dataset/" + ReadmeFile, "dataset/" + LicenseFile}},
	}
	all := map[string][]byte{}
	err := filepath.WalkDir(fixtureDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(fixtureDir, p)
		rel = filepath.ToSlash(rel)
		// The per-date records are checked in the dataset's copy; the archives are binary.
		if strings.HasPrefix(rel, "api/public/matrix/") || strings.HasPrefix(rel, manifest.DownloadsDir+"/") {
			return nil
		}
		b, err := os.ReadFile(p)
		all["tree/"+rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range tarFiles(t) {
		all["dataset/"+name] = b
	}
	for _, n := range names {
		t.Run(n.name, func(t *testing.T) {
			variants := map[string]int{}
			for file, b := range all {
				for _, m := range n.loose.FindAllString(string(b), -1) {
					if m != n.want {
						variants[m]++
						if variants[m] == 1 {
							t.Errorf("%s writes the %s as %q, want %q", file, n.name, m, n.want)
						}
					}
				}
			}
			for _, file := range n.in {
				if !strings.Contains(string(all[file]), n.want) {
					t.Errorf("%s does not name the %s %q", file, n.name, n.want)
				}
			}
		})
	}
	t.Run("attribution", func(t *testing.T) {
		records := 0
		for file, b := range all {
			if !strings.HasSuffix(file, ".json") || !strings.Contains(file, "api/public/") || strings.Contains(file, "/errors/") {
				continue
			}
			var rec struct {
				Attribution     *string `json:"attribution"`
				AttributionHTML *string `json:"attribution_html"`
			}
			if err := json.Unmarshal(b, &rec); err != nil || rec.Attribution == nil {
				continue // a list, the OpenAPI document
			}
			records++
			if *rec.Attribution != fixtureSite.Attribution {
				t.Errorf("%s: attribution %q, want %q", file, *rec.Attribution, fixtureSite.Attribution)
			}
			if rec.AttributionHTML != nil && *rec.AttributionHTML != fixtureSite.AttributionHTML {
				t.Errorf("%s: attribution_html %q, want %q", file, *rec.AttributionHTML, fixtureSite.AttributionHTML)
			}
		}
		if records < fullDates {
			t.Errorf("checked the attribution of %d records, want at least %d", records, fullDates)
		}
		for _, file := range []string{"dataset/" + ReadmeFile, "dataset/" + LicenseFile, "tree/" + generator.LLMsFile} {
			if !strings.Contains(string(all[file]), fixtureSite.Attribution) {
				t.Errorf("%s does not carry the attribution %q", file, fixtureSite.Attribution)
			}
		}
		for _, part := range []string{s.Title, s.Publisher, fixtureSite.SiteURL, s.LicenseName, generator.LicenseURL} {
			if !strings.Contains(fixtureSite.Attribution, part) {
				t.Errorf("the attribution %q does not name %q", fixtureSite.Attribution, part)
			}
		}
		if want := `<a href="` + fixtureSite.SiteURL + `" rel="nofollow noopener">`; !strings.HasPrefix(fixtureSite.AttributionHTML, want) || !strings.HasSuffix(fixtureSite.AttributionHTML, "</a>") {
			t.Errorf("attribution_html %q is not a link %s…</a>", fixtureSite.AttributionHTML, want)
		}
	})
}

// TestDisclaimerEverywhere checks that the disclaimer of content/site.yaml reaches every
// document that must say it — the API index, the OpenAPI document, llms.txt, the dataset's
// README and, typeset, the pages' footer — and that the README counts rows and files as
// each of its languages writes numbers: 73 414 (a non-breaking space) and 73,414.
func TestDisclaimerEverywhere(t *testing.T) {
	s := fixtureSite.Content.Site
	ds := tarFiles(t)
	read := func(rel string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(fixtureDir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var idx generator.APIIndex
	if err := json.Unmarshal([]byte(read(manifest.IndexFile)), &idx); err != nil {
		t.Fatal(err)
	}
	if idx.Disclaimer != s.Disclaimer {
		t.Errorf("index.json: disclaimer = %q, want %q", idx.Disclaimer, s.Disclaimer)
	}
	var doc struct {
		Info struct {
			Description string `json:"description"`
		} `json:"info"`
	}
	if err := json.Unmarshal([]byte(read(manifest.OpenAPIFile)), &doc); err != nil {
		t.Fatal(err)
	}
	readme := string(ds[ReadmeFile])
	footer := strings.ReplaceAll(html.UnescapeString(read(generator.HomePage)), "\u00a0", " ")
	for _, c := range []struct{ name, text, want string }{
		{"openapi.json info.description", doc.Info.Description, s.Disclaimer},
		{"llms.txt", read(generator.LLMsFile), s.Disclaimer},
		{"llms.txt in English", read(generator.LLMsFile), s.DisclaimerEN},
		{"README", readme, s.Disclaimer},
		{"README in English", readme, s.DisclaimerEN},
		{"home page footer", footer, s.Disclaimer},
		{"README rows", readme, "(73\u00a0414 строк)"},
		{"README rows in English", readme, "(73,414 rows)"},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s lacks %q", c.name, c.want)
		}
	}
}
