package assetsignore

import (
	"fmt"
	"slices"

	"github.com/opennumerology/numerology/generator/manifest"
)

// Why a file the worker reads would be missing from a Workers upload.
const (
	MissingUnlisted = "unlisted" // the manifest does not list it, so no deploy uploads it
	MissingIgnored  = "ignored"  // .assetsignore leaves it out
	MissingEdge     = "edge"     // edge.json lacks what the worker reads from it
)

// Missing is one thing the worker reads that an upload of the tree would lack.
type Missing struct {
	Kind   string // MissingUnlisted, MissingIgnored or MissingEdge
	File   string // the tree path (edge.json for MissingEdge)
	Detail string // what is missing, for MissingEdge
	Rule   *Rule  // the rule that leaves File out, for MissingIgnored
}

func (m Missing) String() string {
	switch m.Kind {
	case MissingUnlisted:
		return m.File + " is not in the tree's manifest"
	case MissingIgnored:
		return m.File + " is left out by " + m.Rule.String()
	}
	return m.File + " " + m.Detail
}

// WorkerFiles returns the files of the tree the Cloudflare Worker reads, derived from the
// manifest's edge config as the worker derives them from edge.json: edge.json itself and
// mcp.json (the MCP endpoint's); for
// a route whose bodies are also packed (Route.Packed), the packed file of every value of
// the tree's years, which is all the worker reads of it; for any other route, the file of
// every value its parameter types admit. Error bodies are no file of their own to the
// worker: it answers them from edge.json. problems lists what of the edge config the worker
// needs and lacks (an error body, a parameter type it does not know).
func WorkerFiles(m *manifest.Manifest) (files []string, problems []Missing) {
	edge := &m.Edge
	files = []string{manifest.EdgeFile, manifest.MCPFile} // mcp.json: the MCP endpoint's tools (docs/mcp.md)
	bad := func(format string, args ...any) {
		problems = append(problems, Missing{Kind: MissingEdge, File: manifest.EdgeFile, Detail: fmt.Sprintf(format, args...)})
	}
	for _, r := range edge.Routes {
		known := true
		for _, p := range r.Params {
			if p.Arity() == 0 {
				bad("gives route %s the parameter type %q, which the worker does not know", r.Name, p.Type)
				known = false
			}
		}
		if !known {
			continue
		}
		if r.Packed != nil {
			for _, y := range m.Years {
				files = append(files, r.PackedFiles(y)...)
			}
			continue
		}
		for _, v := range r.Values(m.Years) {
			files = append(files, r.FilePath(v))
		}
	}
	ee := edge.EdgeErrors
	keys := []string{ee.NotFound, ee.MethodNotAllowed, ee.TooManyRequests, ee.Internal}
	for _, r := range edge.Routes {
		if r.Error != "" && !slices.Contains(keys, r.Error) {
			keys = append(keys, r.Error)
		}
	}
	for _, k := range keys {
		if e, ok := edge.Errors[k]; !ok || e.Body == "" {
			bad("has no body for the error %s, which the worker answers", k)
		}
	}
	return files, problems
}

// Check returns, in the order of WorkerFiles, everything the worker reads that a Workers
// upload of the tree described by m would lack when ig decides what is left out: files
// the manifest does not list, files ig ignores (with the rule) and the problems of the
// edge config. A file of a packed route counts as listed when the root lists its shard
// (whose own check says whether the shard lists it). The error is the matcher's
// (ErrTooMuchWork).
func Check(m *manifest.Manifest, ig *Matcher) ([]Missing, error) {
	files, problems := WorkerFiles(m)
	listed := m.Index()
	var out []Missing
	for _, f := range files {
		if _, inShard := m.Shard(m.Edge.ShardOf(f)); listed[f] == nil && !inShard {
			out = append(out, Missing{Kind: MissingUnlisted, File: f})
			continue
		}
		r, err := ig.Why(f)
		if err != nil {
			return nil, err
		}
		if r != nil {
			out = append(out, Missing{Kind: MissingIgnored, File: f, Rule: r})
		}
	}
	return append(out, problems...), nil
}
