package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator"
)

// TestPackAndVerifyArchive runs pack and verify as a user would, on a copy of the shared
// one-year tree, then damages one record in the zip and checks that verify --archive names it.
func TestPackAndVerifyArchive(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	out := treeCopy(t)
	dir := filepath.Dir(out)
	dist := filepath.Join(dir, "dist")
	code, stdout, errOut := run(t, "pack", "--dir", out, "--to", dist)
	if code != 0 {
		t.Fatalf("pack: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"numerology-dataset-1.0.zip", "matrix.jsonl.gz", "chart.jsonl.gz", "matrix 366"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("pack output lacks %q:\n%s", want, stdout)
		}
	}
	if code, stdout, errOut := run(t, "verify", "--dir", out); code != 0 {
		t.Fatalf("verify --dir after pack: exit %d: %s%s", code, stdout, errOut)
	}
	// Every download the site links (index.json, the home page, llms.txt) is one pack
	// published into the tree.
	for _, d := range generator.Downloads() {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(strings.TrimPrefix(d.Path, "/")))); err != nil {
			t.Errorf("the site links %s, which pack did not publish: %v", d.Path, err)
		}
	}
	tests := []struct {
		name     string
		file     string
		corrupt  bool
		wantCode int
		wantOut  string
	}{
		{"good JSON Lines", filepath.Join(dist, "matrix.jsonl.gz"), false, exitOK, "is what route matrix renders"},
		{"good zip", filepath.Join(dist, "numerology-dataset-1.0.zip"), false, exitOK, "matches its SHA256SUMS and datapackage.json"},
		{"published copy", filepath.Join(out, "downloads", "numerology-dataset-1.0.zip"), false, exitOK, "matches"},
		{"corrupted zip", filepath.Join(dist, "numerology-dataset-1.0.zip"), true, exitVerify, "corrupt: csv/matrix.csv: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.file
			if tc.corrupt {
				file = corruptZipEntry(t, tc.file, "csv/matrix.csv")
			}
			code, stdout, errOut := run(t, "verify", "--archive", file)
			if code != tc.wantCode || !strings.Contains(stdout, tc.wantOut) {
				t.Errorf("exit %d, stdout:\n%s\nstderr: %s\nwant exit %d and %q", code, stdout, errOut, tc.wantCode, tc.wantOut)
			}
		})
	}
	if code, _, errOut := run(t, "verify", "--archive", filepath.Join(dir, "none.zip")); code != exitVerify || !strings.Contains(errOut, "none.zip") {
		t.Errorf("verify of a missing archive: exit %d, stderr %q; want %d naming the file", code, errOut, exitVerify)
	}
	if code, _, errOut := run(t, "pack", "--dir", filepath.Join(dir, "nothing"), "--to", dist); code != exitIO {
		t.Errorf("pack of a missing tree: exit %d (%s), want %d", code, errOut, exitIO)
	}
}

// corruptZipEntry copies a zip with one bit of an entry's data flipped.
func corruptZipEntry(t *testing.T, file, entry string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(zr.File, func(f *zip.File) bool { return strings.HasSuffix(f.Name, "/"+entry) })
	if i < 0 {
		t.Fatalf("%s is not in %s", entry, file)
	}
	off, err := zr.File[i].DataOffset()
	if err != nil {
		t.Fatal(err)
	}
	b[off+20] ^= 0x04
	out := filepath.Join(t.TempDir(), "corrupt.zip")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPackStaysInsideTheTree checks that pack --publish writes and deletes only inside the
// tree, and only what it published: a downloads/ that links to a folder of the user's is
// refused (exit 5) with that folder untouched, and the user's files in a real downloads/
// stay (and a later generate names them). Before, pack deleted every file in the linked
// folder, and the user's files in downloads/.
func TestPackStaysInsideTheTree(t *testing.T) {
	t.Parallel()
	out := treeCopy(t)
	dir := filepath.Dir(out)
	dist := filepath.Join(dir, "dist")
	elsewhere := filepath.Join(dir, "my-downloads")
	mine := map[string]string{"report.pdf": "%PDF", "numerology-dataset-0.9.zip": "my own copy"}
	mkfiles(t, elsewhere, mine)
	if err := os.Symlink(elsewhere, filepath.Join(out, "downloads")); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "pack", "--dir", out, "--to", dist)
	if code != exitIO || !strings.Contains(errOut, "downloads") || !strings.Contains(errOut, "a link") {
		t.Errorf("pack into a linked downloads/: exit %d, stderr %q; want %d naming the link", code, errOut, exitIO)
	}
	checkFiles(t, userFiles(t, elsewhere, mine))
	if entries, _ := os.ReadDir(elsewhere); len(entries) != len(mine) {
		t.Errorf("the linked folder holds %d entries, want the user's %d", len(entries), len(mine))
	}

	if err := os.Remove(filepath.Join(out, "downloads")); err != nil {
		t.Fatal(err)
	}
	mkfiles(t, filepath.Join(out, "downloads"), mine)
	if code, _, errOut := run(t, "pack", "--dir", out, "--to", dist); code != 0 {
		t.Fatalf("pack: exit %d: %s", code, errOut)
	}
	checkFiles(t, userFiles(t, filepath.Join(out, "downloads"), mine))
	code, _, errOut = run(t, "generate", "--years", "2000", "--out", out)
	if code != exitIO || !strings.Contains(errOut, "downloads/numerology-dataset-0.9.zip, downloads/report.pdf") {
		t.Errorf("generate over the user's downloads: exit %d, stderr %q; want %d naming them", code, errOut, exitIO)
	}
}

// TestPackToInsideTree checks that pack refuses, before writing anything, a --to that is
// the tree or a folder inside it (exit 2), and that the tree still verifies. Before, pack
// wrote its archives into the tree with exit 0; then verify failed and generate refused
// the tree.
func TestPackToInsideTree(t *testing.T) {
	out := treeCopy(t)
	for _, to := range []string{out, filepath.Join(out, "releases"), filepath.Join(out, "downloads"), out + "/api/.."} {
		t.Run(to, func(t *testing.T) {
			code, _, errOut := run(t, "pack", "--dir", out, "--to", to)
			if code != exitUsage || !strings.Contains(errOut, "is inside the tree") {
				t.Errorf("exit %d, stderr %q; want %d saying --to is inside the tree", code, errOut, exitUsage)
			}
		})
	}
	if code, stdout, errOut := run(t, "verify", "--dir", out); code != 0 {
		t.Fatalf("verify after the refusals: exit %d: %s%s", code, stdout, errOut)
	}
	if _, err := os.Lstat(filepath.Join(out, "releases")); !os.IsNotExist(err) {
		t.Errorf("a refused pack made its --to: %v", err)
	}
}
