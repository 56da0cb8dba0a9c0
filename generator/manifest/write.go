package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	json "github.com/goccy/go-json"
)

// SetFiles adds files to the root of the manifest, replacing any entry with the same path,
// keeps Files sorted by path and updates Counts.Files and Counts.Bytes.
func (m *Manifest) SetFiles(files ...File) {
	byPath := make(map[string]File, len(files))
	for _, f := range files {
		byPath[f.Path] = f
	}
	kept := make([]File, 0, len(m.Files)+len(byPath))
	for _, f := range m.Files {
		if _, ok := byPath[f.Path]; !ok {
			kept = append(kept, f)
			continue
		}
		m.Counts.Files--
		m.Counts.Bytes -= f.Size
	}
	for _, f := range byPath {
		kept = append(kept, f)
		m.Counts.Files++
		m.Counts.Bytes += f.Size
	}
	m.Files = kept
	slices.SortFunc(m.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
}

// RemoveUnder drops every file of the root below the directory dir (a tree path without a
// trailing slash) and updates the counts. It returns the paths removed.
func (m *Manifest) RemoveUnder(dir string) []string {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	var removed []string
	kept := m.Files[:0:0]
	for _, f := range m.Files {
		if strings.HasPrefix(f.Path, prefix) {
			removed = append(removed, f.Path)
			m.Counts.Files--
			m.Counts.Bytes -= f.Size
			continue
		}
		kept = append(kept, f)
	}
	m.Files = kept
	return removed
}

// Encode renders the manifest as the generator does: compact JSON, <>& unescaped, one
// trailing newline.
func (m *Manifest) Encode() ([]byte, error) {
	if m.full {
		return nil, errors.New("encode manifest: a manifest from LoadFull holds its shards' files: write the root from Load")
	}
	b, err := json.MarshalWithOption(m, json.DisableHTMLEscape())
	if err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	return append(b, '\n'), nil
}

// Write replaces dir/manifest.json atomically: it writes a temporary file beside it and
// renames it into place, so a reader sees the old manifest or the new one, never a part.
func (m *Manifest) Write(dir string) error {
	b, err := m.Encode()
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, FileName), b, 0o644)
}

// WriteFileAtomic writes data to a temporary file in path's directory, syncs it and renames
// it to path.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	return nil
}
