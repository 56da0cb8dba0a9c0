package generator

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/outtree"
)

// TestGenerateReplacesOnlyItsOwnTree runs generate through the tree writer's ownership
// check end to end (the protocol itself is tested in outtree, on small trees): a generated
// tree with the user's files in subfolders is refused with an *IOError holding the
// *outtree.RefusedError, before anything is written, and --force replaces it, names the
// user's files and leaves the new tree and nothing beside it.
func TestGenerateReplacesOnlyItsOwnTree(t *testing.T) {
	dir := t.TempDir()
	out := generate(t, dir, 2000)
	mine := map[string]string{"notes.txt": "mine", "assets/my-logo.png": "\x89PNG", "api/notes.txt": "n"}
	for rel, body := range mine {
		p := filepath.Join(out, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before, err := os.ReadFile(filepath.Join(out, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Generate(context.Background(), Options{Site: testSite(t), Out: out, Years: []int{2001}})
	var ioErr *IOError
	var refused *outtree.RefusedError
	if !errors.As(err, &ioErr) || !errors.As(err, &refused) || !strings.HasPrefix(err.Error(), "refusing to replace "+out+": ") {
		t.Fatalf("Generate error = %v, want an IOError refusing to replace %s", err, out)
	}
	want := []string{"api/notes.txt", "assets/my-logo.png", "notes.txt"}
	if !slices.Equal(refused.Files, want) {
		t.Errorf("RefusedError.Files = %q, want %q", refused.Files, want)
	}
	if after, err := os.ReadFile(filepath.Join(out, manifest.FileName)); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the refused run changed the manifest (%v)", err)
	}
	for rel, body := range mine {
		if b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel))); err != nil || string(b) != body {
			t.Errorf("the refused run changed %s: %q, %v", rel, b, err)
		}
	}

	sum, err := Generate(context.Background(), Options{Site: testSite(t), Out: out, Years: []int{2001}, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sum.Deleted, want) {
		t.Errorf("Summary.Deleted = %q, want %q", sum.Deleted, want)
	}
	m, err := manifest.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Years, []int{2001}) {
		t.Errorf("the forced tree holds the years %v, want [2001]", m.Years)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Errorf("beside the tree: %v, %v; want only out", entries, err)
	}
}
