package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// regenerate writes a tree of years with the site into dir, as generate does.
func regenerate(t *testing.T, dir string, site *generator.Site, years ...int) {
	t.Helper()
	if _, err := generator.Generate(context.Background(), generator.Options{Site: site, Out: dir, Years: years}); err != nil {
		t.Fatal(err)
	}
}

// TestRegenerateUnderLoad regenerates the served tree four times (twice under -short), with
// site URLs of different lengths (so every body changes size), while eight clients keep
// requesting records, some with If-None-Match: every answer must be 200 or 304, and every
// 200's ETag the sha256 of its body. Before, the watch died with the first swap and records
// were answered with ETags of other bodies, or 500s. The tree holds one year: each swap
// replaces every file all the same, and generating is the test's cost.
func TestRegenerateUnderLoad(t *testing.T) {
	testsupport.SkipShort(t, "a stress test: regenerates the tree under concurrent load")
	const year = 2000
	c, err := generator.LoadContent(content.Embedded(), "content")
	if err != nil {
		t.Fatal(err)
	}
	urls := []string{"https://a.example", "https://a-much-longer-host-name.example/with/a/path"}
	sites := make([]*generator.Site, len(urls))
	for i, u := range urls {
		if sites[i], err = generator.NewSite(c, u); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "out")
	regenerate(t, dir, generatortest.Site(t), year)
	h, err := New(Options{Dir: dir, CacheBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	base := startServer(t, h)
	paths := []string{"/api/public/life-path", "/api/public/life-path/7", "/api/public"}
	for d := 1; d <= 28; d++ {
		paths = append(paths, fmt.Sprintf("/api/public/matrix/%d/%d/%d", d, 1+d%12, year))
	}
	var stop atomic.Bool
	var answers, bad atomic.Int64
	var firstBad atomic.Value
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			etags := map[string]string{}
			for !stop.Load() {
				p := paths[rand.IntN(len(paths))]
				if msg := checkAnswer(base, p, etags); msg != "" {
					bad.Add(1)
					firstBad.CompareAndSwap(nil, msg)
				}
				answers.Add(1)
			}
		}()
	}
	swaps := 4
	if testing.Short() {
		swaps = 2
	}
	for i := range swaps {
		time.Sleep(100 * time.Millisecond)
		regenerate(t, dir, sites[i%2], year)
	}
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if n := bad.Load(); n > 0 {
		t.Fatalf("%d of %d answers wrong, first: %v", n, answers.Load(), firstBad.Load())
	}
	t.Logf("%d answers", answers.Load())
	// The last tree is served: its site URL is in the records.
	waitFor(t, func() bool {
		b, _ := getBody(base + "/api/public/life-path/7")
		return b != nil && strings.Contains(string(b), urls[1])
	}, "the regenerated tree's records")
	// A record the new tree lacks is no longer answered 200.
	regenerate(t, dir, sites[1], year+1)
	waitFor(t, func() bool {
		resp, err := http.Get(base + fmt.Sprintf("/api/public/matrix/1/1/%d", year))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 500
	}, "500 for a record removed by the regenerate")
}

// checkAnswer requests p (with If-None-Match when an ETag is known) and describes what is
// wrong with the answer, "" when nothing.
func checkAnswer(base, p string, etags map[string]string) string {
	req, _ := http.NewRequest("GET", base+p, nil)
	if e, ok := etags[p]; ok && rand.IntN(2) == 0 {
		req.Header.Set("If-None-Match", e)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err.Error()
	}
	switch resp.StatusCode {
	case 304:
		return ""
	case 200:
		sum := sha256.Sum256(b)
		if want := `"` + hex.EncodeToString(sum[:]) + `"`; resp.Header.Get("ETag") != want {
			return fmt.Sprintf("%s: ETag %s, body's sha256 %s", p, resp.Header.Get("ETag"), want)
		}
		etags[p] = resp.Header.Get("ETag")
		return ""
	default:
		return fmt.Sprintf("%s: status %d", p, resp.StatusCode)
	}
}

func getBody(url string) ([]byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("waited 10 s for %s", what)
		}
	}
}
