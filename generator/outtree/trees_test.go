package outtree

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
)

// writeFiles creates files (relative path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// names lists the entries of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// treeFiles are the files of a small tree; version tells one tree from another.
func treeFiles(version string) map[string]string {
	return map[string]string{
		"index.html":                       "<!doctype html><title>API " + version + "</title>\n",
		"api/public/index.json":            `{"routes":[]}` + "\n",
		"api/public/errors/not-found.json": `{"error":"not_found"}` + "\n",
	}
}

// miniTree writes into dir a small tree that generate could have made as far as ownership
// goes: the three files of treeFiles("old") and a manifest with the generator mark listing
// them. It is quick to make, so tests can set up hundreds of them.
func miniTree(t *testing.T, dir string) {
	t.Helper()
	writeTree(t, dir, treeFiles("old"))
}

// writeTree writes files into dir and then, whole, a manifest with the generator mark that
// lists them, as generate leaves a tree.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	writeFiles(t, dir, files)
	writeManifest(t, dir, files)
}

// writeManifest writes dir/manifest.json, whole (by a rename), with the generator mark and
// files listed.
func writeManifest(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	m := &manifest.Manifest{Format: manifest.FormatVersion, APIVersion: manifest.APIVersion, Generator: manifest.Generator, Edge: miniEdge()}
	var list []manifest.File
	for p, body := range files {
		sum := sha256.Sum256([]byte(body))
		list = append(list, manifest.File{Path: p, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:])})
	}
	m.SetFiles(list...)
	writeManifestFile(t, dir, m)
}

// writeManifestFile writes m into dir whole, by a rename, as generate does; without
// manifest.Write's fsync, which would make the tests wait on the disk.
func writeManifestFile(t *testing.T, dir string, m *manifest.Manifest) {
	t.Helper()
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(dir, "."+manifest.FileName+".tmp-0")
	if err := os.WriteFile(part, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(part, filepath.Join(dir, manifest.FileName)); err != nil {
		t.Fatal(err)
	}
}

// miniEdge is the smallest edge config manifest.Parse accepts: one error, which answers
// for every edge error, and a header set of each kind.
func miniEdge() manifest.EdgeConfig {
	h := map[string]string{"Cache-Control": "no-store"}
	return manifest.EdgeConfig{
		APIVersion: manifest.APIVersion,
		Prefix:     manifest.APIPrefix,
		RateLimit:  manifest.RateLimit{Requests: 60, WindowSeconds: 60, IPv6Prefix: 64},
		Headers:    manifest.Headers{Common: h, ByStatus: map[string]map[string]string{"404": h}, NotModified: h, Preflight: h},
		Errors: map[string]manifest.ErrorResponse{
			manifest.ErrNotFound: {Status: 404, File: "api/public/errors/not-found.json", Body: `{"error":"not_found"}` + "\n"},
		},
		EdgeErrors: manifest.EdgeErrors{
			NotFound:         manifest.ErrNotFound,
			MethodNotAllowed: manifest.ErrNotFound,
			TooManyRequests:  manifest.ErrNotFound,
			Internal:         manifest.ErrNotFound,
		},
	}
}

// editManifest rewrites dir/manifest.json through edit.
func editManifest(t *testing.T, dir string, edit func(m *manifest.Manifest)) {
	t.Helper()
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	edit(m)
	writeManifestFile(t, dir, m)
}

func mustMark(t *testing.T, dir string) {
	t.Helper()
	if err := writeMarker(dir); err != nil {
		t.Fatal(err)
	}
}

// replace runs the protocol as generate does: Begin, the files of treeFiles(version)
// written into the temporary folder through DirWriters, the manifest written last and
// whole, Commit, Close. It returns Begin's or Commit's error and the files Begin said the
// replacement deletes.
func replace(t *testing.T, out string, force bool, version string) ([]string, error) {
	t.Helper()
	return replaceBy(t, out, force, version, nil)
}

// noExchange is an exchange that the file system does not support: swap falls back to two
// renames, as on other systems.
func noExchange(string, string) (bool, error) { return false, nil }

// replaceBy is replace with the swap's exchange replaced by exchange, when not nil.
func replaceBy(t *testing.T, out string, force bool, version string, exchange func(a, b string) (bool, error)) ([]string, error) {
	t.Helper()
	temp, err := Begin(out, force)
	if err != nil {
		return nil, err
	}
	defer temp.Close()
	if exchange != nil {
		temp.exchange = exchange
	}
	files := treeFiles(version)
	for rel, body := range files {
		dir := pathDir(rel)
		if err := os.MkdirAll(filepath.Join(temp.Dir, filepath.FromSlash(dir)), 0o755); err != nil {
			t.Fatal(err)
		}
		w, err := OpenDir(temp.Dir, dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Create(pathBase(rel), []byte(body)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	writeManifest(t, temp.Dir, files)
	return temp.Deleted(), temp.Commit()
}

// stopEarly runs the protocol up to the point where a run would write, then stops as an
// interrupted run does: only the check and the recovery of Begin have run.
func stopEarly(out string, force bool) error {
	temp, err := Begin(out, force)
	if err != nil {
		return err
	}
	temp.Close()
	return nil
}

// version returns which tree of treeFiles dir holds, by its index.html.
func version(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatalf("the tree: %v", err)
	}
	v, ok := strings.CutPrefix(string(b), "<!doctype html><title>API ")
	if !ok {
		return "?"
	}
	return strings.TrimSuffix(v, "</title>\n")
}

// snapshot records every entry under dir (not following links): its kind, mode and content
// or link target, by path.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "link → " + target
			return err
		case d.IsDir():
			out[rel] = "dir " + fi.Mode().String()
		default:
			b, err := os.ReadFile(p)
			out[rel] = "file " + fi.Mode().String() + " " + string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// snapshotDiff describes the first differences between two snapshots, or "".
func snapshotDiff(before, after map[string]string) string {
	var diffs []string
	for p, b := range before {
		if a, ok := after[p]; !ok {
			diffs = append(diffs, p+" (removed)")
		} else if a != b {
			diffs = append(diffs, p+" (changed)")
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			diffs = append(diffs, p+" (added)")
		}
	}
	slices.Sort(diffs)
	if len(diffs) > 8 {
		diffs = append(diffs[:8], "…")
	}
	return strings.Join(diffs, ", ")
}
