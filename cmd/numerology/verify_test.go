package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
)

// TestVerifyRefusesPathsOutsideTheTree lists a file outside the tree in the manifest
// (../secret.txt, with its true size and sha256): verify must report the path as a problem
// (exit 4) without reading it, as serve refuses it. Before, verify read it, found it
// matching, and passed the tree.
func TestVerifyRefusesPathsOutsideTheTree(t *testing.T) {
	t.Parallel()
	out := treeCopy(t)
	dir := filepath.Dir(out)
	secret := []byte("NAME=secret\n")
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), secret, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(secret)
	m.SetFiles(manifest.File{Path: "../secret.txt", Size: int64(len(secret)), SHA256: hex.EncodeToString(sum[:])})
	if err := m.Write(out); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut := run(t, "verify", "--dir", out)
	if code != exitVerify || !strings.Contains(stdout, "invalid: ../secret.txt: not a path inside the tree") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want %d and the path refused", code, stdout, errOut, exitVerify)
	}
}
