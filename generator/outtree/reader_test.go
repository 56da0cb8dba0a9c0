package outtree

import (
	"bytes"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// TestDirReader reads files of a small tree: regular files of several folders and sizes
// (one larger than the buffer handed in, one empty), and the things verify must not read —
// a link to a file outside, a FIFO (which must not block), a socket, a folder — which come
// back as not regular, without an error; a missing file or folder is fs.ErrNotExist.
func TestDirReader(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.json")
	big := bytes.Repeat([]byte("0123456789"), 10_000)
	files := map[string][]byte{
		"index.html":                    []byte("<!doctype html>"),
		"api/public/matrix/2000/01.txt": []byte("a\nb\n"),
		"api/public/matrix/2000/02.txt": big,
		"api/public/empty.json":         nil,
	}
	for rel, b := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(outside, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	special := []string{"api/public/link.json", "api/public/matrix"}
	if err := os.Symlink(outside, filepath.Join(root, "api/public/link.json")); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if err := syscall.Mkfifo(filepath.Join(root, "api/public/fifo.json"), 0o644); err != nil {
			t.Fatal(err)
		}
		special = append(special, "api/public/fifo.json")
		sock := filepath.Join(root, "api/public/sock.json")
		l, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		special = append(special, "api/public/sock.json")
	}

	rd := NewDirReader(root)
	defer rd.Close()
	var buf []byte
	// In an order that goes back and forth between folders.
	for _, rel := range []string{"api/public/matrix/2000/01.txt", "index.html", "api/public/matrix/2000/02.txt", "api/public/matrix/2000/01.txt", "api/public/empty.json"} {
		b, regular, err := rd.ReadFile(rel, buf)
		if err != nil || !regular || !bytes.Equal(b, files[rel]) {
			t.Errorf("ReadFile(%s): %d bytes, regular %v, %v; want its %d bytes", rel, len(b), regular, err, len(files[rel]))
		}
		buf = b
	}
	for _, rel := range special {
		b, regular, err := rd.ReadFile(rel, buf)
		if err != nil || regular || b != nil {
			t.Errorf("ReadFile(%s): %q, regular %v, %v; want not read, not regular, no error", rel, b, regular, err)
		}
	}
	for _, rel := range []string{"api/public/none.json", "api/none/x.json", "none/deeper/x.json"} {
		_, _, err := rd.ReadFile(rel, buf)
		var pe *fs.PathError
		if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Path != rel {
			t.Errorf("ReadFile(%s): %v; want a path error naming it that matches fs.ErrNotExist", rel, err)
		}
	}
}
