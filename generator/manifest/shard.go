package manifest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"
)

// Shard is the content of a shard of the manifest: the files of one packed route in one
// year (Route.ShardFiles), each as [path, size, sha256], sorted by path. The root lists
// every shard with its own size and sha256, so a shard is trusted only once its bytes match
// that entry (ParseShard); a shard is found from the route and the year alone (ShardPath).
type Shard struct {
	Route string `json:"route"`
	Year  int    `json:"year"`
	Files []File `json:"files"`
}

// MaxShardSize bounds the shard a reader loads: a year of a route's records, 366 files and
// twelve packed files of about 110 bytes of entry each, is far below it.
const MaxShardSize = 4 << 20

// ShardPath is the tree path of the shard that lists the files of the route named route in
// year: "manifest.d/matrix/1990.json".
func ShardPath(route string, year int) string {
	return ShardsDir + "/" + route + "/" + strconv.Itoa(year) + ".json"
}

// ParseShardPath is the inverse of ShardPath: the route and the year of a shard's tree
// path, ok false for any other path.
func ParseShardPath(p string) (route string, year int, ok bool) {
	rest, ok := strings.CutPrefix(p, ShardsDir+"/")
	if !ok {
		return "", 0, false
	}
	route, rest, ok = strings.Cut(rest, "/")
	digits, ok2 := strings.CutSuffix(rest, ".json")
	if !ok || !ok2 || !routeName.MatchString(route) || digits == "" || len(digits) > 9 || digits[0] == '0' {
		return "", 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return "", 0, false
		}
	}
	year, _ = strconv.Atoi(digits)
	return route, year, true
}

// Encode renders the shard as the generator does: compact JSON, one trailing newline. It
// writes the bytes goccy/go-json gives the Shard (without HTML escaping; each File by its
// MarshalJSON) directly: a tree's thousand shards list every per-date file, and the
// reflective encoder was 3% of generate's CPU, on the one goroutine that wrote a route's
// shards while the others waited.
func (s *Shard) Encode() ([]byte, error) {
	b := make([]byte, 0, 48+len(s.Route)+len(s.Files)*112)
	b = append(b, `{"route":`...)
	var err error
	if b, err = appendJSONString(b, s.Route, false); err != nil {
		return nil, fmt.Errorf("encode shard %s %d: %w", s.Route, s.Year, err)
	}
	b = append(b, `,"year":`...)
	b = strconv.AppendInt(b, int64(s.Year), 10)
	b = append(b, `,"files":`...)
	if s.Files == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, f := range s.Files {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = f.appendJSON(b); err != nil {
				return nil, fmt.Errorf("encode shard %s %d: %w", s.Route, s.Year, err)
			}
		}
		b = append(b, ']')
	}
	return append(b, "}\n"...), nil
}

// DecodeShard decodes a shard without checking it against the root (see ParseShard): its
// route, its year, and its files as ScanFiles reads them.
func DecodeShard(b []byte) (*Shard, error) {
	var raw struct {
		Route string          `json:"route"`
		Year  int             `json:"year"`
		Files json.RawMessage `json:"files"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("parse shard: %w", err)
	}
	if raw.Route == "" || raw.Year == 0 || raw.Files == nil {
		return nil, errors.New("parse shard: want route, year and files")
	}
	files, err := ScanFiles(raw.Files)
	if err != nil {
		return nil, fmt.Errorf("parse shard: files: %w", err)
	}
	return &Shard{Route: raw.Route, Year: raw.Year, Files: files}, nil
}

// ParseShard checks the bytes b of the shard that the root lists as entry, size and sha256
// (a Mismatch otherwise), and decodes them; the shard must name the route and year of its
// path and list its files sorted.
func ParseShard(entry File, b []byte) (*Shard, error) {
	if sum := sha256.Sum256(b); int64(len(b)) != entry.Size || hex.EncodeToString(sum[:]) != entry.SHA256 {
		return nil, Mismatch(fmt.Errorf("%s: size %d sha256 %.12s…, the manifest says size %d sha256 %.12s…",
			entry.Path, len(b), hex.EncodeToString(sum[:]), entry.Size, entry.SHA256))
	}
	s, err := DecodeShard(b)
	if err != nil {
		return nil, Mismatch(fmt.Errorf("%s: %w", entry.Path, err))
	}
	if route, year, ok := ParseShardPath(entry.Path); !ok || route != s.Route || year != s.Year {
		return nil, Mismatch(fmt.Errorf("%s: holds the shard of %s %d", entry.Path, s.Route, s.Year))
	}
	for i := 1; i < len(s.Files); i++ {
		if s.Files[i].Path <= s.Files[i-1].Path {
			return nil, Mismatch(fmt.Errorf("%s: %q is not sorted after %q", entry.Path, s.Files[i].Path, s.Files[i-1].Path))
		}
	}
	return s, nil
}

// ReadShard reads the shard entry of the tree in dir and checks it (ParseShard).
func ReadShard(dir string, entry File) (*Shard, error) {
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(entry.Path)))
	if err != nil {
		return nil, fmt.Errorf("read shard: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, min(entry.Size, MaxShardSize)+1))
	if err != nil {
		return nil, fmt.Errorf("read shard %s: %w", entry.Path, err)
	}
	return ParseShard(entry, b)
}

// ShardRoute returns the packed route whose shards are named route, nil for none.
func (c *EdgeConfig) ShardRoute(route string) *Route {
	for i := range c.Routes {
		if r := &c.Routes[i]; r.Name == route && r.Sharded() {
			return r
		}
	}
	return nil
}

// ShardOf returns the tree path of the shard that lists the tree path p, when p is a file
// of a packed route (Route.ShardOf); "" otherwise. The year need not be one of the tree's.
func (c *EdgeConfig) ShardOf(p string) string {
	for i := range c.Routes {
		if y, ok := c.Routes[i].ShardOf(p); ok {
			return ShardPath(c.Routes[i].Name, y)
		}
	}
	return ""
}

// ShardPaths returns, sorted, the shards a manifest of the years lists: one per packed
// route and year that holds values of the route.
func (m *Manifest) ShardPaths() []string {
	var out []string
	for _, r := range m.Edge.Routes {
		if !r.Sharded() {
			continue
		}
		for _, y := range m.Years {
			if r.HasYear(y) {
				out = append(out, ShardPath(r.Name, y))
			}
		}
	}
	slices.Sort(out)
	return out
}

// Shard returns the root's entry of the shard at the tree path p.
func (m *Manifest) Shard(p string) (File, bool) {
	i, ok := slices.BinarySearchFunc(m.Shards, p, func(f File, p string) int { return strings.Compare(f.Path, p) })
	if !ok {
		return File{}, false
	}
	return m.Shards[i], true
}

// Walk calls fn with every file the manifest of the tree in dir lists: the root's files,
// then shard by shard, the shard's own entry followed by its files. Each shard is read and
// checked against the root (ReadShard) before its files are; one that cannot be read, or
// does not match, stops the walk with its error. Memory is one shard at a time.
func (m *Manifest) Walk(dir string, fn func(f File) error) error {
	if m.full {
		return errors.New("manifest: Walk of a LoadFull manifest")
	}
	for _, f := range m.Files {
		if err := fn(f); err != nil {
			return err
		}
	}
	for _, e := range m.Shards {
		if err := fn(e); err != nil {
			return err
		}
		s, err := ReadShard(dir, e)
		if err != nil {
			return err
		}
		for _, f := range s.Files {
			if err := fn(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// LoadFull loads the manifest of the tree in dir with every file it lists in Files, sorted:
// the root's, the shards themselves and the shards' files (each shard checked against the
// root). It is for tests and tools that want the whole list of a small tree: its memory
// grows with the tree, and the manifest it returns cannot be written back.
func LoadFull(dir string) (*Manifest, error) {
	m, err := Load(dir)
	if err != nil {
		return nil, err
	}
	var all []File
	if err := m.Walk(dir, func(f File) error { all = append(all, f); return nil }); err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	m.Files, m.full = all, true
	return m, nil
}

// Lookup returns the entry that lists the tree path p: the root's, or that of the shard
// of p, read and checked against the root; ok false when the manifest lists no such file.
func (m *Manifest) Lookup(dir, p string) (File, bool, error) {
	if i, ok := slices.BinarySearchFunc(m.Files, p, func(f File, p string) int { return strings.Compare(f.Path, p) }); ok {
		return m.Files[i], true, nil
	}
	if f, ok := m.Shard(p); ok {
		return f, true, nil
	}
	entry, ok := m.Shard(m.Edge.ShardOf(p))
	if !ok || m.full {
		return File{}, false, nil
	}
	s, err := ReadShard(dir, entry)
	if err != nil {
		return File{}, false, err
	}
	if i, ok := slices.BinarySearchFunc(s.Files, p, func(f File, p string) int { return strings.Compare(f.Path, p) }); ok {
		return s.Files[i], true, nil
	}
	return File{}, false, nil
}

// Update replaces the entries of files, each listed by the root or by a shard (found from
// its path), rewrites the shards that changed and the root's entries of them, keeps the
// counts, and writes the root (Write). A file the manifest does not list is an error. It is
// for tools and tests that change a few files of a tree.
func (m *Manifest) Update(dir string, files ...File) error {
	if m.full {
		return errors.New("manifest: Update of a LoadFull manifest")
	}
	shards := map[string]*Shard{}
	var order []string
	for _, f := range files {
		if i, ok := slices.BinarySearchFunc(m.Files, f.Path, func(e File, p string) int { return strings.Compare(e.Path, p) }); ok {
			m.Counts.Bytes += f.Size - m.Files[i].Size
			m.Files[i] = f
			continue
		}
		sp := m.Edge.ShardOf(f.Path)
		entry, ok := m.Shard(sp)
		if !ok {
			return fmt.Errorf("update %s: the manifest does not list it", f.Path)
		}
		s := shards[sp]
		if s == nil {
			var err error
			if s, err = ReadShard(dir, entry); err != nil {
				return err
			}
			shards[sp] = s
			order = append(order, sp)
		}
		i, ok := slices.BinarySearchFunc(s.Files, f.Path, func(e File, p string) int { return strings.Compare(e.Path, p) })
		if !ok {
			return fmt.Errorf("update %s: its shard %s does not list it", f.Path, sp)
		}
		m.Counts.Bytes += f.Size - s.Files[i].Size
		s.Files[i] = f
	}
	for _, sp := range order {
		b, err := shards[sp].Encode()
		if err != nil {
			return err
		}
		if err := WriteFileAtomic(filepath.Join(dir, filepath.FromSlash(sp)), b, 0o644); err != nil {
			return err
		}
		i, _ := slices.BinarySearchFunc(m.Shards, sp, func(e File, p string) int { return strings.Compare(e.Path, p) })
		sum := sha256.Sum256(b)
		m.Counts.Bytes += int64(len(b)) - m.Shards[i].Size
		m.Shards[i] = File{Path: sp, Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}
	}
	return m.Write(dir)
}

// ScanFiles parses a file list, [[path, size, sha256], …], as generate and pack write it,
// much faster than decoding each entry through File's UnmarshalJSON. A string with an
// escape is decoded by the JSON package; anything else that is not that shape is an error.
// Nothing is checked of the entries themselves.
func ScanFiles(b []byte) ([]File, error) {
	s := &scanner{b: b}
	if !s.byte('[') {
		return nil, s.fail("want an array")
	}
	files := make([]File, 0, bytes.Count(b, []byte("],"))+1)
	if s.byte(']') {
		return files, s.end()
	}
	for {
		var f File
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
