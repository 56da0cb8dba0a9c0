package worker_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/edge/cloudflare"
	"github.com/opennumerology/numerology/edge/worker"
	"github.com/opennumerology/numerology/edge/worker/workertest"
	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/assetsignore"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// TestWranglerUploadsWhatDeployUploads: `wrangler deploy --dry-run` builds its assets
// manifest from the tree with the tree's .assetsignore (its debug log names every path it
// ignores); the files it keeps are exactly the assets numerology deploy plans, for the
// generated .assetsignore and for one with more of gitignore's rules added.
func TestWranglerUploadsWhatDeployUploads(t *testing.T) {
	testsupport.SkipShort(t, "runs wrangler (Node)")
	t.Parallel()
	workertest.RequireTools(t, edgeDir)
	tests := []struct {
		name  string
		extra string // lines appended to the generated .assetsignore
	}{
		{"generated", ""},
		{"more rules", "*.html\n!/index.html\n!life-path/3?.html\n/life-path/?.html\n/assets/*.js\nllms.txt\n**/life-path/22.html\n*.JSON.MAP\n# /404.html\n/matrix/\n"},
		{"case, byte-order mark, trailing blanks", "\ufeff/INDEX.HTML\n/Life-Path/ \t\n*.CSS\n[!a]*.txt\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { compareUploads(t, tt.extra) })
	}
}

// uploadsTree is the tree the wrangler comparisons run on: one year of records (2000)
// beside every page and asset. The rules under test name paths, not years, and wrangler
// reads and hashes every file of a tree (about 1.2 ms of CPU a file, beside 3.6 s to start):
// on the package's four-year tree each of the three runs cost 13 s of CPU, on this one 6 s.
var uploadsTree = generatortest.NewShared(2000)

func compareUploads(t *testing.T, extra string) {
	tree := uploadsTree.Link(t, func(rel string) bool { return rel == manifest.AssetsIgnoreFile })
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
	if slices.Contains(deploy, generatortest.File(generator.RouteMatrix, 1, 1, 2000)) || !slices.Contains(deploy, generatortest.PackedFile(generator.RouteMatrix, 1, 1, 2000)) {
		t.Errorf("the upload holds a per-date file or lacks a month file: %d files", len(deploy))
	}
	t.Logf("both upload %d files; wrangler ignored %d paths (directories included)", len(deploy), len(ignored))
}

// ignoreCorpus are .assetsignore files, each aimed at one rule of npm's ignore 5.3.1 as
// wrangler uses it (default options): case, byte-order mark, trailing whitespace and
// backslashes, "**" next to a slash or not, bracket expressions ([!…] and [^…] are not
// negations; an unclosed "[" never matches), negation, escapes that JavaScript reads in
// its own ways, Unicode, and files of several rules.
var ignoreCorpus = []string{
	string(generator.AssetsIgnore(generator.Routes())),
	"/API/Public/Matrix/\n",
	"INDEX.HTML\n",
	"\ufeff/index.html\n",
	"\ufeff# not a comment after a byte-order mark\n\ufeff/a\n",
	"\ufeff!a\n",
	"/index.html \t \n",
	"foo\\ \n",
	"foo\\  \n",
	"a\\\t\n",
	"foo\\\n/a\n",
	"foo\\\\\n",
	"foo\\\\\\\n",
	"\\\\ \n",
	"a**b\n",
	"**\n",
	"***\n",
	"a/**\n",
	"**/b\n",
	"a/**/b\n",
	"/a**/b\n",
	"**b\n",
	"a/**b\n",
	"a/b**\n",
	"**/**\n",
	"a/**/**/b\n",
	"[!a]x\n",
	"[^a]x\n",
	"[a-c]x\n",
	"[c-a]x\n",
	"[a\n",
	"x[\n",
	"a[b/c]\n",
	"\\[a]\n",
	"[a\\]\n",
	"[a\\\\]x\n",
	"[]]\n",
	"[?]\n",
	"[*]\n",
	"[\\d]x\n",
	"[a-\\d]x\n",
	"[~-!]\n",
	"!\n",
	"*\n!\n",
	"\\!a\n",
	"\\#a\n",
	"#a\n",
	"a\\*\n",
	"\\*x\n",
	"\\?\n",
	"\\n\n",
	"\\d\n",
	"\\w+\n",
	"\\x41\n",
	"\\u00DF\n",
	"\\cA\n",
	"\\c\n",
	"\\0\n",
	"\\12x\n",
	"\\8\n",
	"\\b\n",
	"a.b\n",
	"a+b\n",
	"a(b)\n",
	"a{2}\n",
	"a|b\n",
	"a$b\n",
	"a^b\n",
	"}\n]\n{\n",
	"матрица/\n",
	"ß\n",
	"ſ\n",
	"\u212a\n",
	"😀\n",
	"?😀\n",
	"ᾳ\n",
	"ﬀ\n",
	"dir/\n!dir/a\n",
	"dir\n!dir/a\n",
	"*/\n",
	"a*b*c\n",
	"/*\n",
	"*\n",
	"*\n!*.json\n",
	"*.json\n!/api/public/edge.json\n",
	"/api/\n!/api/public/edge.json\n",
	"a\\ b\n",
	"  \n\t\n",
	"a\\\\*\n",
	"x\r\n/index.html\r\n",
	"a\\\r\n",
	"!a\n*\n",
	"*\n!a\n",
	"/\n",
	"//\n",
	"./a\n",
	"../a\n",
	".\n",
	"*.JSON\n",
	"/API/**/EDGE.JSON\n",
	"life-path/?.html\n",
	"life-path/??.html\n",
	"/life-path/[!0-5].html\n",
	"/life-path/[^0-5].html\n",
	"/life-path/[0-5.html\n",
}

// ignorePaths are the paths every file of the corpus is asked about: tree files, their
// case variants and names built to meet the corpus's rules.
var ignorePaths = []string{
	"index.html", "INDEX.HTML", "Index.Html", "404.html", "manifest.json", "_headers", "_redirects",
	".assetsignore", "sub/_headers", "sub/.assetsignore",
	"api/public/matrix/1/1/2000.json", "API/PUBLIC/MATRIX/1/1/2000.json", "api/public/matrix-months/2000/1.jsonl",
	"api/public/edge.json", "api/public/index.json", "api/public/errors/not_found.json", "api/public/life-path/7.json",
	"life-path/7.html", "life-path/33.html", "life-path/6.html", "life-path/[.html",
	"a", "A", "a/b", "a/b/c", "a/x/b", "a/x/y/b", "x/a/b", "ab", "axb", "aab", "aaab", "b", "B", "x/b", "bb",
	"foo", "foo ", "foo  ", "foo\\", "foo\\ ", "a\t", "a ", " a", "a b", "a\tb", "\\", "\\ ",
	"dir", "dir/a", "dir/b", "dir/a/c", "dir/", "x/dir/a",
	"матрица/x", "МАТРИЦА/x", "Матрица", "ss", "SS", "ß", "ẞ", "s", "S", "ſ", "k", "K", "\u212a",
	"😀", "x😀", "a😀", "😀/x", "ᾳ", "ᾼ", "ΑΙ", "ﬀ", "FF", "İ", "i", "I", "ı",
	"a.b", "axb", "a+b", "a(b)", "aa", "a{2}", "a|b", "a$b", "a^b", "}", "]", "{", "[a]x", "[a]", "bx", "ax", "cx", "ex", "!x", "^x", "-x", "5x", "\nx", "~", "!",
	"!a", "#a", "#", "a*", "*x", "a?", "?", "n", "\n", "d", "5", "w", "ww", "A", "ß", "\x01", "\x00x", "\nx", "8", "b-", "*", "x",
	"c", "abc", "axbxc", "a/b/c/d", "xx/yy", "a.json", "A.JSON", "api/public/x.json", "api/x.json",
}

// TestAssetsIgnoreMatchesNpmIgnore runs npm's ignore 5.3.1 itself, as wrangler calls it
// (wrangler's three default rules, the file split on "\n", ignore().add, .test(path).ignored),
// and internal/assetsignore on the corpus above and on seeded random files and paths, and
// requires the same answer for every file and path, and the same refusal for a file
// JavaScript cannot read.
func TestAssetsIgnoreMatchesNpmIgnore(t *testing.T) {
	testsupport.SkipShort(t, "runs Node and the npm package ignore")
	workertest.RequireTools(t, edgeDir)
	requireIgnorePackage(t)
	files := slices.Clone(ignoreCorpus)
	paths := slices.Clone(ignorePaths)
	rnd := rand.New(rand.NewPCG(18, 5))
	for range 150 {
		files = append(files, randomIgnoreFile(rnd))
	}
	for range 150 {
		paths = append(paths, randomPath(rnd))
	}
	paths = slices.DeleteFunc(paths, func(p string) bool { return !validIgnorePath(p) })
	if len(files) < 50 {
		t.Fatalf("the corpus has %d files, want at least 50", len(files))
	}
	js := runNpmIgnore(t, files, paths)
	cases, disagree, refused := 0, 0, 0
	for i, f := range files {
		m, err := assetsignore.Parse([]byte(f))
		if (err != nil) != (js[i].Error != "") {
			disagree++
			t.Errorf("file %q: Go error %v, JavaScript error %q", f, err, js[i].Error)
			continue
		}
		if err != nil {
			cases++
			refused++
			continue
		}
		for j, p := range paths {
			cases++
			got, err := m.Ignored(p)
			if err != nil {
				t.Fatalf("file %q, path %q: %v", f, p, err)
			}
			if got != js[i].Ignored[j] {
				disagree++
				if disagree <= 40 {
					t.Errorf("file %q, path %q: Go ignored=%v, npm ignore %v", f, p, got, js[i].Ignored[j])
				}
			}
		}
	}
	if refused == 0 {
		t.Error("no file of the corpus is one JavaScript refuses")
	}
	t.Logf("%d files × %d paths: %d cases, %d disagreements; %d files refused by both", len(files), len(paths), cases, disagree, refused)
}

// TestCanonicalizationMatchesNode checks the case folding of the port against the Node
// that runs wrangler: a one-character rule against a one-character path, for every pair of
// a Basic Multilingual Plane character and its toUpperCase and toLowerCase.
func TestCanonicalizationMatchesNode(t *testing.T) {
	testsupport.SkipShort(t, "runs Node and the npm package ignore")
	workertest.RequireTools(t, edgeDir)
	requireIgnorePackage(t)
	const script = `
const ignore = require("ignore");
const pairs = [];
for (let u = 0x20; u < 0x10000; u++) {
  if (u >= 0xd800 && u <= 0xdfff) continue;
  const c = String.fromCharCode(u);
  if ("/\\*?[!#".includes(c) || /\s/.test(c)) continue;
  for (const o of new Set([c.toUpperCase(), c.toLowerCase()])) {
    if (o === c || o.length !== 1 || o === "/" || /\s/.test(o) || o === ".") continue;
    pairs.push([c, o, ignore().add(c).ignores(o)]);
  }
}
process.stdout.write(JSON.stringify(pairs));`
	cmd := exec.Command(filepath.Join(edgeDir, "node_modules", ".bin", "node"), "-e", script)
	cmd.Dir = edgeDir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var pairs [][3]any
	if err := json.Unmarshal(out, &pairs); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, p := range pairs {
		rule, path, want := p[0].(string), p[1].(string), p[2].(bool)
		m, err := assetsignore.Parse([]byte(rule))
		if err != nil {
			t.Fatalf("rule %q: %v", rule, err)
		}
		if got, _ := m.Ignored(path); got != want {
			bad++
			if bad <= 20 {
				t.Errorf("rule %q (U+%04X), path %q (U+%04X): Go %v, Node %v", rule, []rune(rule)[0], path, []rune(path)[0], got, want)
			}
		}
	}
	t.Logf("%d character pairs, %d disagreements", len(pairs), bad)
}

func requireIgnorePackage(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(edgeDir, "node_modules", "ignore", "package.json"))
	if err != nil {
		t.Fatalf("edge/worker/node_modules/ignore missing: run make test-tools (npm ci in edge/worker/): %v", err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(b, &pkg); err != nil || pkg.Version != "5.3.1" {
		t.Fatalf("edge/worker/node_modules/ignore is version %q, want 5.3.1 (wrangler's): run make test-tools", pkg.Version)
	}
}

type npmIgnoreResult struct {
	Error   string `json:"error"`
	Ignored []bool `json:"ignored"`
}

// runNpmIgnore asks npm's ignore about every file and path, as wrangler does.
func runNpmIgnore(t *testing.T, files, paths []string) []npmIgnoreResult {
	t.Helper()
	const script = `
const ignore = require("ignore");
let input = "";
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
  const { files, paths } = JSON.parse(input);
  const out = files.map((f) => {
    let ig;
    try {
      ig = ignore().add(["/.assetsignore", "/_redirects", "/_headers", ...f.split("\n")]);
      return { ignored: paths.map((p) => ig.test(p).ignored) };
    } catch (e) {
      return { error: String(e) };
    }
  });
  process.stdout.write(JSON.stringify(out));
});`
	in, err := json.Marshal(map[string][]string{"files": files, "paths": paths})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(edgeDir, "node_modules", ".bin", "node"), "-e", script)
	cmd.Dir = edgeDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var res []npmIgnoreResult
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(files) {
		t.Fatalf("node answered %d results for %d files (%v)", len(res), len(files), err)
	}
	return res
}

// validIgnorePath reports whether ignore accepts p as a path (it throws for "", "/x",
// "./x", "../x", "." and ".."); wrangler only ever asks about paths readdir gives.
func validIgnorePath(p string) bool {
	if p == "" || strings.Trim(p, ".") == "" {
		return false
	}
	return !strings.HasPrefix(strings.TrimLeft(p, "."), "/")
}

// randomIgnoreFile builds a file of a few lines from the characters the rules treat
// specially.
func randomIgnoreFile(rnd *rand.Rand) string {
	pieces := []string{"*", "**", "?", "[", "]", "!", "^", "\\", "/", "a", "b", "B", ".", " ", "\t", "#", "-", "{", "}", "ß", "😀", "x", "\ufeff", "\r", "0", "z", "$", "(", "|"}
	var b strings.Builder
	for range 1 + rnd.IntN(3) {
		for range 1 + rnd.IntN(7) {
			b.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// randomPath builds a path of one to three segments.
func randomPath(rnd *rand.Rand) string {
	pieces := []string{"a", "b", "B", "x", ".", " ", "ß", "SS", "😀", "[", "]", "!", "#", "^", "\\", "-", "0", "z", "*", "?", "$"}
	var segs []string
	for range 1 + rnd.IntN(3) {
		var b strings.Builder
		for range 1 + rnd.IntN(4) {
			b.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		segs = append(segs, b.String())
	}
	return strings.Join(segs, "/")
}
