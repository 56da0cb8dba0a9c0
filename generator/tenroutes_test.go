//go:build scale

// The ten-route proof generates a 2.4 GB tree of 750,000 files: it runs with make
// test-scale (and in the scale job of CI's workflow), not in make test, whose ten minutes on
// a 2-core machine it would take a third of.

package generator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/opennumerology/numerology/edge/cloudflare"
	"github.com/opennumerology/numerology/edge/server"
	"github.com/opennumerology/numerology/edge/worker"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/contract"
	"github.com/opennumerology/numerology/internal/humanize"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// maxRootManifest is the most the root manifest of the full range may weigh with ten date
// routes (issue 26): it grows with the routes and the years' shards, never with the dates.
const maxRootManifest = 1_000_000

// TestTenDateRoutes is the route budget's proof (docs/design.md §13): the build's date routes
// and synthetic ones up to ten, the synthetic ones packed by year, over the full range. The
// tree generates (the budget lets it), verifies, serves its records through edge/server, and
// its deploy plan on Workers Free is within the limits, as numerology deploy --dry-run --plan
// free checks it; its root manifest.json is at most 1 MB, and no file it uploads is over 5 MiB.
func TestTenDateRoutes(t *testing.T) {
	testsupport.SkipShort(t, "generates, verifies and plans the deploy of a full-range tree of ten date routes")
	site := *testSite(t) // a copy: the test site is shared
	s := &site
	builtIn := 0
	for _, u := range s.units {
		if u.row.Packed != nil {
			builtIn++
		}
	}
	s.units = append(append([]routeUnit(nil), s.units...), syntheticDateRoutes(TenDateRoutes-builtIn, manifest.UnitYear)...)
	var dated []manifest.Route
	for _, r := range s.routes() {
		if r.Packed != nil {
			dated = append(dated, r)
		}
	}
	if len(dated) != TenDateRoutes {
		t.Fatalf("%d date routes, want %d", len(dated), TenDateRoutes)
	}
	out := filepath.Join(t.TempDir(), "out")
	ctx := context.Background()
	start := time.Now()
	sum, err := Generate(ctx, Options{Site: s, Out: out})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	t.Logf("generated in %v", time.Since(start))

	m, err := manifest.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	res, err := verifyTree(ctx, VerifyOptions{Dir: out}, m, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("verify: %d problems, the first %+v", len(res.Problems), res.Problems[0])
	}
	t.Logf("verified in %v", time.Since(start))

	h, err := server.New(server.Options{Dir: out, Manifest: m, NoReload: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, r := range dated {
		for _, date := range [][]int{{1, 1, 1900}, {29, 2, 2000}, {31, 12, 2100}} {
			want, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(r.FilePath(date))))
			if err != nil {
				t.Fatal(err)
			}
			sha := sha256.Sum256(want)
			path := datePath(r, date)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
			if w.Code != http.StatusOK || w.Body.String() != string(want) || w.Header().Get("ETag") != `"`+hex.EncodeToString(sha[:])+`"` {
				t.Errorf("GET %s: %d, ETag %s, %.80q; want 200 with %s", path, w.Code, w.Header().Get("ETag"), w.Body, r.FilePath(date))
			}
		}
		path := datePath(r, []int{30, 2, 2000})
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != http.StatusBadRequest {
			t.Errorf("GET %s: %d, want 400", path, w.Code)
		}
	}

	wk, err := cloudflare.LoadWorker(worker.WorkerFS, worker.WorkerConfig)
	if err != nil {
		t.Fatal(err)
	}
	limits, err := cloudflare.PlanLimits("free")
	if err != nil {
		t.Fatal(err)
	}
	p, err := cloudflare.NewPlan(out, m, wk, cloudflare.Options{Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Preflight(); err != nil {
		t.Fatalf("the ten-route tree does not fit Workers Free: %v", err)
	}
	root, err := os.Stat(filepath.Join(out, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ten date routes (%d built in, %d synthetic by year), 1900–2100: %s files, %s; %s uploaded (%s), of Free's %s; largest uploaded %s, %s; root manifest.json %s",
		builtIn, TenDateRoutes-builtIn, humanize.Count(int64(sum.Files)), humanize.Bytes(sum.Bytes),
		humanize.Count(int64(len(p.Assets))), humanize.Bytes(p.Bytes), humanize.Count(int64(limits.MaxFiles)),
		p.Largest.File, humanize.Bytes(p.Largest.Size), humanize.Bytes(root.Size()))
	if p.Largest.Size > contract.MaxUploadedFile {
		t.Errorf("the largest uploaded file, %s, is %s: over the %s an uploaded file may have", p.Largest.File, humanize.Bytes(p.Largest.Size), uploadLimit)
	}
	if root.Size() > maxRootManifest {
		t.Errorf("the root manifest.json is %s, over 1 MB", humanize.Bytes(root.Size()))
	}
}

// datePath is the API path of a date route's canonical values (day, month, year).
func datePath(r manifest.Route, vals []int) string {
	return r.Scope() + "/" + valuesLabel(vals)
}
