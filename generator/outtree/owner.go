package outtree

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/contract"
)

// maxManifestSize bounds the manifest.json read to recognise a tree, with room above a
// full tree's (which stays below the 25 MiB a Workers asset may hold).
const maxManifestSize = 64 << 20

// listedNames is how many file names a refusal quotes per kind before "and N more".
const listedNames = 10

// treeDiff is what a directory holds that its manifest does not account for.
type treeDiff struct {
	unlisted []string // files (or links, or other non-directories) the manifest does not list
	changed  []string // listed files of another size, or not regular files: "path (why)"
	missing  []string // listed files that are absent
}

func (d *treeDiff) empty() bool {
	return len(d.unlisted) == 0 && len(d.changed) == 0 && len(d.missing) == 0
}

// lost is what replacing the tree deletes that generate did not write: the unlisted and the
// changed files.
func (d *treeDiff) lost() []string {
	out := append([]string(nil), d.unlisted...)
	for _, c := range d.changed {
		p, _, _ := strings.Cut(c, " (")
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// describe says what differs, naming the files.
func (d *treeDiff) describe() string {
	var parts []string
	if len(d.unlisted) > 0 {
		parts = append(parts, fmt.Sprintf("%s its manifest does not list: %s", files(len(d.unlisted)), nameList(d.unlisted)))
	}
	if len(d.changed) > 0 {
		parts = append(parts, fmt.Sprintf("%s changed since generate wrote %s: %s", files(len(d.changed)), them(len(d.changed)), nameList(d.changed)))
	}
	if len(d.missing) > 0 {
		parts = append(parts, fmt.Sprintf("%s of its manifest %s missing: %s", files(len(d.missing)), isAre(len(d.missing)), nameList(d.missing)))
	}
	return strings.Join(parts, "; ")
}

func files(n int) string {
	if n == 1 {
		return "1 file"
	}
	return strconv.Itoa(n) + " files"
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// nameList joins up to listedNames names, then says how many more there are.
func nameList(names []string) string {
	if len(names) <= listedNames {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:listedNames], ", ") + fmt.Sprintf(" and %d more", len(names)-listedNames)
}

// RefusedError is Begin's refusal to replace a tree: it is not provably a tree generate
// made, or it holds files generate did not write and force is not set. Nothing has been
// changed when it is returned.
type RefusedError struct {
	Out    string
	Reason string
	// Files are the files replacing the tree would delete that generate did not write (with
	// force they are deleted); nil when the directory is not recognised at all.
	Files []string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refusing to replace %s: %s", e.Out, e.Reason)
}

// checkReplaceable decides whether out may be replaced, so that a mistyped --out never
// deletes what generate did not write. It may when out does not exist, is an empty directory
// (or holds only .gitkeep), or is a tree generate made: its manifest.json carries
// generate's mark (manifest.Generator), every entry is a valid path with a size and a sha256,
// and the files on disk are exactly the listed ones with their listed sizes (a stat walk: no
// file is read but the manifest and its shards; see diffTree). A tree that differs (files added, resized or removed by hand) is replaced
// only with force, and the files that replacing it deletes are returned. Anything else is a
// *RefusedError that says why and names the files.
func checkReplaceable(out string, force bool) (lost []string, err error) {
	fi, err := os.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &RefusedError{Out: out, Reason: "it is a link; generate replaces only a real directory (give the directory the link points to)"}
	}
	if !fi.IsDir() {
		return nil, &RefusedError{Out: out, Reason: "it is not a directory"}
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 || len(entries) == 1 && entries[0].Name() == ".gitkeep" {
		return nil, nil
	}
	const only = "; generate replaces only a tree it made (or an empty directory)"
	m, err := loadOwnManifest(out)
	if err != nil {
		return nil, &RefusedError{Out: out, Reason: err.Error() + only}
	}
	legacy := m.generator != manifest.Generator
	diff, err := diffTree(out, m)
	if err != nil {
		return nil, err
	}
	if (legacy || !diff.empty()) && !force {
		var why []string
		if legacy {
			why = append(why, fmt.Sprintf("its %s does not carry generate's mark (\"generator\": %q): a tree from an older numerology, or not generate's", manifest.FileName, manifest.Generator))
		}
		if !diff.empty() {
			why = append(why, "it holds "+diff.describe())
		}
		return nil, &RefusedError{
			Out:    out,
			Reason: strings.Join(why, "; ") + "; move what you want to keep out of it, or run generate with --force to replace it all",
			Files:  diff.lost(),
		}
	}
	return diff.lost(), nil
}

// ownManifest is what the ownership proof reads of manifest.json. Files and Shards are
// scanned by manifest.ScanFiles: decoding every [path, size, sha256] tuple one by one
// through manifest.File.UnmarshalJSON is far slower, and a manifest of the first format
// lists every file of the tree.
type ownManifest struct {
	Format     int    `json:"format"`
	APIVersion string `json:"api_version"`
	Generator  string `json:"generator"`
	Years      []int  `json:"years"`
	Edge       struct {
		Prefix  string                     `json:"prefix"`
		Errors  map[string]json.RawMessage `json:"errors"`
		Headers struct {
			Common map[string]string `json:"common"`
		} `json:"headers"`
		Routes json.RawMessage `json:"routes"`
	} `json:"edge"`
	Files  json.RawMessage `json:"files"`
	Shards json.RawMessage `json:"shards"`
}

// ownTree is what the ownership proof knows of a tree from its manifest's root: the files
// the root lists, its shards, and the packed routes and years that say which files each
// shard lists (Route.ShardFiles). A root of the first format lists every file and has no
// shards.
type ownTree struct {
	generator string
	files     []manifest.File
	shards    []manifest.File
	routes    []*manifest.RouteFiles // the packed ones
	years     []int
}

// loadOwnManifest reads and checks out/manifest.json as generate writes it (the checks of
// manifest.Parse, the prefix, valid sorted entries, and exactly the shards of its packed
// routes and years); the error says what does not match.
func loadOwnManifest(out string) (*ownTree, error) {
	p := filepath.Join(out, manifest.FileName)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("it is not empty and holds no %s", manifest.FileName)
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("its %s is not a regular file", manifest.FileName)
	}
	if fi.Size() > maxManifestSize {
		return nil, fmt.Errorf("its %s is %d bytes, more than a numerology manifest holds", manifest.FileName, fi.Size())
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxManifestSize+1))
	if err != nil {
		return nil, err
	}
	notOurs := func(format string, args ...any) error {
		return fmt.Errorf("its %s is not a numerology manifest (%s)", manifest.FileName, fmt.Sprintf(format, args...))
	}
	var om ownManifest
	if err := json.Unmarshal(b, &om); err != nil {
		return nil, notOurs("%v", err)
	}
	switch {
	case om.APIVersion != manifest.APIVersion:
		return nil, notOurs("api_version %q, this build writes %q", om.APIVersion, manifest.APIVersion)
	case om.Edge.Prefix != manifest.APIPrefix || len(om.Edge.Errors) == 0 || len(om.Edge.Headers.Common) == 0:
		return nil, notOurs("no edge config with the prefix %s", manifest.APIPrefix)
	case om.Format != 0 && om.Format != manifest.FormatVersion:
		return nil, notOurs("format %d, this build reads %d and the first", om.Format, manifest.FormatVersion)
	}
	t := &ownTree{generator: om.Generator, years: om.Years}
	if t.files, err = scanList(om.Files); err != nil {
		return nil, notOurs("files: %v", err)
	}
	if len(t.files) == 0 {
		return nil, notOurs("no file list")
	}
	if t.shards, err = scanList(om.Shards); err != nil {
		return nil, notOurs("shards: %v", err)
	}
	if om.Format == 0 {
		if len(t.shards) > 0 {
			return nil, notOurs("shards in a manifest without a format")
		}
		return t, nil
	}
	// The packed routes say which shards the root must list and what each must list.
	var routes []manifest.Route
	if err := json.Unmarshal(om.Edge.Routes, &routes); err != nil {
		return nil, notOurs("routes: %v", err)
	}
	var packed []manifest.Route
	for _, r := range routes {
		if !r.Sharded() {
			continue
		}
		if err := r.Check(manifest.APIPrefix); err != nil {
			return nil, notOurs("route %s: %v", r.Name, err)
		}
		packed = append(packed, r)
	}
	for i := range packed {
		t.routes = append(t.routes, packed[i].Files())
	}
	for i, y := range t.years {
		if i > 0 && y <= t.years[i-1] {
			return nil, notOurs("years are not ascending")
		}
	}
	want := (&manifest.Manifest{Years: t.years, Edge: manifest.EdgeConfig{Routes: packed}}).ShardPaths()
	if len(want) != len(t.shards) {
		return nil, notOurs("%d shards, its date routes and years have %d", len(t.shards), len(want))
	}
	for i, sh := range t.shards {
		if sh.Path != want[i] {
			return nil, notOurs("shard %d is %q, want %q", i+1, sh.Path, want[i])
		}
	}
	return t, nil
}

// scanList reads a file list (none when absent) and checks its entries: valid, sorted.
func scanList(b json.RawMessage) ([]manifest.File, error) {
	if b == nil || string(b) == "null" {
		return nil, nil
	}
	files, err := manifest.ScanFiles(b)
	if err != nil {
		return nil, err
	}
	for i, f := range files {
		if err := checkEntry(f); err != nil {
			return nil, fmt.Errorf("file %d: %v", i+1, err)
		}
		if i > 0 && f.Path <= files[i-1].Path {
			return nil, fmt.Errorf("file %d: %q is not sorted after %q", i+1, f.Path, files[i-1].Path)
		}
	}
	return files, nil
}

// shardKey names a shard by its route (the index in ownTree.routes) and year.
type shardKey struct{ route, year int }

// shardOf returns the shard that lists rel as a file of a packed route, ok false when rel
// is no such file of the tree's years.
func (t *ownTree) shardOf(rel string) (shardKey, bool) {
	for i, r := range t.routes {
		if y, ok := r.ShardOf(rel); ok {
			_, ok := slices.BinarySearch(t.years, y)
			return shardKey{i, y}, ok
		}
	}
	return shardKey{}, false
}

// checkEntry checks one file entry as generate and pack write it.
func checkEntry(f manifest.File) error {
	switch {
	case !ValidPath(f.Path):
		return fmt.Errorf("%q is not a path inside the tree", f.Path)
	case f.Size < 0:
		return fmt.Errorf("%s: size %d", f.Path, f.Size)
	case !isSHA256Hex(f.SHA256):
		return fmt.Errorf("%s: sha256 %q is not 64 lowercase hex digits", f.Path, f.SHA256)
	}
	return nil
}

func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// packLeftover matches the temporary files pack's atomic writes leave when pack is killed:
// ".manifest.json.tmp-<n>" at the root, ".<archive>.tmp-<n>" in downloads/.
var packLeftover = regexp.MustCompile(`^\.(.+)\.tmp-[0-9]+$`)

// ownLeftover reports whether the unlisted file rel is one that generate or pack wrote and
// would have removed had it not been interrupted: the swap marker, or a temporary file of
// pack's.
func ownLeftover(dir, rel string, d fs.DirEntry) bool {
	if !d.Type().IsRegular() {
		return false
	}
	if rel == markerName {
		return isMarker(dir)
	}
	m := packLeftover.FindStringSubmatch(pathBase(rel))
	if m == nil {
		return false
	}
	switch pathDir(rel) {
	case "":
		return m[1] == manifest.FileName
	case manifest.DownloadsDir:
		return strings.HasPrefix(m[1], contract.DatasetName+"-") && (strings.HasSuffix(m[1], ".tar.gz") || strings.HasSuffix(m[1], ".zip"))
	}
	return false
}

func pathBase(rel string) string { return rel[strings.LastIndexByte(rel, '/')+1:] }

// pathDir is the folder of the tree path rel, "" at the root.
func pathDir(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// diffTree compares the files under dir with the manifest by stat calls alone (names,
// types and sizes; nothing is read but the shards). Directories are not files: an empty one
// is never reported. Memory holds the root's list and, per goroutine, one shard:
//
//   - Each shard is checked first, on several goroutines: present with its listed size, and
//     then read (not hashed) to list exactly its route's files of its year, each of which
//     is lstat'ed for its size. Such a shard is trusted.
//   - Then a stat walk of the tree: a file the root lists must have its size; a shard, or a
//     file of a packed route in a year of a trusted shard, was checked above; anything else
//     is unlisted. So the files of a shard that is missing, changed or not generate's are
//     unlisted: they cannot be proven generate's.
func diffTree(dir string, t *ownTree) (*treeDiff, error) {
	d := &treeDiff{}
	var mu sync.Mutex
	changed := func(why string) { mu.Lock(); d.changed = append(d.changed, why); mu.Unlock() }
	missing := func(rel string) { mu.Lock(); d.missing = append(d.missing, rel); mu.Unlock() }
	trusted := make([]bool, len(t.shards))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	for i := range t.shards {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			trusted[i] = checkShard(dir, t, t.shards[i], changed, missing)
		}()
	}
	wg.Wait()
	idx := make(map[string]int, len(t.files))
	for i, f := range t.files {
		idx[f.Path] = i
	}
	seen := make([]bool, len(t.files)) // each index is written by one goroutine only
	shardIdx := make(map[string]int, len(t.shards))
	trustedKeys := make(map[shardKey]bool, len(t.shards))
	for i, f := range t.shards {
		shardIdx[f.Path] = i
		route, year, _ := manifest.ParseShardPath(f.Path)
		for j, r := range t.routes {
			if r.Route.Name == route && trusted[i] {
				trustedKeys[shardKey{j, year}] = true
			}
		}
	}
	// claim decides, without a stat, whether the walk needs rel's size: a file of the root;
	// the others are a shard or a file of a trusted shard (checked above) or unlisted.
	claim := func(rel string, e fs.DirEntry) bool {
		if rel == manifest.FileName {
			return false
		}
		if _, listed := idx[rel]; listed {
			return true
		}
		if _, ok := shardIdx[rel]; ok {
			return false
		}
		if key, ok := t.shardOf(rel); ok && trustedKeys[key] {
			return false
		}
		if !ownLeftover(dir, rel, e) {
			mu.Lock()
			d.unlisted = append(d.unlisted, rel)
			mu.Unlock()
		}
		return false
	}
	err := statWalk(dir, claim, func(rel string, e fs.DirEntry, size int64) {
		i := idx[rel]
		seen[i] = true
		switch f := &t.files[i]; {
		case !e.Type().IsRegular():
			changed(rel + " (not a regular file)")
		case size != f.Size:
			changed(fmt.Sprintf("%s (%d bytes, the manifest says %d)", rel, size, f.Size))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	for i, f := range t.files {
		if !seen[i] {
			d.missing = append(d.missing, f.Path)
		}
	}
	slices.Sort(d.unlisted)
	slices.Sort(d.changed)
	slices.Sort(d.missing)
	return d, nil
}

// checkShard checks one shard of the tree in dir and the files it lists, by stat calls and
// a read of the shard (no hashing): it reports what differs and whether the shard is
// trusted, that is, present with its listed size, listing exactly its route's files of its
// year (valid entries, sorted) as generate writes it.
func checkShard(dir string, t *ownTree, entry manifest.File, changed, missing func(string)) bool {
	p := filepath.Join(dir, filepath.FromSlash(entry.Path))
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		missing(entry.Path)
		return false
	case err != nil || !fi.Mode().IsRegular():
		changed(entry.Path + " (not a regular file)")
		return false
	case fi.Size() != entry.Size:
		changed(fmt.Sprintf("%s (%d bytes, the manifest says %d)", entry.Path, fi.Size(), entry.Size))
		return false
	case entry.Size > manifest.MaxShardSize:
		changed(fmt.Sprintf("%s (%d bytes, more than a shard holds)", entry.Path, entry.Size))
		return false
	}
	b, err := os.ReadFile(p)
	var s *manifest.Shard
	if err == nil {
		s, err = manifest.DecodeShard(b)
	}
	route, year, _ := manifest.ParseShardPath(entry.Path)
	var r *manifest.RouteFiles
	for _, rf := range t.routes {
		if rf.Route.Name == route {
			r = rf
		}
	}
	if err == nil && (r == nil || s.Route != route || s.Year != year) {
		err = fmt.Errorf("it holds the shard of %s %d", s.Route, s.Year)
	}
	if err == nil {
		want := r.ShardFiles(year)
		if len(s.Files) != len(want) {
			err = fmt.Errorf("it lists %d files, %s has %d in %d", len(s.Files), route, len(want), year)
		}
		for i := 0; err == nil && i < len(want); i++ {
			if f := s.Files[i]; f.Path != want[i] {
				err = fmt.Errorf("file %d is %q, want %q", i+1, f.Path, want[i])
			} else {
				err = checkEntry(f)
			}
		}
	}
	if err != nil {
		changed(fmt.Sprintf("%s (not a shard generate wrote: %v)", entry.Path, err))
		return false
	}
	root, err := os.Open(dir)
	if err != nil {
		changed(entry.Path + " (its files cannot be read: " + err.Error() + ")")
		return false
	}
	defer root.Close()
	for _, f := range s.Files {
		size, regular, err := statAt(root.Fd(), dir, f.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing(f.Path)
		case err != nil || !regular:
			changed(f.Path + " (not a regular file)")
		case size != f.Size:
			changed(fmt.Sprintf("%s (%d bytes, the manifest says %d)", f.Path, size, f.Size))
		}
	}
	return true
}

// statWalk calls claim, from several goroutines, for every entry under root that is not a
// directory, with its tree path; when claim asks for it, it then calls visit with the entry
// and, for a regular file, its size. It never follows a link. The sizes come from one
// fstatat per file on its directory's descriptor where the system has it.
func statWalk(root string, claim func(rel string, e fs.DirEntry) bool, visit func(rel string, e fs.DirEntry, size int64)) error {
	var (
		wg       sync.WaitGroup
		sem      = make(chan struct{}, 2*runtime.GOMAXPROCS(0))
		errOnce  sync.Once
		firstErr error
	)
	fail := func(err error) { errOnce.Do(func() { firstErr = err }) }
	var walk func(rel string)
	walk = func(rel string) {
		defer wg.Done()
		sem <- struct{}{}
		subdirs, err := statDir(root, rel, claim, visit)
		<-sem
		if err != nil {
			fail(err)
			return
		}
		for _, sd := range subdirs {
			wg.Add(1)
			go walk(sd)
		}
	}
	wg.Add(1)
	walk("")
	wg.Wait()
	return firstErr
}

// statDir claims the non-directory entries of the tree folder rel, visits those claimed
// and returns its subfolders' tree paths.
func statDir(root, rel string, claim func(rel string, e fs.DirEntry) bool, visit func(rel string, e fs.DirEntry, size int64)) ([]string, error) {
	dirPath := filepath.Join(root, filepath.FromSlash(rel))
	f, err := os.Open(dirPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	fd := f.Fd()
	prefix := ""
	if rel != "" {
		prefix = rel + "/"
	}
	var subdirs []string
	for _, e := range entries {
		p := prefix + e.Name()
		if e.IsDir() {
			subdirs = append(subdirs, p)
			continue
		}
		if !claim(p, e) {
			continue
		}
		size := int64(-1)
		if e.Type().IsRegular() {
			if size, err = sizeAt(fd, dirPath, e.Name()); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
		}
		visit(p, e, size)
	}
	return subdirs, nil
}
