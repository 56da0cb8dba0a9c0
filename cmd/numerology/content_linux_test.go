package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opennumerology/numerology/content"
)

// contentCopy writes the built-in content to a new directory and returns its path and the
// files' names.
func contentCopy(t *testing.T) (string, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "content")
	if err := os.CopyFS(dir, content.Embedded()); err != nil {
		t.Fatal(err)
	}
	var names []string
	err := fs.WalkDir(content.Embedded(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir, names
}

// TestDeepContentUnderMemoryLimit runs generate under a 2 GiB address-space limit on a
// --content whose 15 files each nest a block sequence 30,000 levels deep ("- - - … x",
// 60 KB). Each file must be refused with file:line and exit 3. Before the pre-scan counted
// block nesting, go-yaml built each file with about 1.4 GB, and generate died with "fatal
// error: out of memory".
func TestDeepContentUnderMemoryLimit(t *testing.T) {
	t.Parallel()
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Fatal("prlimit (util-linux) is needed to run generate under a memory limit")
	}
	// testscript.Main puts this test binary on PATH as "numerology" (TestMain).
	numerology, err := exec.LookPath("numerology")
	if err != nil {
		t.Fatal(err)
	}
	dir, names := contentCopy(t)
	deep := strings.Repeat("- ", 30000) + "x\n"
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(deep), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(prlimit, fmt.Sprintf("--as=%d", 2<<30), "--", numerology,
		"generate", "--content", dir, "--out", filepath.Join(t.TempDir(), "out"), "--years", "2000")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitContent {
		t.Fatalf("generate: %v, want exit %d; stderr:\n%.2000s", err, exitContent, stderr.String())
	}
	for _, name := range names {
		want := filepath.Join(dir, name) + ":1: nested deeper than 16 levels\n"
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%.2000s", want, stderr.String())
		}
	}
}

// TestGenerateRefusesPipeInContent puts a named pipe in place of a life path file. generate
// must refuse it (exit 3, file named) without opening it. Before, it opened the pipe and
// waited for a writer forever, deaf to Ctrl-C.
func TestGenerateRefusesPipeInContent(t *testing.T) {
	t.Parallel()
	dir, _ := contentCopy(t)
	pipe := filepath.Join(dir, "life-path", "3.yaml")
	if err := os.Remove(pipe); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := run(t, "generate", "--content", dir, "--out", filepath.Join(t.TempDir(), "out"), "--years", "2000")
		done <- result{code, stderr}
	}()
	select {
	case r := <-done:
		want := "numerology: content has 1 problem(s):\n" + pipe + ": not a regular file (a named pipe)\n"
		if r.code != exitContent || r.stderr != want {
			t.Fatalf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", r.code, r.stderr, exitContent, want)
		}
	case <-time.After(20 * time.Second):
		// Open the pipe's other end so that the blocked reader returns and the test ends.
		if f, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("generate blocked on a named pipe in --content")
	}
}
