package generator

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/assetsignore"
)

// checkWorkerAssets reports what a Workers deploy of the tree would lack of what the
// worker reads, the check numerology deploy makes before any network call: a file the
// worker reads (derived from the manifest's route rows and edge config) that the tree's
// .assetsignore, read as wrangler reads it, leaves out, and an error body edge.json lacks.
// Each rule gets one problem, on the first file it leaves out, with the count of the rest;
// files the manifest does not list are reported by checkRoutes already.
func (v *verifier) checkWorkerAssets() {
	b, err := os.ReadFile(filepath.Join(v.dir, assetsignore.FileName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		v.add(ProblemCorrupt, assetsignore.FileName, "cannot read: %v", unwrapPath(err))
		return
	}
	ig, err := assetsignore.Parse(b)
	if err != nil {
		v.add(ProblemInvalid, assetsignore.FileName, "%v", err)
		return
	}
	files, problems := v.m.WorkerFiles()
	missing, err := assetsignore.Check(files, v.m.Listed(), ig)
	if err != nil {
		v.add(ProblemInvalid, assetsignore.FileName, "%v", err)
		return
	}
	for _, p := range problems {
		v.add(ProblemInvalid, manifest.EdgeFile, "%s", p)
	}
	first := map[*assetsignore.Rule]string{}
	count := map[*assetsignore.Rule]int{}
	var order []*assetsignore.Rule
	for _, m := range missing {
		if m.Kind != assetsignore.MissingIgnored {
			continue // a file the manifest does not list: checkRoutes reports it
		}
		if count[m.Rule] == 0 {
			first[m.Rule] = m.File
			order = append(order, m.Rule)
		}
		count[m.Rule]++
	}
	for _, r := range order {
		more := ""
		if n := count[r] - 1; n > 0 {
			more = fmt.Sprintf(" (and %d more files by the same rule)", n)
		}
		v.add(ProblemInvalid, first[r], "the worker reads it, but %s leaves it out of a Workers deploy%s", r, more)
	}
}
