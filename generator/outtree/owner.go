package outtree

import (
	"bytes"
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
	"unicode/utf8"

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
// file is read). A tree that differs (files added, resized or removed by hand) is replaced
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
	legacy := m.Generator != manifest.Generator
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

// ownManifest is what the ownership proof reads of manifest.json. Files is scanned by
// scanFiles: decoding every [path, size, sha256] tuple one by one through
// manifest.File.UnmarshalJSON is far slower, on every regenerate.
type ownManifest struct {
	APIVersion string `json:"api_version"`
	Generator  string `json:"generator"`
	Edge       struct {
		Prefix  string                     `json:"prefix"`
		Errors  map[string]json.RawMessage `json:"errors"`
		Headers struct {
			Common map[string]string `json:"common"`
		} `json:"headers"`
	} `json:"edge"`
	Files json.RawMessage `json:"files"`
}

// loadOwnManifest reads and checks out/manifest.json as generate writes it (the checks of
// manifest.Parse, the prefix, valid sorted entries); the error says what does not match.
func loadOwnManifest(out string) (*manifest.Manifest, error) {
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
	}
	files, err := scanFiles(om.Files)
	if err != nil {
		return nil, notOurs("files: %v", err)
	}
	if len(files) == 0 {
		return nil, notOurs("no file list")
	}
	for i, f := range files {
		if err := checkEntry(f); err != nil {
			return nil, notOurs("file %d: %v", i+1, err)
		}
		if i > 0 && f.Path <= files[i-1].Path {
			return nil, notOurs("file %d: %q is not sorted after %q", i+1, f.Path, files[i-1].Path)
		}
	}
	return &manifest.Manifest{APIVersion: om.APIVersion, Generator: om.Generator, Files: files}, nil
}

// scanFiles parses the manifest's file list, [[path, size, sha256], …], as generate and pack
// write it. A string with an escape is decoded by the JSON package; anything else that is
// not that shape is an error.
func scanFiles(b []byte) ([]manifest.File, error) {
	s := &scanner{b: b}
	if !s.byte('[') {
		return nil, s.fail("want an array")
	}
	files := make([]manifest.File, 0, bytes.Count(b, []byte("],"))+1)
	if s.byte(']') {
		return files, s.end()
	}
	for {
		var f manifest.File
		var ok bool
		if !s.byte('[') {
			return nil, s.fail("want [path, size, sha256]")
		}
		if f.Path, ok = s.str(); !ok || !s.byte(',') {
			return nil, s.fail("want a path")
		}
		if f.Size, ok = s.int(); !ok || !s.byte(',') {
			return nil, s.fail("want a size")
		}
		if f.SHA256, ok = s.str(); !ok || !s.byte(']') {
			return nil, s.fail("want a sha256")
		}
		files = append(files, f)
		if s.byte(']') {
			return files, s.end()
		}
		if !s.byte(',') {
			return nil, s.fail("want , or ]")
		}
	}
}

// scanner reads the tokens of a JSON file list.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\n' || s.b[s.i] == '\t' || s.b[s.i] == '\r') {
		s.i++
	}
}

// byte consumes c (after white space) if it is next.
func (s *scanner) byte(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) str() (string, bool) {
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", false
	}
	start, escaped := s.i, false
	for s.i++; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '\\':
			escaped = true
			s.i++
		case c < 0x20:
			return "", false
		case c == '"':
			s.i++
			if raw := s.b[start+1 : s.i-1]; !escaped {
				return string(raw), utf8.Valid(raw)
			}
			var v string
			err := json.Unmarshal(s.b[start:s.i], &v)
			return v, err == nil
		}
	}
	return "", false
}

// int reads a size: a JSON number of decimal digits (no sign, fraction or leading zero).
func (s *scanner) int() (int64, bool) {
	s.space()
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	digits := s.b[start:s.i]
	if len(digits) > 1 && digits[0] == '0' {
		return 0, false
	}
	n, err := strconv.ParseInt(string(digits), 10, 64)
	return n, err == nil
}

func (s *scanner) end() error {
	s.space()
	if s.i != len(s.b) {
		return s.fail("junk after the list")
	}
	return nil
}

func (s *scanner) fail(what string) error { return fmt.Errorf("offset %d: %s", s.i, what) }

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

// diffTree compares the files under dir with the manifest by a stat walk (names, types and
// sizes; nothing is read). Directories are not files: an empty one is never reported.
func diffTree(dir string, m *manifest.Manifest) (*treeDiff, error) {
	idx := make(map[string]int, len(m.Files))
	for i, f := range m.Files {
		idx[f.Path] = i
	}
	seen := make([]bool, len(m.Files)) // each index is written by one goroutine only
	d := &treeDiff{}
	var mu sync.Mutex
	err := statWalk(dir, func(rel string, e fs.DirEntry, size int64) {
		if rel == manifest.FileName {
			return
		}
		i, listed := idx[rel]
		if !listed {
			if !ownLeftover(dir, rel, e) {
				mu.Lock()
				d.unlisted = append(d.unlisted, rel)
				mu.Unlock()
			}
			return
		}
		seen[i] = true
		why := ""
		switch f := &m.Files[i]; {
		case !e.Type().IsRegular():
			why = rel + " (not a regular file)"
		case size != f.Size:
			why = fmt.Sprintf("%s (%d bytes, the manifest says %d)", rel, size, f.Size)
		}
		if why != "" {
			mu.Lock()
			d.changed = append(d.changed, why)
			mu.Unlock()
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	for i, f := range m.Files {
		if !seen[i] {
			d.missing = append(d.missing, f.Path)
		}
	}
	slices.Sort(d.unlisted)
	slices.Sort(d.changed)
	return d, nil
}

// statWalk calls visit, from several goroutines, for every entry under root that is not a
// directory, with its tree path and, for a regular file, its size. It never follows a
// link. The sizes come from one fstatat per file on its directory's descriptor where the
// system has it: a regenerate walks 75,000 files before it writes.
func statWalk(root string, visit func(rel string, e fs.DirEntry, size int64)) error {
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
		subdirs, err := statDir(root, rel, visit)
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

// statDir visits the non-directory entries of the tree folder rel and returns its
// subfolders' tree paths.
func statDir(root, rel string, visit func(rel string, e fs.DirEntry, size int64)) ([]string, error) {
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
