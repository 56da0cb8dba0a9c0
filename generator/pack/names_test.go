package pack

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
	all := namedFiles(t)
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
		kinds := map[string]int{} // date route → its records checked
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
			for _, r := range dateRoutes() {
				if _, ok := r.MatchFile(strings.TrimPrefix(strings.TrimPrefix(file, "tree/"), "dataset/")); ok {
					kinds[r.Name]++
				}
			}
			if *rec.Attribution != fixtureSite.Attribution {
				t.Errorf("%s: attribution %q, want %q", file, *rec.Attribution, fixtureSite.Attribution)
			}
			if rec.AttributionHTML != nil && *rec.AttributionHTML != fixtureSite.AttributionHTML {
				t.Errorf("%s: attribution_html %q, want %q", file, *rec.AttributionHTML, fixtureSite.AttributionHTML)
			}
		}
		// In the tree and in the dataset: the 12 life paths, 22 arcana, 78 pairs, and one
		// record of each date route.
		if want := 2 * (12 + 22 + 78 + len(dateRoutes())); records < want {
			t.Errorf("checked the attribution of %d records, want at least %d", records, want)
		}
		for _, r := range dateRoutes() {
			if kinds[r.Name] != 2 {
				t.Errorf("checked %d records of route %s, want one in the tree and one in the dataset", kinds[r.Name], r.Name)
			}
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

// dateRoutes are the routes with a record for every date.
func dateRoutes() []manifest.Route {
	var out []manifest.Route
	for _, r := range generator.Routes() {
		if r.Packed != nil {
			out = append(out, r)
		}
	}
	return out
}

// namedFiles returns the files the names are checked in, by "tree/" or "dataset/" and their
// path: every file of the fixture's tree and of its .tar.gz but the records of the date
// routes (and their month files), which differ only in the date, and of those one record of
// each route, in the tree and in the dataset: the example's date, 15.05.1990.
func namedFiles(t *testing.T) map[string][]byte {
	t.Helper()
	m, err := manifest.LoadFull(fixtureDir) // every file, the shards' too
	if err != nil {
		t.Fatal(err)
	}
	perDate := map[string]bool{}
	keep := map[string]bool{}
	for _, r := range dateRoutes() {
		for _, vals := range r.Values(m.Years) {
			perDate[r.FilePath(vals)] = true
			if p, _ := r.PackedPath(vals); p != "" {
				perDate[p] = true
			}
		}
		keep[r.FilePath([]int{15, 5, 1990})] = true
	}
	all := map[string][]byte{}
	for _, f := range m.Files {
		// The archives are binary.
		if perDate[f.Path] && !keep[f.Path] || strings.HasPrefix(f.Path, manifest.DownloadsDir+"/") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(fixtureDir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		all["tree/"+f.Path] = b
	}
	for name, b := range tarFiles(t) {
		if !perDate[name] || keep[name] {
			all["dataset/"+name] = b
		}
	}
	if len(keep) != len(dateRoutes()) || len(all) < 2*len(keep) {
		t.Fatalf("%d files, %d kept records", len(all), len(keep))
	}
	return all
}

// TestDisclaimerEverywhere checks that the disclaimer of content/site.yaml reaches every
// document that must say it — the API index, the OpenAPI document, llms.txt, the dataset's
// README and, typeset, the pages' footer — and that the README counts rows and files as
// each of its languages writes numbers: 1 234 (a non-breaking space) and 1,234
// (TestFullRangeTables: the 73,414 rows of the full range).
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
	jsonFiles := 0
	for name := range ds {
		if strings.HasPrefix(name, "api/public/") {
			jsonFiles++
		}
	}
	if jsonFiles < 1000 {
		t.Fatalf("%d JSON files: too few to show the thousands", jsonFiles)
	}
	footer := strings.ReplaceAll(html.UnescapeString(read(generator.HomePage)), "\u00a0", " ")
	for _, c := range []struct{ name, text, want string }{
		{"openapi.json info.description", doc.Info.Description, s.Disclaimer},
		{"llms.txt", read(generator.LLMsFile), s.Disclaimer},
		{"llms.txt in English", read(generator.LLMsFile), s.DisclaimerEN},
		{"README", readme, s.Disclaimer},
		{"README in English", readme, s.DisclaimerEN},
		{"home page footer", footer, s.Disclaimer},
		{"README rows", readme, "(" + strconv.Itoa(fixtureDates) + " строк)"},
		{"README rows in English", readme, "(" + strconv.Itoa(fixtureDates) + " rows)"},
		{"README files", readme, "(" + grouped(jsonFiles, "\u00a0") + " файлов)"},
		{"README files in English", readme, "(" + grouped(jsonFiles, ",") + " files)"},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s lacks %q", c.name, c.want)
		}
	}
}

// grouped writes n with sep between groups of three digits.
func grouped(n int, sep string) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + sep + s[i:]
	}
	return s
}
