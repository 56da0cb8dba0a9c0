package worker_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/edge/cloudflare"
	"github.com/opennumerology/numerology/edge/worker"
	"github.com/opennumerology/numerology/generator/manifest"
)

// TestWranglerUploadsWhatDeployUploads: `wrangler deploy --dry-run` builds its assets
// manifest from the tree with the tree's .assetsignore (its debug log names every path it
// ignores); the files it keeps are exactly the assets numerology deploy plans, for the
// generated .assetsignore and for one with more of gitignore's rules added.
func TestWranglerUploadsWhatDeployUploads(t *testing.T) {
	requireTools(t)
	tests := []struct {
		name  string
		extra string // lines appended to the generated .assetsignore
	}{
		{"generated", ""},
		{"more rules", "*.html\n!/index.html\n!life-path/3?.html\n/life-path/?.html\n/assets/*.js\nllms.txt\n**/life-path/22.json\n# /404.html\n/matrix/\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { compareUploads(t, tt.extra) })
	}
}

func compareUploads(t *testing.T, extra string) {
	tree := generateTree(t, []int{2000})
	if extra != "" {
		f, err := os.OpenFile(filepath.Join(tree, manifest.AssetsIgnoreFile), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(extra); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	cmd := exec.Command("npm", "run", "--silent", "deploy", "--", "--dry-run",
		"--outdir", filepath.Join(t.TempDir(), "bundle"), "--assets", tree)
	cmd.Dir = edgeDir
	cmd.Env = append(os.Environ(), "WRANGLER_LOG=debug", "WRANGLER_SEND_METRICS=false", "NO_COLOR=1", "CI=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("wrangler deploy --dry-run: %v\n%s", err, out)
	}
	ignored := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if rel, ok := strings.CutPrefix(strings.TrimSpace(line), "Ignoring asset: "); ok {
			ignored[filepath.ToSlash(rel)] = true
		}
	}
	if len(ignored) == 0 {
		t.Fatalf("wrangler's debug log names no ignored asset:\n%s", out)
	}
	var wrangler []string
	err = filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(tree, p)
		if rel = filepath.ToSlash(rel); !ignored[rel] {
			wrangler = append(wrangler, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	m, err := manifest.Load(tree)
	if err != nil {
		t.Fatal(err)
	}
	w, err := cloudflare.LoadWorker(worker.WorkerFS, worker.WorkerConfig)
	if err != nil {
		t.Fatal(err)
	}
	limits, _ := cloudflare.PlanLimits("free")
	plan, err := cloudflare.NewPlan(tree, m, w, cloudflare.Options{Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	var deploy []string
	for _, a := range plan.Assets {
		deploy = append(deploy, a.File)
	}
	slices.Sort(wrangler)
	slices.Sort(deploy)
	if !slices.Equal(wrangler, deploy) {
		for _, f := range wrangler {
			if !slices.Contains(deploy, f) {
				t.Errorf("wrangler uploads %s, numerology deploy does not", f)
			}
		}
		for _, f := range deploy {
			if !slices.Contains(wrangler, f) {
				t.Errorf("numerology deploy uploads %s, wrangler does not", f)
			}
		}
	}
	if slices.Contains(deploy, manifest.MatrixFile(1, 1, 2000)) || !slices.Contains(deploy, manifest.MatrixMonthFile(2000, 1)) {
		t.Errorf("the upload holds a per-date file or lacks a month file: %d files", len(deploy))
	}
	t.Logf("both upload %d files; wrangler ignored %d paths (directories included)", len(deploy), len(ignored))
}
