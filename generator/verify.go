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

	"github.com/opennumerology/numerology/generator/manifest"
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

// Verify checks the tree in dir against its manifest and the contract: every listed file
// has its size and sha256, no unlisted file exists, every route of the manifest's years is
// present, every JSON file parses and every matrix record holds the arcana of the rule.
// The error is for a tree that cannot be checked at all (no or unreadable manifest).
func Verify(ctx context.Context, dir string, onProgress func(done, total int)) (*VerifyResult, error) {
	m, err := manifest.Load(dir)
	if err != nil {
		return nil, err
	}
	v := &verifier{dir: dir, m: m, index: m.Index()}
	v.checkRoutes()
	v.checkWorkerAssets()
	if err := v.walk(); err != nil {
		return nil, err
	}
	if err := v.checkFiles(ctx, onProgress); err != nil {
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
	dir      string
	m        *manifest.Manifest
	index    map[string]*manifest.File
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

func (v *verifier) add(kind, path, format string, args ...any) {
	v.mu.Lock()
	v.problems = append(v.problems, VerifyProblem{kind, path, fmt.Sprintf(format, args...)})
	v.mu.Unlock()
}

// checkRoutes reports every file the contract requires that the manifest does not list.
func (v *verifier) checkRoutes() {
	need := []string{manifest.ListFile, manifest.IndexFile, manifest.EdgeFile, manifest.HeadersFile}
	for _, n := range rules.LifePathNumbers {
		need = append(need, manifest.LifePathFile(n))
	}
	for _, e := range v.m.Edge.Errors {
		need = append(need, e.File)
	}
	need = append(need, manifest.AssetsIgnoreFile)
	for _, y := range v.m.Years {
		if y < rules.FirstYear || y > rules.LastYear {
			v.add(ProblemInvalid, manifest.FileName, "year %d is outside %d–%d", y, rules.FirstYear, rules.LastYear)
			continue
		}
		for mo := 1; mo <= 12; mo++ {
			need = append(need, manifest.MatrixMonthFile(y, mo))
			for d := 1; d <= rules.DaysIn(mo, y); d++ {
				need = append(need, manifest.MatrixFile(d, mo, y))
			}
		}
	}
	for _, p := range need {
		if _, ok := v.index[p]; !ok {
			v.add(ProblemMissing, p, "required route file is not in the manifest")
		}
	}
	if want := rules.DatesInYears(v.m.Years); v.m.Counts.Matrix != want {
		v.add(ProblemInvalid, manifest.FileName, "counts.matrix is %d, the years hold %d dates", v.m.Counts.Matrix, want)
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
			for f := range jobs {
				v.checkFile(f)
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

func (v *verifier) checkFile(f *manifest.File) {
	if !validTreePath(f.Path) {
		v.add(ProblemInvalid, f.Path, "not a path inside the tree (not read)")
		return
	}
	if !v.inTree(pathDir(f.Path)) {
		v.add(ProblemInvalid, f.Path, "a folder on its path is a link or not a folder (not read: it may lead out of the tree)")
		return
	}
	p := filepath.Join(v.dir, filepath.FromSlash(f.Path))
	if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
		return // walk reports it; a link is not read, it may lead out of the tree
	}
	b, err := os.ReadFile(p)
	if err != nil {
		if os.IsNotExist(err) {
			v.add(ProblemMissing, f.Path, "listed in the manifest but not on disk")
		} else {
			v.add(ProblemCorrupt, f.Path, "cannot read: %v", unwrapPath(err))
		}
		return
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); int64(len(b)) != f.Size || got != f.SHA256 {
		v.add(ProblemCorrupt, f.Path, "size %d sha256 %.12s…, manifest says size %d sha256 %.12s…", len(b), got, f.Size, f.SHA256)
		if strings.HasPrefix(f.Path, manifest.MatrixMonthsDir+"/") {
			v.checkMonth(f.Path, b) // name the dates whose records changed
		}
		return
	}
	if strings.HasPrefix(f.Path, manifest.MatrixMonthsDir+"/") {
		v.checkMonth(f.Path, b)
		return
	}
	if !strings.HasSuffix(f.Path, ".json") {
		return
	}
	if !json.Valid(b) {
		v.add(ProblemInvalid, f.Path, "not valid JSON")
		return
	}
	if strings.HasPrefix(f.Path, "api/public/matrix/") {
		v.checkMatrix(f.Path, b)
	}
}

// checkMatrix checks that a matrix record is for the date of its path and holds the
// arcana the rule gives.
func (v *verifier) checkMatrix(p string, b []byte) {
	parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(p, "api/public/matrix/"), ".json"), "/")
	date, ok := canonicalInts(parts)
	if !ok || !rules.ValidDate(date[0], date[1], date[2]) {
		v.add(ProblemInvalid, p, "not the path of a valid date")
		return
	}
	if detail := checkRecord(b, date[0], date[1], date[2]); detail != "" {
		v.add(ProblemInvalid, p, "%s", detail)
	}
}

// checkMonth checks a packed month file: one line per day of the month, each line byte for
// byte the record of that date. A line equal to the per-date file the manifest lists
// shares its checks; a line without one is checked against the rule itself.
func (v *verifier) checkMonth(p string, b []byte) {
	parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(p, manifest.MatrixMonthsDir+"/"), ".jsonl"), "/")
	ym, ok := canonicalInts(parts)
	if !ok || len(parts) != 2 || !strings.HasSuffix(p, ".jsonl") || !rules.ValidDate(1, ym[1], ym[0]) {
		v.add(ProblemInvalid, p, "not the path of a packed month file (%s)", manifest.MatrixMonthsPattern)
		return
	}
	y, m := ym[0], ym[1]
	lines := bytes.SplitAfter(b, []byte("\n"))
	if last := lines[len(lines)-1]; len(last) == 0 {
		lines = lines[:len(lines)-1]
	}
	if days := rules.DaysIn(m, y); len(lines) != days {
		v.add(ProblemInvalid, p, "holds %d records, %d.%d has %d days", len(lines), m, y, days)
	}
	for i, rec := range lines[:min(len(lines), rules.DaysIn(m, y))] {
		d := i + 1
		date := fmt.Sprintf("%02d.%02d.%04d", d, m, y)
		if f := v.index[manifest.MatrixFile(d, m, y)]; f != nil {
			if sum := sha256.Sum256(rec); hex.EncodeToString(sum[:]) != f.SHA256 {
				v.add(ProblemInvalid, p, "line %d, %s: the record differs from %s", d, date, f.Path)
			}
			continue
		}
		if detail := checkRecord(rec, d, m, y); detail != "" {
			v.add(ProblemInvalid, p, "line %d, %s: %s", d, date, detail)
		}
	}
}

// canonicalInts parses path segments written as canonical decimal numbers (no sign, no
// leading zeros); it handles up to three.
func canonicalInts(parts []string) ([3]int, bool) {
	var out [3]int
	if len(parts) == 0 || len(parts) > 3 {
		return out, false
	}
	for i, s := range parts {
		n, err := strconv.Atoi(s)
		if err != nil || strconv.Itoa(n) != s {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

// checkRecord checks that b is the matrix record of d.m.y, one line of JSON holding the
// arcana the rule gives; it returns what is wrong, or "".
func checkRecord(b []byte, d, m, y int) string {
	if !bytes.HasSuffix(b, []byte("\n")) || bytes.IndexByte(b, '\n') != len(b)-1 {
		return "not one line ending in a newline"
	}
	var r MatrixRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Sprintf("not a matrix record: %v", err)
	}
	if r.Input != (MatrixInput{d, m, y}) {
		return fmt.Sprintf("input is %d.%d.%d, the path says %d.%d.%d", r.Input.Day, r.Input.Month, r.Input.Year, d, m, y)
	}
	want := rules.ComputeMatrix(d, m, y)
	for pos, c := range r.Matrix.Cells() {
		if c.Arcana != want[pos] {
			return fmt.Sprintf("%s is arcana %d, the rule gives %d", rules.Position(pos).Key(), c.Arcana, want[pos])
		}
	}
	return ""
}
