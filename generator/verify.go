package generator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
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
	Problems []VerifyProblem // sorted by path, then kind, then detail
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
// every value of every route of the manifest's years has its file (and its packed file's
// line), and every route's file and packed line is byte for byte what the route's renderer
// gives from the rules and the content; a difference names the file (and line) and the
// first field that differs. The shards of the manifest are checked against its root before
// their entries are trusted, and the tree is checked shard by shard, one shard per worker
// at a time, so memory does not grow with the tree. The error is for a tree that cannot be
// checked at all (no or unreadable manifest, content that does not load).
func VerifyTree(ctx context.Context, opts VerifyOptions) (*VerifyResult, error) {
	m, err := manifest.Load(opts.Dir)
	if err != nil {
		return nil, err
	}
	load := EmbeddedContent
	if opts.Content != nil {
		load = func() (*content.Content, error) { return LoadContent(opts.Content, "content") }
	}
	c, err := load()
	if err != nil {
		return nil, err
	}
	site, err := NewSite(c, m.SiteURL)
	if err != nil {
		return nil, fmt.Errorf("the manifest's site url: %w", err)
	}
	return verifyTree(ctx, opts, m, site)
}

// verifyTree checks the tree of m against the site's route table and renderers (VerifyTree;
// a test's site may have routes of its own).
func verifyTree(ctx context.Context, opts VerifyOptions, m *manifest.Manifest, site *Site) (*VerifyResult, error) {
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
	v.checkCounts()
	slices.SortFunc(v.problems, func(a, b VerifyProblem) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Detail, b.Detail)
	})
	return &VerifyResult{Manifest: m, Problems: v.problems}, nil
}

type verifier struct {
	dir    string
	m      *manifest.Manifest
	index  map[string]*manifest.File // the root's files
	routes []manifest.Route
	encs   map[string]encodeFunc
	// expect maps each file of the root whose content is known to what it must hold; the
	// files of a shard are expected shard by shard (shardExpect).
	expect   map[string]expectation
	mu       sync.Mutex
	problems []VerifyProblem
	dirs     sync.Map // folder (tree path) → whether it and its parents are real folders
	// listed sums what the manifest lists, shard by shard, for checkCounts; untrusted counts
	// the shards that did not match the root, whose files cannot be counted.
	listed struct {
		files     int
		bytes     int64
		untrusted int
	}
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
// value, or the lines of a packed file.
type expectation struct {
	body  []byte
	route *manifest.Route
	vals  []int
	// lines, for a packed file, are the values its lines hold, in order.
	lines [][]int
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

// checkRoutes reports every file the contract requires that the root of the manifest does
// not list (the files of the routes without packed files) and every shard it lacks, root
// entries that belong in a shard, and per-route counts that differ from the files the years
// hold. The files of the packed routes are expected shard by shard (checkShard).
func (v *verifier) checkRoutes() {
	for _, y := range v.m.Years {
		if y < rules.FirstYear || y > rules.LastYear {
			v.add(ProblemInvalid, manifest.FileName, "year %d is outside %d–%d", y, rules.FirstYear, rules.LastYear)
		}
	}
	for i := range v.routes {
		r := &v.routes[i]
		n := 0
		if r.Sharded() {
			for _, y := range v.m.Years {
				n += len(r.YearValues(y))
			}
		} else {
			for _, vals := range r.Values(v.m.Years) {
				v.expect[r.FilePath(vals)] = expectation{route: r, vals: vals}
				n++
			}
		}
		if got := v.m.Counts.Routes[r.Name]; got != n {
			v.add(ProblemInvalid, manifest.FileName, "counts.routes.%s is %d, the years hold %d", r.Name, got, n)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(v.expect)) {
		if _, ok := v.index[p]; !ok {
			v.add(ProblemMissing, p, "required file is not in the manifest")
		}
	}
	want := v.m.ShardPaths()
	for _, p := range want {
		if _, ok := v.m.Shard(p); !ok {
			v.add(ProblemMissing, p, "required shard is not in the manifest")
		}
	}
	for _, f := range v.m.Shards {
		if _, ok := slices.BinarySearch(want, f.Path); !ok {
			v.add(ProblemInvalid, manifest.FileName, "shards lists %s, which is no shard of a date route and year of the tree", f.Path)
		}
	}
	for _, f := range v.m.Files {
		if sp := v.m.Edge.ShardOf(f.Path); sp != "" {
			v.add(ProblemInvalid, manifest.FileName, "files lists %s, which the shard %s lists", f.Path, sp)
		} else if _, _, ok := manifest.ParseShardPath(f.Path); ok {
			v.add(ProblemInvalid, manifest.FileName, "files lists the shard %s, which belongs in shards", f.Path)
		}
	}
}

// checkCounts compares the manifest's counts of files and bytes with what it lists.
func (v *verifier) checkCounts() {
	if v.listed.untrusted > 0 {
		return // the shards that do not match their entries were reported; their files cannot be counted
	}
	files, bytes := len(v.m.Files)+len(v.m.Shards)+v.listed.files, v.listed.bytes
	for _, f := range v.m.Files {
		bytes += f.Size
	}
	for _, f := range v.m.Shards {
		bytes += f.Size
	}
	if v.m.Counts.Files != files {
		v.add(ProblemInvalid, manifest.FileName, "counts.files is %d, the manifest lists %d", v.m.Counts.Files, files)
	}
	if v.m.Counts.Bytes != bytes {
		v.add(ProblemInvalid, manifest.FileName, "counts.bytes is %d, the files the manifest lists hold %d", v.m.Counts.Bytes, bytes)
	}
}

// walk reports files on disk that the manifest does not list: neither the root, nor as a
// shard, nor as a file of a packed route in a year whose shard the root lists (checkShard
// then checks that the shard lists it).
func (v *verifier) walk() error {
	var files []*manifest.RouteFiles
	for i := range v.m.Edge.Routes {
		if f := v.m.Edge.Routes[i].Files(); f != nil {
			files = append(files, f)
		}
	}
	return filepath.WalkDir(v.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(v.dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() || rel == manifest.FileName {
			return nil
		}
		listed := v.index[rel] != nil
		if !listed {
			_, listed = v.m.Shard(rel)
		}
		for i := 0; !listed && i < len(files); i++ {
			if y, ok := files[i].ShardOf(rel); ok {
				_, listed = v.m.Shard(manifest.ShardPath(files[i].Route.Name, y))
			}
		}
		if !listed {
			v.add(ProblemExtra, rel, "not listed in the manifest")
		} else if !d.Type().IsRegular() {
			v.add(ProblemInvalid, rel, "not a regular file")
		}
		return nil
	})
}

// checkFiles re-hashes every listed file and checks its content, on several goroutines:
// the root's files one by one, the shards one at a time per goroutine.
func (v *verifier) checkFiles(ctx context.Context, onProgress func(done, total int)) error {
	var done atomic.Int64
	total := v.m.Counts.Files
	step := func() {
		if n := done.Add(1); onProgress != nil && n%1000 == 0 {
			onProgress(int(n), max(total, int(n)))
		}
	}
	type job struct {
		file  *manifest.File
		shard *manifest.File
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := v.newScratch()
			defer s.rd.Close()
			for j := range jobs {
				if j.file != nil {
					v.checkFile(*j.file, v.expect[j.file.Path], true, s)
					step()
				} else {
					v.checkShard(*j.shard, step, s)
				}
			}
		}()
	}
	for i := range v.m.Files {
		if ctx.Err() != nil {
			break
		}
		jobs <- job{file: &v.m.Files[i]}
	}
	for i := range v.m.Shards {
		if ctx.Err() != nil {
			break
		}
		jobs <- job{shard: &v.m.Shards[i]}
	}
	close(jobs)
	wg.Wait()
	if onProgress != nil {
		onProgress(int(done.Load()), max(total, int(done.Load())))
	}
	return ctx.Err()
}

// checkShard checks one shard and the files it lists: its bytes against the root's entry
// (a shard that does not match is reported and not trusted: the files of its route and year
// are then checked for their content alone), its files against the files of its route and
// year, and each file as checkFile does.
func (v *verifier) checkShard(entry manifest.File, step func(), sc *scratch) {
	route, year, _ := manifest.ParseShardPath(entry.Path)
	r := v.m.Edge.ShardRoute(route)
	if r == nil || !slices.Contains(v.m.Years, year) {
		step()
		return // checkRoutes reported it
	}
	expect := v.shardExpect(r, year)
	b, ok := v.read(entry.Path, sc.rd, nil) // its own bytes: the parsed shard may keep them
	step()
	var err error
	var s *manifest.Shard
	if ok {
		if sum := sha256.Sum256(b); int64(len(b)) != entry.Size || hex.EncodeToString(sum[:]) != entry.SHA256 {
			v.add(ProblemCorrupt, entry.Path, "size %d sha256 %.12s…, manifest says size %d sha256 %.12s…", len(b), hex.EncodeToString(sum[:]), entry.Size, entry.SHA256)
		} else if s, err = manifest.ParseShard(entry, b); err != nil {
			v.add(ProblemInvalid, entry.Path, "%s", strings.TrimPrefix(err.Error(), entry.Path+": "))
		}
	}
	if s == nil {
		// Not trusted: no entry of it is, but the content of its files still is known.
		v.mu.Lock()
		v.listed.untrusted++
		v.mu.Unlock()
		for _, p := range slices.Sorted(maps.Keys(expect)) {
			v.checkFile(manifest.File{Path: p}, expect[p], false, sc)
		}
		return
	}
	var files int
	var size int64
	for _, f := range s.Files {
		files++
		size += f.Size
		e, ok := expect[f.Path]
		if !ok {
			v.add(ProblemInvalid, entry.Path, "lists %s, which is no file of %s in %d", f.Path, r.Name, year)
			step()
			continue
		}
		delete(expect, f.Path)
		v.checkFile(f, e, true, sc)
		step()
	}
	for _, p := range slices.Sorted(maps.Keys(expect)) {
		v.add(ProblemMissing, p, "required file is not in the manifest (its shard %s does not list it)", entry.Path)
	}
	v.mu.Lock()
	v.listed.files += files
	v.listed.bytes += size
	v.mu.Unlock()
}

// shardExpect returns what each file of a packed route's year must hold: the body of each
// value, and the lines of each packed file.
func (v *verifier) shardExpect(r *manifest.Route, year int) map[string]expectation {
	vals := r.YearValues(year)
	out := make(map[string]expectation, len(vals)+12)
	for _, vs := range vals {
		out[r.FilePath(vs)] = expectation{route: r, vals: vs}
		p, _ := r.PackedPath(vs)
		e := out[p]
		e.route, e.lines = r, append(e.lines, vs)
		out[p] = e
	}
	return out
}

// scratch is what one of verify's workers reuses from file to file: its reader of the
// tree, the bytes of the file it read last and what that file must hold, rendered.
type scratch struct {
	rd         *outtree.DirReader
	data, want []byte
}

func (v *verifier) newScratch() *scratch { return &scratch{rd: outtree.NewDirReader(v.dir)} }

// read reads a file the manifest lists with rd, into buf, reporting what keeps it from being
// read; ok false then (and for a file that is not a regular file, which walk reports).
func (v *verifier) read(rel string, rd *outtree.DirReader, buf []byte) ([]byte, bool) {
	if !outtree.ValidPath(rel) {
		v.add(ProblemInvalid, rel, "not a path inside the tree (not read)")
		return nil, false
	}
	if !v.inTree(pathDir(rel)) {
		v.add(ProblemInvalid, rel, "a folder on its path is a link or not a folder (not read: it may lead out of the tree)")
		return nil, false
	}
	b, regular, err := rd.ReadFile(rel, buf)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		v.add(ProblemMissing, rel, "listed in the manifest but not on disk")
	case err != nil:
		v.add(ProblemCorrupt, rel, "cannot read: %v", unwrapPath(err))
	case !regular:
		// walk reports it; a link is not read, it may lead out of the tree
	default:
		return b, true
	}
	return nil, false
}

// checkFile checks one listed file against its entry (when signed: an entry of a trusted
// list) and what it must hold, reading it and rendering into sc's buffers.
func (v *verifier) checkFile(f manifest.File, e expectation, signed bool, sc *scratch) {
	b, ok := v.read(f.Path, sc.rd, sc.data)
	if !ok {
		return
	}
	sc.data = b
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); signed && (int64(len(b)) != f.Size || got != f.SHA256) {
		v.add(ProblemCorrupt, f.Path, "size %d sha256 %.12s…, manifest says size %d sha256 %.12s…", len(b), got, f.Size, f.SHA256)
	}
	switch {
	case e.lines != nil:
		sc.want = v.checkPacked(f.Path, b, e, sc.want)
	case e.route != nil:
		var err error
		if sc.want, err = v.encs[e.route.Name](sc.want[:0], e.vals); err != nil {
			v.add(ProblemInvalid, f.Path, "cannot render %s %s: %v", e.route.Name, valuesLabel(e.vals), err)
		} else if !bytes.Equal(b, sc.want) {
			v.add(ProblemInvalid, f.Path, "%s", jsonDiff(b, sc.want))
		}
	case e.body != nil:
		if !bytes.Equal(b, e.body) {
			v.add(ProblemInvalid, f.Path, "%s", jsonDiff(b, e.body))
		}
	case strings.HasSuffix(f.Path, ".json") && !json.Valid(b):
		v.add(ProblemInvalid, f.Path, "not valid JSON")
	}
}

// checkPacked checks a packed file: one line per value of its month or year, each line
// byte for byte the body of that value.
func (v *verifier) checkPacked(p string, b []byte, e expectation, buf []byte) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	if last := lines[len(lines)-1]; len(last) == 0 {
		lines = lines[:len(lines)-1]
	}
	if n := len(e.lines); len(lines) != n {
		pl := e.route.Place(e.lines[0])
		span := strconv.Itoa(pl.Year) // a file per year; per month, the month and the year
		if e.route.Packed.Unit == manifest.UnitMonth {
			span = strconv.Itoa(pl.Month) + "." + span
		}
		v.add(ProblemInvalid, p, "holds %d records, %s has %d days", len(lines), span, n)
	}
	for i, rec := range lines[:min(len(lines), len(e.lines))] {
		vals := e.lines[i]
		var err error
		if buf, err = v.encs[e.route.Name](buf[:0], vals); err != nil {
			v.add(ProblemInvalid, p, "line %d: cannot render: %v", i+1, err)
			continue
		}
		if !bytes.Equal(rec, buf) {
			v.add(ProblemInvalid, p, "line %d, %02d.%02d.%04d: %s", i+1, vals[0], vals[1], vals[2], jsonDiff(rec, buf))
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
