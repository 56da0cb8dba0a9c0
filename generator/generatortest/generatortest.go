// Package generatortest generates trees of the built-in content for the tests of the
// packages that read them (the edges, deploy, pack), as httptest does for servers.
package generatortest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// FullTreeEnv names the environment variable that holds the path of a full-range tree
// (1900–2100) which make test generates and verifies once (scripts/test.sh), so that the
// tests that need every date share it instead of generating it again.
const FullTreeEnv = "NUMEROLOGY_TEST_FULL_TREE"

// FullTree returns a tree of the full range. It is the shared tree of FullTreeEnv when that
// is set, which no test may change (copy what you change); otherwise a tree generated into a
// temporary directory of tb. It skips under -short: a full tree takes too long for the short
// suite.
func FullTree(tb testing.TB) string {
	tb.Helper()
	testsupport.SkipShort(tb, "needs a full-range tree")
	if dir := os.Getenv(FullTreeEnv); dir != "" {
		if !filepath.IsAbs(dir) {
			tb.Fatalf("%s=%s: want an absolute path (the tests run in their packages' folders)", FullTreeEnv, dir)
		}
		if _, err := os.Stat(filepath.Join(dir, manifest.FileName)); err != nil {
			tb.Fatalf("%s=%s is not a generated tree: %v", FullTreeEnv, dir, err)
		}
		return dir
	}
	return Tree(tb)
}

// Site returns the site of the built-in content with its own site URL.
func Site(tb testing.TB) *generator.Site {
	tb.Helper()
	s, err := site()
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Tree generates a tree of the given years (every year when none are given) into a new
// temporary directory of tb and returns its path.
func Tree(tb testing.TB, years ...int) string {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "out")
	if _, err := Generate(out, years...); err != nil {
		tb.Fatal(err)
	}
	return out
}

// Generate writes a tree of the given years (every year when none are given) to out and
// returns its site, for setups that have no testing.TB (TestMain, sync.Once).
func Generate(out string, years ...int) (*generator.Site, error) {
	s, err := site()
	if err != nil {
		return nil, err
	}
	if len(years) == 0 {
		years = nil
	}
	if _, err := generator.Generate(context.Background(), generator.Options{Site: s, Out: out, Years: years}); err != nil {
		return nil, fmt.Errorf("generate the test tree: %w", err)
	}
	return s, nil
}

func site() (*generator.Site, error) {
	c, err := generator.EmbeddedContent()
	if err != nil {
		return nil, fmt.Errorf("load the built-in content: %w", err)
	}
	return generator.NewSite(c, "")
}

// File is the tree path of the named route's file of canonical vals, from the route table
// (generator.Routes): the tests name a route's files as the generator does. It panics on a
// name the table does not have.
func File(route string, vals ...int) string { return row(route).FilePath(vals) }

// PackedFile is the packed file (docs/design.md §10) of the named date route that holds the
// body of canonical vals: a month file for PackedFile(generator.RouteMatrix, 1, 5, 2000).
func PackedFile(route string, vals ...int) string {
	p, _ := row(route).PackedPath(vals)
	if p == "" {
		panic("generatortest: route " + route + " has no packed files")
	}
	return p
}

// row is the named row of the route table.
func row(name string) manifest.Route {
	for _, r := range generator.Routes() {
		if r.Name == name {
			return r
		}
	}
	panic("generatortest: no route " + name)
}

// ExtraError is the error key AddExtraRoutes adds: a new key with a status of its own.
const ExtraError = "extra_not_found"

// AddExtraRoutes extends a generated tree as later rows of the route table would, with no
// renderer and no code: one route of each parameter type (a number, an unordered pair, and
// two rate-limited dates, one packed by month and one by year) answering a new error key
// with a new status, their files, the shards of the dated ones, and the manifest, edge.json
// and .assetsignore that list them. The edges must serve them from the config alone
// (docs/design.md §3). It returns the new routes.
func AddExtraRoutes(tb testing.TB, dir string) []manifest.Route {
	tb.Helper()
	m, err := manifest.Load(dir)
	if err != nil {
		tb.Fatal(err)
	}
	p := manifest.APIPrefix
	numbers := []int{2, 4, 8}
	dates := []manifest.ParamType{{Type: manifest.ParamDate, FirstYear: 1900, LastYear: 2100}}
	routes := []manifest.Route{{
		Name: "extra-number", Pattern: p + "/extra/number/{n}", File: "api/public/extra/number/{n}.json",
		Params: []manifest.ParamType{{Type: manifest.ParamNumber, Numbers: numbers}}, Error: ExtraError,
		Example: p + "/extra/number/4",
	}, {
		Name: "extra-pair", Pattern: p + "/extra/pair/{a}/{b}", File: "api/public/extra/pair/{a}-{b}.json",
		Params: []manifest.ParamType{{Type: manifest.ParamPair, Numbers: numbers}}, Error: ExtraError,
		Example: p + "/extra/pair/8/2",
	}, {
		Name: "extra-date", Pattern: p + "/extra/date/{day}/{month}/{year}", File: "api/public/extra/date/{year}/{month}/{day}.json",
		Params: dates, Packed: &manifest.Packed{File: "api/public/extra-months/{year}-{month}.jsonl", Unit: manifest.UnitMonth},
		Error: ExtraError, RateLimited: true, Example: p + "/extra/date/15/5/2000",
	}, {
		Name: "extra-yearly", Pattern: p + "/extra/yearly/{d}/{m}/{y}", File: "api/public/extra/yearly/{y}/{d}-{m}.json",
		Params: dates, Packed: &manifest.Packed{File: "api/public/extra-years/{year}.jsonl", Unit: manifest.UnitYear},
		Error: ExtraError, RateLimited: true, Example: p + "/extra/yearly/31/12/2000",
	}}
	body := func(r manifest.Route, vals []int) []byte {
		return fmt.Appendf(nil, "{\"route\":%q,\"values\":%s}\n", r.Name, strings.ReplaceAll(fmt.Sprint(vals), " ", ","))
	}
	write := func(rel string, b []byte) manifest.File {
		full := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			tb.Fatal(err)
		}
		sum := sha256.Sum256(b)
		return manifest.File{Path: rel, Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}
	}
	root := map[string][]byte{}
	var added []manifest.File // files of the shards, and the shards
	for _, r := range routes {
		if !r.Sharded() {
			for _, vals := range r.Values(m.Years) {
				root[r.FilePath(vals)] = body(r, vals)
			}
			continue
		}
		for _, y := range m.Years {
			s := manifest.Shard{Route: r.Name, Year: y}
			packed := map[string][]byte{}
			for _, vals := range r.YearValues(y) {
				b := body(r, vals)
				s.Files = append(s.Files, write(r.FilePath(vals), b))
				pp, _ := r.PackedPath(vals)
				packed[pp] = append(packed[pp], b...)
			}
			for pp, b := range packed {
				s.Files = append(s.Files, write(pp, b))
			}
			slices.SortFunc(s.Files, func(a, b manifest.File) int { return strings.Compare(a.Path, b.Path) })
			b, err := s.Encode()
			if err != nil {
				tb.Fatal(err)
			}
			added = append(added, s.Files...)
			shard := write(manifest.ShardPath(r.Name, y), b)
			added = append(added, shard)
			m.Shards = append(m.Shards, shard)
		}
	}
	for _, f := range added {
		m.Counts.Files++
		m.Counts.Bytes += f.Size
	}
	slices.SortFunc(m.Shards, func(a, b manifest.File) int { return strings.Compare(a.Path, b.Path) })
	e := manifest.ErrorResponse{Status: 422, File: manifest.ErrorsDir + "/extra-not-found.json",
		Body: `{"error":"Extra not found","status":422,"message":"Такого значения нет.","valid_numbers":[2,4,8]}` + "\n"}
	root[e.File] = []byte(e.Body)
	m.Edge.Errors[ExtraError] = e
	m.Edge.Headers.ByStatus["422"] = map[string]string{"Cache-Control": generator.CacheError}
	m.Edge.Routes = append(m.Edge.Routes, routes...)
	if err := m.Edge.Check(); err != nil {
		tb.Fatalf("the extended config: %v", err)
	}
	edge, err := generator.Encode(m.Edge)
	if err != nil {
		tb.Fatal(err)
	}
	root[manifest.EdgeFile] = edge
	root[manifest.AssetsIgnoreFile] = generator.AssetsIgnore(m.Edge.Routes)
	for _, r := range routes {
		m.Counts.Routes[r.Name] = len(r.Values(m.Years))
	}
	var files []manifest.File
	for rel, b := range root {
		files = append(files, write(rel, b))
	}
	m.SetFiles(files...)
	if err := m.Write(dir); err != nil {
		tb.Fatal(err)
	}
	return routes
}
