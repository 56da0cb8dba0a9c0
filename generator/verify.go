package generator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/outtree"
	"github.com/opennumerology/numerology/generator/rules"
)

// Problem kinds found by Verify.
const (
	ProblemMissing = "missing" // listed in the manifest (or required by the contract) but absent
	ProblemExtra   = "extra"   // present but not listed
	ProblemCorrupt = "corrupt" // size or sha256 differ from the manifest
	ProblemInvalid = "invalid" // bytes match but break the contract (bad JSON, wrong arcana)
)

// VerifyProblem is one thing wrong with a tree.
type VerifyProblem struct {
	Kind   string
	Path   string
	Detail string
}

func (p VerifyProblem) String() string {
	s := p.Kind + ": " + p.Path
	if p.Detail != "" {
		s += ": " + p.Detail
	}
	return s
}

// VerifyResult is what Verify found.
type VerifyResult struct {
	Manifest *manifest.Manifest
	Problems []VerifyProblem // sorted by path, then kind
}

// VerifyOptions configures VerifyTree.
type VerifyOptions struct {
	Dir string
	// Content is the content the tree was generated from (generate --content); nil means
	// the built-in content.
	Content fs.FS
	// OnProgress, when set, is called now and then with the files checked and the total.
	OnProgress func(done, total int)
}

// Verify checks the tree in dir against its manifest, the built-in content and the
// contract (see VerifyTree).
func Verify(ctx context.Context, dir string, onProgress func(done, total int)) (*VerifyResult, error) {
	return VerifyTree(ctx, VerifyOptions{Dir: dir, OnProgress: onProgress})
}

// VerifyTree checks a tree against its manifest, the content and the contract: every listed
// file has its size and sha256, no unlisted file exists, the edge config is this build's,
// every value of every route of the manifest's years has its file (and its packed month
// file's line), and every route's file and packed line is byte for byte what the route's
// renderer gives from the rules and the content; a difference names the file (and line)
// and the first field that differs. The error is for a tree that cannot be checked at all
// (no or unreadable manifest, content that does not load).
func VerifyTree(ctx context.Context, opts VerifyOptions) (*VerifyResult, error) {
	m, err := manifest.Load(opts.Dir)
	if err != nil {
		return nil, err
	}
	fsys, label := opts.Content, "content"
	if fsys == nil {
		fsys = content.Embedded()
	}
	c, err := LoadContent(fsys, label)
	if err != nil {
		return nil, err
	}
	site, err := NewSite(c, m.SiteURL)
	if err != nil {
		return nil, fmt.Errorf("the manifest's site url: %w", err)
	}
	v := &verifier{dir: opts.Dir, m: m, index: m.Index(), expect: map[string]expectation{}}
	if err := v.prepare(site); err != nil {
		return nil, err
	}
	v.checkRoutes()
	v.checkWorkerAssets()
	if err := v.walk(); err != nil {
		return nil, err
	}
	if err := v.checkFiles(ctx, opts.OnProgress); err != nil {
		return nil, err
	}
	slices.SortFunc(v.problems, func(a, b VerifyProblem) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	return &VerifyResult{Manifest: m, Problems: v.problems}, nil
}

type verifier struct {
	dir    string
	m      *manifest.Manifest
	index  map[string]*manifest.File
	routes []manifest.Route
	encs   map[string]encodeFunc
	// expect maps each file whose content is known to what it must hold.
	expect   map[string]expectation
	mu       sync.Mutex
	problems []VerifyProblem
	dirs     sync.Map // folder (tree path) → whether it and its parents are real folders
}

// inTree reports whether the tree folder rel ("" for the root) and every folder above it are
// real folders, not links, so that reading below it stays inside the tree.
func (v *verifier) inTree(rel string) bool {
	if rel == "" {
		return true
	}
	if ok, seen := v.dirs.Load(rel); seen {
		return ok.(bool)
	}
	fi, err := os.Lstat(filepath.Join(v.dir, filepath.FromSlash(rel)))
	ok := (err != nil || fi.IsDir()) && v.inTree(pathDir(rel)) // a missing folder reads nothing
	v.dirs.Store(rel, ok)
	return ok
}

// expectation is what one file of the tree must hold: fixed bytes, the body of a route's
// value, or the lines of a packed month file.
type expectation struct {
	body   []byte
	route  *manifest.Route
	vals   []int
	packed bool // vals hold the month and year; the lines are the days
}

func (v *verifier) add(kind, path, format string, args ...any) {
	v.mu.Lock()
	v.problems = append(v.problems, VerifyProblem{kind, path, fmt.Sprintf(format, args...)})
	v.mu.Unlock()
}

// prepare renders what the edge files must hold and the route encoders, and checks the
// manifest's edge config against this build's.
func (v *verifier) prepare(site *Site) error {
	cfg, err := site.EdgeConfig()
	if err != nil {
		return err
	}
	if v.encs, err = site.encoders(); err != nil {
		return err
	}
	v.routes = cfg.Routes
	got, err := Encode(v.m.Edge)
	if err != nil {
		return err
	}
	want, err := Encode(cfg)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		v.add(ProblemInvalid, manifest.FileName, "edge: %s", jsonDiff(got, want))
	}
	v.expect[manifest.EdgeFile] = expectation{body: want}
	v.expect[manifest.HeadersFile] = expectation{body: HeadersFile(cfg.Headers)}
	mcp, err := site.MCPFileBody()
	if err != nil {
		return err
	}
	v.expect[manifest.MCPFile] = expectation{body: mcp}
	// .assetsignore is not compared with the generated one: it is the deploy's to tune (more
	// rules, as wrangler reads them), and what matters of it, that it keeps every file the
	// worker reads, checkWorkerAssets checks.
	for _, e := range cfg.Errors {
		v.expect[e.File] = expectation{body: []byte(e.Body)}
	}
	return nil
}

// checkRoutes reports every file the contract requires that the manifest does not list,
// and per-route counts that differ from the files the years hold.
func (v *verifier) checkRoutes() {
	for _, y := range v.m.Years {
		if y < rules.FirstYear || y > rules.LastYear {
			v.add(ProblemInvalid, manifest.FileName, "year %d is outside %d–%d", y, rules.FirstYear, rules.LastYear)
		}
	}
	for i := range v.routes {
		r := &v.routes[i]
		values := r.Values(v.m.Years)
		for _, vals := range values {
			v.expect[r.FilePath(vals)] = expectation{route: r, vals: vals}
			if p, line := r.PackedPath(vals); line == 1 {
				v.expect[p] = expectation{route: r, vals: vals, packed: true}
			}
		}
		if got := v.m.Counts.Routes[r.Name]; got != len(values) {
			v.add(ProblemInvalid, manifest.FileName, "counts.routes.%s is %d, the years hold %d", r.Name, got, len(values))
		}
	}
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range v.expect {
			if !yield(p) {
				return
			}
		}
	}) {
		if _, ok := v.index[p]; !ok {
			v.add(ProblemMissing, p, "required file is not in the manifest")
		}
	}
	if v.m.Counts.Files != len(v.m.Files) {
		v.add(ProblemInvalid, manifest.FileName, "counts.files is %d, the manifest lists %d", v.m.Counts.Files, len(v.m.Files))
	}
}

// walk reports files on disk that the manifest does not list.
func (v *verifier) walk() error {
	return filepath.WalkDir(v.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(v.dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() || rel == manifest.FileName {
			return nil
		}
		if _, ok := v.index[rel]; !ok {
			v.add(ProblemExtra, rel, "not listed in the manifest")
		} else if !d.Type().IsRegular() {
			v.add(ProblemInvalid, rel, "not a regular file")
		}
		return nil
	})
}

// checkFiles re-hashes every listed file and checks its content, on several goroutines.
func (v *verifier) checkFiles(ctx context.Context, onProgress func(done, total int)) error {
	var done atomic.Int64
	jobs := make(chan *manifest.File)
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for f := range jobs {
				buf = v.checkFile(f, buf)
				if n := done.Add(1); onProgress != nil && n%1000 == 0 {
					onProgress(int(n), len(v.m.Files))
				}
			}
		}()
	}
	for i := range v.m.Files {
		if ctx.Err() != nil {
			break
		}
		jobs <- &v.m.Files[i]
	}
	close(jobs)
	wg.Wait()
	if onProgress != nil {
		onProgress(int(done.Load()), len(v.m.Files))
	}
	return ctx.Err()
}

// checkFile checks one listed file; buf is scratch space for rendering, returned for reuse.
func (v *verifier) checkFile(f *manifest.File, buf []byte) []byte {
	if !outtree.ValidPath(f.Path) {
		v.add(ProblemInvalid, f.Path, "not a path inside the tree (not read)")
		return buf
	}
	if !v.inTree(pathDir(f.Path)) {
		v.add(ProblemInvalid, f.Path, "a folder on its path is a link or not a folder (not read: it may lead out of the tree)")
		return buf
	}
	p := filepath.Join(v.dir, filepath.FromSlash(f.Path))
	if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
		return buf // walk reports it; a link is not read, it may lead out of the tree
	}
	b, err := os.ReadFile(p)
	if err != nil {
		if os.IsNotExist(err) {
			v.add(ProblemMissing, f.Path, "listed in the manifest but not on disk")
		} else {
			v.add(ProblemCorrupt, f.Path, "cannot read: %v", unwrapPath(err))
		}
		return buf
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); int64(len(b)) != f.Size || got != f.SHA256 {
		v.add(ProblemCorrupt, f.Path, "size %d sha256 %.12s…, manifest says size %d sha256 %.12s…", len(b), got, f.Size, f.SHA256)
	}
	e, known := v.expect[f.Path]
	switch {
	case known && e.packed:
		return v.checkPacked(f.Path, b, e, buf)
	case known && e.route != nil:
		var err error
		if buf, err = v.encs[e.route.Name](buf[:0], e.vals); err != nil {
			v.add(ProblemInvalid, f.Path, "cannot render %s %s: %v", e.route.Name, valuesLabel(e.vals), err)
		} else if !bytes.Equal(b, buf) {
			v.add(ProblemInvalid, f.Path, "%s", jsonDiff(b, buf))
		}
	case known:
		if !bytes.Equal(b, e.body) {
			v.add(ProblemInvalid, f.Path, "%s", jsonDiff(b, e.body))
		}
	case strings.HasSuffix(f.Path, ".json") && !json.Valid(b):
		v.add(ProblemInvalid, f.Path, "not valid JSON")
	}
	return buf
}

// checkPacked checks a packed month file: one line per day of the month, each line byte
// for byte the body of that date.
func (v *verifier) checkPacked(p string, b []byte, e expectation, buf []byte) []byte {
	m, y := e.vals[1], e.vals[2]
	days := rules.DaysIn(m, y)
	lines := bytes.SplitAfter(b, []byte("\n"))
	if last := lines[len(lines)-1]; len(last) == 0 {
		lines = lines[:len(lines)-1]
	}
	if len(lines) != days {
		v.add(ProblemInvalid, p, "holds %d records, %d.%d has %d days", len(lines), m, y, days)
	}
	vals := []int{0, m, y}
	for i, rec := range lines[:min(len(lines), days)] {
		vals[0] = i + 1
		var err error
		if buf, err = v.encs[e.route.Name](buf[:0], vals); err != nil {
			v.add(ProblemInvalid, p, "line %d: cannot render: %v", i+1, err)
			continue
		}
		if !bytes.Equal(rec, buf) {
			v.add(ProblemInvalid, p, "line %d, %02d.%02d.%04d: %s", i+1, i+1, m, y, jsonDiff(rec, buf))
		}
	}
	return buf
}

// jsonDiff says how got differs from want, two JSON bodies of one line: the first field
// (in sorted key order, depth first) whose value differs, with both values.
func jsonDiff(got, want []byte) string {
	if !bytes.HasSuffix(got, []byte("\n")) || bytes.IndexByte(got, '\n') != len(got)-1 {
		if bytes.HasSuffix(want, []byte("\n")) && bytes.IndexByte(want, '\n') == len(want)-1 {
			return "not one line ending in a newline"
		}
	}
	var g, w any
	if err := json.Unmarshal(want, &w); err != nil {
		return "differs from what the rules and the content give" // a file that is not JSON
	}
	if err := json.Unmarshal(got, &g); err != nil {
		return fmt.Sprintf("not valid JSON (%v)", err)
	}
	if path, gv, wv, ok := firstDiff("", g, w); ok {
		if path == "" {
			path = "the body"
		} else {
			path = "field " + path
		}
		gs, gok := gv.(string)
		ws, wok := wv.(string)
		if gok && wok && (len([]rune(gs)) > 40 || len([]rune(ws)) > 40) {
			at, a, b := textDiff(gs, ws)
			return fmt.Sprintf("%s differs at character %d: %q, the rules and the content give %q", path, at, a, b)
		}
		return fmt.Sprintf("%s is %s, the rules and the content give %s", path, short(gv), short(wv))
	}
	return "the JSON is equal to what the rules and the content give, the bytes are not (spacing, escaping or field order)"
}

// firstDiff finds the first path at which g and w differ.
func firstDiff(path string, g, w any) (string, any, any, bool) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch wv := w.(type) {
	case map[string]any:
		gv, ok := g.(map[string]any)
		if !ok {
			return path, g, w, true
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range wv {
				if !yield(k) {
					return
				}
			}
			for k := range gv {
				if _, ok := wv[k]; !ok && !yield(k) {
					return
				}
			}
		})
		for _, k := range keys {
			a, inG := gv[k]
			b, inW := wv[k]
			switch {
			case !inG:
				return join(k), note("nothing"), b, true
			case !inW:
				return join(k), a, note("no such field"), true
			}
			if p, x, y, ok := firstDiff(join(k), a, b); ok {
				return p, x, y, true
			}
		}
		return "", nil, nil, false
	case []any:
		gv, ok := g.([]any)
		if !ok {
			return path, g, w, true
		}
		for i := range min(len(gv), len(wv)) {
			if p, x, y, ok := firstDiff(path+"["+strconv.Itoa(i)+"]", gv[i], wv[i]); ok {
				return p, x, y, true
			}
		}
		if len(gv) != len(wv) {
			return path, note(fmt.Sprintf("%d items", len(gv))), note(fmt.Sprintf("%d items", len(wv))), true
		}
		return "", nil, nil, false
	}
	if g != w {
		return path, g, w, true
	}
	return "", nil, nil, false
}

// textDiff finds the first character (from 1) at which two texts differ and returns a
// window of each around it.
func textDiff(a, b string) (int, string, string) {
	ra, rb := []rune(a), []rune(b)
	i := 0
	for i < len(ra) && i < len(rb) && ra[i] == rb[i] {
		i++
	}
	window := func(r []rune) string {
		lo, hi := max(0, i-15), min(len(r), i+15)
		s := string(r[lo:hi])
		if lo > 0 {
			s = "…" + s
		}
		if hi < len(r) {
			s += "…"
		}
		return s
	}
	return i + 1, window(ra), window(rb)
}

// note is a word of a difference's message in place of a value.
type note string

// short renders a JSON value for a message, cut to 60 characters.
func short(v any) string {
	if n, ok := v.(note); ok {
		return string(n)
	}
	b, err := json.MarshalWithOption(v, json.DisableHTMLEscape())
	if err != nil {
		return fmt.Sprint(v)
	}
	if r := []rune(string(b)); len(r) > 60 {
		return string(r[:57]) + "…"
	}
	return string(b)
}
